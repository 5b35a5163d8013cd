"""Neural-network policies as bots: a small MLP over the information-state tensor.

The learning baselines (OpenSpiel's NFSP and Deep CFR, PPO from sb3-contrib)
produce networks; :class:`NeuralPolicy` keeps one as plain arrays, saves it to
a ``.npz`` file (``np.load(allow_pickle=False)``: no pickle, no code) and plays
it inside the jitted simulator (:func:`neural_action`), so a trained network
is a bot for ``vitou-ai tournament --bots nfsp:PATH`` like any other.

Input: the information-state tensor of ``python_vitou``
(:func:`vitou_ai.openspiel.observer.fill_infostate_tensor`, the layout the
networks were trained on). Layers: ``linear`` (``W float32[out, in]``, ``b``),
``relu``, ``tanh``, ``layernorm`` (``gamma``, ``beta``, eps 1e-5). Output over
the 22 action ids, either ``logits`` (policy = softmax over the legal actions:
NFSP's average network, PPO's actor, Deep CFR's policy network without its
final softmax) or ``probs`` (policy = the outputs of the legal actions,
clipped at 0 and renormalised).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np

from .._numba import jit
from ..openspiel.game import game_string
from ..openspiel.observer import fill_infostate_tensor, infostate_tensor_dims
from ..rng import next_float
from ..rules import RULES_VERSION, VitouParams
from ..rules import layout as L
from ..rules.observe import infostate_key
from .tabular import check_game_shape, read_npz

LAYER_LINEAR, LAYER_RELU, LAYER_TANH, LAYER_LAYERNORM = 0, 1, 2, 3
LAYER_NAMES = ("linear", "relu", "tanh", "layernorm")
OUT_LOGITS, OUT_PROBS = 0, 1
OUTPUT_NAMES = ("logits", "probs")
LN_EPS = 1e-5  # torch.nn.LayerNorm's default

# columns of NeuralPolicy.layers: kind, inputs, outputs, offset of its weights
LC_KIND, LC_IN, LC_OUT, LC_OFF = 0, 1, 2, 3


def _dims(params: VitouParams) -> np.ndarray:
    n, h, ranks, slots, ntok, match, num_actions = infostate_tensor_dims(params)
    return np.array([n, h, ranks, slots, ntok, int(match), num_actions], np.int64)


class NeuralPolicy:
    """MLP policies over the information-state tensor (module docstring): one network
    for every seat, or one per seat (NFSP trains one agent per player).

    Args:
        layers: the network, ``[(name, arrays...), ...]``: ``("linear", W[out, in],
            b[out])``, ``("relu",)``, ``("tanh",)``, ``("layernorm", gamma[d], beta[d])``;
            or a list of such networks, with ``seat_net``.
        output: ``"logits"`` or ``"probs"``.
        params: the :class:`VitouParams` of the game it was trained on (the tensor
            layout depends on players, hand size, ranks, target, mode).
        seat_net: for several networks, the network of each seat (``players`` ints).
        name: for tables; ``algorithm``: ``"nfsp"``, ``"deep_cfr"``, ``"ppo"``...

    Raises:
        ValueError: unknown layer or output names, shapes that do not chain from
            the tensor size to ``params.num_actions`` outputs (22; 31 in the family),
            non-finite weights, a bad ``seat_net``.
    """

    kind_name = "neural"

    def __init__(self, layers: list, output: str, params: VitouParams,
                 seat_net: list[int] | None = None, name: str = "neural",
                 algorithm: str = "neural"):
        import pyspiel

        if output not in OUTPUT_NAMES:
            raise ValueError(f"output must be one of {OUTPUT_NAMES}, got {output!r}")
        self.params = params
        self.name = name
        self.path: str | None = None  # the file it was read from (:meth:`load`)
        self.algorithm = algorithm
        self.output = output
        self.dims = _dims(params)
        self.input_size = int(
            pyspiel.load_game(game_string(params)).information_state_tensor_size())
        several = seat_net is not None
        nets = layers if several else [layers]
        if seat_net is None:
            seat_net = [0] * params.players
        if len(seat_net) != params.players or not all(0 <= j < len(nets) for j in seat_net):
            raise ValueError(f"seat_net must give one of the {len(nets)} networks to each of "
                             f"{params.players} seats, got {seat_net}")
        self.seat_net = np.array(seat_net, np.int64)
        self.nets = [self._compile(net, j if several else None) for j, net in enumerate(nets)]

    def _compile(self, layers: list, j: int | None) -> tuple[np.ndarray, np.ndarray]:
        where = "" if j is None else f"network {j}, "
        rows, chunks, off, width = [], [], 0, self.input_size
        for i, layer in enumerate(layers):
            kind = layer[0]
            if kind not in LAYER_NAMES:
                raise ValueError(f"{where}layer {i}: unknown kind {kind!r}; known: {LAYER_NAMES}")
            k = LAYER_NAMES.index(kind)
            if k == LAYER_LINEAR:
                w = np.asarray(layer[1], np.float32)
                b = np.asarray(layer[2], np.float32)
                if w.ndim != 2 or w.shape[1] != width or b.shape != (w.shape[0],):
                    raise ValueError(f"{where}layer {i}: linear weights {w.shape} / bias "
                                     f"{b.shape} do not take {width} inputs")
                rows.append((k, width, w.shape[0], off))
                chunks += [w.ravel(), b]
                off += w.size + b.size
                width = w.shape[0]
            elif k == LAYER_LAYERNORM:
                g = np.asarray(layer[1], np.float32)
                b = np.asarray(layer[2], np.float32)
                if g.shape != (width,) or b.shape != (width,):
                    raise ValueError(f"{where}layer {i}: layernorm of {g.shape} on {width} "
                                     "features")
                rows.append((k, width, width, off))
                chunks += [g, b]
                off += 2 * width
            else:
                rows.append((k, width, width, off))
        if width != self.params.num_actions:  # read by action id: the family's run to 30
            raise ValueError(f"{where}the network has {width} outputs, expected "
                             f"{self.params.num_actions} (one per action id of "
                             f"{self.params.profile})")
        weights = (np.concatenate(chunks) if chunks else np.zeros(0)).astype(np.float32)
        if not np.isfinite(weights).all():
            raise ValueError(f"{where}non-finite network weights")
        return np.array(rows, np.int64).reshape(-1, 4), weights

    def _spec(self, j: int) -> list[tuple]:
        """Network ``j`` back as the ``layers`` list of the constructor."""
        layers, w = self.nets[j]
        spec = []
        for k, n_in, n_out, o in layers:
            if k == LAYER_LINEAR:
                spec.append(("linear", w[o: o + n_out * n_in].reshape(n_out, n_in),
                             w[o + n_out * n_in: o + n_out * n_in + n_out]))
            elif k == LAYER_LAYERNORM:
                spec.append(("layernorm", w[o: o + n_in], w[o + n_in: o + 2 * n_in]))
            else:
                spec.append((LAYER_NAMES[k],))
        return spec

    @classmethod
    def per_seat(cls, policies: list[NeuralPolicy], name: str | None = None) -> NeuralPolicy:
        """One policy playing seat ``s`` with the network of ``policies[s]``.

        Raises:
            ValueError: policies for other games or outputs, or not one per seat.
        """
        p0 = policies[0]
        if len(policies) != p0.params.players:
            raise ValueError(f"give one policy per seat ({p0.params.players}), got "
                             f"{len(policies)}")
        for q in policies:
            if q.params != p0.params or q.output != p0.output or len(q.nets) != 1:
                raise ValueError("per_seat needs single-network policies of one game and output")
        return cls([q._spec(0) for q in policies], p0.output, p0.params,
                   seat_net=list(range(len(policies))), name=name or p0.name,
                   algorithm=p0.algorithm)

    def __repr__(self) -> str:
        widths = [int(r[LC_OUT]) for r in self.nets[0][0] if r[LC_KIND] == LAYER_LINEAR]
        return (f"NeuralPolicy(name={self.name!r}, algorithm={self.algorithm!r}, "
                f"{len(self.nets)} x {self.input_size}->{'->'.join(map(str, widths))}, "
                f"output={self.output!r})")

    # ---- evaluation in numpy (batches) --------------------------------------------------
    def forward(self, x: np.ndarray, seat: int = 0) -> np.ndarray:
        """``float32[B, 22]`` outputs of ``seat``'s network for ``float32[B, input_size]``."""
        layers, weights = self.nets[int(self.seat_net[seat])]
        h = np.asarray(x, np.float32)
        for k, n_in, n_out, off in layers:
            if k == LAYER_LINEAR:
                w = weights[off: off + n_out * n_in].reshape(n_out, n_in)
                b = weights[off + n_out * n_in: off + n_out * n_in + n_out]
                h = h @ w.T + b
            elif k == LAYER_RELU:
                h = np.maximum(h, 0.0)
            elif k == LAYER_TANH:
                h = np.tanh(h)
            else:
                g, b = weights[off: off + n_in], weights[off + n_in: off + 2 * n_in]
                mu = h.mean(axis=1, keepdims=True)
                var = h.var(axis=1, keepdims=True)
                h = (h - mu) / np.sqrt(var + LN_EPS) * g + b
        return h

    def action_probs(self, x: np.ndarray, mask: np.ndarray, seat: int = 0) -> np.ndarray:
        """``float64[B, A]``: ``seat``'s policy at tensors ``x`` with legal ``mask``
        (``bool[B, A]``, ``A = params.num_actions``: 22, 31 in the family), zero off
        the legal actions (uniform over them if the outputs give them no weight)."""
        out = self.forward(x, seat).astype(np.float64)
        mask = np.asarray(mask, bool)
        if self.output == "logits":
            z = np.where(mask, out, -np.inf)
            z = np.exp(z - z.max(axis=1, keepdims=True))
        else:
            z = np.where(mask, np.maximum(out, 0.0), 0.0)
        tot = z.sum(axis=1, keepdims=True)
        uniform = mask / np.maximum(mask.sum(axis=1, keepdims=True), 1)
        return np.where(tot > 0, z / np.where(tot > 0, tot, 1.0), uniform)

    # ---- files ---------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write a ``.npz`` file (atomic; arrays and a JSON record only, no pickle)."""
        from ..io import write_atomic

        meta = {"name": self.name, "algorithm": self.algorithm, "output": self.output,
                "rules_version": RULES_VERSION, "input_size": self.input_size,
                "networks": len(self.nets),
                "params": {"profile": self.params.profile, **self.params.knobs()}}
        arrays = {}
        for j, (layers, weights) in enumerate(self.nets):
            arrays[f"layers{j}"], arrays[f"weights{j}"] = layers, weights
        buf = io.BytesIO()
        np.savez_compressed(buf, seat_net=self.seat_net, meta=np.array(json.dumps(meta)),
                            **arrays)
        write_atomic(Path(path), buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> NeuralPolicy:
        """Read a file written by :meth:`save`.

        Raises:
            ValueError: not such a file, another ``RULES_VERSION``, inconsistent arrays.
            OSError: the file cannot be read.
        """
        z = read_npz(path, "neural policy")
        if not {"meta", "seat_net", "layers0"} <= set(z):
            raise ValueError(f"{path}: not a neural policy file (needs meta, seat_net, "
                             "layers0, weights0)")
        try:
            meta = json.loads(str(z["meta"]))
            d = dict(meta["params"])
            if "scores" in d:
                d["scores"] = tuple(d["scores"])
            params = VitouParams(**d)
            count = int(meta["networks"])
            nets = [(z[f"layers{j}"], z[f"weights{j}"]) for j in range(count)]
            seat_net = z["seat_net"].tolist()
        except (ValueError, TypeError, KeyError) as e:
            raise ValueError(f"{path}: bad neural policy record: {e}") from None
        if meta.get("rules_version") != RULES_VERSION and not _carries_over(meta):
            raise ValueError(f"{path}: written under rules {meta.get('rules_version')!r}, "
                             f"this is {RULES_VERSION!r}: retrain it")
        specs = []
        for j, (layers, w) in enumerate(nets):
            spec, off = [], 0
            if layers.ndim != 2 or layers.shape[1] != 4:
                raise ValueError(f"{path}: network {j}: layers must be int[K, 4]")
            for k, n_in, n_out, o in layers.tolist():
                if k == LAYER_LINEAR:
                    end = o + n_out * n_in + n_out
                elif k == LAYER_LAYERNORM:
                    end = o + 2 * n_in
                elif 0 <= k < len(LAYER_NAMES):
                    spec.append((LAYER_NAMES[k],))
                    continue
                else:
                    raise ValueError(f"{path}: network {j}: unknown layer kind {k}")
                if o != off or end > w.shape[0] or min(n_in, n_out) < 1:
                    raise ValueError(f"{path}: network {j}: layer weights out of place")
                if k == LAYER_LINEAR:
                    spec.append(("linear", w[o: o + n_out * n_in].reshape(n_out, n_in),
                                 w[o + n_out * n_in: end]))
                else:
                    spec.append(("layernorm", w[o: o + n_in], w[o + n_in: end]))
                off = end
            specs.append(spec)
        several = count > 1 or seat_net != [0] * params.players
        policy = cls(specs if several else specs[0], meta["output"], params,
                     seat_net=seat_net if several else None,
                     name=meta.get("name", Path(path).stem),
                     algorithm=meta.get("algorithm", "neural"))
        policy.path = str(path)
        return policy

    @classmethod
    def from_torch(cls, modules, output: str, params: VitouParams, **kwargs) -> NeuralPolicy:
        """From ``torch.nn`` modules in order (``Sequential`` flattened): ``Linear``,
        ``ReLU``, ``Tanh``, ``LayerNorm`` (default eps), and a final ``Softmax`` over
        the 22 ids, which is dropped and the policy read as ``"logits"``: softmax
        outputs renormalised over the legal actions are the softmax of the logits
        over them (Deep CFR's policy network).

        Raises:
            ValueError: a module of another type.
        """
        import torch.nn as nn

        flat = []

        def walk(m):
            if isinstance(m, nn.Sequential):
                for c in m:
                    walk(c)
            else:
                flat.append(m)

        for m in modules:
            walk(m)
        layers = []
        for m in flat:
            if isinstance(m, nn.Linear):
                layers.append(("linear", m.weight.detach().cpu().numpy(),
                               m.bias.detach().cpu().numpy()))
            elif isinstance(m, nn.ReLU):
                layers.append(("relu",))
            elif isinstance(m, nn.Tanh):
                layers.append(("tanh",))
            elif isinstance(m, nn.LayerNorm):
                if abs(m.eps - LN_EPS) > 1e-12:
                    raise ValueError(f"LayerNorm eps {m.eps}, only {LN_EPS} is supported")
                layers.append(("layernorm", m.weight.detach().cpu().numpy(),
                               m.bias.detach().cpu().numpy()))
            elif isinstance(m, nn.Softmax) and m is flat[-1]:
                output = "logits"
            else:
                raise ValueError(f"cannot export a {type(m).__name__} layer")
        return cls(layers, output, params, **kwargs)


def check_fits(policy: NeuralPolicy, params: VitouParams) -> None:
    """Refuse a network trained for another game than ``params``: profile, ranks,
    copies, hand size and target must match (the tensor layout depends on them).
    A network trained on single deals may play a match: it then sees each deal
    as a deal of its own (its tensor has no deal counter).

    Raises:
        ValueError: naming the policy, what it was trained for and what to pass.
    """
    check_game_shape(policy.name, policy.params, params)


@jit
def neural_action(layers, weights, dims, output, params, state, player, rng, legal, n_legal,
                  keybuf):
    """Sample an action of an MLP policy for ``player`` (jitted; see the module docstring).

    Args:
        layers: ``int64[K, 4]`` and weights: ``float32[W]`` of the player's network;
            dims: ``int64[7]`` tensor layout (``openspiel.observer.infostate_tensor_dims``);
            output: ``OUT_*``.
        params, state, player, rng, legal, n_legal, keybuf: as ``policy.choose_action``.
    """
    infostate_key(params, state, player, keybuf)
    width = 1
    for r in range(layers.shape[0]):
        width = max(width, layers[r, LC_IN], layers[r, LC_OUT])
    # Two buffers per decision: small (a few hundred floats), and a bot decision
    # is not the inner loop of a solver.
    a = np.zeros(width, np.float32)
    b = np.zeros(width, np.float32)
    deals = state[L.S_DEALS] if dims[5] == 1 else 0
    fill_infostate_tensor(keybuf, dims[0], dims[1], dims[2], dims[3], dims[4], True,
                          dims[5] == 1, deals, a, dims[6])
    for r in range(layers.shape[0]):
        kind, n_in, n_out, off = layers[r, 0], layers[r, 1], layers[r, 2], layers[r, 3]
        if kind == LAYER_LINEAR:
            for o in range(n_out):
                acc = weights[off + n_in * n_out + o]
                row = off + o * n_in
                for i in range(n_in):
                    acc += weights[row + i] * a[i]
                b[o] = acc
        elif kind == LAYER_RELU:
            for i in range(n_in):
                b[i] = max(a[i], 0.0)
        elif kind == LAYER_TANH:
            for i in range(n_in):
                b[i] = np.tanh(a[i])
        else:
            mu = 0.0
            for i in range(n_in):
                mu += a[i]
            mu /= n_in
            var = 0.0
            for i in range(n_in):
                var += (a[i] - mu) ** 2
            var /= n_in
            inv = 1.0 / np.sqrt(var + LN_EPS)
            for i in range(n_in):
                b[i] = (a[i] - mu) * inv * weights[off + i] + weights[off + n_in + i]
        a, b = b, a
    # a holds the num_actions outputs (one per action id); the policy over the legal actions
    total = 0.0
    if output == OUT_LOGITS:
        top = -np.inf
        for j in range(n_legal):
            top = max(top, a[legal[j]])
        for j in range(n_legal):
            b[j] = np.exp(a[legal[j]] - top)
            total += b[j]
    else:
        for j in range(n_legal):
            b[j] = max(a[legal[j]], 0.0)
            total += b[j]
    if not total > 0.0:
        for j in range(n_legal):
            b[j] = 1.0
        total = n_legal
    x = next_float(rng) * total
    for j in range(n_legal - 1):
        x -= b[j]
        if x < 0.0:
            return legal[j]
    return legal[n_legal - 1]


def tree_inputs(tree) -> tuple[np.ndarray, np.ndarray]:
    """The information-state tensors and legal masks of a game tree's infosets.

    Args:
        tree: a :class:`vitou_ai.solvers.flat.tree.GameTree` (deal mode).

    Returns:
        ``(x float32[num_infosets, tensor size], mask bool[num_infosets, A])`` (``A =
        params.num_actions``, the action ids: 22, 31 in the family), row ``i``
        for infoset ``i`` (its key ``tree.is_keys[i]``, legal ``tree.is_actions[i]``).
    """
    import pyspiel

    game = pyspiel.load_game(game_string(tree.params))
    obs = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    m = tree.num_infosets
    x = np.empty((m, obs.tensor.shape[0]), np.float32)
    mask = np.zeros((m, tree.params.num_actions), bool)
    for i in range(m):
        obs.set_from_key(tree.is_keys[i])
        x[i] = obs.tensor
        mask[i, tree.is_actions[i, : int(tree.is_nact[i])]] = True
    return x, mask


def policy_on_tree(tree, probs: np.ndarray) -> np.ndarray:
    """A native tree policy (``float64[num_infosets, MAX_INFOSET_ACTIONS]``, for
    ``solvers.evaluate.exploitability``) from ``probs`` over the action ids
    (``float[num_infosets, params.num_actions]``, rows as :func:`tree_inputs`)."""
    width = tree.is_actions.shape[1]  # solvers.tree.MAX_INFOSET_ACTIONS (a layer above bots)
    out = np.zeros((tree.num_infosets, width))
    for a in range(width):
        valid = a < tree.is_nact
        ids = np.where(valid, tree.is_actions[:, a], 0).astype(np.int64)
        out[:, a] = np.where(valid, probs[np.arange(tree.num_infosets), ids], 0.0)
    return out


def neural_policy_on_tree(policy: NeuralPolicy, tree, inputs=None) -> np.ndarray:
    """``policy`` as a native tree policy (each infoset read by its seat's network),
    for the exact ``solvers.evaluate.exploitability``. ``inputs``: :func:`tree_inputs`
    of the tree, if already computed."""
    x, mask = tree_inputs(tree) if inputs is None else inputs
    probs = np.zeros(mask.shape)
    for seat in range(tree.params.players):
        rows = tree.is_player == seat
        if rows.any():
            probs[rows] = policy.action_probs(x[rows], mask[rows], seat)
    return policy_on_tree(tree, probs)


def _carries_over(meta: dict) -> bool:
    """True when a file's earlier ``rules_version`` cannot be affected by the changes since
    (:func:`vitou_ai.rules.params.check_rules_version`)."""
    from ..rules.params import check_rules_version

    try:
        return check_rules_version(meta.get("rules_version"), None, "")
    except ValueError:
        return False
