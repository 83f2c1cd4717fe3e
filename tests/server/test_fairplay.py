"""Fair-play signals (``server/fairplay.py``) on small simulated populations: each cheater caught,
the honest players around them (and near misses: a strong player winning played-out games, a
player who always resigns a lot, a busy but honest seeker) not."""

from __future__ import annotations

import random

import pytest

from kseri.server.fairplay import (
    RatedGame,
    Seek,
    Thresholds,
    accuracy_model,
    assisted,
    boosting,
    sandbagging,
    seek_spam,
    signals,
)

HOUR = 3600.0
HONEST = [f"honest{n}" for n in range(12)]


def honest_games(rng: random.Random, count: int, start: float = 0.0) -> list[RatedGame]:
    """Random pairings of the honest players, played out, ratings wandering a little; accuracy
    rising with the rating, as players of each rating reach it."""
    rating = {name: rng.uniform(1200, 1800) for name in HONEST}
    games = []
    for number in range(count):
        first, second = rng.sample(HONEST, 2)
        winner = rng.randrange(2)
        before = (rating[first], rating[second])
        rating[first] += 8 if winner == 0 else -8
        rating[second] += 8 if winner == 1 else -8
        accuracy = tuple(50 + (r - 1000) / 40 + rng.gauss(0, 6) for r in before)
        games.append(RatedGame(f"h{number}", start + number * 600, (first, second), winner, "played",
                               rng.randint(150, 250), before, (rating[first], rating[second]),
                               accuracy, (f"10.0.0.{HONEST.index(first)}", f"10.0.0.{HONEST.index(second)}")))
    return games


def thrown(table: str, at: float, winner: str, loser: str, *,
           addresses: tuple[str, str] = ("1.1.1.1", "2.2.2.2")) -> RatedGame:
    """``loser`` resigns to ``winner`` after a few plays."""
    return RatedGame(table, at, (winner, loser), 0, "resigned", 12, (1500, 1500), (1510, 1490),
                     (None, None), addresses)


def flagged(found: list) -> set[tuple[str, ...]]:  # type: ignore[type-arg]
    return {signal.subjects for signal in found}


def test_a_booster_pair_is_caught_and_honest_pairs_are_not() -> None:
    rng = random.Random(1)
    games = honest_games(rng, 300)
    games += [thrown(f"b{n}", n * 3 * HOUR, "boosted", "booster") for n in range(7)]
    found = boosting(games)
    assert flagged(found) == {("boosted", "booster"), ("address 1.1.1.1", "address 2.2.2.2")}
    signal = next(s for s in found if s.subjects[0] == "boosted")
    assert signal.evidence == "booster lost 7 of 7 rated games against boosted, 7 of them early"
    assert set(signal.tables) == {f"b{n}" for n in range(7)}


def test_boosting_through_several_accounts_is_seen_by_address() -> None:
    games = [thrown(f"b{n}", n * HOUR, "boosted", f"alt{n % 3}", addresses=("1.1.1.1", "6.6.6.6"))
             for n in range(7)]
    assert flagged(boosting(games)) == {("address 1.1.1.1", "address 6.6.6.6")}


def test_a_strong_player_winning_played_out_games_is_no_booster() -> None:
    games = [RatedGame(f"g{n}", n * HOUR, ("strong", "weak"), 0, "played", 200) for n in range(10)]
    assert boosting(games) == []
    short_of_games = [thrown(f"b{n}", n * HOUR, "boosted", "booster") for n in range(5)]
    assert boosting(short_of_games) == []


def sandbag_history(name: str, early_before: int, early_after: int, change: float) -> list[RatedGame]:
    """30 games of ``name`` against honest players, won and lost in turn: 20 usual ones with
    ``early_before`` of them lost early, then 10 with ``early_after`` lost early; the rating
    moving by ``change`` a game over the last ten."""
    games, rating = [], 1600.0
    for number in range(30):
        late = number >= 20
        early = number % 10 < (early_after if late else early_before / 2)
        lost = early or number % 2 == 1
        after = rating + change if late else rating + (-10 if lost else 10)
        games.append(RatedGame(f"{name}{number}", number * HOUR, (name, HONEST[number % len(HONEST)]),
                               1 if lost else 0, "resigned" if early else "played", 20 if early else 200,
                               (rating, 1500), (after, 1500)))
        rating = after
    return games


def test_a_sandbagger_is_caught_and_a_habitual_resigner_is_not() -> None:
    sandbagger = sandbag_history("sandbagger", early_before=2, early_after=8, change=-15)
    resigner = sandbag_history("resigner", early_before=10, early_after=6, change=-15)
    lucky = sandbag_history("lucky", early_before=2, early_after=8, change=+5)
    found = sandbagging(sandbagger + resigner + lucky + honest_games(random.Random(2), 200))
    assert flagged(found) == {("sandbagger",)}
    assert found[0].evidence.startswith("sandbagger lost 8 of 10 rated games early")
    assert found[0].evidence.endswith("while their rating fell 150")


def test_a_player_assisted_by_the_master_is_caught() -> None:
    rng = random.Random(3)
    games = honest_games(rng, 600)
    helped = []
    for number in range(12):  # accuracy 15 points above what a 1500 reaches
        accuracy = 50 + 500 / 40 + 15 + rng.gauss(0, 6)
        helped.append(RatedGame(f"a{number}", number * HOUR, ("assisted", rng.choice(HONEST)), 0, "played",
                                200, (1500, 1500), (1510, 1490), (accuracy, None)))
    model = accuracy_model(games + helped)
    assert model.expected(1500) == pytest.approx(62.5, abs=2.5)
    found = assisted(games + helped)
    assert flagged(found) == {("assisted",)}
    assert "above what players of their rating reach" in found[0].evidence
    assert assisted(games + helped[:9]) == []  # too few games to say


def test_seek_spam_is_caught_and_a_busy_honest_seeker_is_not() -> None:
    spam = [Seek("spammer", 19 * HOUR + n * 60, "withdrawn" if n % 10 else "paired") for n in range(40)]
    busy = [Seek("busy", n * 60, "paired" if n % 3 else "withdrawn") for n in range(40)]
    spread = [Seek("spread", n * 1800, "withdrawn") for n in range(40)]
    found = seek_spam(spam + busy + spread)
    assert flagged(found) == {("spammer",)}
    assert found[0].evidence == "spammer made 40 seeks within 60 minutes, 36 of them left unpaired"


def test_signals_gathers_every_kind_and_thresholds_can_be_changed() -> None:
    rng = random.Random(4)
    games = honest_games(rng, 300) + [thrown(f"b{n}", n * HOUR, "boosted", "booster") for n in range(7)]
    kinds = {signal.kind for signal in signals(games, [Seek("spammer", n, "withdrawn") for n in range(30)])}
    assert kinds == {"boosting", "seek-spam"}
    assert boosting(games, Thresholds(boost_games=8)) == []
