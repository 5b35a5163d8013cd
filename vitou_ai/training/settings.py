"""The settings of a training run, typed and frozen, and the one error the trainers raise.

:class:`PointsSettings` drives the trainer of the points objective on the real game
(:mod:`vitou_ai.training.points`: the flat-tree, public-tree, sampling and OpenSpiel
solvers of :data:`vitou_ai.solvers.registry.SOLVERS`); :class:`AbstractSettings` the
four-player abstract trainer (:mod:`vitou_ai.training.abstract`). A field left ``None``
takes its default (:data:`RUN_DEFAULTS`, :data:`ABSTRACT_OPTIONS`) in a new run and the
run's own value (from its ``run.json``) in a resumed one, where a value given that differs
from the run's is refused. Every check is made before any work, each failure one
:class:`TrainingError` line whose words are the command line's flags (``--eval-deals``),
the names a user of ``vitou-ai train`` sees.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ..rules.params import VitouParams


class TrainingError(ValueError):
    """A training run refused: bad settings, a run folder that cannot be resumed, a tree
    too large, a table full, a file that cannot be written. The message is one line
    (``vitou-ai train`` prints it after ``vitou-ai train: ``).

    Attributes:
        during_run: the error came after the run had started (a progress line may be
            open on the terminal: the command starts its message on a new line).
    """

    def __init__(self, message: str, during_run: bool = False):
        super().__init__(message)
        self.during_run = during_run


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; the run folder was left consistent (an empty folder the run
    made is removed). ``kept``: what was kept, one clause
    (``"nothing was saved yet"``)."""

    def __init__(self, kept: str):
        super().__init__(kept)
        self.kept = kept


DEFAULT_BOTS = ("random", "cautious", "bluffer", "counter")

#: the largest tree a sampling solver builds with ``exact="auto"`` (only for the exact
#: evaluation, so only trees quick to build; ``exact="yes"`` builds to ``max_tree_nodes``)
AUTO_TREE_NODES = 2_000_000

#: The settings that make a run, with their defaults: the game, the solver, the evaluation.
#: A resume takes them from the run's ``run.json``; a value given that differs is refused.
#: The length of the run (``iterations``, ``time``), ``eval_every``, ``max_tree_nodes``
#: and ``no_progress`` may change from one resume to the next.
RUN_DEFAULTS: dict[str, Any] = {
    "profile": "vitou_2p", "ranks": None, "copies": 4, "hand_size": 2, "dealer": -1,
    "score0": 0, "score1": 0, "target": None, "early_end": "card", "signals": False,
    "signal_seen": 0.5,
    "solver": "dcfr", "tables": "float64", "seed": 0, "max_infosets": 1 << 22,
    "eval_deals": 20000, "bots": list(DEFAULT_BOTS), "exact": "auto",
}
GAME_SETTINGS = ("profile", "ranks", "copies", "hand_size", "dealer", "score0", "score1",
                 "target", "early_end", "signals", "signal_seen")

#: options of the abstract trainer only, and their defaults (refused with another solver:
#: they used to be ignored silently)
ABSTRACT_OPTIONS = {"threads": 2, "evals": 6, "eval_matches": 2000, "lbr_deals": 200,
                    "lbr_samples": 12, "pruning": "off", "traversal": "es"}

#: the default solver of a four-player game the abstract trainer refuses (it samples the
#: full game: no abstraction, no tree)
FULL_GAME_DEFAULT = "es-mccfr"


#: what a settings field's annotation admits (``None`` too where it says ``| None``)
_ADMITS = {"int": ((int,), "an integer"), "float": ((int, float), "a number"),
           "str": ((str,), "a string"), "bool": ((bool,), "True or False"),
           "tuple[str, ...]": ((tuple, list), "a tuple of strings"),
           "Path": ((str, Path), "a path")}


def check_field_types(settings: Any) -> None:
    """Refuse, in one line, a settings field whose value is not of its annotated type
    (``iterations="x"``): a Python caller gets :class:`TrainingError` before any work,
    as the command line's parser does for a flag.

    Raises:
        TrainingError: the first field of the wrong type.
    """
    for f in fields(settings):
        value = getattr(settings, f.name)
        kind = str(f.type).removesuffix(" | None")
        if kind not in _ADMITS or (value is None and str(f.type).endswith("| None")):
            continue
        types, what = _ADMITS[kind]
        ok = isinstance(value, types) and (kind == "bool" or not isinstance(value, bool))
        if ok and kind == "tuple[str, ...]":
            ok = all(isinstance(v, str) for v in value)
        if not ok:
            raise TrainingError(f"{type(settings).__name__}.{f.name}: expected {what}, "
                                f"got {value!r}")


@dataclass(frozen=True)
class PointsSettings:
    """A run of the points objective (points per deal at the given score, R8.1) with a
    solver of :data:`vitou_ai.solvers.registry.SOLVERS` on the real game's information
    states.

    Game (``None``: :data:`RUN_DEFAULTS`, or the resumed run's): ``profile`` (RULES.md
    section 9), ``ranks`` (the top N ranks of the deck; ``None``: the whole deck),
    ``copies``, ``hand_size``, ``dealer`` (-1: drawn by chance), ``score0`` / ``score1``
    (points before the deal), ``target`` (match target, R6), ``early_end`` (``"card"`` or
    ``"trick"``, R3.2), ``signals`` (R7), ``signal_seen`` (probability in 0 .. 1, R7.2).

    Solver and evaluation: ``solver`` (a name of the registry), ``tables`` (the
    public-tree solvers' table type, ``"float64"`` or ``"float32"``,
    :data:`vitou_ai.solvers.public.cfr.TABLE_DTYPES`), ``seed`` (0 .. 2**31-1:
    MCCFR samples and evaluation deals), ``max_infosets`` (MCCFR table rows, >= 1),
    ``eval_deals`` (deals per bot per evaluation, >= 2, duplicate), ``bots`` (bot specs of
    :func:`vitou_ai.bots.named.parse_bot`, at least one), ``exact`` (``"auto"``,
    ``"yes"``, ``"no"``: exact exploitability / NashConv on the full tree).

    Length: ``iterations`` (in all, >= 1; ``None``: the solver's default, or the run's),
    ``eval_every`` (iterations between evaluations, >= 1; ``None``: iterations / 10),
    ``time`` (seconds of solver time in all, > 0), ``max_tree_nodes`` (>= 1; public
    trees below 2**31).

    Run folder: ``out`` (``None``: a new ``runs/<profile>-<solver>-<time>``), ``resume``
    (continue the run in ``out`` with its own settings), ``no_progress`` (no progress bar;
    there is none when stderr is not a terminal), ``command`` (the command line recorded
    in ``run.json``).
    """

    profile: str | None = None
    ranks: int | None = None
    copies: int | None = None
    hand_size: int | None = None
    dealer: int | None = None
    score0: int | None = None
    score1: int | None = None
    target: int | None = None
    early_end: str | None = None
    signals: bool | None = None
    signal_seen: float | None = None
    solver: str | None = None
    tables: str | None = None
    seed: int | None = None
    max_infosets: int | None = None
    eval_deals: int | None = None
    bots: tuple[str, ...] | None = None
    exact: str | None = None
    iterations: int | None = None
    eval_every: int | None = None
    time: float | None = None
    max_tree_nodes: int = 30_000_000
    out: Path | None = None
    resume: bool = False
    no_progress: bool = False
    command: str = ""

    def __post_init__(self) -> None:
        check_field_types(self)

    def given(self) -> dict[str, Any]:
        """The run settings (keys of :data:`RUN_DEFAULTS`) given, i.e. not ``None``."""
        return {k: getattr(self, k) for k in RUN_DEFAULTS if getattr(self, k) is not None}


@dataclass(frozen=True)
class AbstractSettings:
    """A run of the four-player abstract trainer (abstract ES-MCCFR,
    :mod:`vitou_ai.solvers.sampling.mccfr_abstract`, on the abstraction of
    :mod:`vitou_ai.abstraction`).

    ``params``: the game (four players); ``abstraction``: its knobs as typed
    (``"count=1,trick=exact"``, docs/abstraction.md; ``None``: the defaults); ``bots``,
    ``seed``, ``eval_deals`` (>= 2), ``max_infosets`` (>= 1) as in
    :class:`PointsSettings`; ``threads`` (1 .. the machine's cores), ``evals`` (>= 1),
    ``eval_matches`` (>= 0), ``lbr_deals`` (0 or >= 2), ``lbr_samples`` (at least
    :data:`vitou_ai.eval.lbr.MIN_SAMPLES`), ``pruning`` (``"on"`` / ``"off"``),
    ``traversal`` (one of :data:`vitou_ai.solvers.sampling.mccfr_abstract.TRAVERSALS`:
    ``"es"``, ``"team"``, ``"hands"``);
    ``iterations`` (a multiple of ``threads``) or ``time`` (seconds of solver time;
    3000 when neither is given); ``exact`` (``"yes"`` is refused: no tree);
    ``out``, ``resume``, ``command`` as in :class:`PointsSettings`.
    """

    params: Any  # a VitouParams
    abstraction: str | None = None
    bots: tuple[str, ...] = DEFAULT_BOTS
    seed: int = 0
    eval_deals: int = 20000
    max_infosets: int = 8_000_000
    threads: int = ABSTRACT_OPTIONS["threads"]
    evals: int = ABSTRACT_OPTIONS["evals"]
    eval_matches: int = ABSTRACT_OPTIONS["eval_matches"]
    lbr_deals: int = ABSTRACT_OPTIONS["lbr_deals"]
    lbr_samples: int = ABSTRACT_OPTIONS["lbr_samples"]
    pruning: str = ABSTRACT_OPTIONS["pruning"]
    traversal: str = ABSTRACT_OPTIONS["traversal"]
    iterations: int | None = None
    time: float | None = None
    exact: str | None = None
    out: Path | None = None
    resume: bool = False
    command: str = ""

    def __post_init__(self) -> None:
        check_field_types(self)


def show_setting(value: Any) -> str:
    """A setting as typed on the command line (``"random cautious"``, ``"on"``)."""
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value)
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _given(settings: PointsSettings) -> dict[str, Any]:
    """The run settings given (not ``None``), the bots as a list of single specs."""
    from ..bots.named import split_bot_specs

    given = settings.given()
    if "bots" in given:
        bots = given["bots"]
        try:
            given["bots"] = split_bot_specs([bots] if isinstance(bots, str) else list(bots))
        except ValueError as e:
            raise TrainingError(str(e)) from None
    return given


def _recorded_settings(saved: dict[str, Any], where: Path) -> dict[str, Any]:
    """The settings of a run from its ``run.json`` (``settings``; for runs written before
    it existed, rebuilt from ``params``, ``solver``, ``seed``, ``eval_deals``, ``bots``).

    Raises:
        TrainingError: a record without them.
    """
    if isinstance(saved.get("settings"), dict):
        return dict(saved["settings"])
    try:
        knobs = dict(saved["params"])
        params = VitouParams(**{k: tuple(v) if k == "scores" else v for k, v in knobs.items()})
        out = {k: getattr(params, k) for k in GAME_SETTINGS if hasattr(params, k)}
        out["score0"], out["score1"] = params.scores
        for k in ("solver", "seed", "eval_deals", "bots"):
            out[k] = saved[k]
    except (KeyError, TypeError, ValueError) as e:
        raise TrainingError(f"--resume: {where} does not record the run's settings ({e})") from None
    return out


def resolve(settings: PointsSettings, saved: dict[str, Any] | None,
              where: Path) -> dict[str, Any]:
    """The run's settings: a new run's from the flags over :data:`RUN_DEFAULTS`; a resumed
    run's from its record, where a flag that differs is refused.

    Raises:
        TrainingError: a flag that conflicts with the resumed run's settings.
    """
    given = _given(settings)
    if saved is None:
        return {**RUN_DEFAULTS, **given}
    recorded = _recorded_settings(saved, where)
    for k, v in given.items():
        if k in recorded and v != recorded[k]:
            flag = "--" + k.replace("_", "-")
            raise TrainingError(f"{flag} {show_setting(v)} conflicts with the run's {show_setting(recorded[k])} "
                                f"({where}): leave it out to resume the run as it was")
    return {**RUN_DEFAULTS, **given, **recorded}


def game_params(s: dict[str, Any]) -> VitouParams:
    """The game of resolved settings ``s`` (keys of :data:`RUN_DEFAULTS`).

    Raises:
        ValueError, TypeError: settings :class:`~vitou_ai.rules.params.VitouParams`
            refuses, or a game knob the profile does not have set off its default
            (``--early-end trick`` for ``put_willughby``, P7.2; ``--signal-seen`` for a
            game without signals, R7), which would otherwise be ignored."""
    from ..rules.params import profile_knobs

    try:
        knobs = profile_knobs(s["profile"])
    except KeyError:
        knobs = None  # an unknown profile: VitouParams names the profiles
    for name, why in (("early_end", "docs/RULES_family.md P7.2: a deal ends at the end of "
                       "a trick whatever its value"),
                      ("signal_seen", "R7: gestures are a four-player Vitou knob")):
        if knobs is not None and name not in knobs and s[name] != RUN_DEFAULTS[name]:
            raise ValueError(f"--{name.replace('_', '-')} is not a knob of {s['profile']} "
                             f"({why}); its knobs: {', '.join(knobs)}")
    return VitouParams(profile=s["profile"], ranks=s["ranks"], copies=s["copies"],
                       hand_size=s["hand_size"], dealer=s["dealer"],
                       scores=(s["score0"], s["score1"]), target=s["target"],
                       early_end=s["early_end"], signals=s["signals"],
                       signal_seen=s["signal_seen"])


def field_names(cls) -> tuple[str, ...]:
    """The field names of a settings class (what the command line maps its flags onto)."""
    return tuple(f.name for f in fields(cls))
