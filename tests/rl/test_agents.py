"""IS-MCTS through the adapter, the numpy policy, and the training example's smoke run."""

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyspiel
import pytest

from kseri import PRESETS, Match, Rules
from kseri.agents import make_agent
from kseri.agents.encoding import encode_vector
from kseri.agents.learned import LearnedAgent, PolicyNetwork
from kseri.bench.duplicate import bench_deal, duplicate_round, play_round
from kseri.rl.ismcts import ISMCTSAgent, state_from_view
from kseri.rl.openspiel_game import GAME_NAME

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_ismcts_plays_legal_rounds_of_every_preset_from_views(preset: str) -> None:
    rules = Rules.preset(preset)
    agents = [ISMCTSAgent(seed=1, simulations=4), *(make_agent("greedy") for _ in range(rules.players - 1))]
    result = play_round(rules, bench_deal(rules, 1, 0), agents)
    assert len(result.points) == rules.sides


def test_ismcts_replays_alike_from_the_same_seed() -> None:
    """Its worlds come from its seed, not from OpenSpiel's clock-seeded sampler: the gauntlet's
    duplicate deals against it replay alike."""
    rules = Rules.preset("pisti")

    def plays() -> list[str]:
        match = Match(rules, seed=2)
        agent = ISMCTSAgent(seed=1, simulations=30)
        cards = []
        for _ in range(12):
            seat = match.turn
            assert seat is not None
            card = agent.choose(match.view(seat))
            cards.append(str(card))
            match.play(card)
        return cards

    assert plays() == plays()


def test_a_resampled_state_has_the_same_information_state() -> None:
    game = pyspiel.load_game(GAME_NAME, {"preset": "pisti"})
    match = Match(Rules.preset("pisti"), seed=3)
    rng = random.Random(2)
    for _ in range(9):
        match.play(rng.choice(match.legal_plays()))
    seat = match.turn
    assert seat is not None
    state = state_from_view(game, match.view(seat), rng)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(5):
        other = state.resample_from_infostate(seat, sampler)
        assert other.information_state_string(seat) == state.information_state_string(seat)
        assert other.information_state_tensor(seat) == state.information_state_tensor(seat)
        assert other.legal_actions() == state.legal_actions()
    with pytest.raises(ValueError, match="simulations must be at least 1"):
        ISMCTSAgent(simulations=0)


def test_the_numpy_policy_saves_loads_and_plays(tmp_path: Path) -> None:
    network = PolicyNetwork.random(np.random.default_rng(1), hidden=16, scorer=4)
    network.save(tmp_path / "p.npz")
    loaded = PolicyNetwork.load(tmp_path / "p.npz")
    match = Match(Rules.preset("greek"), seed=8)
    vector = encode_vector(match.view(match.turn))
    logits = network.logits(vector)
    assert np.allclose(loaded.logits(vector), logits, atol=0.02 * np.abs(logits).max())  # float16 weights
    rules = Rules.preset("faro")
    pair = [LearnedAgent(network=loaded), make_agent("random")]
    assert isinstance(duplicate_round(rules, bench_deal(rules, 2, 0), pair), float)
    weights = {}
    for index, (w, b) in enumerate(network.body):
        weights[f"w{index}"], weights[f"b{index}"] = w, b
    with pytest.raises(ValueError, match="missing: uo"):
        PolicyNetwork(weights | {name: network.head[name] for name in ("wp", "bp", "ua", "uh", "ub")})
    with pytest.raises(ValueError, match="do not fit the encoding"):
        PolicyNetwork(weights | network.head | {"w0": network.body[0][0][:5]})


def test_the_training_example_runs_a_smoke_version(tmp_path: Path) -> None:
    out = tmp_path / "policy.npz"
    finished = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "train_policy.py"), "--minutes", "0.1", "--envs", "4",
         "--horizon", "16", "--minibatch", "32", "--eval-deals", "3", "--rules", "classic",
         "--out", str(out)],
        capture_output=True, text=True, timeout=120, check=True)
    assert "vs greedy" in finished.stdout and "vs expert" in finished.stdout and "steps" in finished.stdout
    network = PolicyNetwork.load(out)
    match = Match(Rules.preset("classic"), seed=1)
    assert LearnedAgent(network=network).choose(match.view(match.turn)) in match.legal_plays()


def test_the_training_example_starts_from_a_trained_policy(tmp_path: Path) -> None:
    """``--init`` loads every weight of the policy: trained on at a learning rate of 0, the
    shipped network comes out unchanged."""
    out = tmp_path / "policy.npz"
    shipped = ROOT / "src" / "kseri" / "agents" / "learned.npz"
    subprocess.run(
        [sys.executable, str(ROOT / "examples" / "train_policy.py"), "--minutes", "0.05", "--envs", "4",
         "--horizon", "16", "--minibatch", "32", "--eval-deals", "2", "--rules", "classic", "--lr", "0",
         "--init", str(shipped), "--out", str(out)],
        capture_output=True, text=True, timeout=120, check=True)
    before, after = np.load(shipped), np.load(out)
    assert sorted(before.files) == sorted(after.files)
    for name in before.files:
        assert np.allclose(before[name], after[name], atol=1e-6), name
