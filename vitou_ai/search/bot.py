"""The ``search`` bot: real-time re-solving of the public subgame at each decision.

At each of its decisions after the deal the bot

1. sets every seat's range by Bayes from its blueprint's action probabilities along the
   deal, mixed with ``epsilon`` (1%) of uniform play so that an action off the
   blueprint's support leaves a range (:func:`~vitou_ai.solvers.public.subgame.bayes_reach`,
   exact card removal); its own
   range at the decisions it searched uses the probabilities of the policy it actually
   solved for there, for every hand (Brown & Sandholm 2019, Pluribus, "the searcher's
   own range is updated by its search strategy"), so that its ranges stay those of the
   policy it plays;
2. builds the public subgame from the current public state to the end of the deal
   (:func:`~vitou_ai.solvers.public.subgame.build_subgame`), refusing it above ``max_nodes``,
   after a size check: a public state it already found above ``max_nodes``
   (:func:`~vitou_ai.solvers.public.subgame.public_key`) falls back at once, and the build is
   capped at the nodes the time left can build (and, with a gadget, replay the
   blueprint over) at the recent median rates;
3. runs range-vector DCFR on it (:class:`~vitou_ai.solvers.public.subgame.SubgameSolver`),
   until the per-decision budget is nearly spent or ``max_iterations`` are done, and
   plays its hand's average policy at the root. The mode (``safe=``):

   - ``"auto"``, the default: safe by default. Two players: *nested* Maxmargin (Brown &
     Sandholm 2017, nested safe subgame solving): the opponent's hands get the Maxmargin
     gadget, each hand's alternative value its best-response value against the seat's
     *previous* solve of this deal (the previous subgame's average policy mapped onto this
     one by :func:`~vitou_ai.solvers.public.subgame.subtree_entries`), against the
     blueprint's at the seat's first search (the blueprint's probabilities over the
     subgame, :func:`~vitou_ai.solvers.public.export.bot_policy` from the subgame's
     state). Four players: the bot does not search (no four-player mode measured keeps
     NashConv at or below the blueprint's, ``docs/results/search.md``): it plays the
     blueprint and records why (:data:`OFF_REASON`, :attr:`SearchPolicy.searched_share`);
   - ``"maxmargin"`` / ``"resolve"``: that gadget, nested as above (two players only);
   - ``"none"``: *unsafe* re-solving from the Bayes ranges (can make a good blueprint
     far more exploitable: measured exactly in ``docs/results/search.md``); with four
     players the searcher's partner is held to the blueprint in the subgame (it is not
     re-solved: the partner will play the blueprint).

With a gadget, a decision it cannot search below one it searched in the same deal plays
that earlier solve's policy there (the strategy the nested guarantee is about; the
blueprint there is not safe: measured exactly in ``docs/results/search.md``, "a fallback
after a search"). Otherwise it falls back on the blueprint's own action (its exact
probabilities, sampled) where the subgame does not fit: before the deal (the 2p blind window, R9.2), above
``max_nodes`` nodes (e.g. the first trick of the 32-card, 3-card deal: 19 M nodes),
with four players above ``MAX_JOINT_RANGES`` joint root hands (checked from the cards
played, before the Bayes step and the build), or when the build left
no time for one iteration. The first fallback at a public state above ``max_nodes`` is
not free: the build runs until it passes the cap (about 0.12–0.15 s on the first trick of
the 3-card deal, quiet machine); the same public state again falls back without a build,
and a build the time left cannot finish stops early (docs/results/search.md, the
budget's figures), from the first decision of a process (until 5 rates are measured,
at :data:`PRIOR_BUILD_RATE` and :data:`PRIOR_REPLAY_RATE`); with a gadget or four
players the blueprint's replay over the subgame, which cannot be interrupted, is refused
before it starts when it would not fit the time left. The Bayes step still comes before
the clock's checks, so the budget is not a hard limit. The solve's
first iteration is not timed in advance: on the
subgames these caps admit it takes milliseconds (``tests/test_search.py``, the
measured decision times in ``docs/results/search.md``).

The bot runs in Python (it builds trees and runs the range walks at every decision),
so it cannot play inside the jitted simulator (:func:`vitou_ai.sim.batch.simulate`):
:mod:`vitou_ai.eval.search_match` plays its duplicate matches, ``vitou-ai play`` its
matches, and the environments (``Vitou-v0``, ``SelfPlayEnv``,
:func:`vitou_ai.envs.core.search_action`) its seats. LBR refuses it: its rollouts would
run the search at every rollout decision.

One module because the bot's steps at a decision (the size check, the Bayes ranges, the
build, the blueprint's replay, the solve and the two fallbacks) all read and write its
per-deal records (its own ranges, its previous solve, the build and replay rates) on
the one :class:`SearchPolicy`, and its spec parser names the same options.

Bot spec: ``search:BLUEPRINT[,budget=SECONDS][,nodes=MAX_NODES][,iters=N][,eps=E][,safe=MODE]``
with ``MODE`` one of ``auto`` (default), ``maxmargin``, ``resolve``, ``none`` (unsafe) and ``BLUEPRINT`` any
non-neural bot spec (a named bot, a tabular or abstract ``.npz``), e.g.
``search:counter,budget=0.5`` or ``search:results/x/policy.npz,budget=0.2``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..rules import kernel as K
from ..rules import layout as L
from ..rules.params import VitouParams
from ..solvers.public.subgame import (
    SubgameSolver,
    SubgameTooLarge,
    UnreachableSubgame,
    bayes_reach,
    build_subgame,
    check_subgame_state,
    deal_tables,
    effective_safe_mode,
    find_node,
    public_key,
    root_policy,
    root_ranges,
    subtree_entries,
)

#: default per-decision budget, seconds (the search benchmark's target: at most 0.5 s on this machine)
DEFAULT_BUDGET = 0.5
#: default node cap of a subgame (0.5 s: build ~0.3 us a node, DCFR ~0.1 us a node a pass)
DEFAULT_MAX_NODES = 200_000
#: default most DCFR iterations per decision (small subgames stop there, not at the budget)
DEFAULT_MAX_ITERATIONS = 1000
#: default share of uniform play mixed into the blueprint's probabilities for the Bayes
#: ranges (:func:`~vitou_ai.solvers.public.subgame.bayes_reach`)
DEFAULT_EPSILON = 0.01
#: four players: the largest product of the four root range sizes searched (the terminal
#: values sum over the other three ranges, ``public_kernels._terminal_value_n``: one
#: iteration of a larger subgame can take longer than the budget itself)
MAX_JOINT_RANGES = 20_000
#: time kept back from the budget for choosing the action and the overheads (seconds)
SLACK = 0.02
#: the largest per-decision budget (seconds): an hour a decision; ``budget=1e308`` ended
#: in an OverflowError when the time left was turned into a node cap
MAX_BUDGET = 3600.0
#: the largest ``nodes`` and ``iters`` (the subgame trees index nodes in 32 bits)
MAX_NODES = 2**31 - 1
MAX_ITERATIONS = 10**9
#: the build rate is measured on builds of at least this many nodes (smaller ones are
#: mostly fixed costs; a build cut at the cap counts), over the last BUILD_RATE_WINDOW of
#: them, and used once there are BUILD_RATE_MIN_SAMPLES (their median: the first builds
#: and replays of a process compile)
BUILD_RATE_MIN_NODES = 2_000
BUILD_RATE_WINDOW = 50
BUILD_RATE_MIN_SAMPLES = 5
#: until BUILD_RATE_MIN_SAMPLES rates are measured, the rates assumed (seconds a node):
#: the medians measured on the 3-card ``vitou_2p`` (build about 0.65-0.75 us a node,
#: the blueprint's replay 4.2 us, docs/results/search.md "the size check"), rounded up,
#: so that a process's first decisions keep to the budget too
PRIOR_BUILD_RATE = 1.0e-6
PRIOR_REPLAY_RATE = 5.0e-6
#: public states whose subgame size the bot remembers (then forgets them all)
MAX_KNOWN_SIZES = 100_000
#: default safe re-solving technique (:data:`~vitou_ai.solvers.public.subgame.SEARCH_SAFE_MODES`):
#: ``"auto"``, nested Maxmargin with two players and no search with four
#: (:data:`~vitou_ai.solvers.public.subgame.AUTO_SAFE`)
DEFAULT_SAFE = "auto"
#: the reason recorded at a decision the bot declines to search (``safe="auto"``, four
#: players)
OFF_REASON = ("no safe search for this game (safe=auto plays the blueprint; safe=none "
              "searches unsafely)")


class SearchPolicy:
    """A search bot (module docstring).

    Args:
        blueprint: a simulator policy (random, heuristic, tabular or abstract; not neural).
        budget: seconds per decision, > 0 (wall clock, build and solve included).
        max_nodes: the largest subgame searched, >= 1.
        max_iterations: the most DCFR iterations per decision, >= 1.
        epsilon: the opponents' model for the Bayes ranges: the blueprint mixed with this
            share of uniform play, in [0, 1) (:func:`~vitou_ai.solvers.public.subgame.bayes_reach`).
        safe: one of :data:`~vitou_ai.solvers.public.subgame.SEARCH_SAFE_MODES` (module
            docstring; default ``"auto"``: nested Maxmargin with two players, no search
            with four; the gadgets of
            :class:`~vitou_ai.solvers.public.subgame.SubgameSolver` with their
            best-response alternatives, nested; ``"none"`` is unsafe); a gadget in a
            game of four players is refused at the first decision (:meth:`act`) and by
            :func:`check_fits`.
        clock: the clock read for the budget (seconds; tests inject one).
        name: the bot's name (default ``search(<blueprint name>)``).

    Attributes:
        decisions: one dict per decision taken: ``seconds`` (wall time of :meth:`act`),
            ``searched`` (bool), ``iterations``, ``nodes`` (0 when not searched),
            ``reason`` (why it fell back, else ``""``; :data:`OFF_REASON` where it
            declines to search), ``nested`` (the gadget's alternatives came from the
            seat's previous solve), ``blueprint_seconds`` (with a gadget or four players:
            the blueprint's replay over the subgame, the nested map and the value pass), ``probs``
            (``{action id: probability}``, the exact distribution the action was drawn
            from: the solve's root policy for the bot's hand where it searched, the
            blueprint's probabilities where it fell back; each legal action once, summing
            to 1; recorded without any extra random draw), ``previous`` (a decision it
            could not search that played its previous solve's policy, module docstring).

    Raises:
        ValueError: ``budget`` not in ``(0, MAX_BUDGET]`` seconds or not finite;
            ``max_nodes`` not in ``1 .. MAX_NODES``; ``max_iterations`` not in
            ``1 .. MAX_ITERATIONS``; a neural blueprint; an unknown ``safe``.
    """

    kind = "search"

    def __init__(self, blueprint, budget: float = DEFAULT_BUDGET,
                 max_nodes: int = DEFAULT_MAX_NODES,
                 max_iterations: int = DEFAULT_MAX_ITERATIONS,
                 epsilon: float = DEFAULT_EPSILON, safe: str = DEFAULT_SAFE,
                 clock: Callable[[], float] = time.perf_counter, name: str | None = None):
        from ..bots.neural import NeuralPolicy
        from ..bots.policy import policy_pack

        if not (isinstance(budget, int | float) and np.isfinite(budget)
                and 0 < budget <= MAX_BUDGET):
            raise ValueError(f"search budget must be a number of seconds > 0 and at most "
                             f"{MAX_BUDGET:g}, got {budget!r}")
        if not 1 <= int(max_nodes) <= MAX_NODES:
            raise ValueError(f"search nodes must be >= 1 and at most {MAX_NODES:,}, got "
                             f"{max_nodes!r}")
        if not 1 <= int(max_iterations) <= MAX_ITERATIONS:
            raise ValueError(f"search iters must be >= 1 and at most {MAX_ITERATIONS:,}, got "
                             f"{max_iterations!r}")
        self.max_iterations = int(max_iterations)
        if not 0.0 <= float(epsilon) < 1.0:
            raise ValueError(f"search eps must be in [0, 1), got {epsilon!r}")
        self.epsilon = float(epsilon)
        effective_safe_mode(safe, 2)  # an unknown name, here; a gadget's seats, at act
        self.safe = safe
        if isinstance(blueprint, NeuralPolicy | SearchPolicy):
            raise ValueError(f"search blueprint {blueprint.name!r}: a neural or search policy "
                             "has no exact action probabilities; use a named, tabular or "
                             "abstract policy")
        self.blueprint = blueprint
        self.budget = float(budget)
        self.max_nodes = int(max_nodes)
        self.clock = clock
        self.name = name or f"search({blueprint.name})"
        self.params = getattr(blueprint, "params", None)
        self._pack = policy_pack(blueprint)
        self.decisions: list[dict] = []
        #: check a decision's subgame against what the bot knows before building it (the
        #: public states it already found above ``max_nodes``, the build rate against the
        #: time left); False: build first, as before this check existed (measurements)
        self.size_check = True
        # public state (subgame.public_key) -> its subgame's node count, -1 above max_nodes
        self._sizes: dict[bytes, int] = {}
        # seconds per node of the recent builds of >= BUILD_RATE_MIN_NODES nodes, and of
        # the blueprint's replays over them (gadgets)
        self._build_rates: list[float] = []
        self._replay_rates: list[float] = []
        # per seat (partners in four-player games are one object): the deal's start, and
        # for each decision it searched, (action index, the deal's actions up to and with
        # that decision's action, own reach factor per hand)
        self._own: dict[int, tuple[bytes, list[tuple[int, tuple, np.ndarray]]]] = {}
        # per seat, its last solve with a gadget (nested re-solving): (the deal's start,
        # the deal's actions up to and with that decision's action, subgame, average policy)
        self._solves: dict[int, tuple[bytes, tuple, object, np.ndarray]] = {}

    @property
    def searched_share(self) -> float:
        """The share of :attr:`decisions` the bot searched (the rest played the blueprint:
        a fallback, or a game where it declines to search, ``safe="auto"`` with four
        players); nan before any decision."""
        if not self.decisions:
            return float("nan")
        return sum(bool(d["searched"]) for d in self.decisions) / len(self.decisions)

    def __repr__(self) -> str:
        return (f"SearchPolicy(blueprint={self.blueprint.name!r}, budget={self.budget}, "
                f"max_nodes={self.max_nodes}, safe={self.safe!r})")

    def act(self, params: VitouParams, start: np.ndarray, actions: list[int],
            state: np.ndarray, rng: np.random.Generator) -> int:
        """The bot's action at ``state``.

        Args:
            params: the game (deal mode).
            start: ``int32[STATE_SIZE]``, the state right after the deal (for the 2p blind
                window, before the deal: any state; the bot falls back there).
            actions: kernel action ids since ``start``; ``state`` is ``start`` after them.
            state: the decision state; the bot reads only the acting seat's hand of it
                and the public part.
            rng: the random stream the action is drawn from.

        Returns:
            A legal kernel action id.

        Raises:
            ValueError: a gadget (``safe="resolve"`` or ``"maxmargin"``) in a game of other
                than two players; a blueprint made for other game parameters than the
                subgame's (:func:`~vitou_ai.solvers.public.export.bot_policy`), or any
                other error of the search that is not one of its fallbacks (too large,
                unreachable, no time, the blind window, declined), instead of playing
                the blueprint at every decision.
        """
        mode = effective_safe_mode(self.safe, params.players)
        t0 = self.clock()
        seat = int(K.current_player(params.to_array(), state))
        self._records(np.asarray(start).tobytes(), seat, actions)
        info = {"searched": False, "iterations": 0, "nodes": 0, "reason": "", "nested": False,
                "previous": False}
        try:
            if mode == "off":
                raise _Declined(OFF_REASON)
            a = self._search(params, start, actions, state, seat, rng, t0, info, mode)
        except (SubgameTooLarge, UnreachableSubgame, _NoTime, _Declined, _NotSubgame) as e:
            # the fallbacks; any other error (a blueprint that does not fit the subgame,
            # a bad range) is raised, not played around: falling back on it at every
            # decision once hid that a drawn-dealer blueprint was never searched
            info["reason"] = str(e)
            a = None
        if a is None and mode in ("resolve", "maxmargin"):
            # a decision below one this seat searched in this deal plays that solve's
            # policy, not the blueprint: the nested guarantee is about the solve's
            # strategy, and switching back to the blueprint below it is not safe
            # (measured exactly: docs/results/search.md, "a fallback after a search")
            a = self._previous_action(params, start, actions, state, seat, rng, info)
        if a is None:
            a = self._blueprint_action(params, state, seat, rng, info)
        info["seconds"] = self.clock() - t0
        self.decisions.append(info)
        return a

    def _records(self, key: bytes, seat: int, actions: list[int]) -> list:
        """The seat's own-range records of this deal: kept only while the deal is the one
        they were made in (the same start and, up to each record, the same actions: two
        games of a duplicate pair share their start); else started afresh."""
        start, recs = self._own.get(seat, (None, []))
        acts = tuple(int(a) for a in actions)
        if start != key or any(acts[:len(prefix)] != prefix for _, prefix, _ in recs):
            recs = []
            self._own[seat] = (key, recs)
        return recs

    def _previous_solve(self, key: bytes, seat: int, actions: list[int]):
        """The seat's last gadget solve of this deal (same start, its actions a prefix of
        ``actions``) as ``(subgame, average policy, node of its tree now)``, or None."""
        prev = self._solves.get(seat)
        if prev is None or prev[0] != key:
            return None
        _, prefix, sub, pol = prev
        acts = tuple(int(a) for a in actions)
        if acts[:len(prefix)] != prefix:
            return None
        return sub, pol, find_node(sub.tree, acts[len(prefix) - 1:])

    def _search(self, params, start, actions, state, seat, rng, t0, info, mode):
        try:
            check_subgame_state(params, state)
        except ValueError as e:  # not a subgame state (the blind window, ...)
            raise _NotSubgame(str(e)) from None
        cap = self.max_nodes
        key = public_key(params, state) if self.size_check else b""
        if self.size_check:
            known = self._sizes.get(key)
            if known is not None and known < 0:
                raise SubgameTooLarge(f"the subgame has more than {self.max_nodes:,} nodes "
                                      "(known public state)")
            if known is None:
                # the most nodes the time left builds at the recent builds' median rate
                # (not their slowest: one build that compiled, or met a busy machine,
                # would stop the next 50; before 5 are measured, PRIOR_BUILD_RATE), with
                # as much again for the solve (and, with a gadget or four players, the
                # blueprint's replay over the subgame, at its own median rate)
                left = self.budget - SLACK - (self.clock() - t0)
                per_node = 2.0 * self._rate(self._build_rates, PRIOR_BUILD_RATE)
                if mode != "none" or params.players == 4:
                    per_node += self._rate(self._replay_rates, PRIOR_REPLAY_RATE)
                if left <= 0:
                    raise _NoTime("no time left to build the subgame")
                # never below the smallest build measured: a cap that stopped every build
                # short of it would keep the rates from ever being measured again (the
                # quotient is capped before int(): a long budget over a fast rate is inf)
                cap = min(cap, max(int(min(left / per_node, cap)), BUILD_RATE_MIN_NODES))
        hands, counts, _ = deal_tables(params)
        if params.players == 4:
            # the joint root hands from the cards played, before any build (the first
            # trick of the 3-card deal: about 120 hands a seat, known without building)
            lens = [len(r) for r in root_ranges(params, state, counts)]
            if int(np.prod(lens, dtype=np.float64)) > MAX_JOINT_RANGES:
                raise SubgameTooLarge(f"four root ranges of {lens} hands: more than "
                                      f"{MAX_JOINT_RANGES:,} joint hands")
        recs = self._own[seat][1]
        skip = np.zeros(len(actions), np.bool_)
        for i, _, _ in recs:
            skip[i] = True
        reach = bayes_reach(params, self.blueprint, start, actions, skip, self.epsilon, seat)
        for _, _, f in recs:
            reach[seat] *= f
        tb = self.clock()
        try:
            sub = build_subgame(params, state, cap)
        except SubgameTooLarge:
            self._note_build(cap, self.clock() - tb)
            if cap < self.max_nodes:
                raise _NoTime(f"the build would pass the budget (more than {cap:,} nodes "
                              "in the time left)") from None
            if self.size_check:
                self._sizes[key] = -1
            raise
        self._note_build(sub.num_nodes, self.clock() - tb)
        if self.size_check:
            self._sizes[key] = sub.num_nodes
        info["nodes"] = sub.num_nodes
        bp = None
        key0 = np.asarray(start).tobytes()
        if mode != "none" or params.players == 4:
            from ..solvers.public.export import bot_policy

            if self.size_check and sub.num_nodes >= BUILD_RATE_MIN_NODES:
                # the replay is not interruptible: refused before it starts when, at the
                # replays' median rate, it would not leave the solve the time the build
                # took (the share the build cap keeps for it)
                left = self.budget - SLACK - (self.clock() - t0)
                need = sub.num_nodes * self._rate(self._replay_rates, PRIOR_REPLAY_RATE)
                solve = sub.num_nodes * self._rate(self._build_rates, PRIOR_BUILD_RATE)
                if need + solve > left:
                    raise _NoTime(f"the blueprint's replay over {sub.num_nodes:,} nodes "
                                  f"(about {need:.2f} s) would pass the budget")
            tb = self.clock()
            bp = bot_policy(sub.tree, self.blueprint, start=sub.state)
            if mode != "none":
                # nested re-solving (Brown & Sandholm 2017): where this subgame lies
                # below the seat's previous solve, the gadget's alternatives are the
                # opponent's best-response values against that solve, not the blueprint
                prev = self._previous_solve(key0, seat, actions)
                if prev is not None:
                    psub, ppol, node = prev
                    j = subtree_entries(sub.tree, psub.tree, node)
                    bp = np.where(j >= 0, ppol[np.maximum(j, 0)], bp)
                    info["nested"] = True
                solver = SubgameSolver(sub, reach, safe=mode, blueprint=bp)
            else:
                # four players: the partner plays the blueprint in the subgame, as it will
                solver = SubgameSolver(sub, reach, blueprint=bp,
                                       fixed=((seat + 2) % params.players,))
            info["blueprint_seconds"] = self.clock() - tb
            if sub.num_nodes >= BUILD_RATE_MIN_NODES:
                self._replay_rates.append(info["blueprint_seconds"] / sub.num_nodes)
                del self._replay_rates[:-BUILD_RATE_WINDOW]
        else:
            solver = SubgameSolver(sub, reach)
        left = self.budget - SLACK - (self.clock() - t0)
        done = solver.solve(left, clock=self.clock, min_iterations=0,
                                   max_iterations=self.max_iterations) if left > 0 else 0
        info["iterations"] = done
        if done == 0:
            raise _NoTime("no time left for one iteration after the build")
        pol = solver.average_policy()
        me = _own_hand(params, state, seat, hands)
        probs = root_policy(sub, pol, me)
        acts = np.array(sorted(probs))
        p = np.array([probs[a] for a in acts])
        p = p / p.sum()
        a = int(acts[rng.choice(len(acts), p=p)])
        info["probs"] = {int(x): float(q) for x, q in zip(acts, p, strict=True)}
        # the policy this decision played, for every hand of the own range
        f = np.zeros(hands.shape[0])
        t = sub.tree
        for c in range(int(t.first[0]), int(t.first[0] + t.nchild[0])):
            if t.action[c] == a:
                lo, ln = int(t.actor_off[c]), int(t.actor_len[c])
                f[t.entries[lo:lo + ln].astype(np.int64)] = pol[lo:lo + ln]
        recs.append((len(actions), tuple(int(x) for x in actions) + (a,), f))
        if mode != "none":
            self._solves[seat] = (key0, tuple(int(x) for x in actions) + (a,), sub, pol)
        info["searched"] = True
        return a

    @staticmethod
    def _rate(rates: list[float], prior: float) -> float:
        """Seconds a node: the median of ``rates`` once BUILD_RATE_MIN_SAMPLES are
        measured, else ``prior``."""
        return float(np.median(rates)) if len(rates) >= BUILD_RATE_MIN_SAMPLES else prior

    def _note_build(self, nodes: int, seconds: float) -> None:
        if nodes >= BUILD_RATE_MIN_NODES and seconds > 0:
            self._build_rates.append(seconds / nodes)
            del self._build_rates[:-BUILD_RATE_WINDOW]
        if len(self._sizes) > MAX_KNOWN_SIZES:
            self._sizes.clear()

    def _previous_action(self, params, start, actions, state, seat, rng, info):
        """The action of the seat's previous solve of this deal at this decision (its
        average policy for the seat's hand), recorded like a searched decision's for the
        seat's own range; None where there is no previous solve or it does not hold this
        decision or hand."""
        try:
            prev = self._previous_solve(np.asarray(start).tobytes(), seat, actions)
        except ValueError:  # the decision is not in that solve's tree
            return None
        if prev is None:
            return None
        sub, pol, node = prev
        acts = tuple(int(a) for a in actions)
        t = sub.tree
        if t.kind[node] != 1 or int(t.player[node]) != seat:
            return None
        hands = deal_tables(params)[0]
        me = _own_hand(params, state, seat, hands)
        probs: dict[int, float] = {}
        f0, m = int(t.first[node]), int(t.nchild[node])
        for c in range(f0, f0 + m):
            lo, ln = int(t.actor_off[c]), int(t.actor_len[c])
            hit = np.nonzero(t.entries[lo:lo + ln] == me)[0]
            if len(hit):
                probs[int(t.action[c])] = float(pol[lo + int(hit[0])])
        tot = sum(probs.values())
        if not probs or tot <= 0:
            return None
        acts_ = np.array(sorted(probs))
        p = np.array([probs[a] for a in acts_]) / tot
        a = int(acts_[rng.choice(len(acts_), p=p)])
        info["probs"] = {int(x): float(q) for x, q in zip(acts_, p, strict=True)}
        info["previous"] = True
        info["reason"] += " (played its previous solve there)"
        fac = np.zeros(hands.shape[0])
        for c in range(f0, f0 + m):
            if t.action[c] == a:
                lo, ln = int(t.actor_off[c]), int(t.actor_len[c])
                fac[t.entries[lo:lo + ln].astype(np.int64)] = pol[lo:lo + ln]
        self._own[seat][1].append((len(actions), acts + (a,), fac))
        return a

    def _blueprint_action(self, params, state, seat, rng, info):
        from ..bots.exact import breakpoints, policy_probs
        from ..bots.policy import IWORK_SIZE

        pa = params.to_array()
        legal = np.empty(params.num_actions, np.int64)
        n = K.legal_actions(pa, state, legal)
        row = np.zeros(params.num_actions)
        policy_probs(self._pack, 0, pa, state, seat, legal, n,
                     breakpoints(self._pack.fparams[0]), np.empty(L.KEY_SIZE, np.int8),
                     np.zeros(IWORK_SIZE, np.int64), np.zeros(8, np.uint64), row)
        p = row[legal[:n]]
        p = p / p.sum()
        info["probs"] = {int(x): float(q) for x, q in zip(legal[:n], p, strict=True)}
        return int(legal[rng.choice(n, p=p)])


def _own_hand(params: VitouParams, state: np.ndarray, seat: int, hands: np.ndarray) -> int:
    """The row of ``hands`` (the deck's dealt hands) that is ``seat``'s dealt hand in
    ``state``."""
    own = tuple(sorted(int(state[L.S_HAND + seat * L.MAX_HAND + i])
                       for i in range(params.hand_size)))
    return int(np.nonzero((hands == np.array(own)).all(1))[0][0])


class _NoTime(RuntimeError):
    pass


class _Declined(RuntimeError):
    pass


class _NotSubgame(RuntimeError):
    pass


SEARCH_OPTIONS = ("budget", "nodes", "iters", "eps", "safe")


def parse_search_spec(spec: str) -> SearchPolicy:
    """A :class:`SearchPolicy` from ``search:BLUEPRINT[,budget=S][,nodes=N][,iters=N]
    [,eps=E][,safe=MODE]`` (module docstring); the items that are not search options
    belong to the blueprint's spec (``search:counter:bluff=0.2,budget=0.3``).

    Raises:
        ValueError: one line: no blueprint, a bad option or value, ``budget <= 0``, a neural
            blueprint, a blueprint spec :func:`~vitou_ai.bots.named.parse_bot` refuses.
    """
    from ..bots.named import parse_bot

    _, _, rest = spec.partition(":")
    items = [x.strip() for x in rest.split(",")] if rest else []
    opts: dict[str, str] = {}
    bp: list[str] = []
    for it in items:
        key, eq, value = it.partition("=")
        if key.strip() in SEARCH_OPTIONS and (not eq or not value.strip()):
            raise ValueError(f"bot {spec!r}: the search option {key.strip()} needs a value, "
                             f"e.g. {key.strip()}=...")
        if eq and key.strip() in SEARCH_OPTIONS:
            if key.strip() in opts:
                raise ValueError(f"bot {spec!r}: the search option {key.strip()} is given twice")
            opts[key.strip()] = value.strip()
        else:
            bp.append(it)
    if not bp or not bp[0]:
        raise ValueError(f"bot {spec!r}: give the blueprint, e.g. search:counter,budget=0.5")
    values = {}
    for key, cast, default, what in (("budget", float, DEFAULT_BUDGET, "a number of seconds"),
                                     ("nodes", int, DEFAULT_MAX_NODES, "an integer"),
                                     ("iters", int, DEFAULT_MAX_ITERATIONS, "an integer"),
                                     ("eps", float, DEFAULT_EPSILON, "a number")):
        try:
            values[key] = cast(opts.get(key, default))
        except ValueError:
            raise ValueError(f"bot {spec!r}: {key} must be {what}, got {opts[key]!r}") from None
    budget, nodes, iters, eps = (values[k] for k in ("budget", "nodes", "iters", "eps"))
    safe = opts.get("safe", DEFAULT_SAFE)
    try:
        effective_safe_mode(safe, 2)
    except ValueError as e:
        raise ValueError(f"bot {spec!r}: {e}") from None
    if not (np.isfinite(budget) and 0 < budget <= MAX_BUDGET):
        raise ValueError(f"bot {spec!r}: the budget must be > 0 seconds and at most "
                         f"{MAX_BUDGET:g} (an hour a decision), got {budget}")
    try:
        blueprint = parse_bot(",".join(bp))
    except ValueError as e:
        extra = [x for x in bp[1:] if "=" in x]
        if extra and ":" not in bp[0]:
            raise ValueError(f"bot {spec!r}: unknown search option {extra[0].split('=')[0]!r} "
                             f"(search options: {', '.join(sorted(SEARCH_OPTIONS))})") from None
        raise ValueError(f"bot {spec!r}: its blueprint: {e}") from None
    try:
        return SearchPolicy(blueprint, budget=budget, max_nodes=nodes, max_iterations=iters,
                            epsilon=eps, safe=safe, name=spec)
    except ValueError as e:
        raise ValueError(f"bot {spec!r}: {e}") from None


#: why a search bot's blueprint must fit the game as played (its refusal says it)
BLUEPRINT_MUST_FIT = ("a search bot's blueprint must fit the game as played: the search "
                      "takes the players' ranges and its safe gadget's values in every "
                      "subgame from the blueprint's strategy there, so it cannot search over "
                      "the blueprint's fallback")


def check_fits(policy: SearchPolicy, params: VitouParams, allow_fallback: bool = False) -> None:
    """Refuse a search bot whose blueprint was made for another game or abstraction than
    ``params``, or has no strategy at a score or dealer seat the game reaches (its domain,
    :mod:`vitou_ai.bots.domain`), a game without public subgames (signals on, a profile
    without a public tree: one line), or a gadget (``safe=``) in a four-player game. In
    match mode (``play``) each deal is searched as one deal (R8.1).

    The blueprint must fit even where the caller allows a fallback (``allow_fallback``,
    ``--allow-fallback``; the message then says it does not apply): the Bayes ranges
    (:func:`~vitou_ai.solvers.public.subgame.bayes_reach`) and the gadget's values (the
    blueprint's replay over the subgame, :func:`~vitou_ai.solvers.public.export.bot_policy`,
    which refuses a blueprint made for another dealer or score: the bot's first searched
    decision raised) would rest on the fallback at every decision, and a share of the
    bot's decisions that fell back is not defined.

    Raises:
        ValueError: as said, one line naming the bot.
    """
    from ..bots.named import check_bot_fits
    from ..solvers.public.tree import check_public_params

    try:
        check_bot_fits(policy.blueprint, params)
    except ValueError as e:
        why = BLUEPRINT_MUST_FIT + (", and --allow-fallback does not change that"
                                    if allow_fallback else "")
        raise ValueError(f"bot {policy.name!r}: {why}; its blueprint: {e}") from None
    try:
        check_public_params(params.replace(mode="deal", scores=(0, 0)))
        effective_safe_mode(policy.safe, params.players)
    except ValueError as e:
        raise ValueError(f"bot {policy.name!r}: {e}") from None
