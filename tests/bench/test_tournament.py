"""Tournaments: repeatable from their seed whatever the worker count, forfeits, the report and plot."""

import json
import shlex
import sys
from pathlib import Path

import pytest
from engine_commands import kseri_engine, misbehaving_engine

from kseri import Rules
from kseri.bench.report import plot, summarize
from kseri.bench.tournament import (
    Player,
    TournamentConfig,
    builtin_player,
    engine_player,
    run_tournament,
    total_games,
)


def _summary_json(config: TournamentConfig, workers: int) -> str:
    done: list[int] = []
    outcome = run_tournament(config, workers, done.append)
    assert sum(done) == total_games(config)
    return json.dumps(summarize(outcome, bootstrap=50))


def test_the_same_seed_gives_the_same_json_with_any_number_of_workers() -> None:
    engine = Player("random-engine", command=tuple(kseri_engine("random")))
    config = TournamentConfig((builtin_player("greedy"), builtin_player("random"), engine),
                              Rules.preset("pisti"), deals=6, matches=1, seed=21, time_ms=2000)
    alone = _summary_json(config, workers=1)
    assert _summary_json(config, workers=2) == alone
    summary = json.loads(alone)
    assert summary["forfeits"] == []
    assert {row["name"] for row in summary["ladder"]} == {"greedy", "random", "random-engine"}
    # The engine's random bot is seeded per game like the built-in one, yet from other seeds:
    # the two random players differ, and another tournament seed changes the results.
    other = TournamentConfig(config.players, config.rules, deals=6, matches=1, seed=22, time_ms=2000)
    assert _summary_json(other, workers=1) != alone


def test_greedy_beats_random_on_duplicate_deals_in_a_three_player_game() -> None:
    config = TournamentConfig((builtin_player("greedy"), builtin_player("random")),
                              Rules.preset("three-player"), deals=30, matches=2, seed=5)
    summary = summarize(run_tournament(config), bootstrap=50)
    deals = summary["pairs"][0]["deals"]
    assert deals["played"] == 30 and deals["scored"] == 30
    assert deals["interval"][0] > 0  # greedy's point difference is clearly positive
    matches = summary["pairs"][0]["matches"]
    assert matches["played"] == 2 * 3  # two match seeds, each in the three seatings
    assert matches["even_rate"] == pytest.approx(1 / 3, abs=1e-4)
    assert [row["name"] for row in summary["ladder"]] == ["greedy", "random"]


@pytest.mark.parametrize(
    ("mode", "problem"),
    [("garbage", "sent a malformed line"), ("illegal", "an illegal play"),
     ("sleep", "timed out"), ("exit", "exited with status 3")],
)
def test_a_misbehaving_engine_forfeits_every_game_and_the_bench_finishes(mode: str, problem: str) -> None:
    bad = engine_player("bad=" + shlex.join(misbehaving_engine(mode)))
    config = TournamentConfig((builtin_player("random"), bad), Rules.preset("greek"),
                              deals=2, matches=1, seed=1, time_ms=50, grace_ms=100)
    outcome = run_tournament(config, workers=1)
    assert [d.forfeit for d in outcome.deals] == [1, 1]
    assert all(d.difference is None for d in outcome.deals)
    assert [(m.rotation, m.score, m.forfeit) for m in outcome.matches] == [(0, 1.0, 1), (1, 1.0, 1)]
    summary = summarize(outcome, bootstrap=20)
    assert summary["pairs"][0]["deals"]["forfeits"] == {"bad": 2}
    assert summary["pairs"][0]["matches"]["first_win_rate"] == 1.0
    assert [row["name"] for row in summary["ladder"]] == ["random", "bad"]
    problems = [f["problem"] for f in summary["forfeits"]]
    assert len(problems) == 4
    assert problems[0].startswith("deal 0: engine 'bad': ") and problem in problems[0]
    assert problems[2].startswith("match 0 (rotation 0, round 0): engine 'bad': ")


def test_bad_configurations_are_refused() -> None:
    greedy = builtin_player("greedy")
    with pytest.raises(ValueError, match="at least two players"):
        TournamentConfig((greedy,), Rules(), deals=1, matches=0, seed=1)
    with pytest.raises(ValueError, match="names must differ"):
        TournamentConfig((greedy, greedy), Rules(), deals=1, matches=0, seed=1)
    with pytest.raises(ValueError, match="unknown bot level 'grandmaster'"):
        builtin_player("grandmaster")
    with pytest.raises(ValueError, match="NAME=COMMAND"):
        engine_player("just-a-command")


def test_the_plot_is_a_valid_png(tmp_path: Path) -> None:
    from matplotlib.image import imread

    config = TournamentConfig((builtin_player("greedy"), builtin_player("random")),
                              Rules.preset("pisti"), deals=8, matches=0, seed=2)
    path = tmp_path / "ratings.png"
    plot(summarize(run_tournament(config), bootstrap=20), path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = imread(path)
    assert pixels.shape[0] > 100 and pixels.shape[1] > 300


def test_an_engine_that_cannot_start_forfeits_each_game_and_partnerships_are_seated_by_side() -> None:
    ghost = Player("ghost", command=("/nonexistent/engine-binary",))
    config = TournamentConfig((builtin_player("greedy"), ghost), Rules.preset("partnership"),
                              deals=2, matches=1, seed=4)
    outcome = run_tournament(config)
    assert [d.forfeit for d in outcome.deals] == [1, 1]
    assert "could not start" in outcome.deals[0].problem
    assert [m.score for m in outcome.matches] == [1.0, 1.0]  # one match seed, two seatings
    bots = TournamentConfig((builtin_player("greedy"), builtin_player("random")), Rules.preset("partnership"),
                            deals=20, matches=0, seed=4)
    summary = summarize(run_tournament(bots), bootstrap=20)
    assert summary["pairs"][0]["deals"]["mean_difference"] > 0


def test_the_minimal_engine_in_the_protocol_docs_plays_a_clean_tournament(tmp_path: Path) -> None:
    document = (Path(__file__).parents[2] / "docs" / "engine-protocol.md").read_text()
    source = document.split("```python\n", 1)[1].split("```", 1)[0]
    script = tmp_path / "first.py"
    script.write_text(source)
    first = engine_player("first=" + shlex.join([sys.executable, str(script)]))
    config = TournamentConfig((builtin_player("random"), first), Rules(), deals=2, matches=1, seed=9)
    outcome = run_tournament(config)
    assert all(d.forfeit is None and d.difference is not None for d in outcome.deals)
    assert all(m.forfeit is None for m in outcome.matches)
