"""A policy's *domain*: the game it was trained for and the states it has a strategy at.

A tabular or abstract policy is a table: at an information state it has no row for it
plays its fallback (uniform random play, or a heuristic bot), so a policy used outside
what it was trained for plays at random there. The states a table covers are written in
its keys, so the domain is read from them:

- a tabular key (:func:`vitou_ai.rules.observe.infostate_key`) holds the dealer's seat
  and both team scores (``K_DEALER``, ``K_SCORE0``, ``K_SCORE1``): the domain is the set
  of ``(dealer, score0, score1)`` with at least one row;
- an abstract key (:func:`vitou_ai.abstraction.key.abstract_key`) is relative to the
  dealer's seat, and holds the scores only with the ``scores`` knob on, as the player's
  own team's score and the other's (``score_buckets="exact"``) or as the buckets of each
  team's need (``"stakes"``), in its top bits: the domain is that set of pairs, or
  *every score* with the knob off (the same strategy is played at every score, by
  design; ``docs/abstraction.md``).

A game reaches, in deal mode (R8.1), one score state at the dealer seats it allows
(``dealer = -1``: every seat); in match mode (R8.2) every score from the start to one
below the target (every score, in a family match of several games) with every seat
dealing. :meth:`PolicyDomain.refusal` names what is missing, in one line, with the
``vitou-ai train`` command that trains a policy that has it.

Policy files record their domain as a JSON string ``domain`` (:meth:`PolicyDomain.to_json`:
``format``, ``mode``, ``dealers``, ``scores``, ``scores_as``), for people and tools that
read the file; the check reads the keys, so files written before the record (no
``domain``) are checked the same way. Their ``mode`` (``"deal"``: trained on single
deals, for points; ``"match"``: for the match) is not in the keys: such a file counts as
``"match"`` if it has rows at every score from 0:0, else ``"deal"``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from ..rules import layout as L
from ..rules.params import VitouParams

#: version of the ``domain`` record of policy files
DOMAIN_FORMAT = 1
#: how a domain's score pairs read: team 0 and team 1 (tabular keys); the player's own
#: team and the other (abstract keys, exact scores); the buckets of each one's need
#: (abstract keys, ``score_buckets="stakes"``)
SCORES_AS = ("teams", "own", "need")
MODES = ("deal", "match")
#: the profiles ``vitou-ai train --objective match`` trains (two players: every variant;
#: four players: the full game only)
MATCH_TRAINER_2P = ("vitou_2p",)
MATCH_TRAINER_4P = ("vitou", "vitou_cason")


@dataclass(frozen=True)
class PolicyDomain:
    """What a tabular or abstract policy covers (module docstring).

    Attributes:
        mode: ``"deal"`` (trained on single deals, R8.1: plays for points) or
            ``"match"`` (trained for the match, R8.2).
        dealers: dealer seats it has rows for; ``None``: every seat (abstract keys are
            relative to the dealer).
        scores: the score pairs it has rows for, read as ``scores_as`` says; ``None``:
            every score (an abstraction without scores).
        scores_as: one of :data:`SCORES_AS`.
        states: tabular: the ``(dealer, score0, score1)`` triples with rows (the
            dealers and scores are their projections); ``None`` otherwise.
    """

    mode: str
    dealers: frozenset[int] | None
    scores: frozenset[tuple[int, int]] | None
    scores_as: str = "teams"
    states: frozenset[tuple[int, int, int]] | None = None

    # ---- what a game reaches ------------------------------------------------------------
    def required(self, params: VitouParams) -> set[tuple[int, int, int]]:
        """The ``(dealer, a, b)`` a game reaches, in this domain's terms (dealer ``-1``
        when the domain does not tell dealers apart)."""
        dealers, scores = reached(params)
        if self.scores_as == "own":
            scores = {p for s0, s1 in scores for p in ((s0, s1), (s1, s0))}
        elif self.scores_as == "need":
            t = params.target
            scores = {(need_bucket(t - a), need_bucket(t - b))
                      for s0, s1 in scores for a, b in ((s0, s1), (s1, s0))}
        if self.dealers is None:
            dealers = {-1}
        return {(d, a, b) for d in dealers for a, b in scores}

    def covered(self) -> set[tuple[int, int, int]] | None:
        """The ``(dealer, a, b)`` covered, ``None`` for every one."""
        if self.states is not None:
            return set(self.states)
        if self.scores is None:
            return None
        return {(-1, a, b) for a, b in self.scores}

    def missing(self, params: VitouParams) -> list[tuple[int, int, int]]:
        """The ``(dealer, a, b)`` the game reaches that the policy has no row at, sorted."""
        have = self.covered()
        if have is None:
            return []
        return sorted(self.required(params) - have)

    # ---- words ------------------------------------------------------------------------------
    def describe(self, players: int | None = None) -> str:
        """A short phrase: ``single deals at score 0:0, every dealer`` and the like
        (``players``: the game's, to say *every dealer* when all seats deal)."""
        what = "single deals" if self.mode == "deal" else "matches"
        return f"{what} at {self._scores_text()}, {self._dealers_text(players)}"

    def _scores_text(self) -> str:
        if self.scores is None:
            return "every score (the abstraction has no scores)"
        pairs = sorted(self.scores)
        word, words = {"teams": ("score", "scores"),
                       "own": ("score (own:other)", "scores (own:other)"),
                       "need": ("need bucket (own:other)", "need buckets (own:other)")
                       }[self.scores_as]
        if len(pairs) == 1:
            return f"{word} {pairs[0][0]}:{pairs[0][1]}"
        listed = ", ".join(f"{a}:{b}" for a, b in pairs[:4])
        more = f" ... ({len(pairs)} in all)" if len(pairs) > 4 else ""
        return f"{words} {listed}{more}"

    def _dealers_text(self, players: int | None) -> str:
        if self.dealers is None or (players is not None
                                    and set(self.dealers) >= set(range(players))):
            return "every dealer"
        seats = sorted(self.dealers)
        if len(seats) == 1:
            return f"seat {seats[0]} dealing only"
        return "dealer seats " + ", ".join(str(s) for s in seats)

    def refusal(self, params: VitouParams, where: str, trained: VitouParams,
                fallback: str = "random") -> str | None:
        """One line saying why the policy cannot play ``params`` (``None`` if it can): what
        it was trained for, what the game reaches that it lacks, and what to run instead.

        Args:
            where: the policy, for the message (its file, or ``policy 'name'``).
            trained: the game it was trained for (its variant, for the training command).
            fallback: what plays at the states it lacks (``"random"``, a bot name).
        """
        gap = self.missing(params)
        if not gap:
            return None
        play = "play at random" if fallback == "random" else f"fall back on {fallback}"
        if self.covered() == set():  # no row at all: no score or dealer to name
            return (f"{where}: has no rows (no strategy at any state; an empty or damaged "
                    f"policy file), so it would {play} everywhere: train it again")
        trained_for = f"{where}: trained for {self.describe(trained.players)}"
        need_scores = sorted({s[1:] for s in self.required(params)})
        gap_scores = sorted({s[1:] for s in gap})
        have = self.covered() or set()
        if all(any(h[1:] == g for h in have) for g in gap_scores):
            # every score is there, for some dealer: the dealers are what is missing
            seats = sorted({d for d, _, _ in gap})
            what = f"deals of seat {', '.join(str(d) for d in seats)}"
            return (f"{trained_for}; this game has {what}, where it has no strategy and would "
                    f"{play}: {deal_command(trained, params)} trains one")
        example = ", ".join(self._score_text(g) for g in gap_scores[:3])
        if params.mode == "match":
            start = f"{params.scores[0]}:{params.scores[1]}"
            return (f"{trained_for}; a match from {start} to {params.target} reaches "
                    f"{len(need_scores):,} scores and it has no strategy at "
                    f"{len(gap_scores):,} of them (e.g. {example}), where it would {play}: "
                    f"{match_hint(trained, self)}")
        here = f"{params.scores[0]}:{params.scores[1]}"
        return (f"{trained_for}; this deal is at {here}, where it has no strategy and would "
                f"{play}: train one at {here} ({deal_command(trained, params)}), or play it "
                "at the score it was trained for (tournament, play and simulate deal from "
                "0:0; in Python, VitouParams(scores=...))")

    def _score_text(self, pair: tuple[int, int]) -> str:
        a, b = pair
        if self.scores_as == "need":
            return f"needs {a}:{b} (buckets, own:other)"
        if self.scores_as == "own":
            return f"{a}:{b} (own:other)"
        return f"{a}:{b}"

    # ---- the record ----------------------------------------------------------------------
    def to_json(self, params: VitouParams) -> str:
        """The ``domain`` record of a policy file (module docstring): the game
        (``profile`` and the knobs that differ from its defaults), ``mode``, ``dealers``
        and ``scores`` (``"all"`` for every one), ``scores_as``, ``signals``."""
        t = params.target
        full = {(a, b) for a in range(t) for b in range(t)}
        if self.scores_as == "need":
            full = {(need_bucket(t - a), need_bucket(t - b)) for a, b in full}
        scores = "all" if self.scores is None or set(self.scores) >= full else \
            [list(p) for p in sorted(self.scores)]
        dealers = "all" if self.dealers is None or set(self.dealers) >= set(
            range(params.players)) else sorted(self.dealers)
        return json.dumps({"format": DOMAIN_FORMAT, "profile": params.profile,
                           "knobs": params.knobs(), "mode": self.mode, "dealers": dealers,
                           "scores": scores, "scores_as": self.scores_as,
                           "signals": bool(params.signals)})


def read_mode(record: str | None) -> str | None:
    """The ``mode`` of a ``domain`` record (``None`` without one).

    Raises:
        ValueError: a record that is not such JSON, or an unknown mode.
    """
    if record is None:
        return None
    try:
        d = json.loads(record)
        mode = d["mode"]
    except (ValueError, TypeError, KeyError) as e:
        raise ValueError(f"bad 'domain' record: {e}") from None
    if mode not in MODES:
        raise ValueError(f"bad 'domain' record: mode {mode!r}, expected one of {MODES}")
    return mode


def reached(params: VitouParams) -> tuple[set[int], set[tuple[int, int]]]:
    """The dealer seats and the ``(score0, score1)`` states a game reaches (module
    docstring): deal mode (R8.1) its scores, at ``params.dealer`` or every seat; match mode
    (R8.2) every score from ``params.scores`` up to ``target - 1`` (from 0:0 in a family
    match of several games, whose scores start again at each game, G4.1), every seat
    dealing (the deal rotates) unless a single deal is played."""
    n = params.players
    if params.mode == "deal" or params.max_deals == 1:
        dealers = set(range(n)) if params.dealer < 0 else {params.dealer}
    else:
        dealers = set(range(n))
    if params.mode == "deal":
        return dealers, {tuple(params.scores)}
    t = params.target
    lo0, lo1 = params.scores
    if (params.games or 1) > 1:
        lo0 = lo1 = 0
    return dealers, {(a, b) for a in range(lo0, t) for b in range(lo1, t)}


def need_bucket(need: int) -> int:
    """The bucket of a team's need (Python twin of
    :func:`vitou_ai.abstraction.key.need_bucket`)."""
    from ..abstraction.config import NEED_BUCKET_LOWS

    b = 0
    for i, low in enumerate(NEED_BUCKET_LOWS):
        if need >= low:
            b = i
    return b


def tabular_domain(keys: np.ndarray, params: VitouParams | None,
                   mode: str | None = None) -> PolicyDomain:
    """The domain of a tabular policy from its keys (``int8[M, KEY_SIZE]``); ``mode`` as
    recorded, or (``None``) ``"match"`` if the rows cover every score from 0:0 of
    ``params``' target, else ``"deal"``."""
    keys = np.asarray(keys)
    # a row whose dealer or scores no state can have (a table of arbitrary bytes) matches
    # no information state: it covers nothing
    d, s0, s1 = keys[:, L.K_DEALER], keys[:, L.K_SCORE0], keys[:, L.K_SCORE1]
    keys = keys[(d >= -1) & (d < L.MAX_PLAYERS) & (s0 >= 0) & (s1 >= 0) & (s0 < 100) & (s1 < 100)]
    # one small code per row and a count of each (a table can hold tens of millions of
    # rows: no sort); the dealer is -1 before the draw (R1.4), the scores below 100
    code = keys[:, L.K_DEALER].astype(np.int32) + 1
    code *= 100
    code += keys[:, L.K_SCORE0]
    code *= 100
    code += keys[:, L.K_SCORE1]
    seen = np.flatnonzero(np.bincount(code, minlength=1)) if len(code) else []
    states = frozenset((int(c) // 10000 - 1, int(c) // 100 % 100, int(c) % 100) for c in seen)
    scores = frozenset((a, b) for _, a, b in states)
    dealers = frozenset(d for d, _, _ in states)
    if mode is None:
        mode = "deal"
        if params is not None:
            t = params.target
            if scores >= {(a, b) for a in range(t) for b in range(t)}:
                mode = "match"
    return PolicyDomain(mode, dealers, scores, "teams", states)


def abstract_domain(keys: np.ndarray, abstraction, params: VitouParams,
                    mode: str | None = None) -> PolicyDomain:
    """The domain of an abstract policy: its stored keys (``uint64[M]``, bit 63 set), the
    :class:`~vitou_ai.abstraction.config.AbstractionConfig` and the game they come from.
    ``mode`` as recorded, or (``None``) ``"match"`` if the key has scores and the rows
    cover every score (or bucket) from 0:0, else ``"deal"``."""
    from ..abstraction.key import feature_bits, score_bits

    if not abstraction.scores:
        return PolicyDomain(mode or "deal", None, None, "own")
    pa = params.to_array()
    cfg = abstraction.to_array(params.signals)
    sb = int(score_bits(pa))
    shift = int(feature_bits(cfg, pa)) - 2 * sb
    k = np.asarray(keys, dtype=np.uint64) & np.uint64((1 << 63) - 1)
    mask = np.uint64((1 << sb) - 1)
    # the two score fields are the key's top 2 * sb bits: other << sb | own
    code = ((k >> np.uint64(shift)) & np.uint64((1 << (2 * sb)) - 1)).astype(np.int64)
    seen = np.flatnonzero(np.bincount(code, minlength=1)) if len(code) else []
    scores = frozenset((int(c) & int(mask), int(c) >> sb) for c in seen)
    as_ = "need" if abstraction.score_buckets == "stakes" else "own"
    if mode is None:
        t = params.target
        full = {(a, b) for a in range(t) for b in range(t)}
        if as_ == "need":
            full = {(need_bucket(t - a), need_bucket(t - b)) for a, b in full}
        mode = "match" if scores >= full else "deal"
    return PolicyDomain(mode, None, scores, as_)


def _variant_flags(p: VitouParams) -> list[str]:
    """The ``vitou-ai train`` flags of a game's variant (its deck, hands, target)."""
    base = VitouParams(profile=p.profile)
    flags = ["--profile", p.profile]
    if p.ranks != base.ranks:
        flags += ["--ranks", str(p.ranks)]
    if p.copies != base.copies:
        flags += ["--copies", str(p.copies)]
    flags += ["--hand-size", str(p.hand_size)]
    if p.target != base.target:
        flags += ["--target", str(p.target)]
    if p.early_end != base.early_end:
        flags += ["--early-end", p.early_end]
    return flags


def match_hint(trained: VitouParams, domain: PolicyDomain | None = None) -> str:
    """What to run for a policy that covers a match of ``trained``'s game: ``vitou-ai
    train --objective match ...`` where that trains it, else play it in deal mode."""
    flags = _variant_flags(trained)
    deal = ""
    if domain is not None and domain.scores is not None and domain.scores_as == "teams" \
            and len(domain.scores) == 1:
        a, b = next(iter(domain.scores))
        deal = f" at {a}:{b}"
    play = f"or play it in deal mode{deal} (a tournament's --deals, play's --deal)"
    if trained.profile in MATCH_TRAINER_2P:
        return f"train a match policy (vitou-ai train --objective match {' '.join(flags)}) {play}"
    if trained.profile in MATCH_TRAINER_4P and flags == ["--profile", trained.profile,
                                                         "--hand-size", "3"]:
        return (f"train a match policy (vitou-ai train --objective match --profile "
                f"{trained.profile}) {play}")
    return f"no trainer covers the matches of this game yet: {play.removeprefix('or ')}"


def deal_command(trained: VitouParams, params: VitouParams) -> str:
    """The ``vitou-ai train`` command of a policy for the deals of ``params`` (the variant
    of ``trained``, the scores and dealer of ``params``)."""
    flags = _variant_flags(trained)
    if params.scores != (0, 0):
        flags += ["--score0", str(params.scores[0]), "--score1", str(params.scores[1])]
    flags += ["--dealer", str(params.dealer)]
    if params.signals:
        flags.append("--signals")
    return "vitou-ai train " + " ".join(flags)

