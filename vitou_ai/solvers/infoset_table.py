"""Lossless packing of the kernel's information-state key into four int64 words,
for hash tables keyed by information state (numba typed Dict or open addressing).

Word 0: seat, dealer, scores, own hand, partner's hand, gestures, token count (61 bits);
words 1-3: up to 36 action tokens of 5 bits. A key with a token of 32 or more (the action
ids of partnership Put, 31..45, and Willughby's Put, up to 47: ``rules.layout``) does not
fit 5 bits: it sets bit 62 of word 0 and packs its tokens 6 bits each as one 192-bit
stream over words 1-3 (32 tokens at most, ``MAX_TOKENS``), so the two encodings never
meet and keys whose tokens are all below 32 pack as they always did. See
``rules.layout.K_*``.
"""

from __future__ import annotations

import numpy as np

from .._numba import jit
from ..rules.layout import K_GEST, K_HAND, K_NTOK, K_PARTNER, K_TOK, MAX_TOKENS
from ..rules.layout import KEY_HAND as MAX_HAND

assert MAX_TOKENS <= 32  # the wide encoding's 192-bit stream


@jit
def pack_key(key):
    """``int8[KEY_SIZE]`` -> ``(int64, int64, int64, int64)``; lossless for valid keys."""
    w0 = np.int64(key[0])  # seat 0..3: 2 bits
    w0 = (w0 << 3) | (key[1] + 1)  # dealer -1..3
    w0 = (w0 << 7) | key[2]  # score0 0..98
    w0 = (w0 << 7) | key[3]  # score1
    for i in range(MAX_HAND):
        w0 = (w0 << 4) | (key[K_HAND + i] + 1)
    for i in range(MAX_HAND):
        w0 = (w0 << 4) | (key[K_PARTNER + i] + 1)
    for i in range(4):
        w0 = (w0 << 3) | (key[K_GEST + i] + 1)
    w0 = (w0 << 6) | key[K_NTOK]
    n = np.int64(key[K_NTOK])
    w1 = np.int64(0)
    w2 = np.int64(0)
    w3 = np.int64(0)
    wide = False
    for i in range(n):
        if key[K_TOK + i] >= 32:
            wide = True
    if wide:  # 6 bits a token, token i at bits 6i .. 6i+5 of the stream w1 w2 w3
        for i in range(n):
            t = np.int64(key[K_TOK + i])
            b = 6 * i
            sh = b & 63
            lo = t << sh
            hi = t >> (64 - sh) if sh > 58 else np.int64(0)
            if b < 64:
                w1 |= lo
                w2 |= hi
            elif b < 128:
                w2 |= lo
                w3 |= hi
            else:
                w3 |= lo
        return (w0 | (np.int64(1) << 62), w1, w2, w3)
    for i in range(min(n, 12)):
        w1 = (w1 << 5) | np.int64(key[K_TOK + i])
    for i in range(12, min(n, 24)):
        w2 = (w2 << 5) | np.int64(key[K_TOK + i])
    for i in range(24, n):
        w3 = (w3 << 5) | np.int64(key[K_TOK + i])
    return (w0, w1, w2, w3)
