"""An atomic compare-and-swap for numba, for tables shared between threads."""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def cas_u64(typingctx, arr, idx, expected, desired):
    """``old = arr[idx]; if old == expected: arr[idx] = desired; return old``, atomically
    (LLVM ``cmpxchg``, sequentially consistent). ``arr`` is a C-contiguous ``uint64`` array."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.uint64):
        return None
    sig = types.uint64(arr, types.intp, types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        arr_t = signature.args[0]
        a, i, e, d = args
        ary = context.make_array(arr_t)(context, builder, a)
        ptr = cgutils.get_item_pointer(context, builder, arr_t, ary, [i])
        res = builder.cmpxchg(ptr, e, d, "seq_cst", "seq_cst")
        return builder.extract_value(res, 0)

    return sig, codegen
