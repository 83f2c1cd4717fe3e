"""The ``learned`` level: a trained policy network's inference in numpy (no training library).

The network reads the shared encoding (:mod:`kseri.agents.encoding`). A body of ``tanh`` layers
turns the whole vector into a summary ``h``; each action's logit is ``h @ wp + bp`` plus a
score shared by all actions, computed from that card face's own features (the
:data:`~kseri.agents.encoding.ACTION_FIELDS`, one row per face) together with ``h``:
``tanh(features @ ua + h @ uh + ub) @ uo``. The weights are an ``.npz`` file with the body's
``w0, b0, w1, b1, ...`` and ``wp, bp, ua, uh, ub, uo``.

>>> import numpy as np
>>> from kseri import Match
>>> network = PolicyNetwork.random(np.random.default_rng(0), hidden=8, scorer=4)
>>> match = Match(seed=4)
>>> LearnedAgent(network=network).choose(match.view(match.turn)) in match.legal_plays()
True
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from kseri.agents.encoding import (
    ACTION_FIELDS,
    ACTIONS,
    OFFSETS,
    VECTOR_SIZE,
    action_mask,
    card_for_action,
    encode_vector,
)
from kseri.cards import Card
from kseri.engine import View

Array = npt.NDArray[np.float32]
HEAD: Final = ("wp", "bp", "ua", "uh", "ub", "uo")
"""The arrays after the body's layers."""
_ACTION_COLUMNS: Final = np.array([[OFFSETS[name] + face for name in ACTION_FIELDS]
                                   for face in range(ACTIONS)])
"""Per action, where its features are in the vector."""


class PolicyNetwork:
    """The policy's weights by name, and its logits."""

    def __init__(self, weights: dict[str, Array]) -> None:
        self.body: list[tuple[Array, Array]] = []
        while f"w{len(self.body)}" in weights:
            index = len(self.body)
            self.body.append((np.asarray(weights[f"w{index}"], np.float32),
                              np.asarray(weights[f"b{index}"], np.float32)))
        missing = [name for name in HEAD if name not in weights]
        if not self.body or missing:
            raise ValueError(f"policy weights need w0, b0, ... and {', '.join(HEAD)}; missing: "
                             f"{', '.join(missing) or 'w0'}")
        self.head = {name: np.asarray(weights[name], np.float32) for name in HEAD}
        hidden = self.body[-1][0].shape[1]
        shapes = {"w0": self.body[0][0].shape[0], "wp": self.head["wp"].shape,
                  "ua": self.head["ua"].shape[0], "uh": self.head["uh"].shape[0]}
        expected = {"w0": VECTOR_SIZE, "wp": (hidden, ACTIONS), "ua": len(ACTION_FIELDS), "uh": hidden}
        if shapes != expected:
            raise ValueError(f"policy weights do not fit the encoding: {shapes}, expected {expected}")

    @classmethod
    def random(cls, rng: np.random.Generator, hidden: int = 128, scorer: int = 32) -> PolicyNetwork:
        """Untrained weights of the given sizes (for tests)."""
        def normal(*shape: int) -> Array:
            values: Array = (rng.normal(size=shape) / np.sqrt(shape[0])).astype(np.float32)
            return values

        return cls({"w0": normal(VECTOR_SIZE, hidden), "b0": np.zeros(hidden, np.float32),
                    "w1": normal(hidden, hidden), "b1": np.zeros(hidden, np.float32),
                    "wp": normal(hidden, ACTIONS), "bp": np.zeros(ACTIONS, np.float32),
                    "ua": normal(len(ACTION_FIELDS), scorer), "uh": normal(hidden, scorer),
                    "ub": np.zeros(scorer, np.float32), "uo": normal(scorer)})

    @classmethod
    def load(cls, path: str | Path) -> PolicyNetwork:
        """Read weights saved by :meth:`save` (or the training script)."""
        with np.load(path) as data:
            return cls({name: data[name] for name in data.files})

    def save(self, path: str | Path) -> None:
        """Write the weights as ``.npz`` (float16, which is plenty for play)."""
        arrays: dict[str, npt.NDArray[np.float16]] = {}
        for index, (w, b) in enumerate(self.body):
            arrays[f"w{index}"], arrays[f"b{index}"] = w.astype(np.float16), b.astype(np.float16)
        for name, array in self.head.items():
            arrays[name] = array.astype(np.float16)
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]

    def logits(self, observation: Array) -> Array:
        """The action logits of one observation vector."""
        h = observation
        for w, b in self.body:
            h = np.tanh(h @ w + b)
        head = self.head
        features = observation[_ACTION_COLUMNS]
        scores = np.tanh(features @ head["ua"] + h @ head["uh"] + head["ub"]) @ head["uo"]
        result: Array = h @ head["wp"] + head["bp"] + scores
        return result


WEIGHTS: Final = Path(__file__).with_name("learned.npz")
"""The shipped weights: trained by ``examples/train_policy.py`` against greedy (``docs/rl.md``)."""


@cache
def shipped_network() -> PolicyNetwork:
    """The network of the shipped weights (read once)."""
    return PolicyNetwork.load(WEIGHTS)


class LearnedAgent:
    """Plays the legal card with the network's highest logit (the shipped network by default)."""

    name = "learned"

    def __init__(self, seed: int | None = None, *, network: PolicyNetwork | None = None) -> None:
        del seed  # deterministic
        self.network = network if network is not None else shipped_network()

    def choose(self, view: View) -> Card:
        """The legal card the network ranks first."""
        logits = self.network.logits(encode_vector(view))
        logits = np.where(action_mask(view) > 0, logits, -np.inf)
        return card_for_action(view, int(np.argmax(logits)))
