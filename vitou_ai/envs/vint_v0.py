"""``vint_v0``: Vint's PettingZoo AEC environment (as ``pettingzoo.classic.leduc_holdem_v4``)."""

from .vint import env, raw_env

__all__ = ["env", "raw_env"]
