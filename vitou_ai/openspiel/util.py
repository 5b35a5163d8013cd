"""What the Python OpenSpiel games of vitou_ai (``python_vitou``, ``python_vint``) share:
their ``GameType``, the parameter dict's checking and ``load_game`` string, and the
observers' flat tensor with named pieces. Needs OpenSpiel (``pyspiel``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel


def game_type(short_name: str, long_name: str, min_players: int, max_players: int,
              defaults: dict[str, Any]) -> pyspiel.GameType:
    """The ``GameType`` of a sequential, explicit-chance, imperfect-information,
    zero-sum game with terminal rewards that provides information-state and
    observation strings and tensors; ``defaults`` is its parameter specification."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(defaults),
    )


def with_defaults(short_name: str, d: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """``defaults`` updated with the parameter dict ``d``.

    Raises:
        ValueError: ``"<short_name>: unknown parameter(s) [...]; known: [...]"``.
    """
    unknown = sorted(set(d) - set(defaults))
    if unknown:
        raise ValueError(f"{short_name}: unknown parameter(s) {unknown}; known: {sorted(defaults)}")
    return {**defaults, **d}


def load_string(short_name: str, d: dict[str, Any]) -> str:
    """``"short_name(k=v,...)"`` for ``pyspiel.load_game``; booleans as ``true``/``false``."""
    args = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in d.items())
    return f"{short_name}({args})"


class Pieces:
    """A flat float32 tensor and named views into it (the PyObserver layout).

    Args:
        pieces: ``(name, shape)`` in tensor order.
    """

    def __init__(self, pieces: list[tuple[str, tuple[int, ...]]]):
        total = sum(int(np.prod(shape)) for _, shape in pieces)
        self.tensor = np.zeros(total, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        i = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[i : i + size].reshape(shape)
            i += size
