"""The statistics against values computed by hand or known from tables."""

import math

import pytest

from kseri.bench.stats import (
    ELO_SCALE,
    bootstrap_ratings,
    bradley_terry,
    mean_interval,
    t_quantile,
    wilson_interval,
)


@pytest.mark.parametrize(
    ("p", "df", "table"),
    [(0.975, 1, 12.7062), (0.975, 2, 4.3027), (0.975, 7, 2.3646), (0.975, 30, 2.0423),
     (0.995, 5, 4.0321), (0.95, 20, 1.7247), (0.975, 120, 1.9799), (0.975, 50_000, 1.9600)],
)
def test_t_quantiles_match_the_tables(p: float, df: int, table: float) -> None:
    assert t_quantile(p, df) == pytest.approx(table, abs=6e-5)


def test_mean_interval_of_a_fixed_sample() -> None:
    sample = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]  # mean 5, sample sd sqrt(32/7)
    half = 2.364624 * math.sqrt(32 / 7) / math.sqrt(8)
    interval = mean_interval(sample)
    assert interval.estimate == 5.0
    assert interval.low == pytest.approx(5 - half, abs=1e-5)
    assert interval.high == pytest.approx(5 + half, abs=1e-5)
    assert mean_interval([3.0]).low is None
    with pytest.raises(ValueError, match="no values"):
        mean_interval([])


def test_wilson_interval_matches_known_values() -> None:
    interval = wilson_interval(8, 10)
    assert interval.estimate == 0.8
    assert (interval.low, interval.high) == (pytest.approx(0.4902, abs=1e-4), pytest.approx(0.9433, abs=1e-4))
    perfect = wilson_interval(20, 20)
    assert perfect.high == 1.0 and perfect.low == pytest.approx(0.8389, abs=1e-4)
    with pytest.raises(ValueError, match="impossible"):
        wilson_interval(11, 10)


def test_bradley_terry_recovers_the_strengths_behind_the_results() -> None:
    # Strengths 4 : 2 : 1, results exactly in proportion: the fit gives the strengths back.
    games = ([(0, 1, 1.0)] * 20 + [(0, 1, 0.0)] * 10 + [(1, 2, 1.0)] * 20 + [(1, 2, 0.0)] * 10
             + [(2, 0, 1.0)] * 6 + [(2, 0, 0.0)] * 24)
    ratings = bradley_terry(3, games, prior=0)
    doubling = ELO_SCALE * math.log(2)
    assert ratings[0] - ratings[1] == pytest.approx(doubling, abs=1e-6)
    assert ratings[1] - ratings[2] == pytest.approx(doubling, abs=1e-6)
    assert sum(ratings) == pytest.approx(0, abs=1e-9)
    # Half points (draws) count half a win each way: 2 wins + 2 draws of 4 is 3 to 1.
    drawn = bradley_terry(2, [(0, 1, 1.0), (0, 1, 1.0), (0, 1, 0.5), (0, 1, 0.5)], prior=0)
    assert drawn[0] - drawn[1] == pytest.approx(ELO_SCALE * math.log(3), abs=1e-6)


def test_a_clean_sweep_gets_a_finite_rating_and_bootstrap_intervals_hold_the_estimate() -> None:
    pairs = [[(0, 1, 1.0)] * 12, [(1, 2, 1.0)] * 8 + [(1, 2, 0.0)] * 4, [(0, 2, 1.0)] * 9 + [(0, 2, 0.5)] * 3]
    intervals = bootstrap_ratings(3, pairs, samples=100, seed=4)
    assert [i.estimate for i in intervals] == sorted((i.estimate for i in intervals), reverse=True)
    for interval in intervals:
        assert math.isfinite(interval.estimate)
        assert interval.low is not None and interval.high is not None
        assert interval.low <= interval.estimate <= interval.high
    assert bootstrap_ratings(3, pairs, samples=100, seed=4) == intervals
