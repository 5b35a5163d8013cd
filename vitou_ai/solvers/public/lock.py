"""Node locking on the two-player public tree: hold one player's strategy fixed at
chosen public nodes, measure the best exploit of it and re-solve the rest of the game.

A *lock* fixes, at some decision nodes of the public tree and for some hands of the
acting player, that player's action probabilities (a *mix*). It is written in a small
TOML file (:func:`load_locks`; the format is ``docs/guide/node-locking.md``)::

    [game]                      # the game the locks are for (checked against the run's)
    profile = "vitou_2p"
    ranks = 5
    copies = 4
    hand_size = 3

    [[lock]]                    # "the non-dealer never refuses a raise to 6"
    player = "non-dealer"       # a position: "non-dealer" (leads trick 1, R1.3) or "dealer"
    phase = "answer"            # blind | play | answer | abandon | one-from-end
    stake = "6"                 # ladder label standing; for an answer, the raise answered
    mix = { accept = 0.5, raise = 0.5 }   # probabilities over the actions, summing to 1

A rule picks its nodes by a pattern (``player``, ``phase``, ``stake``, ``trick``) or by one
public history in the hand-history syntax of the explorer's search box (``history =
"dealer 1, p0 raise"``, RULES.md section 10 without the hands), and its hands by
``hands`` (exact hands, ``["T 9 A", "K K Q"]``) and / or ``best_card`` (hand classes by
the best rank dealt, :mod:`vitou_ai.eval.analysis`), all hands by default. Its play is a
``mix`` (action names as histories write them: ``raise``, ``accept``, ``refuse``,
``play T``, ``pass``, ``abandon``, ``agree``, ``reject``, ``go``, ``decline``; actions not
named get 0) or ``bot = "NAME"``, a named bot's exact probabilities there
(:func:`~vitou_ai.solvers.public.export.bot_policy`). A rule locks each matched (node,
hand) where every action its mix plays is legal for that hand; a later rule overrides an
earlier one on the same information set. Every lock of a file holds one position.

Solving with a lock (:class:`LockedCFR`): the locked information sets play their mix in
the current policy (their regrets are set to the mix after every pass: regret matching
then returns it) and in the average policy (their cumulative policy likewise), so CFR
solves the game in which those sets are chance nodes; the other sets of both players
equilibrate around them. With the dealer drawn (R1.4) a position is either seat,
depending on the draw; values by position average over the draw.

Measures (:func:`exploit_report`, points per deal for the locked position, averaged
over the dealer draw): the blueprint's value; the *locked blueprint* (the lock, the
blueprint elsewhere) against the blueprint; against the other position's best response
(the maximal exploit: Johanson et al. 2011 best response); the re-solved equilibrium
given the lock, and its exploitability in the locked game (each side's best response,
the locked side's restricted to its unlocked sets: the kernel's ``UPDATE_BR_FIXED``).

Two players only: four-player games are refused (a lock of one seat leaves a three-seat
general-sum game, whose "re-solve" and "exploit" are team brackets, not a best response).

One module because the lock's parsing, its resolution on a tree and the locked solves
and measures share one object (:class:`NodeLock`) and one node-feature pass.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..._numba import jit
from ...rules import kernel as K
from ...rules import layout as L
from ...rules.params import VitouParams, game_name, knob_differences, profile_knobs
from . import kernels as PK
from .cfr import PublicCFR, PublicPasses
from .tree import (
    KIND_CHANCE,
    KIND_DEAL,
    KIND_DECISION,
    PublicTree,
    _replay_push,
    check_entry_array,
    replay_start,
)

POSITIONS = ("non-dealer", "dealer")
PHASES = {"blind": L.PH_BLIND, "play": L.PH_PLAY, "answer": L.PH_ANSWER,
          "abandon": L.PH_ABANDON, "one-from-end": L.PH_ONE_FROM_END}
RULE_KEYS = ("player", "phase", "stake", "trick", "history", "hands", "best_card", "mix", "bot",
             "note")
#: a probability of a mix is 0 or at least this (regret matching drops weights below
#: :data:`~vitou_ai.solvers.flat.kernels.RM_TOLERANCE`)
MIN_PROBABILITY = 1e-9


class LockError(ValueError):
    """A lock file or rule the game does not allow; the message is one line naming the
    rule broken (the file's, or RULES.md's)."""


# ---- public features of the nodes ----------------------------------------------------------


@jit
def _features(params, kind, player, first, nchild, action, aoff, ent, hands, deal0, out):
    """Replay the tree on the kernel and write, per node: dealer, phase, stake index
    standing, completed tricks (``out[node, 0:4]``)."""
    st_states, st_node = replay_start(params)
    sp = 1
    state = np.empty(L.STATE_SIZE, np.int32)
    played = np.empty(L.MAX_RANKS, np.int64)
    while sp > 0:
        sp -= 1
        K.copy_state(st_states[sp], state)
        node = st_node[sp]
        out[node, 0] = state[L.S_DEALER]
        out[node, 1] = state[L.S_PHASE]
        out[node, 2] = state[L.S_STAKE]
        out[node, 3] = state[L.S_NTRICKS]
        sp, st_states, st_node = _replay_push(params, kind, player, first, nchild, action, aoff,
                                              ent, hands, deal0, node, state, st_states, st_node,
                                              sp, played)


@dataclasses.dataclass(frozen=True)
class NodeFeatures:
    """Public features of each node of a public tree (``int64[num_nodes]`` each, from
    the kernel's state: :func:`node_features`).

    ``dealer`` (seat, -1 before the draw), ``phase`` (``layout.PH_*``), ``stake`` (ladder
    index standing, a raise awaiting its answer included, R4.1), ``trick`` (1-based, the
    trick being played), ``position`` (the actor's: 0 non-dealer, 1 dealer, -1 off
    decisions), ``parent`` (-1 at the root).
    """

    dealer: np.ndarray
    phase: np.ndarray
    stake: np.ndarray
    trick: np.ndarray
    position: np.ndarray
    parent: np.ndarray


def node_features(tree: PublicTree) -> NodeFeatures:
    """:class:`NodeFeatures` of ``tree`` (one kernel replay of the tree)."""
    cached = getattr(tree, "_node_features", None)
    if cached is not None:
        return cached
    out = np.zeros((tree.num_nodes, 4), np.int64)
    _features(tree.params.to_array(), tree.kind, tree.player, tree.first, tree.nchild,
              tree.action, tree.actor_off, tree.entries, tree.hands, tree.deal0, out)
    parent = np.full(tree.num_nodes, -1, np.int64)
    inner = np.nonzero(tree.nchild > 0)[0]
    for node in inner:
        f = int(tree.first[node])
        parent[f:f + int(tree.nchild[node])] = node
    dealer = out[:, 0]
    n = tree.num_players
    pos = np.where(tree.kind == KIND_DECISION, (tree.player.astype(np.int64) - dealer - 1) % n, -1)
    feats = NodeFeatures(dealer, out[:, 1], out[:, 2], out[:, 3] + 1, pos, parent)
    object.__setattr__(tree, "_node_features", feats)  # a cache on the (frozen) tree
    return feats


def entry_nodes(tree: PublicTree) -> tuple[np.ndarray, np.ndarray]:
    """(``int64[num_entries]`` the decision node each entry acts at, ``int64[num_entries]``
    the child its action leads to); -1 for the full and "not dealt" ranges."""
    from .export import entry_children

    child = entry_children(tree)
    parent = node_features(tree).parent
    node = np.where(child >= 0, parent[np.maximum(child, 0)], -1)
    return node, child


# ---- the lock file ---------------------------------------------------------------------------


def _check_game(table, params: VitouParams, where: str) -> None:
    if not isinstance(table, dict) or "profile" not in table:
        raise LockError(f"{where}: a lock file names its game in a [game] table with at least "
                        "'profile' (and the knobs: ranks, copies, hand_size, ...)")
    known = {f.name for f in dataclasses.fields(VitouParams)}
    unknown = sorted(set(table) - known)
    if unknown:
        raise LockError(f"{where}: [game] has no knob {unknown[0]!r}; a game's knobs: "
                        f"profile, {', '.join(profile_knobs(params.profile))}")
    try:
        g = dict(table)
        if "scores" in g:
            g["scores"] = tuple(g["scores"])
        theirs = VitouParams(**g)
    except (TypeError, ValueError) as e:
        raise LockError(f"{where}: [game] is not a game: {str(e).splitlines()[0]}") from None
    if theirs.profile != params.profile or theirs.knobs() != params.knobs():
        raise LockError(f"{where}: the locks are written for another game than this run's "
                        f"{game_name(params)}: [game] has "
                        f"{knob_differences(theirs, params, 'run', table)}; [game] must match "
                        "the run")


def _parse_hand(text: str, params: VitouParams, where: str) -> tuple[int, ...]:
    labels = list(params.rank_labels)
    try:
        ranks = tuple(sorted(labels.index(w) for w in str(text).split()))
    except ValueError:
        raise LockError(f"{where}: hand {text!r} is not a hand of this deck (ranks "
                        f"{' '.join(labels)}, {params.hand_size} a hand)") from None
    if len(ranks) != params.hand_size or any(ranks.count(r) > params.copies for r in ranks):
        raise LockError(f"{where}: hand {text!r} is not a hand of this deck "
                        f"({params.hand_size} cards, at most {params.copies} of a rank, R1.1)")
    return ranks


@dataclasses.dataclass(frozen=True)
class LockRule:
    """One ``[[lock]]`` rule as read (module docstring); ``index`` is its 0-based place."""

    index: int
    player: str | None = None
    phase: str | None = None
    stake: str | None = None
    trick: int | None = None
    history: str | None = None
    hands: tuple[tuple[int, ...], ...] | None = None
    best_card: tuple[str, ...] | None = None
    mix: dict[str, float] | None = None
    bot: str | None = None
    note: str = ""


def parse_locks(data: dict, params: VitouParams, where: str = "locks") -> list[LockRule]:
    """The rules of a parsed lock file, checked against the game (not yet the tree).

    Raises:
        LockError: one line naming the rule: no or another game, an unknown key, a bad
            position / phase / stake / trick / hand / card, a mix that is not a
            probability distribution (negative, not summing to 1), both or neither of
            ``mix`` and ``bot``, a four-player game.
    """
    from ...capabilities import UnsupportedGameError, require

    try:
        require("node_locking", params)
    except UnsupportedGameError as e:
        raise LockError(f"{where}: {e}") from None
    unknown = set(data) - {"game", "lock"}
    if unknown:
        raise LockError(f"{where}: unknown top-level key {sorted(unknown)[0]!r}; a lock file has "
                        "[game] and [[lock]] rules")
    _check_game(data.get("game"), params, where)
    rules = data.get("lock")
    if not isinstance(rules, list) or not rules:
        raise LockError(f"{where}: no [[lock]] rule")
    out = []
    labels = list(params.ladder_labels)
    for i, r in enumerate(rules):
        w = f"{where}: lock {i}"
        if not isinstance(r, dict):
            raise LockError(f"{w}: a rule is a table ([[lock]])")
        bad = set(r) - set(RULE_KEYS)
        if bad:
            raise LockError(f"{w}: unknown key {sorted(bad)[0]!r}; keys: {', '.join(RULE_KEYS)}")
        if r.get("player") is not None and r["player"] not in POSITIONS:
            raise LockError(f"{w}: player {r['player']!r} is not a position: 'non-dealer' or "
                            "'dealer'")
        if r.get("phase") is not None and r["phase"] not in PHASES:
            raise LockError(f"{w}: phase {r['phase']!r} is not one of {', '.join(PHASES)}")
        stake = r.get("stake")
        if stake is not None:
            stake = str(stake)
            if stake not in labels:
                raise LockError(f"{w}: stake {stake!r} is not on the ladder "
                                f"{' '.join(labels)} (R4.1)")
        trick = r.get("trick")
        if trick is not None and (isinstance(trick, bool) or not isinstance(trick, int)
                                  or not 1 <= trick <= params.hand_size):
            raise LockError(f"{w}: trick {trick!r} is not 1..{params.hand_size}")
        if r.get("history") is None and r.get("player") is None:
            raise LockError(f"{w}: a rule names its nodes by 'history' or by a pattern with "
                            "'player'")
        hands = r.get("hands")
        if hands is not None:
            if isinstance(hands, str) or not isinstance(hands, list) or not hands:
                raise LockError(f"{w}: hands is a list of hands, e.g. [\"T 9 A\"]")
            hands = tuple(_parse_hand(h, params, w) for h in hands)
        best = r.get("best_card")
        if best is not None:
            if isinstance(best, str):
                best = [best]
            if any(b not in params.rank_labels for b in best):
                raise LockError(f"{w}: best_card {best!r}: ranks of this deck are "
                                f"{' '.join(params.rank_labels)}")
            best = tuple(best)
        mix, bot = r.get("mix"), r.get("bot")
        if (mix is None) == (bot is None):
            raise LockError(f"{w}: give exactly one of 'mix' (action probabilities) or 'bot' "
                            "(a named bot's play)")
        if mix is not None:
            if not isinstance(mix, dict) or not mix:
                raise LockError(f"{w}: mix is a table of action = probability")
            try:
                if any(isinstance(v, bool) or not isinstance(v, int | float)
                       for v in mix.values()):
                    raise TypeError  # "1" or true is not a probability
                mix = {str(k): float(v) for k, v in mix.items()}
            except (TypeError, ValueError):
                raise LockError(f"{w}: mix probabilities must be numbers") from None
            if any(not (v == 0 or MIN_PROBABILITY <= v <= 1) for v in mix.values()):
                raise LockError(f"{w}: mix probabilities must be 0 or in [{MIN_PROBABILITY:g}, 1]"
                                f": {mix}")
            total = sum(mix.values())
            if abs(total - 1.0) > 1e-9:
                raise LockError(f"{w}: mix sums to {total:.12g}, not 1 (a probability "
                                "distribution over the node's actions)")
        if bot is not None and not isinstance(bot, str):
            raise LockError(f"{w}: bot is a bot name (vitou-ai simulate --bots)")
        out.append(LockRule(i, r.get("player"), r.get("phase"), stake, trick, r.get("history"),
                            hands, best, mix, bot, str(r.get("note", ""))))
    return out


def load_locks(path: str | Path, params: VitouParams) -> list[LockRule]:
    """:func:`parse_locks` of a TOML file.

    Raises:
        LockError: no such file, not TOML, or :func:`parse_locks`'s refusals.
    """
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text())
    except FileNotFoundError:
        raise LockError(f"{path}: no such lock file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise LockError(f"{path}: cannot read the lock file ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise LockError(f"{path}: not TOML: {e}") from None
    return parse_locks(data, params, str(path))


# ---- resolving the rules on a tree ---------------------------------------------------------


def _action_id(params: VitouParams, name: str, where: str) -> int:
    from ...rules.game import Game

    try:
        return Game(params).string_action(" ".join(name.split()[:2]))
    except ValueError as e:
        raise LockError(f"{where}: {name!r} is not an action of {params.profile} "
                        f"({str(e).splitlines()[0]})") from None


def find_history(tree: PublicTree, text: str, where: str = "history") -> int:
    """The node of a public history (``"dealer 1, p0 raise, p0 play T"``: items separated
    by commas, the dealer draw as ``dealer S`` when drawn, each action ``pS VERB [ARG]``
    as in hand histories, RULES.md section 10); the deal is implicit.

    Raises:
        LockError: one line: the first item that is malformed, out of turn, or not a
            public action of the game at that point (naming the legal ones).
    """
    from ...rules.game import Game
    from ...rules.history import verb_only

    game = Game(tree.params)
    feats = node_features(tree)
    labels = tree.params.ladder_labels
    items = [t.strip() for t in str(text).split(",") if t.strip()]
    node = 0
    for i, item in enumerate(items):
        while tree.kind[node] == KIND_DEAL:
            node = int(tree.first[node])
        f, m = int(tree.first[node]), int(tree.nchild[node])
        w = f"{where}: item {i} {item!r}"
        if tree.kind[node] == KIND_CHANCE:
            names = [f"dealer {feats.dealer[f + k]}" for k in range(m)]
            if item.lower() not in names:
                raise LockError(f"{w}: the dealer is drawn here (R1.4); expected one of "
                                f"{', '.join(names)}")
            node = f + names.index(item.lower())
            continue
        if tree.kind[node] != KIND_DECISION:
            raise LockError(f"{w}: the deal is already over (R3.2)")
        words = item.split()
        p = int(tree.player[node])
        legal = [game.action_string(int(tree.action[f + k])) for k in range(m)]
        if words and words[0].lower() == "dealer" and tree.params.dealer >= 0:
            raise LockError(f"{w}: the dealer is not drawn in this game (dealer "
                            f"{tree.params.dealer}): leave the 'dealer S' item out; legal "
                            f"here: {', '.join(legal)}")
        if len(words) < 2 or words[0].lower() != f"p{p}":
            raise LockError(f"{w}: it is seat {p}'s turn (write 'p{p} VERB'); legal here: "
                            f"{', '.join(legal)}")
        verb = " ".join(words[1:])
        try:
            a = game.string_action(verb_only(verb))
        except ValueError:
            raise LockError(f"{w}: not an action; legal here: {', '.join(legal)}") from None
        if a == L.A_RAISE and len(words) == 3:
            st = int(feats.stake[node]) + 1
            if st >= len(labels) or words[2] != labels[st]:
                raise LockError(f"{w}: a raise here goes to {labels[min(st, len(labels) - 1)]} "
                                "(R4.1: one step of the ladder)")
        ks = [k for k in range(m) if int(tree.action[f + k]) == a]
        if not ks:
            raise LockError(f"{w}: not legal at this public node; legal here: "
                            f"{', '.join(legal)}")
        node = f + ks[0]
    while tree.kind[node] == KIND_DEAL:
        node = int(tree.first[node])
    return node


@dataclasses.dataclass
class NodeLock:
    """A lock resolved on a tree.

    Attributes:
        tree: the public tree.
        position: the locked position, 0 non-dealer, 1 dealer.
        fixed: ``float64[num_entries]``, the locked probability of each entry's action,
            -1 on entries not locked (whole information sets are locked or not).
        rules: the rules it came from; ``text``: the lock file's text (written to the
            run folder), ``infosets``: locked (node, hand) pairs per rule.
    """

    tree: PublicTree
    position: int
    fixed: np.ndarray
    rules: list[LockRule]
    text: str = ""
    infosets: list[int] = dataclasses.field(default_factory=list)

    @property
    def mask(self) -> np.ndarray:
        """``bool[num_entries]``: the locked entries."""
        return self.fixed >= 0.0

    @property
    def other(self) -> int:
        """The position that is not locked."""
        return 1 - self.position

    def apply(self, policy: np.ndarray) -> np.ndarray:
        """``policy`` (``float64[num_entries]``) with the locked entries set to the lock."""
        policy = check_entry_array(self.tree, policy).copy()
        m = self.mask
        policy[m] = self.fixed[m]
        return policy


def resolve_locks(tree: PublicTree, rules: list[LockRule], text: str = "",
                  where: str = "locks") -> NodeLock:
    """The rules' locked entries on ``tree`` (module docstring for the matching).

    Raises:
        LockError: one line: a history that is not one of the game, an action the game
            does not have or that no hand may take at the node, a rule that locks nothing,
            rules holding both positions, a bot the game does not take.
    """
    from ...bots.named import parse_bot
    from .export import bot_policy

    p = tree.params
    if p.players != 2:
        raise LockError(f"{where}: node locking is for two-player games")
    feats = node_features(tree)
    enode, child = entry_nodes(tree)
    fixed = np.full(tree.num_entries, -1.0)
    labels = list(p.ladder_labels)
    ranks = list(p.rank_labels)
    best_of = np.array([int(h.min()) for h in tree.hands])
    positions = set()
    counts = []
    bots: dict[str, np.ndarray] = {}
    dec = tree.kind == KIND_DECISION
    act_of_entry = np.where(child >= 0, tree.action[np.maximum(child, 0)], -1)
    for r in rules:
        w = f"{where}: lock {r.index}"
        if r.history is not None:
            node = find_history(tree, r.history, w + " history")
            if tree.kind[node] != KIND_DECISION:
                raise LockError(f"{w}: history {r.history!r} ends at no decision (a chance "
                                "node or the end of the deal)")
            sel = np.zeros(tree.num_nodes, bool)
            sel[node] = True
        else:
            sel = dec.copy()
        if r.player is not None:
            sel &= feats.position == POSITIONS.index(r.player)
        if r.phase is not None:
            sel &= feats.phase == PHASES[r.phase]
        if r.stake is not None:
            sel &= feats.stake == labels.index(r.stake)
        if r.trick is not None:
            sel &= feats.trick == r.trick
        if r.history is not None and not sel.any():
            phase = [k for k, v in PHASES.items() if v == feats.phase[node]]
            raise LockError(
                f"{w}: history {r.history!r} ends at the {POSITIONS[feats.position[node]]}'s "
                f"decision ({phase[0] if phase else 'phase ?'}, stake "
                f"{labels[feats.stake[node]]}, trick {feats.trick[node]}), which the rule's "
                "player / phase / stake / trick exclude")
        if r.mix is not None:
            want = {_action_id(p, k, w): v for k, v in r.mix.items()}
            play = [a for a, v in want.items() if v > 0]
        else:
            if r.bot not in bots:
                try:
                    bots[r.bot] = bot_policy(tree, parse_bot(r.bot))
                except (ValueError, OSError) as e:
                    raise LockError(f"{w}: bot {r.bot!r}: {str(e).splitlines()[0]}") from None
            want, play = None, []
        hand_ok = np.ones(tree.num_hands + 1, bool)
        if r.hands is not None:
            hs = {tuple(int(x) for x in h) for h in tree.hands.tolist()}
            idx = {tuple(int(x) for x in h): i for i, h in enumerate(tree.hands.tolist())}
            hand_ok[:] = False
            for h in r.hands:
                if h in hs:
                    hand_ok[idx[h]] = True
        if r.best_card is not None:
            cls = np.isin(best_of, [ranks.index(b) for b in r.best_card])
            hand_ok[:-1] &= cls
            hand_ok[-1] = False
        ents = np.nonzero((enode >= 0) & sel[np.maximum(enode, 0)])[0]
        if r.history is not None and want is not None:
            node = int(np.nonzero(sel)[0][0]) if sel.any() else -1
            if node >= 0:
                f, m = int(tree.first[node]), int(tree.nchild[node])
                here = {int(tree.action[f + k]) for k in range(m)}
                for a in play:
                    if a not in here:
                        from ...rules.game import Game

                        g = Game(p)
                        raise LockError(f"{w}: {g.action_string(a)!r} is not legal at "
                                        f"{r.history!r}; legal here: "
                                        f"{', '.join(g.action_string(x) for x in sorted(here))}")
        # group the entries by information set (node, hand)
        n_locked = 0
        if len(ents):
            key = enode[ents] * (tree.num_hands + 1) + tree.entries[ents].astype(np.int64)
            order = np.argsort(key, kind="stable")
            ents, key = ents[order], key[order]
            cuts = np.nonzero(np.diff(key))[0] + 1
            for grp in np.split(ents, cuts):
                h = int(tree.entries[grp[0]])
                if not hand_ok[h]:
                    continue
                if want is not None:
                    acts = act_of_entry[grp]
                    if any(a not in acts for a in play):
                        continue  # the mix plays an action this hand may not take here
                    fixed[grp] = [want.get(int(a), 0.0) for a in acts]
                else:
                    fixed[grp] = bots[r.bot][grp]
                positions.add(int(feats.position[enode[grp[0]]]))
                n_locked += 1
        if n_locked == 0:
            raise LockError(f"{w}: matches no (node, hand) of {game_name(p)} where its "
                            "actions are legal (check player, phase, stake, trick, hands)")
        counts.append(n_locked)
    if len(positions) != 1:
        raise LockError(f"{where}: the rules lock both positions; a lock set holds one "
                        "player (the other best-responds)")
    return NodeLock(tree, positions.pop(), fixed, list(rules), text, counts)


def lock_from_file(tree: PublicTree, path: str | Path) -> NodeLock:
    """:func:`load_locks` then :func:`resolve_locks` (LockError on any refusal)."""
    rules = load_locks(path, tree.params)
    return resolve_locks(tree, rules, Path(path).read_text(), str(path))


# ---- solving with a lock -------------------------------------------------------------------


class LockedCFR(PublicCFR):
    """:class:`~vitou_ai.solvers.public.cfr.PublicCFR` with a :class:`NodeLock` held.

    After every pass (and before the first) the locked entries' regrets and cumulative
    policy are set to the lock's probabilities and their predictions to 0: regret
    matching then plays the lock (the current policy) and the average policy normalises
    it back (exactly the lock, up to one rounding of a sum equal to 1). The other
    information sets run the variant's update as usual.

    Raises:
        LockError: a lock of another tree.
    """

    def __init__(self, game: VitouParams | PublicTree, lock: NodeLock, variant: str = "dcfr",
                 **kwargs):
        super().__init__(lock.tree if game is lock.tree else game, variant, **kwargs)
        if lock.fixed.shape != (self.tree.num_entries,):
            raise LockError("the lock was resolved on another tree")
        self.lock = lock
        # the locked entries as indices: a boolean mask over every entry costs three
        # full-table passes after each pass (about 1 s an iteration on the full vitou_2p)
        self._idx = np.flatnonzero(lock.mask)
        self._val = lock.fixed[self._idx]
        self._impose()

    def _impose(self) -> None:
        i = self._idx
        self.regrets[i] = self._val
        self.cum_policy[i] = self._val
        if self.predictive:
            self.prediction[i] = 0.0

    def iterate(self, n: int = 1, hook: Callable[[int, bool, tuple], None] | None = None,
                skip: tuple[int, ...] = ()) -> None:
        def held(p: int, after: bool, disc: tuple) -> None:
            if hook is not None:
                hook(p, after, disc)
            if after:
                self._impose()

        super().iterate(n, held, skip)

    def average_policy(self) -> np.ndarray:
        return self.lock.apply(super().average_policy())

    def current_policy(self) -> np.ndarray:
        return self.lock.apply(super().current_policy())


# ---- measures by position ------------------------------------------------------------------




def _conditioned(tree: PublicTree) -> list[tuple[float, int, PublicTree]]:
    """(probability, dealer, tree) per dealer: with the dealer drawn, the tree with the
    draw set to that dealer (the values of a pass are then conditional on it)."""
    cached = getattr(tree, "_conditioned", None)
    if cached is not None:
        return cached
    feats = node_features(tree)
    if tree.params.dealer >= 0 or tree.kind[0] != KIND_CHANCE:
        out = [(1.0, int(tree.params.dealer), tree)]
    else:
        out = []
        f, m = int(tree.first[0]), int(tree.nchild[0])
        for k in range(m):
            prob = tree.prob.copy()
            prob[f:f + m] = 0.0
            prob[f + k] = 1.0
            t = dataclasses.replace(tree, prob=prob)
            out.append((float(tree.prob[f + k]), int(feats.dealer[f + k]), t))
    object.__setattr__(tree, "_conditioned", out)
    return out


class PositionEvaluator:
    """Exact values and best responses by position (0 non-dealer, 1 dealer), points per
    deal, averaged over the dealer draw (one pass set per dealer). Two players."""

    def __init__(self, tree: PublicTree):
        if tree.num_players != 2:
            raise LockError("values by position here are for two players")
        self.tree = tree
        self.parts = [(w, d, PublicPasses(t))
                      for w, d, t in _conditioned(tree)]

    def values(self, policy: np.ndarray) -> np.ndarray:
        """``float64[2]``: each position's expected return under ``policy``."""
        policy = check_entry_array(self.tree, policy)
        out = np.zeros(2)
        e = np.zeros(0)
        for w, d, ps in self.parts:
            v0 = float(ps.run(0, PK.POLICY_GIVEN, PK.UPDATE_NONE, e, e, policy)[0])
            seat0_pos = (0 - d - 1) % 2
            out[seat0_pos] += w * v0
            out[1 - seat0_pos] -= w * v0
        return out

    def best_response(self, policy: np.ndarray, position: int,
                      fixed: np.ndarray | None = None) -> float:
        """``position``'s best-response value to ``policy`` played by the other position;
        where ``fixed[e] >= 0`` (``float64[num_entries]``) the responder is held to that
        probability (a restricted best response: the locked side in a locked game)."""
        policy = check_entry_array(self.tree, policy)
        fx = np.full(self.tree.num_entries, -1.0) if fixed is None else fixed
        e = np.zeros(0)
        out = 0.0
        for w, d, ps in self.parts:
            seat = (d + 1 + position) % 2
            out += w * float(ps.run(seat, PK.POLICY_GIVEN, PK.UPDATE_BR_FIXED, fx, e, policy)[0])
        return out

    def best_response_policy(self, policy: np.ndarray, position: int) -> np.ndarray:
        """``policy`` with ``position``'s entries replaced by a pure best response to the
        other position's (``float64[num_entries]``; the first best action of each set)."""
        policy = check_entry_array(self.tree, policy)
        feats = node_features(self.tree)
        enode, _ = entry_nodes(self.tree)
        ok = enode >= 0
        node_dealer = np.where(ok, feats.dealer[np.maximum(enode, 0)], -9)
        node_pos = np.where(ok, feats.position[np.maximum(enode, 0)], -9)
        out = policy.copy()
        e = np.zeros(0)
        for _, d, ps in self.parts:
            seat = (d + 1 + position) % 2
            buf = np.zeros(self.tree.num_entries)
            ps.run(seat, PK.POLICY_GIVEN, PK.UPDATE_BR_POLICY, buf, e, policy)
            sel = (node_pos == position) & ((node_dealer == d) if d >= 0 else ok)
            out[sel] = buf[sel]
        return out

    def exploitability(self, policy: np.ndarray, fixed: np.ndarray | None = None) -> float:
        """Half the NashConv by positions (points per deal); with ``fixed``, in the game
        where those entries are held (each side's best response restricted to its free
        information sets)."""
        u = self.values(policy)
        return 0.5 * sum(self.best_response(policy, k, fixed) - u[k] for k in range(2))


def solve_locked(lock: NodeLock, iterations: int = 1000, variant: str = "dcfr",
                 target: float | None = None, check_every: int = 100,
                 progress: Callable[[dict], None] | None = None
                 ) -> tuple[np.ndarray, LockedCFR, list[dict]]:
    """Re-solve the game with ``lock`` held: :class:`LockedCFR` for up to ``iterations``
    iterations, stopping early once the exploitability given the lock is at most
    ``target`` (checked every ``check_every`` iterations; ``progress`` is called with
    each check's row of the curve).

    Returns:
        (average policy ``float64[num_entries]``, the solver, the curve: one dict per
        check with ``iteration``, ``exploitability`` (given the lock), ``seconds``).

    Raises:
        ValueError: ``iterations < 1`` or ``check_every < 1``.
    """
    if iterations < 1 or check_every < 1:
        raise ValueError("iterations and check_every must be at least 1")
    solver = LockedCFR(lock.tree, lock, variant)
    ev = PositionEvaluator(lock.tree)
    curve = []
    while solver.iteration < iterations:
        solver.iterate(min(check_every, iterations - solver.iteration))
        pol = solver.average_policy()
        x = ev.exploitability(pol, lock.fixed)
        curve.append({"iteration": solver.iteration, "exploitability": x,
                      "seconds": solver.seconds})
        if progress is not None:
            progress(curve[-1])
        if target is not None and x <= target:
            break
    return solver.average_policy(), solver, curve


def exploit_report(lock: NodeLock, blueprint: np.ndarray, resolved: np.ndarray | None = None
                   ) -> dict:
    """What a lock costs and gains, points per deal (module docstring).

    Keys: ``locked_position`` / ``other_position`` (names); ``blueprint_value`` (locked
    position, blueprint vs blueprint); ``blueprint_exploitability``; ``locked_value``
    (the lock with the blueprint elsewhere, against the blueprint); ``exploit_value``
    (the same against the other position's best response) and ``exploit_gain`` (what
    the best response gains over the blueprint's value for the other position);
    with ``resolved``: ``resolved_value`` (locked position, the re-solved equilibrium
    given the lock), ``resolved_gain_other`` / ``resolved_gain_locked`` (each position's
    value there minus its blueprint value), ``resolved_exploitability`` (given the lock).
    """
    tree = lock.tree
    ev = PositionEvaluator(tree)
    L_, O_ = lock.position, lock.other
    bp = check_entry_array(tree, blueprint)
    u_bp = ev.values(bp)
    locked = lock.apply(bp)
    u_lk = ev.values(locked)
    br_o = ev.best_response(locked, O_)
    out = {
        "locked_position": POSITIONS[L_], "other_position": POSITIONS[O_],
        "locked_infosets": int(sum(lock.infosets)),
        "blueprint_value": float(u_bp[L_]),
        "blueprint_exploitability": float(ev.exploitability(bp)),
        "locked_value": float(u_lk[L_]),
        "exploit_value": float(-br_o),
        "exploit_gain": float(br_o - u_bp[O_]),
    }
    if resolved is not None:
        rs = check_entry_array(tree, resolved)
        u_rs = ev.values(rs)
        out.update({
            "resolved_value": float(u_rs[L_]),
            "resolved_gain_other": float(u_rs[O_] - u_bp[O_]),
            "resolved_gain_locked": float(u_rs[L_] - u_bp[L_]),
            "resolved_exploitability": float(ev.exploitability(rs, lock.fixed)),
            "resolved_lock_held": bool(np.array_equal(rs[lock.mask], lock.fixed[lock.mask])),
        })
    return out
