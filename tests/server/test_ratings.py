"""Ratings against updates worked out by hand from Weng and Lin's Plackett-Luce formulas
(Algorithm 4 of "A Bayesian Approximation Method for Online Ranking", JMLR 12, 2011)."""

from __future__ import annotations

import math

import pytest

from kseri.rules import PRESETS, Rules
from kseri.server.ratings import BETA, START, START_SIGMA, TAU, Rating, family_of, rate, side_ranks

SIGMA2 = START_SIGMA**2 + TAU**2
"""A new player's variance once the match's dynamics are added (sigma² + tau²)."""


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def test_one_against_one_between_new_players() -> None:
    (winner,), (loser,) = rate([[Rating()], [Rating()]], [0, 1])
    c = math.sqrt(2 * (SIGMA2 + BETA**2))
    # equal means: the winner was a 1/2 favourite among both; the loser certain last of itself
    omega = 0.5 * SIGMA2 / c
    delta = 0.25 * SIGMA2 / c**2 * (math.sqrt(SIGMA2) / c)
    assert close(winner.mu, START + omega) and close(loser.mu, START - omega)
    assert close(winner.sigma, math.sqrt(SIGMA2 * (1 - delta)))
    assert close(loser.sigma, winner.sigma)
    assert round(winner.mu, 2) == 1616.77 and round(loser.mu, 2) == 1383.23  # worked out on paper


def test_one_against_one_an_upset() -> None:
    strong, weak = Rating(1800, 120), Rating(1400, 300)
    (weak_after,), (strong_after,) = rate([[weak], [strong]], [0, 1])
    s2, w2 = strong.sigma**2 + TAU**2, weak.sigma**2 + TAU**2
    c = math.sqrt(s2 + w2 + 2 * BETA**2)
    p_weak = math.exp(weak.mu / c) / (math.exp(weak.mu / c) + math.exp(strong.mu / c))
    assert close(weak_after.mu, weak.mu + (1 - p_weak) * w2 / c)
    assert close(strong_after.mu, strong.mu - (1 - p_weak) * s2 / c)
    assert close(weak_after.sigma,
                 math.sqrt(w2 * (1 - p_weak * (1 - p_weak) * w2 / c**2 * math.sqrt(w2) / c)))
    assert close(strong_after.sigma,
                 math.sqrt(s2 * (1 - p_weak * (1 - p_weak) * s2 / c**2 * math.sqrt(s2) / c)))
    assert weak_after.mu - weak.mu > 150  # an upset moves far


def test_two_against_two_each_side_a_team() -> None:
    after = rate([[Rating(), Rating()], [Rating(), Rating()]], [0, 1])
    team2 = 2 * SIGMA2
    c = math.sqrt(2 * (team2 + BETA**2))
    omega = 0.5 * team2 / c  # the team's; each player takes sigma²/team sigma² = 1/2 of it
    delta = 0.25 * team2 / c**2 * (math.sqrt(team2) / c)
    for player in after[0]:
        assert close(player.mu, START + omega / 2)
        assert close(player.sigma, math.sqrt(SIGMA2 * (1 - delta / 2)))
    for player in after[1]:
        assert close(player.mu, START - omega / 2)


def test_three_players_free_for_all() -> None:
    first, second, third = (team[0] for team in rate([[Rating()], [Rating()], [Rating()]], [0, 1, 2]))
    c = math.sqrt(3 * (SIGMA2 + BETA**2))
    # equal means: the first was the 1/3 favourite of all three; the second 1/3 among all (a
    # loss) then 1/2 among the last two (a win); the third lost both
    omegas = (2 / 3, -1 / 3 + 1 / 2, -1 / 3 - 1 / 2)
    deltas = (2 / 9, 2 / 9 + 1 / 4, 2 / 9 + 1 / 4)
    gamma = math.sqrt(SIGMA2) / c
    for player, omega, delta in zip((first, second, third), omegas, deltas, strict=True):
        assert close(player.mu, START + omega * SIGMA2 / c)
        assert close(player.sigma, math.sqrt(SIGMA2 * (1 - delta * SIGMA2 / c**2 * gamma)))
    assert round(first.mu) == 1627 and round(second.mu) == 1532 and round(third.mu) == 1341


def test_a_draw_moves_equal_players_apart_not_at_all() -> None:
    (a,), (b,) = rate([[Rating()], [Rating()]], [0, 0])
    assert close(a.mu, START) and close(b.mu, START) and a.sigma < math.sqrt(SIGMA2)


def test_ratings_are_shown_with_a_question_mark_while_provisional() -> None:
    assert Rating().shown() == "1500?"
    assert Rating(1623.4, 80).shown() == "1623"
    ratings = [Rating(), Rating()]
    games = 0
    while ratings[0].provisional:
        (ratings[0],), (ratings[1],) = rate([[ratings[0]], [ratings[1]]], [games % 2, 1 - games % 2])
        games += 1
    assert 5 <= games <= 20


def test_sides_are_ranked_winner_first_then_totals_a_forfeit_last() -> None:
    assert side_ranks(2, 1, [90, 160]) == [1, 0]
    assert side_ranks(3, 1, [50, 160, 70]) == [2, 0, 1]
    assert side_ranks(3, 1, [70, 160, 70]) == [1, 0, 1]
    assert side_ranks(3, 2, [120, 90, 40], forfeit_side=0) == [2, 1, 0]


def test_a_family_is_a_preset() -> None:
    assert family_of(PRESETS["pisti"]) == "pisti"
    assert family_of(Rules.from_spec("partnership")) == "partnership"
    assert family_of(Rules.from_spec("greek,jack_kseri=25")) is None


def test_a_rating_needs_a_rank_per_team() -> None:
    with pytest.raises(ValueError, match="one rank a team"):
        rate([[Rating()], [Rating()]], [0])
