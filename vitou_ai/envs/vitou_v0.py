"""``vitou_v0``: the PettingZoo AEC environment (as ``pettingzoo.classic.leduc_holdem_v4``)."""

from .aec import env, raw_env

__all__ = ["env", "raw_env"]
