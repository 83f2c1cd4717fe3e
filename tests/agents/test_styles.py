"""The opponent styles and the strength dial: legal from views alone, in character, and monotone."""

import itertools
import math
import statistics
from collections import Counter

import pytest
from viewkit import twin, views_along

from kseri import PRESETS, Rules
from kseri.agents import AGENTS, STYLES, Agent, make_agent
from kseri.agents.base import centre_cards
from kseri.agents.styles import takes, unseen_by_rank
from kseri.agents.tempered import softmax_pick, temperature_for
from kseri.bench.duplicate import bench_deal, duplicate_round, play_round
from kseri.cards import JACK, RANK_OF, Card

STYLE_OPTIONS = {"noisy-expert": {"temperature": 1.0}, "pisti-hunter": {}, "defensive": {}}
DIALLED = {"expert": {}, "master": {"iterations": 3}}


def test_the_styles_are_registered_apart_from_the_levels() -> None:
    assert list(STYLES) == list(STYLE_OPTIONS)
    assert not set(STYLES) & set(AGENTS)
    with pytest.raises(ValueError, match="the styles are: noisy-expert, pisti-hunter, defensive"):
        make_agent("shark")


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("style", list(STYLE_OPTIONS))
def test_every_style_plays_whole_rounds_of_every_preset(style: str, preset: str) -> None:
    rules = Rules.preset(preset)
    agents = [make_agent(style, seed=seat, **STYLE_OPTIONS[style]) for seat in range(rules.players)]
    # play_round hands each agent Match.view(seat) only, and Match.play refuses illegal cards.
    result = play_round(rules, bench_deal(rules, seed="styles", index=2), agents)
    assert sum(map(len, result.captured)) <= rules.deck_size


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize(("level", "strength"), [("expert", 0.0), ("expert", 0.4), ("master", 0.6)])
def test_every_dialled_level_plays_whole_rounds_of_every_preset(level: str, strength: float,
                                                                preset: str) -> None:
    rules = Rules.preset(preset)
    agents = [make_agent(level, seed=seat, strength=strength, **DIALLED[level])
              for seat in range(rules.players)]
    result = play_round(rules, bench_deal(rules, seed="dial", index=3), agents)
    assert sum(map(len, result.captured)) <= rules.deck_size


@pytest.mark.parametrize("preset", ["greek", "pisti", "partnership"])
def test_a_style_or_dialled_choice_depends_on_the_view_only(preset: str) -> None:
    """Two matches whose hidden cards differ but whose views agree get the same choices."""
    rules = Rules.preset(preset)
    bots: list[Agent] = [make_agent(style, seed=5, **options) for style, options in STYLE_OPTIONS.items()]
    bots += [make_agent("expert", seed=5, strength=0.3),
             make_agent("master", seed=5, strength=0.5, iterations=6)]
    for view in views_along(rules, seed=3, every=9):
        same = twin(view, seed=2)
        for bot in bots:
            assert bot.choose(same) == bot.choose(view), bot.name


def test_the_pisti_hunter_takes_every_kseri_it_can_and_keeps_its_jacks() -> None:
    hunter = make_agent("pisti-hunter")
    kseris = 0
    for seed in range(12):
        for view in views_along(Rules.preset("pisti"), seed=seed):
            pile = centre_cards(view)
            card = hunter.choose(view)
            if len(pile) == 1 and any(RANK_OF[c] == RANK_OF[pile[0] or c] for c in view.hand):
                assert RANK_OF[card] == RANK_OF[pile[0] or card], (view.hand, pile)
                kseris += 1
            elif RANK_OF[card] == JACK and 0 < len(pile) < 4:
                assert all(RANK_OF[c] == JACK for c in view.hand), (view.hand, pile)
    assert kseris > 5


def test_the_defensive_style_captures_else_lays_the_safest_rank() -> None:
    defensive = make_agent("defensive")
    laid = 0
    for seed in range(8):
        for view in views_along(Rules.preset("pisti"), seed=seed):
            pile = centre_cards(view)
            card = defensive.choose(view)
            if any(takes(view, c, pile) for c in view.hand):
                assert takes(view, card, pile)
                continue
            unseen = unseen_by_rank(view)
            others = [c for c in view.hand if RANK_OF[c] != JACK]
            if RANK_OF[card] != JACK:
                assert unseen[RANK_OF[card]] == min(unseen[RANK_OF[c]] for c in others)
                laid += 1
            else:
                assert not others
    assert laid > 50


def test_softmax_pick_follows_the_temperature() -> None:
    valued = [(Card(0), 3.0), (Card(1), 1.0), (Card(2), 1.0)]
    assert softmax_pick(valued, 0.0, 0.99) == Card(0)
    draws = [i / 3000 for i in range(3000)]
    uniform = Counter(softmax_pick(valued, math.inf, u) for u in draws)
    assert uniform == {Card(0): 1000, Card(1): 1000, Card(2): 1000}
    tempered = Counter(softmax_pick(valued, 2.0, u) for u in draws)
    share = math.exp(1) / (math.exp(1) + 2)
    assert tempered[Card(0)] / 3000 == pytest.approx(share, abs=0.001)
    assert temperature_for(1.0) == 0 and math.isinf(temperature_for(0.0))
    assert temperature_for(0.8) < temperature_for(0.5) < temperature_for(0.2)


def test_a_bad_strength_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match="strength must be between 0"):
        make_agent("expert", strength=1.5)
    with pytest.raises(ValueError, match="strength must be between 0"):
        make_agent("master", strength=-0.1)
    with pytest.raises(ValueError, match="'greedy' has no strength dial; the levels with one are: expert"):
        make_agent("greedy", strength=0.5)
    assert make_agent("master", strength=1.0).name == "master"


def _margins(preset: str, level: str, strengths: list[float], deals: int,
             **options: int) -> list[list[float]]:
    """Per strength, the level's margin over greedy on each of the same duplicate deals."""
    rules = Rules.preset(preset)
    greedy = make_agent("greedy")
    result = []
    for strength in strengths:
        agent = make_agent(level, seed=7, strength=strength, **options)
        result.append([duplicate_round(rules, bench_deal(rules, seed="dial", index=i), [agent, greedy])
                       for i in range(deals)])
    return result


def _paired_gain(stronger: list[float], weaker: list[float]) -> tuple[float, float]:
    gains = [a - b for a, b in zip(stronger, weaker, strict=True)]
    return statistics.mean(gains), statistics.stdev(gains) / len(gains) ** 0.5


@pytest.mark.parametrize("preset", ["pisti", "greek"])
def test_strength_raises_the_experts_margin_over_greedy(preset: str) -> None:
    """On the same 160 duplicate deals, each step up the dial scores more against greedy, by
    more than 3 standard errors of the paired difference."""
    margins = _margins(preset, "expert", [0.0, 0.3, 0.6, 1.0], deals=160)
    for weaker, stronger in itertools.pairwise(margins):
        mean, error = _paired_gain(stronger, weaker)
        assert mean - 3 * error > 0, (preset, mean, error)


@pytest.mark.slow
def test_strength_raises_the_masters_margin_over_greedy() -> None:
    margins = _margins("pisti", "master", [0.2, 1.0], deals=60, iterations=40)
    mean, error = _paired_gain(margins[1], margins[0])
    assert mean - 3 * error > 0, (mean, error)
