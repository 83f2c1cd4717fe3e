"""A trained policy network's inference in numpy (no training library), as an agent.

The network is a multilayer perceptron on the shared encoding (:mod:`kseri.rl.encoding`):
``tanh`` hidden layers, then one logit per action. Its weights are an ``.npz`` file with
arrays ``w0, b0, w1, b1, ...`` (``x @ w + b``; the last pair gives the logits).

>>> import numpy as np
>>> from kseri import Match
>>> rng = np.random.default_rng(0)
>>> def layer(inputs, outputs):
...     return rng.normal(size=(inputs, outputs)).astype(np.float32), np.zeros(outputs, np.float32)
>>> network = PolicyNetwork([layer(VECTOR_SIZE, 8), layer(8, ACTIONS)])
>>> match = Match(seed=4)
>>> PolicyAgent(network).choose(match.view(match.turn)) in match.legal_plays()
True
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from kseri.cards import Card
from kseri.engine import View
from kseri.rl.encoding import ACTIONS, VECTOR_SIZE, action_mask, card_for_action, encode_vector

Array = npt.NDArray[np.float32]


class PolicyNetwork:
    """Layers of ``(weights, bias)``: ``tanh`` between them, logits out of the last."""

    def __init__(self, layers: Sequence[tuple[Array, Array]]) -> None:
        if not layers:
            raise ValueError("a policy network needs at least one layer")
        if layers[0][0].shape[0] != VECTOR_SIZE or layers[-1][0].shape[1] != ACTIONS:
            raise ValueError(f"the network must map {VECTOR_SIZE} inputs to {ACTIONS} logits, not "
                             f"{layers[0][0].shape[0]} to {layers[-1][0].shape[1]}")
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]

    @classmethod
    def load(cls, path: str | Path) -> PolicyNetwork:
        """Read weights saved by :meth:`save` (or the training script)."""
        with np.load(path) as data:
            count = len([name for name in data.files if name.startswith("w")])
            return cls([(data[f"w{i}"], data[f"b{i}"]) for i in range(count)])

    def save(self, path: str | Path) -> None:
        """Write the weights as ``.npz`` (float16, which is plenty for play)."""
        arrays = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w.astype(np.float16), b.astype(np.float16)
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]

    def logits(self, observation: Array) -> Array:
        """The action logits of one observation vector (or a batch of them)."""
        x = observation
        for w, b in self.layers[:-1]:
            x = np.tanh(x @ w + b)
        w, b = self.layers[-1]
        result: Array = x @ w + b
        return result


class PolicyAgent:
    """Plays the legal card with the network's highest logit."""

    name = "learned"

    def __init__(self, network: PolicyNetwork) -> None:
        self.network = network

    def choose(self, view: View) -> Card:
        """The legal card the network ranks first."""
        logits = self.network.logits(encode_vector(view))
        logits = np.where(action_mask(view) > 0, logits, -np.inf)
        return card_for_action(view, int(np.argmax(logits)))
