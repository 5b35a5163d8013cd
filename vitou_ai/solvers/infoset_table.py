"""Lossless packing of the kernel's information-state key into four int64 words,
for hash tables keyed by information state (numba typed Dict or open addressing).

Word 0: seat, dealer, scores, own hand, partner's hand, gestures, token count;
words 1-3: up to 36 action tokens of 5 bits. See ``rules.layout.K_*``.
"""

from __future__ import annotations

import numpy as np

from .._numba import jit
from ..rules.layout import K_GEST, K_HAND, K_NTOK, K_PARTNER, K_TOK, MAX_TOKENS
from ..rules.layout import KEY_HAND as MAX_HAND

assert MAX_TOKENS <= 36


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
    for i in range(min(n, 12)):
        w1 = (w1 << 5) | np.int64(key[K_TOK + i])
    for i in range(12, min(n, 24)):
        w2 = (w2 << 5) | np.int64(key[K_TOK + i])
    for i in range(24, n):
        w3 = (w3 << 5) | np.int64(key[K_TOK + i])
    return (w0, w1, w2, w3)
