"""The explorer's data model: a strategy's public tree, read lazily, node by node.

A :class:`Strategy` is a policy file (tabular or abstract, ``vitou_ai.bots``) and its
game. Its public tree (:mod:`vitou_ai.solvers.public.tree`: one node per public
history, per seat a range of hands) is never built whole: a :class:`Node` holds one
kernel state of a representative deal, each seat's range (hand indices, sorted) and
each hand's reach under the policy (the product of its own action probabilities on
the way, ``float64``); its children are asked of the kernel when first opened, with
the public tree builder's own step
(:func:`vitou_ai.solvers.public.tree.decision_actions`: the actions some hand of the
actor's range may take, kept where card removal leaves a deal). Opening a node costs
one kernel call per hand of the actor's range, whatever the size of the tree, and the
nodes opened are kept in an LRU cache (:data:`CACHE_NODES`).

The policy at a node is the file's, exactly as the simulator plays it
(:func:`vitou_ai.bots.exact.policy_probs`: the row of the hand's information state,
restricted to its legal actions and renormalised, or the fallback), restricted to the
node's children and renormalised as :func:`vitou_ai.solvers.public.cfr.entry_policy`
does over a built tree (uniform where the row gives those children nothing).

Numbers (two players; :meth:`Strategy.hand_grid`):

- the reach of hand ``h`` of the actor ``p`` at a public node, conditional on the
  public history: ``P(h | history) = r_p(h) sum_h' P(h, h') r_o(h') / Z``, ``r`` the
  seats' own reach, ``P`` the exact joint deal probability (card removal:
  :func:`~vitou_ai.solvers.public.tree.pair_deal_probabilities`), ``Z`` the sum over
  ``h``; the probability of the public node itself is ``chance * Z``;
- the value of ``h`` (points per deal for ``p``, given ``h`` and the public history):
  the public tree's exact value pass (:func:`vitou_ai.solvers.public.kernels.walk`,
  counterfactual values of the subtree under the policy) divided by
  ``sum_h' P(h, h') r_o(h')``. It needs the built tree, so it is given when the
  game's public tree has at most ``values_budget`` nodes (:class:`Values`), else
  ``None``.

Four players: the reach of a hand sums the exact joint deal probability over the
three other ranges when they are small (:data:`EXACT_JOINT_LIMIT` combinations),
else it is estimated from :data:`REACH_SAMPLES` deals drawn once from the deck, each
weighted by the other seats' own reach (``samples`` in the grid: those consistent with
the history).

One module because :class:`Strategy` is one object over one node cache: the nodes'
kernel states, ranges and own reach are what the children, the hand grid, the history
search and the values (:class:`Values`, which reads the strategy's built tree) all use;
the loading beside it (:func:`load_strategy`, :func:`check_same_game`) makes it. The web
routes (:mod:`~vitou_ai.explore.views`, :mod:`~vitou_ai.explore.app`), the notebook
helpers and the jitted kernels are their own modules.
"""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..rules import kernel as K
from ..rules import layout as L
from ..rules.game import RAISE_NAMES, Game, IllegalActionError, State
from ..rules.params import P_PLAYERS, VitouParams, game_name
from ..solvers.public.tree import (
    KIND_CHANCE,
    KIND_DECISION,
    KIND_TERMINAL,
    check_public_params,
    decision_actions,
    entry_dtype,
    enumerate_hands,
    hand_counts,
    pair_deal_probabilities,
    representative_deal,
)
from . import _kernels as XK

#: nodes kept per strategy (LRU)
CACHE_NODES = 20_000
#: four players: combinations of the other three ranges summed exactly, else sampled
EXACT_JOINT_LIMIT = 200_000
#: four players: deals sampled for a reach estimate
REACH_SAMPLES = 20_000
#: a bluff raises at least this often (and beats less than half the range card by card)
BLUFF_MIN_RAISE = 0.05
#: tabular policies of at least this many rows are read memory-mapped (:mod:`.mapped`)
MAP_ROWS = 500_000
#: default node budget of the exact values (:class:`Values`)
VALUES_BUDGET = 3_000_000


class ExploreError(ValueError):
    """Bad input to the explorer (a run folder, a policy, a history); one line."""


class HistorySearchError(ExploreError):
    """A searched history that the rules (or the tree) refuse.

    Attributes:
        index: 0-based index of the offending item.
        rule: the rule it breaks (``"R4.2b"``), or ``None``.
    """

    def __init__(self, message: str, index: int | None = None, rule: str | None = None):
        import re

        if rule and not re.search(rf"(?<![\w.]){re.escape(rule)}(?!\w|\.\d)", message):
            message = f"{rule}: {message}"  # the rule first, as the page shows it
        super().__init__(message)
        self.index = index
        self.rule = rule


@dataclass
class Node:
    """One public node (module docstring).

    Attributes:
        path: the edges from the root, kernel action ids (chance ids at the dealer draw);
            the deal itself is no edge (it is applied as soon as it is due).
        labels: the same edges in the hand-history syntax (``"p0 raise"``, ``"dealer 1"``).
        kind: ``KIND_CHANCE``, ``KIND_DECISION`` or ``KIND_TERMINAL`` of ``public_tree``.
        player: the seat to act (-1 at chance, -4 at terminals).
        ranges: per seat ``int64[R_s]`` hand indices, sorted; ``[H]`` = not dealt yet.
        reach: per seat ``float64[R_s]``, each hand's own reach (product of its
            action probabilities on the path).
        chance: product of the public chance probabilities on the path.
        util: team 0's return at a terminal (points per deal), else 0.
    """

    path: tuple[int, ...]
    labels: tuple[str, ...]
    state: np.ndarray
    kind: int
    player: int
    ranges: tuple[np.ndarray, ...]
    reach: tuple[np.ndarray, ...]
    chance: float
    util: float = 0.0
    children: list[Child] | None = None
    sigma: np.ndarray | None = None  # float64[R_actor, nchildren]
    legal: np.ndarray | None = None  # bool[R_actor, nchildren]
    hit: np.ndarray | None = None  # bool[R_actor]: the policy's table has the hand's row
    weights: dict = field(default_factory=dict, repr=False)  # seat -> _other_weights


@dataclass
class Child:
    """An edge out of a node: its action id, label and (lazily) the child node."""

    action: int
    label: str
    prob: float = 1.0  # public chance probability (1 at decisions)
    node: Node | None = field(default=None, repr=False)


def _is_raise(label: str) -> bool:
    verb = label.split()[0]
    return verb == "raise" or verb in RAISE_NAMES


def _params_from_dict(d: dict) -> VitouParams:
    d = dict(d)
    if "scores" in d:
        d["scores"] = tuple(d["scores"])
    if "games_won" in d and isinstance(d["games_won"], list):
        d["games_won"] = tuple(d["games_won"])
    return VitouParams(**d)


def load_strategy(source: str | Path, name: str | None = None,
                  values_budget: int = VALUES_BUDGET, mapped: bool | None = None,
                  scores: tuple[int, int] | None = None) -> Strategy:
    """A :class:`Strategy` from a run folder (``run.json`` + ``policy.npz``) or a
    ``policy.npz`` (its game from the file's ``params`` record, or the ``run.json``
    beside it).

    Args:
        mapped: read a tabular policy through its memory-mapped index
            (:mod:`vitou_ai.explore.mapped`; written on first use); ``None``: when it has
            at least :data:`MAP_ROWS` rows.
        scores: explore the deal at this score (``(team 0, team 1)``) instead of the
            run's: a match-objective policy (``train --objective match``) holds every
            score's strategy; a points policy has rows at its own score only.

    Raises:
        ExploreError: one line: no such folder or file, no policy in it, a damaged
            file, no game recorded, a game the explorer does not take, a policy of
            another game than its run.
    """
    from ..bots.named import check_bot_fits, parse_bot
    from ..capabilities import UnsupportedGameError, require

    path = Path(source)
    if not str(source).strip() or not path.exists():
        raise ExploreError(f"{source}: no such run folder or policy file")
    run_json = None
    record = None
    if path.is_dir():
        policy_path = path / "policy.npz"
        if not policy_path.is_file():
            raise ExploreError(f"{source}: not a run folder (no policy.npz in it)")
        run_json = path / "run.json"
    else:
        policy_path = path
        if path.suffix != ".npz":
            raise ExploreError(f"{source}: not a policy file (expected a run folder or a .npz)")
        if (path.parent / "run.json").is_file():
            run_json = path.parent / "run.json"
    params = None
    if run_json is not None and run_json.is_file():
        try:
            record = json.loads(run_json.read_text())
            if record.get("game") == "vint":
                raise ExploreError(f"{source}: a Vint run: {_vint_reason()}")
            if "params" in record:
                params = _params_from_dict(record["params"])
        except ExploreError:
            raise
        except (ValueError, TypeError, OSError) as e:
            raise ExploreError(f"{run_json}: damaged run record ({type(e).__name__}: "
                               f"{str(e).splitlines()[0] if str(e) else ''})") from None
    if _is_network_file(policy_path):
        raise ExploreError(f"{policy_path}: a network policy (nfsp:, deep_cfr:, ppo:): networks "
                           "cannot be explored (no exact action probabilities at every state); "
                           "the explorer reads tabular and abstract policies")
    try:
        from ..bots.abstract import is_abstract_file
        from .mapped import member_rows, open_mapped

        if not is_abstract_file(str(policy_path)) and (
                mapped or (mapped is None and member_rows(policy_path) >= MAP_ROWS)):
            policy = open_mapped(policy_path)
        else:
            policy = parse_bot(str(policy_path))
    except (ValueError, OSError, KeyError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ExploreError(f"{policy_path}: cannot read the policy: {msg}") from None
    if params is None:
        params = getattr(policy, "params", None)
    if params is None:
        raise ExploreError(f"{policy_path}: the file records no game; give its run folder "
                           "(with run.json)")
    if scores is not None:
        try:
            params = params.replace(scores=tuple(int(x) for x in scores))
        except (ValueError, TypeError) as e:
            raise ExploreError(f"--scores {scores[0]}:{scores[1]}: {e}") from None
    try:
        require("explore", params)
        check_public_params(params)
    except UnsupportedGameError as e:
        raise ExploreError(f"{source}: {e}") from None
    except ValueError as e:
        raise ExploreError(f"{source}: {str(e).splitlines()[0]}") from None
    try:
        from ..bots.tabular import check_fits
        from .mapped import MappedPolicy

        # the game's shape only: the explorer shows, node by node, which hands its table
        # lacks (not_in_table), so a policy viewed at another score is said, not refused
        if isinstance(policy, MappedPolicy):
            check_fits(policy, params, allow_fallback=True)
        else:
            check_bot_fits(policy, params, allow_fallback=True)
    except ValueError as e:
        why = str(e).splitlines()[0].split(": pass ")[0]
        raise ExploreError(f"{source}: a policy of another game than its run.json's "
                           f"({params.profile}): {why}") from None
    if hasattr(policy, "__len__") and len(policy) == 0:  # a table (plain or mapped)
        raise ExploreError(f"{source}: the policy has no rows (no strategy at any state; an "
                           "empty or damaged policy file)")
    # the file and its folder (a relative path's folder is '.', whose name is '')
    folder = path.resolve().parent.name
    label = name or (path.name if path.is_dir() or not folder else f"{folder}/{path.name}")
    out = Strategy(policy, params, label, str(source), values_budget=values_budget)
    out.objective = str(record.get("objective", "points")) if record else "points"
    return out


def _is_network_file(path: Path) -> bool:
    """A ``.npz`` written by :meth:`vitou_ai.bots.neural.NeuralPolicy.save` (its members
    ``seat_net`` and ``meta``, no ``keys``/``probs``)."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            names = {n.removesuffix(".npy") for n in z.namelist()}
    except (OSError, zipfile.BadZipFile):
        return False
    return {"seat_net", "meta"} <= names and "keys" not in names


def check_same_game(first: Strategy, second: Strategy) -> None:
    """Refuse two strategies of different games: the whole game is compared (profile and
    every knob: players, deck, hand size, target, scores, ...), not only the deck.

    Raises:
        ExploreError: one line naming both games.
    """
    if first.params != second.params:
        hint = ""
        try:
            only_scores = first.params.replace(scores=second.params.scores) == second.params
        except ValueError:
            only_scores = False
        if only_scores:
            # the games differ by the scores only: a match run holds every score's strategy
            kinds = [getattr(s, "objective", "points") for s in (first, second)]
            points = [s for s, k in zip((first, second), kinds, strict=True) if k != "match"]
            if "match" in kinds and points:
                a, b = points[0].params.scores
                hint = (f"; they differ by the scores only: give --scores {a}:{b} to explore "
                        "the match run at the points run's score")
        raise ExploreError(f"{second.source or second.name} is a policy of another game "
                           f"({game_name(second.params)}) than "
                           f"{first.source or first.name} ({game_name(first.params)}); "
                           "two strategies are compared on the same game" + hint)


#: why Vint is not explored (docs/guide/explore.md)
VINT_NOT_COVERED = ("Vint is not covered: it writes no policy files (its bots search or follow "
                    "rules of thumb), and its hands are 13 of 52 distinct cards after an "
                    "auction, so there is no grid of rank multisets and no public tree on the "
                    "Vitou kernel")


def _vint_reason() -> str:
    return VINT_NOT_COVERED


class Strategy:
    """A policy and its game, explored node by node (module docstring).

    Args:
        policy: a tabular or abstract policy (``vitou_ai.bots``), or any policy
            :func:`~vitou_ai.bots.exact.policy_probs` takes (random, heuristic).
        params: the game (deal mode, a public tree: :func:`check_public_params`).
        values_budget: build the whole public tree for exact values when it has at most
            this many nodes (0: never).

    Raises:
        ValueError: a game without a public tree; a neural policy.
    """

    def __init__(self, policy, params: VitouParams, name: str = "strategy", source: str = "",
                 values_budget: int = VALUES_BUDGET):
        from ..bots.exact import breakpoints
        from ..bots.neural import NeuralPolicy
        from ..bots.policy import pack_policies
        from ..capabilities import require

        require("explore", params)
        check_public_params(params)
        if isinstance(policy, NeuralPolicy):
            raise ValueError("the explorer reads tabular and abstract policies (exact action "
                             "probabilities); a neural policy has none")
        self.policy = policy
        self.params = params
        self.objective = "points"  # "match": a match-objective run (load_strategy)
        self.name = name
        self.source = source
        self.game = Game(params)
        self.pa = params.to_array()
        self.n = int(self.pa[P_PLAYERS])
        self.na = params.num_actions
        self.hands = enumerate_hands(params)
        self.H = self.hands.shape[0]
        self.counts = hand_counts(params, self.hands)
        self.pair_p = (pair_deal_probabilities(params, self.hands) if self.n == 2
                       else np.zeros((1, 1)))
        self.deal0 = representative_deal(params)
        self.labels = params.rank_labels
        self.hand_labels = [" ".join(self.labels[int(r)] for r in h) for h in self.hands]
        from .mapped import MappedPolicy

        self.pack = (policy.pack() if isinstance(policy, MappedPolicy)
                     else pack_policies([policy], signals=params.signals))
        self.bounds = breakpoints(self.pack.fparams[0])
        self._cache: OrderedDict[tuple[int, ...], Node] = OrderedDict()
        self.values_budget = values_budget
        self._values: Values | None | bool = None  # False: none (over budget, 4p, building)
        self._values_thread = None
        import threading

        self._values_lock = threading.Lock()
        self._rng = np.random.default_rng(0)
        self.root = self._make_root()

    # ---- navigation --------------------------------------------------------------------
    def _classify(self, state: np.ndarray) -> tuple[int, int, float]:
        if K.is_terminal(state):
            ret = np.empty(L.MAX_PLAYERS)
            K.returns(self.pa, state, ret)
            return KIND_TERMINAL, -4, float(ret[0])
        if K.is_chance(state):
            return KIND_CHANCE, -1, 0.0
        return KIND_DECISION, int(K.current_player(self.pa, state)), 0.0

    def _deal_if_due(self, state, ranges, reach):
        """Apply the deal when it is due (the public tree's deal node, one child): every
        seat's range becomes every hand, with the "not dealt" reach."""
        if (K.is_chance(state) and not K.is_terminal(state) and state[L.S_PHASE] == L.PH_DEAL
                and state[L.S_NDEALT] == 0):
            K.apply_deal(self.pa, state, self.deal0)
            full = np.arange(self.H, dtype=np.int64)
            return (tuple(full for _ in range(self.n)),
                    tuple(np.full(self.H, float(r[0])) for r in reach))
        return ranges, reach

    def _make_root(self) -> Node:
        state = np.empty(L.STATE_SIZE, np.int32)
        K.init_state(self.pa, state)
        ranges = tuple(np.array([self.H], np.int64) for _ in range(self.n))
        reach = tuple(np.ones(1) for _ in range(self.n))
        ranges, reach = self._deal_if_due(state, ranges, reach)
        kind, player, util = self._classify(state)
        node = Node((), (), state, kind, player, ranges, reach, 1.0, util)
        self._cache[()] = node
        return node

    @property
    def fallback(self) -> str:
        """What the policy plays at an information state its table does not have: its
        heuristic fallback by name (``"counter"``; an abstract policy's default), or
        ``"uniform"`` (uniform at random over the legal actions)."""
        fb = getattr(self.policy, "fallback", None)
        if fb is None:
            return "uniform"
        from ..bots.named import NAMED_BOTS

        name = next((k for k, v in NAMED_BOTS.items() if v == fb), None)
        return f"the {name} heuristic" if name else "a heuristic bot"

    def dealt(self, node: Node) -> bool:
        return bool(node.ranges[0][0] != self.H)

    def children(self, node: Node) -> list[Child]:
        """The edges out of ``node`` (computed on first call)."""
        if node.children is not None:
            return node.children
        if node.kind == KIND_TERMINAL:
            node.children = []
        elif node.kind == KIND_CHANCE:
            if node.state[L.S_PHASE] != L.PH_DRAW_DEALER:
                raise ValueError("private chance event (gesture caught) in a public tree")
            acts = np.empty(self.na, np.int64)
            probs = np.empty(L.MAX_CHANCE_OUTCOMES)
            m = K.chance_outcomes(self.pa, node.state, acts, probs)
            node.children = [Child(int(acts[k]), self.game.action_string(int(acts[k]), True),
                                   float(probs[k])) for k in range(m)]
        else:
            self._open_decision(node)
        return node.children

    def _open_decision(self, node: Node) -> None:
        p, H = node.player, self.H
        dt = entry_dtype(H)
        lens = np.zeros(4, np.int64)
        offs = np.zeros(4, np.int64)
        parts = []
        o = 0
        for s in range(self.n):
            offs[s] = o
            lens[s] = len(node.ranges[s])
            parts.append(node.ranges[s].astype(dt))
            o += lens[s]
        ent = np.concatenate(parts + [np.zeros(4096 + H, dt)])
        legal = np.zeros((H + 1, self.na), np.bool_)
        union = np.zeros(self.na, np.bool_)
        keep = np.zeros(self.na, np.bool_)
        played = np.empty(L.MAX_RANKS, np.int64)
        acts = np.empty(self.na, np.int64)
        st = node.state.copy()
        decision_actions(self.pa, st, p, self.hands, self.counts, self.params.copies,
                          self.pair_p, self.n, H, ent, o, offs, lens, legal, union, keep, played,
                          acts)
        kept = np.nonzero(keep)[0]
        R = len(node.ranges[p])
        lg = legal[:R][:, kept]
        probs = np.zeros((R, self.na))
        hit = np.ones(R, np.bool_)
        dealt = self.dealt(node)
        XK.range_policy(self.pa, node.state.copy(), p, self.hands, node.ranges[p], dealt,
                        self.pack, 0, self.bounds, self.na, probs, hit)
        node.hit = hit
        sig = np.where(lg, probs[:, kept], 0.0)
        tot = sig.sum(axis=1, keepdims=True)
        cnt = lg.sum(axis=1, keepdims=True)
        sig = np.where(tot > 0, sig / np.where(tot > 0, tot, 1.0), lg / np.maximum(cnt, 1))
        node.sigma = sig
        node.legal = lg
        from ..rules.history import action_name

        here = State(self.game, node.state)  # a raise by the game's name (truc, put, ...)
        node.children = [Child(int(a), f"p{p} {action_name(here, int(a))}") for a in kept]

    def child(self, node: Node, k: int) -> Node:
        """The ``k``-th child node of ``node``."""
        ch = self.children(node)[k]
        if ch.node is not None:
            return ch.node
        path = node.path + (ch.action,)
        cached = self._cache.get(path)
        if cached is not None:
            ch.node = cached
            return cached
        st = node.state.copy()
        ranges, reach = list(node.ranges), list(node.reach)
        chance = node.chance
        if node.kind == KIND_CHANCE:
            K.apply_action(self.pa, st, ch.action)
            chance *= ch.prob
        else:
            p = node.player
            rows = np.nonzero(node.legal[:, k])[0]
            if self.dealt(node):
                XK.set_hand(self.pa, st, p, self.hands[node.ranges[p][rows[0]]])
            K.apply_action(self.pa, st, ch.action)
            ranges[p] = node.ranges[p][rows]
            reach[p] = node.reach[p][rows] * node.sigma[rows, k]
        ranges, reach = self._deal_if_due(st, tuple(ranges), tuple(reach))
        kind, player, util = self._classify(st)
        out = Node(path, node.labels + (ch.label,), st, kind, player, ranges, reach, chance, util)
        self._cache[path] = out
        if len(self._cache) > CACHE_NODES:
            self._cache.popitem(last=False)
        ch.node = out
        return out

    def node(self, path: tuple[int, ...] | list[int]) -> Node:
        """The node at ``path`` (action ids from the root).

        Raises:
            ExploreError: an id that is not an edge of the tree there.
        """
        path = tuple(int(a) for a in path)
        hit = self._cache.get(path)
        if hit is not None:
            self._cache.move_to_end(path)
            return hit
        node = self.root
        for i, a in enumerate(path):
            ks = [k for k, c in enumerate(self.children(node)) if c.action == a]
            if not ks:
                raise ExploreError(f"step {i}: action id {a} is not a child of "
                                   f"{' / '.join(node.labels) or 'the root'}")
            node = self.child(node, ks[0])
        return node

    # ---- the search box: a history in the hand-history syntax ----------------------------
    def parse_history(self, text: str) -> tuple[int, ...]:
        """The path of a public history written as hand-history actions separated by commas
        (``"dealer 1, p0 raise, p0 play T"``; RULES.md section 10, without the hands).

        Raises:
            HistorySearchError: the first item that is malformed, out of turn, breaks a
                rule (the rule named, from the kernel), or that no deal consistent with the
                history allows (card removal).
        """
        from ..rules.history import (
            PHASE_RULE,
            HistoryError,
            check_raise_step,
            parse_actor,
            verb_only,
        )

        rule = "H" if self.params.family else "R10"
        items = [t.strip() for t in text.replace("\n", ",").split(",")]
        if items == [""]:
            items = []  # the root
        for i, item in enumerate(items):
            if ";" in item:
                raise HistorySearchError(f"item {i} {item!r}: separate the actions with commas, "
                                         "not ';' (dealer 1, p0 pass, ...)", i, rule)
            if not item:
                raise HistorySearchError(f"item {i} is empty (two commas in a row, or a comma "
                                         "at an end): one action between two commas", i, rule)
        node = self.root
        for i, item in enumerate(items):
            low = self._canonical(item)
            if node.kind == KIND_TERMINAL:
                raise HistorySearchError(f"item {i} {item!r}: the deal is already over",
                                         i, "R3.2")
            if node.kind == KIND_CHANCE:
                names = [c.label for c in self.children(node)]
                if low.lower() in names:
                    low = low.lower()
                if low not in names:
                    raise HistorySearchError(f"item {i} {item!r}: the dealer is drawn here "
                                             f"(R1.4); expected one of {', '.join(names)}",
                                             i, "R1.4")
                node = self.child(node, names.index(low))
                continue
            if self.params.players == 4 and not self.params.partnership and \
                    low.split()[1:2] == ["accept"]:
                continue  # R4.3: in four players `accept` marks the card that follows
            try:
                seat, verb_text = parse_actor(low, i, self.params)
                if seat != node.player:
                    raise HistoryError(f"item {i} {item!r}: it is seat {node.player}'s turn, "
                                       f"not seat {seat}'s", i, item,
                                       "G1.1" if self.params.family else
                                       PHASE_RULE.get(int(node.state[L.S_PHASE]), "R2.1"))
                check_raise_step(State(self.game, node.state.copy()), verb_text, item, i)
                action = self.game.string_action(verb_only(verb_text))
            except HistoryError as e:
                raise HistorySearchError(str(e).replace("action ", "item ", 1), i, e.rule) \
                    from None
            except ValueError as e:  # not an action: say what is legal here, publicly
                what = str(e).split("; expected")[0]
                raise HistorySearchError(f"item {i} {item!r}: {what}; legal here: "
                                         f"{self.public_legal(node)}", i,
                                         "H" if self.params.family else "R10") from None
            ks = [k for k, c in enumerate(self.children(node)) if c.action == action]
            if ks:
                node = self.child(node, ks[0])
                continue
            raise self._why_not(node, action, item, i)
        return node.path

    def _canonical(self, item: str) -> str:
        """An item with its case normalised (the search box takes any case: ``P0 PASS``,
        ``DEALER 1``, ``p0 play t``): the seat and verb lower case, an argument as the
        game writes it (its rank labels, its ladder labels, the gestures)."""
        words = item.split()
        from ..rules.game import RANK_LETTERS  # Vitou's deck: "rank Q is not in this deck"

        canon = {x.lower(): x for x in (*RANK_LETTERS, *self.params.ladder_labels,
                                        *self.labels)}
        return " ".join(w.lower() if k < 2 else canon.get(w.lower(), w.lower())
                        for k, w in enumerate(words))

    def public_legal(self, node: Node) -> str:
        """The actions legal at ``node`` for some hand the actor may hold (its children:
        ``play R`` over the ranks still possible, a raise by the game's name)."""
        return ", ".join(c.label.split(" ", 1)[1] for c in self.children(node)) or "none"

    def _why_not(self, node: Node, action: int, item: str, i: int) -> HistorySearchError:
        """The rule an action absent from the node's children breaks: the kernel's
        explanation for a hand of the actor's range, or card removal."""
        p = node.player
        st = State(self.game, node.state.copy())
        rng = node.ranges[p]
        legal_somewhere = False
        first_error = None
        for h in (rng if self.dealt(node) else [None]):
            s2 = st.clone()
            if h is not None:
                XK.set_hand(self.pa, s2.array, p, self.hands[int(h)])
            try:
                s2.apply_action(action)
                legal_somewhere = True
                break
            except IllegalActionError as e:
                if first_error is None:
                    first_error = e
        if legal_somewhere or first_error is None:
            return HistorySearchError(
                f"item {i} {item!r}: no deal consistent with the public history lets seat "
                f"{p} do this (card removal: the deck has {self.params.copies} of each rank, "
                "R1.1)", i, "R1.1")
        # the kernel's "legal: ..." is one hidden deal's; say what is legal publicly
        msg = str(first_error).split("; legal:")[0] + f"; legal here: {self.public_legal(node)}"
        said = " ".join(item.split()[1:])  # the kernel names a raise "raise": say the item's
        msg = msg.replace(f"'{self.game.action_string(action)}' by", f"'{said}' by", 1)
        if self.dealt(node) and "holds no" in msg:
            msg = msg.replace(f"by seat {p}", f"by seat {p} (no hand of its range holds it)")
        return HistorySearchError(f"item {i} {item!r}: {msg}", i, first_error.rule)

    # ---- numbers -------------------------------------------------------------------------
    def _other_weights(self, node: Node, p: int) -> tuple[np.ndarray, dict]:
        """``float64[R_p]``: for each hand of ``p``'s range, the joint probability mass of
        the other seats' ranges (their reach times the exact deal probability), and a
        note on how it was computed (``{"exact": bool, "samples": n}``). Kept on the
        node: the grid, the children's frequencies and their reach use the same numbers."""
        memo = node.weights.get(p)
        if memo is not None:
            return memo
        if not self.dealt(node):
            out = np.full(1, math.prod(float(node.reach[s][0]) for s in range(self.n)
                                       if s != p)), {"exact": True}
        elif self.n == 2:
            o = 1 - p
            P = self.pair_p[np.ix_(node.ranges[p], node.ranges[o])]
            out = P @ node.reach[o], {"exact": True}
        else:
            out = self._other_weights_4p(node, p)
        node.weights[p] = out
        return out

    def _other_weights_4p(self, node: Node, p: int) -> tuple[np.ndarray, dict]:
        from ..solvers.public.cfr import joint_factors

        others = [s for s in range(self.n) if s != p]
        nz = [np.nonzero(node.reach[s] > 0)[0] for s in others]
        combos = math.prod(len(z) for z in nz)
        Rp = len(node.ranges[p])
        if combos <= EXACT_JOINT_LIMIT:  # the documented bound: the three other ranges
            jf = joint_factors(self)  # duck-typed: params, counts, num_hands
            grids = np.meshgrid(*[node.ranges[s][z] for s, z in zip(others, nz, strict=True)],
                                indexing="ij")
            hs = [g.ravel() for g in grids]
            rs = [node.reach[s][z] for s, z in zip(others, nz, strict=True)]
            rg = np.meshgrid(*rs, indexing="ij")
            w_others = np.prod([g.ravel() for g in rg], axis=0)
            cnt_o = sum(self.counts[h] for h in hs)  # [M, ranks]
            f1 = np.prod([jf[1, h] for h in hs], axis=0)
            out = np.zeros(Rp)
            if combos:
                # the deal probability depends on the others' hands through their rank
                # counts only: sum the weights per distinct count vector first
                uniq, inv = np.unique(cnt_o, axis=0, return_inverse=True)
                mass = np.bincount(inv.ravel(), weights=f1 * w_others, minlength=len(uniq))
                k = uniq[None, :, :] + self.counts[node.ranges[p]][:, None, :]  # [Rp, U, r]
                pk = np.prod(jf[0, k], axis=2)
                out = (pk @ mass) * jf[1, node.ranges[p]] * jf[2, 0]
            return out, {"exact": True}
        # sampled deals (uniform from the deck, drawn once per strategy), weighted by the
        # others' own reach: the mean estimates the exact branch's sum
        hid = self._sampled_deals()
        js = []
        for s in range(self.n):
            pos = np.full(self.H + 1, -1, np.int64)
            pos[node.ranges[s]] = np.arange(len(node.ranges[s]))
            js.append(pos[hid[:, s]])
        ok = np.all(np.stack(js) >= 0, axis=0)
        w = np.ones(int(ok.sum()))
        for s in others:
            w *= node.reach[s][js[s][ok]]
        out = np.bincount(js[p][ok], weights=w, minlength=Rp)[:Rp] / hid.shape[0]
        return out, {"exact": False, "samples": int(ok.sum())}

    def possible(self, node: Node, p: int) -> np.ndarray:
        """``bool[R_p]``: the hands of ``p``'s range that the public history leaves
        possible under the strategy: a positive own reach, and a deal with the other
        seats' ranges (card removal: the cards they have shown). Exact where the reach is
        (two players, small four-player ranges); with sampled reach, a hand is ruled out
        when it needs more copies of a rank than the deck has beside the cards every hand
        of another seat's range holds (the cards shown)."""
        if not self.dealt(node):
            return node.reach[p] > 0
        w, info = self._other_weights(node, p)
        if info["exact"]:
            return (node.reach[p] * w) > 0
        known = np.zeros(self.params.ranks, np.int64)
        for s in range(self.n):
            if s == p:
                continue
            live = node.ranges[s][node.reach[s] > 0]
            if len(live) == 0:
                return np.zeros(len(node.ranges[p]), np.bool_)
            known += self.counts[live].min(axis=0)
        fits = np.all(self.counts[node.ranges[p]] + known[None, :] <= self.params.copies,
                      axis=1)
        return (node.reach[p] > 0) & fits

    def _sampled_deals(self) -> np.ndarray:
        """``int64[REACH_SAMPLES, players]``: hand indices of deals drawn uniformly from
        the deck (seeded: the same deals at every node)."""
        if getattr(self, "_deals", None) is None or self._deals.shape[0] != REACH_SAMPLES:
            p = self.params
            deck = np.repeat(np.arange(p.ranks), p.copies)
            order = np.argsort(self._rng.random((REACH_SAMPLES, deck.size)), axis=1)
            cards = deck[order[:, :self.n * p.hand_size]].reshape(REACH_SAMPLES, self.n,
                                                                   p.hand_size)
            base = (p.copies + 1) ** np.arange(p.ranks)
            codes = np.zeros((REACH_SAMPLES, self.n), np.int64)
            for i in range(p.hand_size):
                codes += base[cards[:, :, i]]
            hand_codes = self.counts @ base
            srt = np.argsort(hand_codes)
            self._deals = srt[np.searchsorted(hand_codes[srt], codes)]
        return self._deals

    @property
    def num_hands(self) -> int:  # for joint_factors
        return self.H

    def reach_probability(self, node: Node) -> float:
        """Probability of the public node under the policy (all seats, chance)."""
        p = 0 if node.player < 0 else node.player
        w, _ = self._other_weights(node, p)
        if not self.dealt(node):
            return node.chance * float(node.reach[p][0] * w[0])
        return node.chance * float(np.sum(w * node.reach[p]))

    def start_values(self) -> None:
        """Decide whether exact values are given (two players, a public tree of at most
        ``values_budget`` nodes by Knuth's estimate) and, if so, start building them
        (:class:`Values`) in a background thread (the kernels release the GIL)."""
        import threading

        with self._values_lock:
            if self._values_thread is not None or self._values is not None:
                return
            self._values = False
            if self.n != 2 or self.values_budget <= 0:
                return
            from ..solvers.public.tree import count_public_tree

            if count_public_tree(self.params, probes=400).nodes > self.values_budget:
                return
            self._values_thread = threading.Thread(target=self._build_values, daemon=True)
            self._values_thread.start()

    def _build_values(self) -> None:
        try:
            v = Values(self)
        except ValueError:  # over the budget after all
            v = False
        self._values = v

    def values(self, block: bool = True) -> Values | None:
        """The exact values of this strategy (:class:`Values`), or ``None`` when the
        public tree is over ``values_budget`` nodes, the game has four players, or (with
        ``block=False``) they are still being built (:meth:`values_pending`)."""
        self.start_values()
        t = self._values_thread
        if block and t is not None:
            t.join()
        return self._values or None

    def values_pending(self) -> bool:
        """True while the exact values are being built."""
        t = self._values_thread
        return t is not None and t.is_alive()

    def hand_grid(self, node: Node, block: bool = True) -> dict:
        """The hand grid of ``node``'s actor: one row per hand of the game.

        Returns:
            ``{"actions": [labels], "raise": [bool per action], "rows": [...],
            "exact_reach": bool, "samples": sampled deals consistent with the history
            (four players, large ranges) or None, "samples_drawn": deals drawn or None,
            "values": bool, "showdown": whether the showdown proxy (and so the bluff
            flag) exists: two players}``; a row is
            ``{"hand": index, "label", "in_range": whether the history leaves the hand
            possible under the strategy (:meth:`possible`: card removal, its own reach;
            else no mix and no value), "in_table": whether the policy's
            table has the hand's information state (else it plays its fallback),
            "reach": P(hand | history),
            "own_reach": product of its own action probabilities, "probs": [per action],
            "raise": raise frequency, "value": points per deal or None, "best": rank
            index of its best card, "showdown": share of the opponent's range it beats
            card by card (two players) or None, "bluff": bool}``.
        """
        if node.kind != KIND_DECISION:
            return {"actions": [], "raise": [], "rows": [], "exact_reach": True,
                    "samples": None, "samples_drawn": None, "values": False,
                    "showdown": self.n == 2}
        p = node.player
        chs = self.children(node)
        acts = [c.label.split(" ", 1)[1] for c in chs]
        is_raise = np.array([_is_raise(a) for a in acts], bool)
        w, info = self._other_weights(node, p)
        joint = node.reach[p] * w
        Z = joint.sum()
        cond = joint / Z if Z > 0 else np.zeros_like(joint)
        vals = None
        V = self.values(block)
        if V is not None:
            cfv = V.node_values(node)
            if cfv is not None:
                vals = np.where(w > 0, cfv / np.where(w > 0, w, 1.0), np.nan)
        showdown = self._showdown(node, p) if self.n == 2 and self.dealt(node) else None
        rows = []
        dealt = self.dealt(node)
        live = self.possible(node, p)
        pos = {int(h): i for i, h in enumerate(node.ranges[p]) if live[i]}
        hand_ids = range(self.H) if dealt else [self.H]
        for h in hand_ids:
            i = pos.get(h)
            label = self.hand_labels[h] if h < self.H else "(not dealt)"
            best = int(self.hands[h][0]) if h < self.H else -1
            if i is None:
                rows.append({"hand": h, "label": label, "in_range": False, "reach": 0.0,
                             "in_table": None,
                             "own_reach": 0.0, "probs": [None] * len(chs), "raise": None,
                             "value": None, "best": best, "showdown": None, "bluff": False})
                continue
            probs = [float(x) if node.legal[i, k] else None for k, x in enumerate(node.sigma[i])]
            rf = float(node.sigma[i][is_raise].sum()) if is_raise.any() else 0.0
            sd = None if showdown is None else float(showdown[i])
            v = None if vals is None or not np.isfinite(vals[i]) else float(vals[i])
            rows.append({"hand": h, "label": label, "in_range": True, "reach": float(cond[i]),
                         "in_table": bool(node.hit[i]),
                         "own_reach": float(node.reach[p][i]), "probs": probs, "raise": rf,
                         "value": v, "best": best, "showdown": sd,
                         "bluff": bool(rf >= BLUFF_MIN_RAISE and sd is not None and sd < 0.5
                                       and cond[i] > 0)})
        return {"actions": acts, "raise": is_raise.tolist(), "rows": rows,
                "exact_reach": bool(info["exact"]), "samples": info.get("samples"),
                "samples_drawn": None if info["exact"] else REACH_SAMPLES,
                "values": vals is not None, "showdown": self.n == 2}

    def _showdown(self, node: Node, p: int) -> np.ndarray:
        """Two players: for each hand of ``p``'s range, the share of the opponent's
        reach-weighted range (card removal included) that it beats card by card from the
        best (ranks by index, 0 the highest; ties count half). A proxy for "loses the
        showdown", the order of the grid's best-card sort, not a rule of the game."""
        o = 1 - p
        rp, ro = node.ranges[p], node.ranges[o]
        P = self.pair_p[np.ix_(rp, ro)] * node.reach[o][None, :]
        # hands are numbered in lexicographic order of their sorted ranks
        # (enumerate_hands), so "beats card by card" is "a smaller index"
        beats = np.where(rp[:, None] < ro[None, :], 1.0,
                         np.where(rp[:, None] == ro[None, :], 0.5, 0.0))
        tot = P.sum(axis=1)
        return np.where(tot > 0, (P * beats).sum(axis=1) / np.where(tot > 0, tot, 1.0), 0.0)

    def aggregate(self, node: Node) -> list[float]:
        """The actor's action frequencies over its hands (weighted by
        ``P(hand | history)``), one per child; the chance probabilities at a chance node."""
        chs = self.children(node)
        if node.kind == KIND_CHANCE:
            return [c.prob for c in chs]
        if node.kind != KIND_DECISION:
            return []
        w, _ = self._other_weights(node, node.player)
        joint = node.reach[node.player] * w
        Z = joint.sum()
        if Z <= 0:
            return [float("nan")] * len(chs)
        return [float(x) for x in (joint / Z) @ node.sigma]


class Values:
    """Exact values of a two-player strategy on its built public tree.

    The tree (:func:`~vitou_ai.solvers.public.tree.build_public_tree`) and the policy
    over its entries (the replay of :func:`~vitou_ai.solvers.public.export.bot_policy`:
    the same probabilities as :class:`Strategy`'s) are made once; a node's values are one
    value pass (:func:`~vitou_ai.solvers.public.kernels.walk`, mode ``POLICY_GIVEN``,
    no update) over its subtree.

    Raises:
        ValueError: the tree has more than ``strategy.values_budget`` nodes.
    """

    def __init__(self, strategy: Strategy):
        from ..solvers.public.cfr import PublicPasses, entry_policy
        from ..solvers.public.export import policy_entries
        from ..solvers.public.tree import build_public_tree

        self.s = strategy
        self.tree = t = build_public_tree(strategy.params, max_nodes=strategy.values_budget)
        # bot_policy's replay, with the strategy's own pack (a mapped table is no bot)
        raw = np.zeros(t.num_entries)
        policy_entries(t.params.to_array(), t.kind, t.player, t.first, t.nchild, t.action,
                        t.actor_off, t.actor_len, t.entries, t.hands, t.deal0, strategy.pack, 0,
                        strategy.bounds, t.params.num_actions, np.zeros(0, np.int32), raw)
        self.policy = entry_policy(t, raw)
        self.passes = PublicPasses(self.tree, frontier_size=0)
        self._memo: dict[tuple[int, ...], np.ndarray] = {}

    def locate(self, path: tuple[int, ...]) -> tuple[int, np.ndarray, np.ndarray]:
        """The tree's node at ``path`` and each seat's range there as slices of
        ``tree.entries`` (``int64[n]`` offsets and lengths)."""
        t = self.tree
        n = t.num_players
        offs = np.zeros(n, np.int64)  # the "not dealt" range: entry 0
        lens = np.ones(n, np.int64)
        node = 0
        i = 0
        while True:
            if t.kind[node] == 3:  # the deal: every seat every hand
                node = int(t.first[node])
                offs[:] = 1
                lens[:] = t.num_hands
                continue
            if i == len(path):
                return node, offs, lens
            f, m = int(t.first[node]), int(t.nchild[node])
            c = next(f + k for k in range(m) if int(t.action[f + k]) == path[i])
            if t.kind[node] == KIND_DECISION:
                p = int(t.player[node])
                offs[p] = int(t.actor_off[c])
                lens[p] = int(t.actor_len[c])
            node = c
            i += 1

    def node_values(self, node: Node) -> np.ndarray | None:
        """``float64[R_p]``: the actor's counterfactual values at ``node`` (points per
        deal times the others' reach mass), per hand of its range."""
        from ..solvers.public import kernels as PK

        if node.kind != KIND_DECISION:
            return None
        if node.path in self._memo:
            return self._memo[node.path]
        t, ps = self.tree, self.passes
        tid, offs, lens = self.locate(node.path)
        n, H1 = t.num_players, t.num_hands + 1
        reach = np.zeros((n, H1))
        for s in range(n):
            reach[s, :len(node.reach[s])] = node.reach[s]
        p = node.player
        common = (t.kind, t.player, t.first, t.nchild, t.prob, t.util, t.actor_off,
                  t.actor_len, t.entries, t.parent_slot, ps.forced, t.num_hands, t.pair_prob,
                  t.counts, ps.joint, n, p, PK.POLICY_GIVEN)
        e = np.zeros(0)
        top = len(ps.s_node) - 1
        scratch = (ps.s_node[top], ps.s_k[top], ps.s_off[top], ps.s_len[top], ps.s_rd[top],
                   ps.s_vr[top], ps.s_reach[top], ps.s_val[top], ps.s_aux[top], ps.s_cnt[top],
                   ps.s_sig[top], ps.s_q[top])
        out = np.zeros(H1)
        PK.walk(*common, PK.UPDATE_NONE, e, e, self.policy, 1.0, 1.0, 1.0, 1.0, False, tid,
                offs, lens, reach, ps.frontier, PK.STOP_IGNORE, ps.fr_offs, ps.fr_lens,
                ps.fr_reach, ps.fr_val, *scratch, out)
        v = out[:len(node.ranges[p])].copy()
        self._memo[node.path] = v
        return v
