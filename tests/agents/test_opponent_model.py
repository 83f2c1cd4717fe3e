"""The master's compiled world sampling: shuffles, the opponent model's weights, and worlds
that agree with the view."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np

from kseri import Match, Rules
from kseri.agents import make_agent
from kseri.agents.master import CONTESTED_FACTOR, SOLVED_WORLDS, MasterAgent
from kseri.agents.sampler import STYLE_FLOOR, Sampler
from kseri.bench.ceiling import true_pool
from kseri.bench.duplicate import bench_deal, play_round
from kseri.fast.kernels import LOOSE_TEMPERATURE
from kseri.fast.sampling import STYLES, shuffled_pools


def test_shuffles_are_permutations_reproducible_from_their_seed() -> None:
    pool = np.arange(5, 45, dtype=np.int8)
    rows = shuffled_pools(pool, 200, seed=9)
    assert (np.sort(rows, axis=1) == pool).all()
    assert (shuffled_pools(pool, 200, seed=9) == rows).all()
    assert not (shuffled_pools(pool, 200, seed=10) == rows).all()
    # every card reaches every place: the first place's counts are near uniform
    counts = np.bincount(shuffled_pools(pool, 8000, seed=1)[:, 0] - 5, minlength=40)
    assert counts.min() > 120 and counts.max() < 290


def _expert_positions(preset: str, deals: int) -> list[tuple[Sampler, np.ndarray]]:
    """Positions of rounds between two experts where the seat to play has seen an opponent's
    play this batch: the sampler of that view and the true placement of its unseen cards."""
    rules = Rules.preset(preset)
    expert = make_agent("expert")
    found = []
    for index in range(deals):
        deal = bench_deal(rules, "opponent-model", index)
        match = Match(rules, deal=deal)
        while (seat := match.turn) is not None:
            view = match.view(seat)
            per_batch = rules.players * rules.batch_size
            if len(view.plays) % per_batch >= rules.players and view.hand_sizes[seat] > 1:
                sampler = Sampler(view)
                found.append((sampler, true_pool(view, deal, sampler)))
            match.play(expert.choose(view))
    return found


def test_the_opponent_model_favours_the_true_world_when_the_opponent_is_the_expert() -> None:
    """Against the expert, the true placement explains its plays better than random ones: its
    log-likelihood beats the median shuffle's far more often than it trails it (not always: a
    true hand whose other cards were close seconds explains the play less surely than a random
    hand of poor alternatives)."""
    for preset in ("greek", "pisti"):
        above = below = 0
        for sampler, truth in _expert_positions(preset, 12):
            shuffles = shuffled_pools(np.array(sampler.unseen, np.int8), 63, seed=len(sampler.view.plays))
            logs = sampler._log_likelihoods(np.concatenate([truth, shuffles]))
            above += logs[0] > np.median(logs[1:])
            below += logs[0] < np.median(logs[1:])
        assert above > 2 * below, (preset, above, below)


def test_weighted_worlds_agree_with_the_view_and_explain_the_plays_better() -> None:
    """The sampler's worlds are placements of the unseen cards that explain the opponent's plays
    better than plain shuffles: far better on average, and nowhere worse beyond the noise of 32
    worlds (where the plays tell little, both explain them alike)."""
    rng = random.Random(3)
    gains = []
    for sampler, _ in _expert_positions("greek", 6):
        pools = sampler.pools(rng, 32)
        assert (np.sort(pools, axis=1) == np.sort(np.array(sampler.unseen, np.int8))).all()
        plain = shuffled_pools(np.array(sampler.unseen, np.int8), 256, seed=rng.getrandbits(64))
        both = sampler._log_likelihoods(np.concatenate([pools, plain]))
        gains.append(both[:32].mean() - both[32:].mean())
        for row in pools.tolist()[:3]:
            world = sampler.world(row)
            view = sampler.view
            assert [len(hand) for hand in world.hands] == list(view.hand_sizes)
            assert world.hands[view.seat] == view.hand
    assert min(gains) > -0.15 and np.mean(gains) > 0.5


def test_the_style_posterior_reads_each_kind_of_player() -> None:
    """After three batches the model reads who sits across: the style it rates likeliest from the
    plays of earlier batches is the player's own, in most positions, for each kind of player
    (well above a third, chance: the expert and greedy often agree, and in Pisti's small hands a
    random player's card is often the expert's too, so the reading is not always sure). A loose
    expert (the noisy expert at the loose temperature) plays the expert's card often enough to be
    read as the expert at times, but is read as loose more often than as anything else."""
    for preset in ("greek", "pisti"):
        rules = Rules.preset(preset)
        per_batch = rules.players * rules.batch_size
        for style in STYLES:
            opponent = (make_agent("noisy-expert", seed=4, temperature=LOOSE_TEMPERATURE) if style == "loose"
                        else make_agent(style, seed=4))
            expert = make_agent("expert")
            readings: Counter[str] = Counter()
            for index in range(12):
                match = Match(rules, deal=bench_deal(rules, "styles", index))
                while (seat := match.turn) is not None:
                    view = match.view(seat)
                    if seat == 0 and len(view.plays) >= 3 * per_batch:
                        readings[STYLES[int(Sampler(view).styles[1].argmax())]] += 1
                    match.play((expert if seat == 0 else opponent).choose(view))
            share = readings[style] / readings.total()
            if style == "loose":
                assert share > 0.45 and readings.most_common(1)[0][0] == style, (preset, readings)
            else:
                assert share > 0.6, (preset, style, readings)


def test_the_worlds_rollouts_give_each_other_seat_a_style_and_the_viewer_the_expert() -> None:
    rules = Rules.preset("greek")
    match = Match(rules, seed=8)
    greedy = make_agent("greedy")
    while len(match.view(0).plays) < 2 * rules.players * rules.batch_size + 3:
        match.play(greedy.choose(match.view(match.turn)))
    view = match.view(match.turn)
    sampler = Sampler(view)
    policies = sampler.opponents(random.Random(2), sampler.pools(random.Random(1), 400))
    assert policies.shape == (400, rules.players)
    assert (policies[:, view.seat] == STYLES.index("expert")).all()
    other = policies[:, 1 - view.seat]
    # a greedy player's plays make greedy the commonest reading of it
    assert np.bincount(other, minlength=len(STYLES)).argmax() == STYLES.index("greedy")
    again = sampler.opponents(random.Random(2), sampler.pools(random.Random(1), 400))
    assert again.tolist() == policies.tolist()


def test_the_master_solves_the_end_exactly_only_against_players_read_as_experts() -> None:
    """In the Greek game's last batch the master solves each world (a handful) when the other
    player has played like the expert, and rolls the end out with the read style (its full
    budget of worlds) when they have played like greedy."""
    rules = Rules.preset("greek")
    for style, solved in (("expert", True), ("greedy", False)):
        opponent = make_agent(style)
        master = MasterAgent(seed=1)
        checked = 0
        for index in range(4):
            match = Match(rules, deal=bench_deal(rules, "endgame-reading", index))
            while (seat := match.turn) is not None:
                view = match.view(seat)
                if seat == 0:
                    card = master.choose(view)
                    if view.stock_size == 0 and len(set(view.hand)) > 1 and len(view.hand) >= 4:
                        assert (master.last_worlds <= SOLVED_WORLDS) == solved, (style, index)
                        checked += 1
                    match.play(card)
                else:
                    match.play(opponent.choose(view))
        assert checked >= 4


def test_a_contested_move_plays_more_worlds_only_where_the_rollouts_run_to_the_end() -> None:
    """Rolled out to the round's end (Pisti), a move whose cards its worlds do not tell apart
    plays on, up to :data:`CONTESTED_FACTOR` times its worlds, and one decided early stops early;
    rolled out to the batch's end (the Greek game), every move stops at its worlds."""
    for preset, factor in (("pisti", CONTESTED_FACTOR), ("greek", 1)):
        rules = Rules.preset(preset)
        worlds = []
        for index in range(6):
            match = Match(rules, deal=bench_deal(rules, "contested", index))
            master = MasterAgent(seed=index, iterations=32)
            master.choose(match.view(match.turn))
            worlds.append(master.last_worlds)
        assert max(worlds) == 32 * factor, (preset, worlds)
        if factor > 1:
            assert min(worlds) < 32, worlds


def test_the_master_reads_a_player_by_the_match_s_earlier_rounds() -> None:
    """What a player's earlier rounds showed carries into the next: at the master's first play of
    a round, before any batch of it is over, a master that sat across a random player for two
    rounds (in either seat) reads it as random, while a master new to it reads the prior, the
    expert. Within a round nothing is carried; the read never leaves a style less than
    :data:`STYLE_FLOOR`."""
    rules = Rules.preset("pisti")
    master = MasterAgent(seed=1, iterations=4)
    opponent = make_agent("random", seed=3)
    match = Match(rules, deal=bench_deal(rules, "memory", 0))
    while (seat := match.turn) is not None:
        match.play((master if seat == 1 else opponent).choose(match.view(seat)))
        assert master.earlier is None
    play_round(rules, bench_deal(rules, "memory", 1), [master, opponent])
    assert master.earlier is not None and master.earlier.shape == (2, len(STYLES))
    match = Match(rules, deal=bench_deal(rules, "memory", 2))
    while match.turn != 0:
        match.play(opponent.choose(match.view(1)))
    view = match.view(0)
    master.choose(view)  # a new round: the last one's last view is recalled
    read = np.exp(master.sampler(view).styles[1])
    fresh = np.exp(MasterAgent(seed=1).sampler(view).styles[1])
    assert STYLES[int(read.argmax())] == "random" and read.max() > 0.9, read
    assert STYLES[int(fresh.argmax())] == "expert", fresh
    assert read.min() >= STYLE_FLOOR / 1.01
