"""A server's bot, built afresh for each play, reads a match's earlier rounds as a bot kept over
the whole match does (``kseri.server.workers.earlier_views``)."""

import numpy as np

from kseri import Match, Rules
from kseri.agents import MasterAgent, make_agent
from kseri.server.workers import SearchPool, _choose, earlier_views


def test_a_bot_built_for_each_play_reads_the_earlier_rounds_as_one_kept_over_the_match() -> None:
    rules = Rules.preset("pisti")
    match = Match(rules, seed=11)
    kept = MasterAgent(seed=5)
    opponent = make_agent("random", seed=2)
    compared = 0
    while not match.is_over() and match.round_index < 3:
        if match.turn is None:
            match.next_round()
            continue
        seat = match.turn
        view = match.view(seat)
        if seat == 0:
            match.play(opponent.choose(view))
            continue
        card = kept.choose(view)
        earlier = earlier_views(match, 1)
        assert len(earlier) == match.round_index
        for round_index, seen in enumerate(earlier):
            assert seen.turn == 1 and len(seen.hand) == 1  # the seat's last turn of that round
            assert seen.plays == match.plays[round_index][: len(seen.plays)]
        fresh = MasterAgent(seed=5)
        for seen in earlier:
            fresh.recall(seen)
        if kept.earlier is None:
            assert fresh.earlier is None
        else:
            assert fresh.earlier is not None
            np.testing.assert_allclose(fresh.earlier, kept.earlier)
            compared += 1
        assert _choose("master", 5, view, earlier) == card  # the server's bot plays as the kept one
        match.play(card)
    assert match.round_index >= 2 and compared > 20


async def test_the_search_pool_hands_the_earlier_rounds_to_a_worker_process() -> None:
    """The views cross to a worker process and back: its play is the one made here."""
    rules = Rules.preset("pisti")
    match = Match(rules, seed=4)
    expert = make_agent("expert")
    while match.round_index < 1 or match.turn != 1:
        if match.turn is None:
            match.next_round()
        else:
            match.play(expert.choose(match.view(match.turn)))
    earlier = earlier_views(match, 1)
    assert len(earlier) == 1
    pool = SearchPool(1)
    try:
        card = await pool.choose("master", 7, match.view(1), earlier)
    finally:
        pool.close()
    assert card == _choose("master", 7, match.view(1), earlier)
