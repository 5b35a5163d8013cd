from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def rdtsc(typingctx):
    sig = types.int64()
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])
    return sig, codegen

if __name__ == "__main__":
    @njit
    def f(n):
        a = 0
        t = rdtsc()
        for i in range(n):
            t1 = rdtsc()
            a += rdtsc() - t1
        return a / n, (rdtsc() - t) / n
    print(f(10), f(1000000))
