"""The ladder's rungs: levels like the others (legal, from views alone), cheap, and ordered."""

import itertools
import statistics

import pytest
from viewkit import twin, views_along

from kseri import PRESETS, Rules
from kseri.agents import AGENTS, LADDER, RUNGS, Agent, make_agent
from kseri.agents.ladder import WEAKEST_FIRST
from kseri.agents.tempered import Tempered, temperature_for
from kseri.bench.duplicate import bench_deal, duplicate_round, play_round
from kseri.server.workers import CHEAP_LEVELS


def test_the_rungs_are_levels_listed_weakest_first() -> None:
    assert list(RUNGS) == ["expert-5", "expert-18", "expert-35", "expert-62"]
    assert list(LADDER) == [*RUNGS, "expert", "master"]
    assert set(RUNGS) <= set(AGENTS) and list(AGENTS) == list(WEAKEST_FIRST)
    assert set(RUNGS) <= CHEAP_LEVELS and "master" not in CHEAP_LEVELS
    for name, strength in RUNGS.items():
        rung = make_agent(name, seed=4)
        assert isinstance(rung, Tempered) and rung.name == name
        assert rung.temperature == temperature_for(strength)
    with pytest.raises(ValueError, match="'expert-35' has no strength dial"):
        make_agent("expert-35", strength=0.5)


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("rung", list(RUNGS))
def test_every_rung_plays_whole_rounds_of_every_preset(rung: str, preset: str) -> None:
    rules = Rules.preset(preset)
    agents = [make_agent(rung, seed=seat) for seat in range(rules.players)]
    # play_round hands each agent Match.view(seat) only, and Match.play refuses illegal cards.
    result = play_round(rules, bench_deal(rules, seed="ladder", index=4), agents)
    assert sum(map(len, result.captured)) <= rules.deck_size


@pytest.mark.parametrize("preset", ["greek", "pisti", "partnership"])
def test_a_rungs_choice_depends_on_the_view_only(preset: str) -> None:
    """Two matches whose hidden cards differ but whose views agree get the same choices."""
    rules = Rules.preset(preset)
    rungs: list[Agent] = [make_agent(name, seed=9) for name in RUNGS]
    for view in views_along(rules, seed=6, every=7):
        same = twin(view, seed=3)
        for rung in rungs:
            assert rung.choose(same) == rung.choose(view), rung.name


@pytest.mark.parametrize("preset", ["greek", "pisti"])
def test_each_rung_scores_more_than_the_one_below(preset: str) -> None:
    """On the same 300 duplicate deals against greedy, each rung (and then the expert) scores
    more than the one below, by more than 3 standard errors of the paired difference."""
    rules = Rules.preset(preset)
    greedy = make_agent("greedy")
    deals = [bench_deal(rules, seed="ladder", index=i) for i in range(300)]
    margins = [[duplicate_round(rules, deal, [make_agent(level, seed=11), greedy]) for deal in deals]
               for level in [*RUNGS, "expert"]]
    for weaker, stronger in itertools.pairwise(margins):
        gains = [a - b for a, b in zip(stronger, weaker, strict=True)]
        mean, error = statistics.mean(gains), statistics.stdev(gains) / len(gains) ** 0.5
        assert mean - 3 * error > 0, (preset, mean, error)
