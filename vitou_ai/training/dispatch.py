"""Which trainer runs a training, chosen once from explicit settings, and one entry point
for all of them (:func:`train`, by the settings' class: :data:`TRAINERS`).

The match objective has a trainer per number of players (:func:`match_trainer`).

The points objective has two trainers: :func:`~vitou_ai.training.points.train_points`
(every solver of :data:`vitou_ai.solvers.registry.SOLVERS` but the abstract one, on the
real game) and :func:`~vitou_ai.training.abstract.train_abstract` (``abstract-mccfr``,
the default of every four-player profile the abstraction takes). :func:`choose_trainer`
maps a :class:`~vitou_ai.training.settings.PointsSettings` and the abstract trainer's own
options onto the settings of the one that runs: a resumed run is routed by its own
``run.json`` (its ``solver``), a new run by its solver and its game's number of players.
:func:`train` then runs it (:data:`TRAINERS`).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..rules.params import VitouParams
from ..solvers.registry import names
from .settings import (
    ABSTRACT_OPTIONS,
    DEFAULT_BOTS,
    FULL_GAME_DEFAULT,
    RUN_DEFAULTS,
    AbstractSettings,
    PointsSettings,
    TrainingError,
    game_params,
)

#: the abstract trainer's solver name on the command line, and in its ``run.json``
ABSTRACT = names("abstract")[0]
ABSTRACT_RECORDED = "abstract-es-mccfr"


def four_players(profile: str) -> bool:
    """Whether ``profile`` is a four-player game (an unknown profile: ``False``; the
    points trainer refuses it with its own message)."""
    try:
        return VitouParams(profile=profile).players == 4
    except (TypeError, ValueError):
        return False


#: the solver of a new two-player run given no ``--solver``, where the public tree takes
#: the game: DCFR on the public tree reaches exploitability 1e-4 on the defaults' game
#: (``vitou_2p``, 2-card hands, dealer drawn) in the same iterations as flat DCFR and
#: x0.20 its solver time (docs/results/regret-minimisers.md, the flat tree's solvers);
#: flat DCFR (``RUN_DEFAULTS``) where the public tree refuses the game
TWO_PLAYER_DEFAULT = "public-dcfr"
#: ``put_willughby``'s deck in ``vitou-ai train`` when ``--ranks`` is not given: its top 6
#: ranks (``3 2 A K Q J``, P7.0) x 4 copies; with the default 2-card hands the flat tree has
#: 3.4 million nodes and flat DCFR solves it (the whole deck's tree does not fit)
WILLUGHBY_RANKS = 6
#: the largest flat tree (nodes) on which ``vitou-ai train --profile put_willughby`` picks
#: flat DCFR when no ``--solver`` is given; larger variants take :data:`FULL_GAME_DEFAULT`
WILLUGHBY_FLAT_NODES = 8_000_000


def _willughby_default(settings: PointsSettings, out) -> PointsSettings:
    """A new ``put_willughby`` run's defaults (P7.0: each for themselves, so neither the
    abstraction nor the public tree takes it): ``ranks`` :data:`WILLUGHBY_RANKS` when not
    given; with no ``solver``, ``dcfr`` when the variant's flat tree has at most
    :data:`WILLUGHBY_FLAT_NODES` nodes (built once to count it), else
    :data:`FULL_GAME_DEFAULT`. Each choice is said on ``out``."""
    from ..solvers.flat.tree import build_tree

    if settings.ranks is None:
        labels = " ".join(VitouParams(profile="put_willughby").rank_labels[:WILLUGHBY_RANKS])
        print(f"vitou-ai train: put_willughby's default deck: the top {WILLUGHBY_RANKS} ranks "
              f"({labels}); pass --ranks 13 for the whole deck", file=out, flush=True)
        settings = replace(settings, ranks=WILLUGHBY_RANKS)
    if settings.solver is not None:
        return settings
    try:
        params = game_params({**RUN_DEFAULTS, **settings.given()})
    except (ValueError, TypeError):
        return settings  # the trainer refuses the game, in its own words
    try:
        nodes = build_tree(params, max_nodes=WILLUGHBY_FLAT_NODES).num_nodes
    except ValueError:  # larger than the limit (or a decision wider than the flat tables)
        nodes = None
    solver = "dcfr" if nodes is not None else FULL_GAME_DEFAULT
    why = (f"its flat tree has {nodes:,} nodes" if nodes is not None else
           f"its flat tree has more than {WILLUGHBY_FLAT_NODES:,} nodes")
    print(f"vitou-ai train: solver {solver} (put_willughby's default: {why}); pass --solver "
          "to choose another", file=out, flush=True)
    return replace(settings, solver=solver)


def _two_player_default(settings: PointsSettings, out) -> PointsSettings:
    """A new two-player run's solver when none is given: :data:`TWO_PLAYER_DEFAULT` where
    the public tree takes the game, else flat DCFR (``RUN_DEFAULTS``), said on ``out``
    with the public tree's reason (:func:`~vitou_ai.solvers.public.tree.check_public_params`;
    it takes every two-player profile today)."""
    from ..solvers.public.tree import check_public_params

    try:
        params = game_params({**RUN_DEFAULTS, **settings.given()})
    except (ValueError, TypeError):
        return settings  # the trainer refuses the game, in its own words
    if params.players != 2:
        return settings
    try:
        check_public_params(params)
    except ValueError as e:
        print(f"vitou-ai train: solver {RUN_DEFAULTS['solver']} (the two-player default, "
              f"{TWO_PLAYER_DEFAULT}, does not take this game: {e}); pass --solver to choose "
              "another", file=out, flush=True)
        return replace(settings, solver=RUN_DEFAULTS["solver"])
    return replace(settings, solver=TWO_PLAYER_DEFAULT)


def _full_game_default(settings: PointsSettings, out) -> PointsSettings:
    """``settings`` with the defaults of a new run that depend on the game: those of
    ``put_willughby`` (:func:`_willughby_default`); of a two-player game
    (:func:`_two_player_default`); and ``solver`` :data:`FULL_GAME_DEFAULT` when none is
    given and the game has four players but the abstract trainer (the four-player
    default) refuses it (:mod:`vitou_ai.capabilities`: partnership Put); each fallback is
    printed on ``out``. Otherwise ``settings`` unchanged."""
    from ..capabilities import cell

    profile = settings.profile or RUN_DEFAULTS["profile"]
    if not settings.resume and profile == "put_willughby":
        return _willughby_default(settings, out)
    if settings.solver is not None or settings.resume:
        return settings
    if not four_players(profile):
        return _two_player_default(settings, out)
    c = cell(profile, "abstract")
    if c.works:
        return settings
    print(f"vitou-ai train: solver {FULL_GAME_DEFAULT} (the four-player default, "
          f"{ABSTRACT}, does not take {profile}: {c.reason}); pass --solver to choose another",
          file=out, flush=True)
    return replace(settings, solver=FULL_GAME_DEFAULT)


def _recorded_abstract_run(folder: Path | None) -> dict[str, Any] | None:
    """The ``run.json`` of the abstract run in ``folder``, or ``None`` (no folder, no
    readable record, or a run of another trainer)."""
    if folder is None or not (Path(folder) / "run.json").exists():
        return None
    try:
        rec = json.loads((Path(folder) / "run.json").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(rec, dict) or rec.get("solver") != ABSTRACT_RECORDED:
        return None
    return rec


def _abstract_settings(settings: PointsSettings, options: dict[str, Any]
                       ) -> AbstractSettings | None:
    """The abstract trainer's settings when the run is a four-player abstract-MCCFR run
    (``solver="abstract-mccfr"``, the default for every four-player profile: vitou,
    vitou_cason, truc_catalan, truc_1912, trut; hands default to three cards), else
    ``None``. A resumed run keeps its own settings: those not given again come from its
    ``run.json``."""
    from ..bots.named import split_bot_specs

    rec = _recorded_abstract_run(settings.out) if settings.resume else None
    if rec is not None:
        knobs = dict(rec["params"])
        s = {"bots": rec.get("bots", list(DEFAULT_BOTS)), "seed": rec.get("seed", 0),
             "eval_deals": rec.get("eval_deals", 20000),
             "max_infosets": rec.get("max_infosets", 8_000_000)}
        try:
            params = VitouParams(**{k: tuple(v) if k == "scores" else v for k, v in knobs.items()})
        except (TypeError, ValueError) as e:
            raise TrainingError(f"--resume: {settings.out}/run.json: {e}") from None
    elif settings.resume and settings.out and (Path(settings.out) / "run.json").exists():
        return None  # a run of the points trainer (or an unreadable record: it says so)
    else:
        profile = settings.profile or RUN_DEFAULTS["profile"]
        if not (settings.solver == ABSTRACT
                or (settings.solver is None and four_players(profile))):
            return None
        # ranks None: the profile's whole deck (Catalan's 40 cards are 10 ranks, C1.3)
        s = {**RUN_DEFAULTS, "ranks": None, "hand_size": 3, "max_infosets": 8_000_000,
             **settings.given()}
        try:
            params = game_params(s)
        except (ValueError, TypeError) as e:
            raise TrainingError(str(e)) from None
    bots = s["bots"]
    try:
        bots = split_bot_specs([bots] if isinstance(bots, str) else list(bots))
    except ValueError as e:
        raise TrainingError(str(e)) from None
    chosen = {k: v for k, v in options.items() if v is not None}
    if rec is not None:
        for k in ABSTRACT_OPTIONS:
            if k not in chosen and rec.get(k) is not None:
                chosen[k] = rec[k]
        if "pruning" not in chosen and "pruning" not in rec:
            # a run from before the knob: it pruned (after 0.1 T or 60 s)
            chosen["pruning"] = "on"
        if chosen.get("abstraction") is None and isinstance(rec.get("abstraction"), dict):
            chosen["abstraction"] = ",".join(f"{k}={v}" for k, v in rec["abstraction"].items()
                                             if v is not None)
    return AbstractSettings(
        params=params, bots=tuple(bots), seed=s["seed"], eval_deals=s["eval_deals"],
        max_infosets=s["max_infosets"], iterations=settings.iterations, time=settings.time,
        exact=settings.exact, out=settings.out, resume=settings.resume,
        command=settings.command, **{**ABSTRACT_OPTIONS, **chosen})


def choose_trainer(settings: PointsSettings, abstract_options: dict[str, Any] | None = None,
                   out=None) -> PointsSettings | AbstractSettings:
    """The settings of the trainer that runs ``settings``: :class:`AbstractSettings` for an
    abstract-MCCFR run (its solver, the four-player default, or a resumed run whose
    ``run.json`` says so), else ``settings`` (with the full-game default solver for a
    four-player game the abstraction refuses, said on ``out``).

    Args:
        abstract_options: the abstract trainer's own options given (keys
            ``abstraction`` and those of :data:`ABSTRACT_OPTIONS`; ``None`` values: not
            given).

    Raises:
        TrainingError: an abstract option given to another solver; a resumed abstract
            run whose record cannot be read back.
    """
    import sys

    options = dict(abstract_options or {})
    settings = _full_game_default(settings, out or sys.stdout)
    abstract = _abstract_settings(settings, options)
    if abstract is not None:
        if settings.tables not in (None, "float64"):
            raise TrainingError(f"--tables {settings.tables} is an option of the public-tree "
                                f"solvers (--solver public-*), not of {ABSTRACT} (this run's "
                                "solver: the four-player default)")
        return abstract
    given = [f"--{k.replace('_', '-')}" for k in ("abstraction", *ABSTRACT_OPTIONS)
             if options.get(k) is not None]
    if given:
        solver = settings.solver or "the default"
        raise TrainingError(f"{given[0]} applies to --solver abstract-mccfr only (the default "
                            "for every four-player profile); this run's solver "
                            f"({solver}, profile {settings.profile or 'vitou_2p'}) "
                            + ("reads the real game's information states"
                               if given[0] == "--abstraction" else "does not use it"))
    return settings


#: the four-player profiles the match objective trains (:mod:`vitou_ai.training.match4p`)
MATCH_4P_PROFILES = ("vitou", "vitou_cason")


def match_trainer(profile: str | None, resume: bool = False, out: Path | None = None) -> str:
    """Which trainer the match objective runs: ``"match4p"`` (four players,
    :mod:`vitou_ai.training.match4p`) or ``"match"`` (two players,
    :mod:`vitou_ai.training.match`). A resumed run is routed by what its folder holds (a
    four-player run's ``state.json``, a two-player run's ``tasks/``), a new one by its
    profile (``None``: :data:`RUN_DEFAULTS`'s)."""
    four = (profile or RUN_DEFAULTS["profile"]) in MATCH_4P_PROFILES
    if resume and out:
        folder = Path(out)
        two = (folder / "tasks").is_dir() and not (folder / "state.json").exists()
        four = (folder / "state.json").exists() or (four and not two)
    return "match4p" if four else "match"


def _train_points(settings, out):
    from .points import train_points

    return train_points(settings, out)


def _train_abstract(settings, out):
    from .abstract import train_abstract

    return train_abstract(settings, out)


def _train_match(settings, out):
    from .match import train_match

    return train_match(settings, out)


def _train_match_4p(settings, out):
    from .match4p import train_match_4p

    return train_match_4p(settings, out)


def _trainers() -> dict:
    from .match import MatchSettings
    from .match4p import Match4pSettings

    return {PointsSettings: _train_points, AbstractSettings: _train_abstract,
            MatchSettings: _train_match, Match4pSettings: _train_match_4p}


#: the settings class -> its trainer
TRAINERS = _trainers()


def train(settings: PointsSettings | AbstractSettings, out=None):
    """Run the trainer of ``settings`` (:data:`TRAINERS`; :func:`choose_trainer` picks
    them for a points run); progress lines on ``out`` (default: stdout). A new points run
    given no solver takes the command's default for its game (``public-dcfr`` with two
    players; :func:`choose_trainer` routes a four-player one to the abstract trainer).

    Returns:
        :class:`~vitou_ai.training.points.TrainingResult`.

    Raises:
        TrainingError: one line (see the trainers). TrainingInterrupted: Ctrl-C.
    """
    try:
        trainer = TRAINERS[type(settings)]
    except KeyError:
        raise TrainingError(f"no trainer for {type(settings).__name__}; expected one of "
                            f"{', '.join(c.__name__ for c in TRAINERS)}") from None
    if isinstance(settings, PointsSettings):
        import sys

        settings = _full_game_default(settings, out or sys.stdout)
    return trainer(settings, out)
