"""Observers of ``python_vitou`` for every ``pyspiel.IIGObservationType``.

OpenSpiel asks a game for observations along three axes
(``open_spiel/python/observation.py``):

- ``public_info``: what every player sees — dealer, scores, deals played
  (match mode), the player actions of the deal except gestures (raises,
  answers, cards played, R6 decisions: RULES.md R2, R4, R6, R9.2), the stake,
  the tricks, cards left per seat, and whose gesture turn has passed (R7.1;
  the gesture itself is private).
- ``private_info``: ``SINGLE_PLAYER`` adds what only the observing player
  knows — their own hand, the partner's hand while R6.1 shares it, and the
  gestures they know (their own and their partner's as made, an opponent's
  only if they caught it, R7.2). ``ALL_PLAYERS`` adds every player's private
  information — all hands, every gesture as made, and who caught which
  gesture. ``NONE`` adds nothing.
- ``perfect_recall``: ``True`` gives the history of the deal (the information
  state: hands as dealt and the public action tokens in order, from
  :func:`vitou_ai.rules.observe.infostate_key`); ``False`` gives the current
  observation only (cards still held, the current trick and stake, from
  :func:`vitou_ai.rules.observe.public_observation`), not the history.

Views with ``private_info=SINGLE_PLAYER`` name the observing seat (``p1``);
the others are the same for every player, as in OpenSpiel's C++ observers.
Strings are `` | ``-separated readable fields (``"p1 | dealer 0 | scores
0:0 | hand A K | raise,play T"``); tensors are ``float32`` with named pieces in
``dict``. In match mode the information state covers the current deal, the
scores and the number of deals played (not earlier deals).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from .._numba import jit
from ..rules import kernel as K
from ..rules import layout as L
from ..rules import observe as O
from ..rules.game import action_to_string, max_deal_decisions
from ..rules.params import RANK_LETTERS
from .util import Pieces

_PHASES = ("dealer draw", "blind window", "deal", "one from the end", "gestures", "gesture caught?",
           "play", "answer", "abandon", "over",
           # the Truc / Put family (docs/RULES_family.md P5.3, F2.1, F2.2)
           "concede or put", "fresh deal?", "fresh deal: agree?",
           # partnership Put (P6.1, P6.3)
           "take or give", "lay a card away",
           # Willughby's Put (P7.4)
           "see or fold")
_TRICK_RESULTS = ("0", "1", "void")
_SEAT_TRICK_RESULTS = ("p0", "p1", "p2", "p3", "void")  # P7.1: the winning seat


def _ranks_str(values, labels: tuple[str, ...] | None = None) -> str:
    """Rank letters of the rank indices in ``values`` (-1 skipped); ``-`` if none. A family
    game's ``labels`` (several characters, docs/RULES_family.md) are spaced."""
    if labels is not None:
        return " ".join(labels[int(v)] for v in values if v >= 0) or "-"
    return "".join(RANK_LETTERS[int(v)] for v in values if v >= 0) or "-"


def _counts_str(counts, labels: tuple[str, ...] | None = None) -> str:
    """Rank letters of per-rank copy counts (``[1, 0, 2] -> "TAA"``); ``-`` if none."""
    if labels is not None:
        return " ".join(labels[r] for r, c in enumerate(counts) for _ in range(int(c))) or "-"
    return "".join(RANK_LETTERS[r] * int(c) for r, c in enumerate(counts)) or "-"


def token_string(action: int, labels: tuple[str, ...] | None = None,
                 willughby: bool = False) -> str:
    """A public action token as the strings write it: :func:`action_to_string`, except that
    in Willughby's Put (``willughby``) the raise is the put (P7.3: ladder ``1 -> put``, one
    put a deal), written ``put`` as its hand histories write it
    (:func:`vitou_ai.rules.history.action_name`)."""
    if willughby and action == L.A_RAISE:
        return "put"
    return action_to_string(action, labels=labels)


def infostate_string(key: np.ndarray, n: int, hand_size: int, private: bool = True,
                     deals: int | None = None, labels: tuple[str, ...] | None = None,
                     partnership: bool = False, willughby: bool = False) -> str:
    """The information-state string of a kernel key (``observe.infostate_key``):
    ``"p1 | dealer 0 | scores 0:0 | hand T88 | play T,play Q"``. ``deals`` (match
    mode) is the number of deals played. Used by the observer and by policy export.
    ``private=False`` leaves out the hands (the gestures stay: this is the
    key's own view, see :class:`VitouObserver` for the public-only one). ``partnership``
    (``put_partnership``, P6.2 / P6.3): the key's partner slots are the card handed to the
    player and the card laid away, written ``got R`` / ``laid R``. ``willughby``
    (``put_willughby``, P7): no scores (P7.6, deal mode only) and the raise written
    ``put`` (:func:`token_string`); the folds are the tokens ``fold``
    (``"p1 | dealer 0 | hand A K 8 7 | play 7,put,see,fold"``)."""
    k = key
    parts = [f"p{int(k[L.K_PLAYER])}", f"dealer {int(k[L.K_DEALER])}"]
    if not willughby:
        parts.append(f"scores {int(k[L.K_SCORE0])}:{int(k[L.K_SCORE1])}")
    if deals is not None:
        parts.append(f"deals {deals}")
    if private:
        parts.append("hand " + _ranks_str(k[L.K_HAND : L.K_HAND + hand_size], labels))
        if partnership:  # P6.2, P6.3: the card handed to this active player, the card laid away
            if k[L.K_PARTNER] >= 0:
                parts.append("got " + _ranks_str(k[L.K_PARTNER : L.K_PARTNER + 1], labels))
            if k[L.K_PARTNER + 1] >= 0:
                parts.append("laid " + _ranks_str(k[L.K_PARTNER + 1 : L.K_PARTNER + 2], labels))
        elif k[L.K_PARTNER] >= 0 and hand_size <= L.KEY_HAND:
            # R6.1 partner's hand; a family fresh deal: the hand thrown in (Willughby's hands
            # of 4 or 5 run on into these slots, P7.0: they are the hand, written above)
            parts.append(("partner " if labels is None else "thrown ")
                         + _ranks_str(k[L.K_PARTNER : L.K_PARTNER + hand_size], labels))
    gest = [int(g) for g in k[L.K_GEST : L.K_GEST + n]]
    if any(g >= 0 for g in gest):
        parts.append("gestures " + " ".join(L.GESTURES[g] if g >= 0 else "?" for g in gest))
    toks = [token_string(int(t), labels, willughby)
            for t in k[L.K_TOK : L.K_TOK + int(k[L.K_NTOK])]]
    return " | ".join(parts) + " | " + ",".join(toks)


def check_obs_type(iig_obs_type) -> tuple[bool, bool, bool]:
    """``(public, single, all_players)`` of an ``IIGObservationType``.

    Raises:
        ValueError: for a ``private_info`` that is not a ``pyspiel.PrivateInfoType``.
    """
    pit = iig_obs_type.private_info
    if pit not in (pyspiel.PrivateInfoType.NONE, pyspiel.PrivateInfoType.SINGLE_PLAYER,
                   pyspiel.PrivateInfoType.ALL_PLAYERS):
        raise ValueError(f"python_vitou: unknown private_info {pit!r}")
    return (bool(iig_obs_type.public_info), pit == pyspiel.PrivateInfoType.SINGLE_PLAYER,
            pit == pyspiel.PrivateInfoType.ALL_PLAYERS)


def infostate_tensor_dims(vp) -> tuple[int, int, int, int, int, bool, int]:
    """``(n, hand_size, ranks, score_slots, ntok, match, num_actions)`` of the
    information-state tensor (perfect recall, public and single-player information)
    of a game: the arguments :func:`fill_infostate_tensor` takes. ``num_actions``
    (``vp.num_actions``: 22 for Vitou, 31 for the Truc / Put family) is the width of
    a row of the ``tokens`` piece."""
    return (vp.players, vp.hand_size, vp.ranks, vp.target + 12,
            min(L.MAX_TOKENS, max_deal_decisions(vp)), vp.mode == "match", vp.num_actions)


@jit
def fill_infostate_tensor(k, n, h, ranks, score_slots, ntok, private, match, deals, out,
                          num_actions):
    """Write the information-state tensor of key ``k`` (``observe.infostate_key``)
    into ``out`` (``float32``, overwritten): the layout of :class:`VitouObserver`
    with ``perfect_recall=True``, public information and ``private_info``
    ``SINGLE_PLAYER`` (``private=False``: without the private pieces); the rows of
    the ``tokens`` piece are ``num_actions`` wide (``params.num_actions``). Jitted, so
    neural bots in the simulator read the input their networks were trained on;
    ``tests/test_envs.py`` checks it against the observer."""
    out[:] = 0.0
    i = 0
    if private:
        out[i + k[L.K_PLAYER]] = 1.0
        i += n
    if k[L.K_DEALER] >= 0:
        out[i + k[L.K_DEALER]] = 1.0
    i += n
    out[i + min(np.int64(k[L.K_SCORE0]), score_slots - 1)] = 1.0
    i += score_slots
    out[i + min(np.int64(k[L.K_SCORE1]), score_slots - 1)] = 1.0
    i += score_slots
    if private:
        for j in range(h):
            if k[L.K_HAND + j] >= 0:
                out[i + j * ranks + k[L.K_HAND + j]] = 1.0
        i += h * ranks
        if h <= L.KEY_HAND:  # Willughby's longer hands (P7.0) fill these slots: no partner
            for j in range(h):
                if k[L.K_PARTNER + j] >= 0:
                    out[i + j * ranks + k[L.K_PARTNER + j]] = 1.0
        i += h * ranks
        for s in range(n):
            g = k[L.K_GEST + s]
            if g >= 0:
                out[i + s * N_GESTURES + g] = 1.0
        i += n * N_GESTURES
    for j in range(min(np.int64(k[L.K_NTOK]), ntok)):
        out[i + j * num_actions + k[L.K_TOK + j]] = 1.0
    i += ntok * num_actions
    if match:
        out[i] = deals


N_GESTURES = len(L.GESTURES)


class VitouObserver:
    """A ``python_vitou`` observer (the PyObserver interface: ``tensor``, ``dict``,
    ``set_from(state, player)``, ``string_from(state, player)``).

    Tensor pieces, in order, each present only in the views that include it
    (one-hot unless said otherwise; all zero where there is nothing yet):

    - ``player`` [n]: the observing seat (``SINGLE_PLAYER``).
    - perfect recall, public: ``dealer`` [n], ``score0`` / ``score1`` [target + 12].
    - perfect recall, ``SINGLE_PLAYER``: ``hand`` [hand_size, ranks] (as dealt,
      sorted), ``partner`` [hand_size, ranks] (R6.1), ``gestures`` [n, 5]: with
      public information as the player saw them (the key's view, an uncaught
      opponent's as ``none``), without it only those the player knows.
    - not perfect recall, public: ``public`` [OBS_SIZE] (``public_observation``
      as plain values, -1 = none), ``to_act`` [n] (the seat to act, if any). ``SINGLE_PLAYER``: ``hand`` / ``partner``
      [ranks] (cards still held per rank), ``gestures`` [n, 5] (as above).
    - ``ALL_PLAYERS``: ``hands`` [n, hand_size, ranks] (as dealt; perfect recall)
      or [n, ranks] (still held), ``gestures`` [n, 5] as made, ``caught`` [n, n]
      (observer, gesturer) = 1 if the observer caught the gesture (R7.2).
    - public, ``private_info=NONE``: ``gestured`` [n], 1 once the seat's gesture
      turn has passed.
    - perfect recall, public: ``tokens`` [max decisions of a deal, NUM_ACTIONS]
      (the deal's public actions in order).
    - public, match mode: ``deals`` [1] (deals played, a plain value).
    """

    def __init__(self, game, iig_obs_type):
        self.public, self.single, self.all = check_obs_type(iig_obs_type)
        self.recall = bool(iig_obs_type.perfect_recall)
        vp = game.vitou_params
        self.params_array = game.params_array
        self.labels = vp.ladder_labels
        self.rank_labels = game.rules_game.labels  # None for Vitou (the contract's letters)
        self.family = vp.family
        self.partnership = vp.partnership
        self.willughby = vp.willughby
        self.n, self.h, self.ranks = vp.players, vp.hand_size, vp.ranks
        self.match = vp.mode == "match"
        # Scores are below the target except at the end of a match, where one
        # deal (at most 12 points) may carry a score from target - 1 past it.
        self.score_slots = vp.target + 12
        self.ntok = min(L.MAX_TOKENS, max_deal_decisions(vp))
        self.num_actions = vp.num_actions
        n, h, r, g = self.n, self.h, self.ranks, len(L.GESTURES)
        pieces: list[tuple[str, tuple[int, ...]]] = []
        if self.single:
            pieces.append(("player", (n,)))
        if self.recall:
            if self.public:
                pieces += [("dealer", (n,)), ("score0", (self.score_slots,)),
                           ("score1", (self.score_slots,))]
            if self.single:
                pieces += [("hand", (h, r)), ("partner", (h, r)), ("gestures", (n, g))]
        else:
            if self.public:
                pieces += [("public", (O.OBS_SIZE,)), ("to_act", (n,))]
            if self.single:
                pieces += [("hand", (r,)), ("partner", (r,)), ("gestures", (n, g))]
        if self.all:
            pieces += [("hands", (n, h, r) if self.recall else (n, r)), ("gestures", (n, g)),
                       ("caught", (n, n))]
        if self.public and not (self.single or self.all):
            pieces.append(("gestured", (n,)))
        if self.public and self.recall:
            pieces.append(("tokens", (self.ntok, vp.num_actions)))
        if self.public and self.match:
            pieces.append(("deals", (1,)))
        p = Pieces(pieces)
        self.tensor, self.dict = p.tensor, p.dict
        self._key = np.empty(L.KEY_SIZE, dtype=np.int8)
        self._pub = np.empty(O.OBS_SIZE, dtype=np.int16)

    # ---- what the player knows, from the kernel state ---------------------------------------
    def _held(self, a, seat) -> np.ndarray:
        base = L.S_HELD + seat * L.MAX_RANKS
        return a[base : base + self.ranks]

    def _dealt(self, a, seat) -> list[int]:
        base = L.S_HAND + seat * L.MAX_HAND
        return sorted(int(x) for x in a[base : base + self.h] if x >= 0)

    def _known_gestures(self, a, player) -> list[int]:
        """Gesture per seat as ``player`` saw it: the key's view with public
        information (an uncaught opponent's shows as ``none``, 0; -1 before the
        seat's turn); without it, -1 for every gesture the player does not know."""
        k = self._key
        out = [int(x) for x in k[L.K_GEST : L.K_GEST + self.n]]
        if not self.public:
            for s in range(self.n):
                if s % 2 != player % 2 and a[L.S_SEEN + player * L.MAX_PLAYERS + s] != 1:
                    out[s] = -1  # R7.2: not caught, so not known (nor whether one was made)
        return out

    def _caught(self, a) -> np.ndarray:
        seen = a[L.S_SEEN : L.S_SEEN + L.MAX_PLAYERS * L.MAX_PLAYERS]
        return seen.reshape(L.MAX_PLAYERS, L.MAX_PLAYERS)[: self.n, : self.n]

    def _fill(self, state, player) -> None:
        O.infostate_key(self.params_array, state.a, player, self._key)
        if not self.recall and self.public:
            O.public_observation(self.params_array, state.a, self._pub)

    # ---- tensor -------------------------------------------------------------------------------
    def set_from(self, state, player: int) -> None:
        a = state.a
        self._fill(state, player)
        k = self._key
        self.tensor.fill(0)
        d = self.dict
        if self.single:
            d["player"][player] = 1
        if self.recall and self.public:
            if k[L.K_DEALER] >= 0:
                d["dealer"][k[L.K_DEALER]] = 1
            d["score0"][min(int(k[L.K_SCORE0]), self.score_slots - 1)] = 1
            d["score1"][min(int(k[L.K_SCORE1]), self.score_slots - 1)] = 1
        if not self.recall and self.public:
            d["public"][:] = self._pub
            mover = K.current_player(self.params_array, a)
            if mover >= 0:
                d["to_act"][mover] = 1
        if self.single:
            if self.recall:
                for i in range(self.h):
                    if k[L.K_HAND + i] >= 0:
                        d["hand"][i, k[L.K_HAND + i]] = 1
                    if self.h <= L.KEY_HAND and k[L.K_PARTNER + i] >= 0:
                        d["partner"][i, k[L.K_PARTNER + i]] = 1
            else:
                d["hand"][:] = self._held(a, player)
                if k[L.K_PARTNER] >= 0 and not self.family:  # R6.1: the partner's cards are shown
                    d["partner"][:] = self._held(a, (player + 2) % self.n)
            for s, g in enumerate(self._known_gestures(a, player)):
                if g >= 0:
                    d["gestures"][s, g] = 1
        if self.all:
            for s in range(self.n):
                if self.recall:
                    for i, rank in enumerate(self._dealt(a, s)):
                        d["hands"][s, i, rank] = 1
                else:
                    d["hands"][s] = self._held(a, s)
                g = a[L.S_GEST + s]
                if g >= 0:
                    d["gestures"][s, g] = 1
            d["caught"][:] = self._caught(a)
        if "gestured" in d:
            d["gestured"][:] = k[L.K_GEST : L.K_GEST + self.n] >= 0
        if "tokens" in d:
            for i in range(min(int(k[L.K_NTOK]), self.ntok)):
                d["tokens"][i, k[L.K_TOK + i]] = 1
        if "deals" in d:
            d["deals"][0] = a[L.S_DEALS]

    def set_from_key(self, k: np.ndarray, deals: int = 0) -> None:
        """Fill ``tensor`` from a kernel key (``int8[KEY_SIZE]``) and the deals played,
        without a state (the information-state view only: perfect recall, public and
        single-player information). Reads a policy on the keys of a game tree.

        Raises:
            ValueError: for another view.
        """
        if not (self.recall and self.public and self.single):
            raise ValueError("set_from_key gives the information state only (perfect recall, "
                             "public and single-player information)")
        fill_infostate_tensor(k, self.n, self.h, self.ranks, self.score_slots, self.ntok,
                              True, self.match, deals, self.tensor, self.num_actions)

    # ---- string -------------------------------------------------------------------------------
    def string_from(self, state, player: int) -> str:
        a = state.a
        self._fill(state, player)
        k = self._key
        deals = int(a[L.S_DEALS]) if self.match else None
        if self.recall and self.public and self.single:
            return infostate_string(k, self.n, self.h, True, deals, self.rank_labels,
                                    self.partnership, self.willughby)
        parts = [f"p{player}"] if self.single else []
        if self.public:
            parts.append(f"dealer {int(k[L.K_DEALER])}")
            if not self.willughby:  # P7.6: no scores
                parts.append(f"scores {int(a[L.S_SCORE0])}:{int(a[L.S_SCORE0 + 1])}")
            if deals is not None:
                parts.append(f"deals {deals}")
            if not self.recall:
                parts += self._public_now(state)
        if self.single:
            if self.recall:
                parts.append("hand " + _ranks_str(k[L.K_HAND : L.K_HAND + self.h],
                                                  self.rank_labels))
                if k[L.K_PARTNER] >= 0 and self.h <= L.KEY_HAND:
                    parts.append(("thrown " if self.family else "partner ") + _ranks_str(
                        k[L.K_PARTNER : L.K_PARTNER + self.h], self.rank_labels))
            else:
                parts.append("hand " + _counts_str(self._held(a, player), self.rank_labels))
                partner = self._held(a, (player + 2) % self.n)
                if k[L.K_PARTNER] >= 0 and partner.any() and not self.family:  # R6.1
                    parts.append("partner " + _counts_str(partner))
            gest = self._known_gestures(a, player)
            if any(g >= 0 for g in gest):
                parts.append("gestures " + " ".join(L.GESTURES[g] if g >= 0 else "?"
                                                    for g in gest))
        if self.all:
            if self.recall:
                hands = [_ranks_str(self._dealt(a, s), self.rank_labels) for s in range(self.n)]
            else:
                hands = [_counts_str(self._held(a, s), self.rank_labels) for s in range(self.n)]
            parts.append("hands " + " ".join(hands))
            gest = [int(g) for g in a[L.S_GEST : L.S_GEST + self.n]]
            if any(g >= 0 for g in gest):
                parts.append("gestures " + " ".join(L.GESTURES[g] if g >= 0 else "?"
                                                    for g in gest))
            caught = self._caught(a)
            seen = [f"p{o} saw p{s}" for o in range(self.n) for s in range(self.n) if caught[o, s]]
            if seen:
                parts.append("caught " + ", ".join(seen))
        if self.public and not (self.single or self.all):
            gest = k[L.K_GEST : L.K_GEST + self.n]
            if (gest >= 0).any():
                parts.append("gestures " + " ".join("made" if g >= 0 else "?" for g in gest))
        if self.public and self.recall:
            toks = [token_string(int(t), self.rank_labels, self.willughby)
                    for t in k[L.K_TOK : L.K_TOK + int(k[L.K_NTOK])]]
            parts.append(",".join(toks))
        return " | ".join(parts)

    def _public_now(self, state) -> list[str]:
        """The current public observation (``public_observation``) as readable fields."""
        o, a = self._pub, state.a
        phase = int(o[O.O_PHASE])
        out = [_PHASES[phase]]
        if phase not in (L.PH_TERMINAL, L.PH_DRAW_DEALER, L.PH_DEAL, L.PH_SEEN):
            out[0] += f", p{int(K.current_player(self.params_array, a))} to act"
        stake = f"stake {self.labels[int(o[O.O_STAKE])]}"
        if o[O.O_LASTRAISE] >= 0:
            stake += (f", put by p{int(o[O.O_LASTRAISE])}" if self.willughby
                      else f", raised by team {int(o[O.O_LASTRAISE])}")
        if o[O.O_ANSWER] >= 0:
            stake += f", p{int(o[O.O_ANSWER])} to answer"
        out.append(stake)
        if o[O.O_R6MODE] > 0:
            out.append("one from the end" if o[O.O_R6MODE] == 1 else "both one from the end")
        ntricks = int(o[O.O_NTRICKS])
        nplayed = int(o[O.O_NPLAYED])
        trick = [_ranks_str([c], self.rank_labels) for c in o[O.O_TRICK : O.O_TRICK + nplayed]]
        out.append(f"trick {ntricks + 1} led by p{int(o[O.O_LEADER])}: "
                   + (" ".join(trick) if trick else "no card yet"))
        if ntricks:
            names = _SEAT_TRICK_RESULTS if self.willughby else _TRICK_RESULTS
            out.append("tricks " + ",".join(names[int(t)]
                                            for t in o[O.O_TRES : O.O_TRES + ntricks]))
        played = list(o[O.O_PLAYED : O.O_PLAYED + min(self.ranks, 8)]) + list(
            o[O.O_PLAYED_HI : O.O_PLAYED_HI + max(self.ranks - 8, 0)])  # family ranks 8..
        out.append("played " + _counts_str(played, self.rank_labels))
        out.append("cards left " + " ".join(str(int(c)) for c in
                                            o[O.O_HELD_COUNT : O.O_HELD_COUNT + self.n]))
        if self.willughby:  # P7.4: who has folded (a public token) is out of the deal
            folded = [f"p{s}" for s in range(self.n) if a[L.S_OUT + s]]
            out.append("out " + (" ".join(folded) if folded else "nobody"))
        return out
