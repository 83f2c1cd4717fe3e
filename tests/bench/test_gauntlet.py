"""The gauntlet: its paired statistics by hand, its pairing of games, and ``kseri gauntlet`` end to end."""

import collections
import json
import math
import shlex
import statistics
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from engine_commands import misbehaving_engine

import kseri.agents
from kseri import Rules
from kseri.agents import Agent, make_agent
from kseri.bench.duplicate import bench_deal, duplicate_round
from kseri.bench.gauntlet import (
    Entrant,
    GauntletConfig,
    GauntletDeal,
    GauntletOutcome,
    builtin,
    paired_gain,
    pooled_gain,
    run_gauntlet,
)
from kseri.bench.gauntlet_report import pool, summarize
from kseri.bench.stats import t_quantile


def test_the_paired_gain_is_the_t_interval_of_the_differences() -> None:
    gain = paired_gain([3.0, 5.0, 4.0, 1.0], [1.0, 2.0, 4.0, 2.0])  # differences 2, 3, 0, -1
    half = t_quantile(0.975, 3) * statistics.stdev([2.0, 3.0, 0.0, -1.0]) / 2
    assert gain.estimate == 1.0
    assert gain.low == pytest.approx(1.0 - half) and gain.high == pytest.approx(1.0 + half)
    # the same gain unpaired would be far wider: pairing removes the deals' common luck
    luck = [10.0, -10.0, 5.0, -5.0]
    paired = paired_gain([a + b for a, b in zip(luck, [2.0, 3.0, 0.0, -1.0], strict=True)], luck)
    assert (paired.estimate, paired.low, paired.high) == (gain.estimate, gain.low, gain.high)
    with pytest.raises(ValueError, match="as many values on each side, not 2 and 1"):
        paired_gain([1.0, 2.0], [1.0])


def _config(opponents: int = 2, deals: int = 3) -> GauntletConfig:
    pool = tuple(builtin("random", f"r{number}") for number in range(opponents))
    return GauntletConfig(builtin("greedy"), pool, Rules.preset("pisti"), deals, seed=4)


def test_the_pooled_gain_averages_the_opponents_deal_by_deal_and_skips_forfeits() -> None:
    outcome = GauntletOutcome(_config(), [
        GauntletDeal(0, 0, 4.0, 1.0), GauntletDeal(1, 0, 2.0, 1.0),    # gains 3 and 1: 2
        GauntletDeal(0, 1, 0.0, 2.0), GauntletDeal(1, 1, 1.0, 1.0),    # gains -2 and 0: -1
        GauntletDeal(0, 2, 9.0, 0.0), GauntletDeal(1, 2, None, None, "deal 2: it died"),
        GauntletDeal(0, 3, 5.0, 0.0), GauntletDeal(1, 3, 5.0, 0.0),    # gains 5 and 5: 5
    ])
    pooled = pooled_gain([{0: 3.0, 1: -2.0, 2: 9.0, 3: 5.0}, {0: 1.0, 1: 0.0, 3: 5.0}])
    assert pooled is not None and pooled.estimate == pytest.approx(2.0)
    half = t_quantile(0.975, 2) * statistics.stdev([2.0, -1.0, 5.0]) / math.sqrt(3)
    assert pooled.high == pytest.approx(2.0 + half)
    summary = summarize(outcome)
    assert summary["pooled_gain"]["mean"] == pytest.approx(2.0)
    assert pooled_gain([]) is None and pooled_gain([{0: 1.0}, {1: 2.0}]) is None
    assert [row["scored"] for row in summary["opponents"]] == [4, 3]
    assert [row["gain"]["mean"] for row in summary["opponents"]] == [3.75, 2.0]  # 3 -2 9 5; 1 0 5
    assert summary["forfeits"] == [{"opponent": "r1", "problem": "deal 2: it died"}]
    assert summary["worst_gain"] == 2.0


def test_the_level_and_the_baseline_meet_the_same_opponent_on_the_same_deals() -> None:
    """With the expert as both level and baseline, even a noisy opponent plays the same in both
    games of a deal (its seeds are shared), so every gain is exactly 0."""
    pool = (builtin("noisy-expert", temperature=2.0), builtin("random"))
    config = GauntletConfig(builtin("expert", "expert-too"), pool, Rules.preset("greek"), deals=4, seed=2)
    outcome = run_gauntlet(config)
    assert len(outcome.deals) == 8
    assert all(deal.level == deal.baseline for deal in outcome.deals)
    assert {deal.level for deal in outcome.deals} != {0.0}


def test_a_deterministic_pair_scores_as_on_the_plain_duplicate_deal() -> None:
    rules = Rules.preset("pisti")
    config = GauntletConfig(builtin("greedy"), (builtin("defensive"),), rules, deals=5, seed=9)
    outcome = run_gauntlet(config)
    pair = [make_agent("greedy"), make_agent("defensive")]
    expert_pair = [make_agent("expert"), make_agent("defensive")]
    for deal in outcome.deals:
        assert deal.level == duplicate_round(rules, bench_deal(rules, 9, deal.index), pair)
        assert deal.baseline == duplicate_round(rules, bench_deal(rules, 9, deal.index), expert_pair)


def test_runs_over_consecutive_deal_ranges_pool_deal_by_deal() -> None:
    whole = run_gauntlet(_config(opponents=1, deals=5))
    config = _config(opponents=1, deals=2)
    part = run_gauntlet(GauntletConfig(config.level, config.opponents, config.rules, 2, config.seed,
                                       first_deal=3))
    assert part.deals == whole.deals[3:]
    rows = summarize(part)["opponents"]
    assert rows[0]["per_deal"] == {"index": [3, 4], "level": [d.level for d in whole.deals[3:]],
                                   "baseline": [d.baseline for d in whole.deals[3:]]}


BUILT: list[str] = []
"""The agents :func:`_counted` built in this process, by name."""


def _counted(name: str, seed: int, **options: Any) -> Agent:
    BUILT.append(name)
    return make_agent(name, seed=seed, **options)


def test_a_match_of_rounds_keeps_the_level_and_the_baseline_and_builds_the_opponent_each_deal() -> None:
    """With ``rounds`` the deals are played in matches: the level and the baseline are built once
    a match and seat order, the opponent for every deal with its seeds (so the expert, who
    remembers nothing, scores each deal as in single rounds, and so does the level on each match's
    first deal)."""
    rules = Rules.preset("pisti")
    pool = (Entrant("counted-random", make=partial(_counted, "random")),)
    level = Entrant("counted-master", make=partial(_counted, "master", iterations=8))
    baseline = Entrant("counted-expert", make=partial(_counted, "expert"))
    single = run_gauntlet(GauntletConfig(level, pool, rules, 4, seed=3, baseline=baseline))
    BUILT.clear()
    matches = run_gauntlet(GauntletConfig(level, pool, rules, 4, seed=3, baseline=baseline, rounds=2))
    # 2 matches, in 2 seat orders each; the opponent: 4 deals, 2 seat orders, 2 games a deal
    assert collections.Counter(BUILT) == {"master": 4, "expert": 4, "random": 16}
    assert [deal.index for deal in matches.deals] == [0, 1, 2, 3]
    assert [deal.baseline for deal in matches.deals] == [deal.baseline for deal in single.deals]
    assert [matches.deals[i].level for i in (0, 2)] == [single.deals[i].level for i in (0, 2)]
    assert summarize(matches)["config"]["rounds"] == 2


def _part(first: int, deals: int, opponents: int = 2) -> dict[str, Any]:
    config = _config(opponents=opponents)
    return summarize(run_gauntlet(GauntletConfig(config.level, config.opponents, config.rules, deals,
                                                 config.seed, first_deal=first)))


def test_summaries_of_consecutive_ranges_pool_into_the_whole_runs_summary() -> None:
    whole = _part(0, 5)
    pooled = pool([_part(3, 2), _part(0, 3)])
    assert pooled == whole
    assert pooled["opponents"][0]["per_deal"]["index"] == [0, 1, 2, 3, 4]


def test_pooling_refuses_overlapping_deals_other_gauntlets_and_other_files() -> None:
    with pytest.raises(ValueError, match="deals played twice against r0: 2"):
        pool([_part(0, 3), _part(2, 2)])
    with pytest.raises(ValueError, match=r"summary 2 is of another gauntlet: its opponents differs .*'r0'\]"):
        pool([_part(0, 2), _part(2, 2, opponents=1)])
    other = _part(2, 2)
    other["config"]["rules"] = Rules.preset("greek").options()
    with pytest.raises(ValueError, match=r"its rules differs from the first's .*name: 'greek', not 'pisti'"):
        pool([_part(0, 2), other])
    with pytest.raises(ValueError, match="summary 1 is not a gauntlet summary of format 1"):
        pool([{"format": 9}])
    with pytest.raises(ValueError, match="summary 2 is not a gauntlet summary of format 1"):
        pool([_part(0, 2), [1, 2]])
    with pytest.raises(ValueError, match="no summary given"):
        pool([])
    in_matches = _part(2, 2)
    in_matches["config"]["rounds"] = 2
    with pytest.raises(ValueError, match=r"its rounds differs from the first's .*2, not 1"):
        pool([_part(0, 2), in_matches])
    written_before = _part(2, 2)
    del written_before["config"]["rounds"]  # summaries written before there were matches: rounds of 1
    assert pool([_part(0, 2), written_before])["config"]["deals"] == 4


def test_the_outcome_does_not_depend_on_the_workers() -> None:
    config = _config(opponents=2, deals=4)
    assert run_gauntlet(config, workers=1).deals == run_gauntlet(config, workers=2).deals


def test_a_bad_gauntlet_is_refused_naming_the_problem() -> None:
    with pytest.raises(ValueError, match="at least one opponent"):
        GauntletConfig(builtin("greedy"), (), Rules.preset("pisti"), 2, 1)
    with pytest.raises(ValueError, match="names must differ"):
        GauntletConfig(builtin("greedy"), (builtin("greedy"),), Rules.preset("pisti"), 2, 1)
    with pytest.raises(ValueError, match="deals >= 1 and first_deal >= 0, not 0 and 0"):
        _config(deals=0)
    with pytest.raises(ValueError, match=r"the deals \(3\) must make whole matches of 2 rounds"):
        GauntletConfig(builtin("greedy"), (builtin("random"),), Rules.preset("pisti"), 3, 1, rounds=2)
    with pytest.raises(ValueError, match="either a maker or an engine command"):
        Entrant("nobody")
    with pytest.raises(ValueError, match="unexpected keyword argument 'temprature'"):
        builtin("noisy-expert", temprature=1.0)


def _kseri(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kseri", *args], capture_output=True, text=True,
                          timeout=300, check=False)


def test_the_gauntlet_command_writes_the_table_json_and_png(tmp_path: Path) -> None:
    out_json, out_png = tmp_path / "g.json", tmp_path / "g.png"
    quitter = "quitter[v2]=" + shlex.join(misbehaving_engine("exit"))  # brackets are not Rich markup
    result = _kseri("gauntlet", "master", "--iterations", "8", "--rules", "pisti", "--deals", "4",
                    "--opponent", "greedy", "--opponent", "pisti-hunter", "--opponent", "expert-engine",
                    "--engine", quitter, "--workers", "2", "--json", str(out_json), "--plot", str(out_png))
    assert result.returncode == 0, result.stderr
    assert "all (mean)" in result.stdout and "quitter[v2] forfeited" in result.stdout
    summary = json.loads(out_json.read_text())
    assert summary["config"]["level"] == {"name": "master/8", "plays": "master(iterations=8)"}
    assert [row["opponent"] for row in summary["opponents"]] == ["greedy", "pisti-hunter", "expert-engine",
                                                                  "quitter[v2]"]
    engine_row = summary["opponents"][2]
    assert engine_row["scored"] == 4 and engine_row["baseline"] == {"mean": 0.0, "low": 0.0, "high": 0.0}
    assert summary["opponents"][3]["scored"] == 0 and len(summary["forfeits"]) == 4
    assert "exited with status 3" in summary["forfeits"][0]["problem"]
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_gauntlet_command_passes_its_first_deal_grace_and_rounds_on(tmp_path: Path) -> None:
    """``--first-deal`` picks the deals (runs over consecutive ranges pool), ``--grace-ms`` is
    the engines' grace and ``--rounds`` the deals a match, each where it belongs."""
    out_json = tmp_path / "g.json"
    result = _kseri("gauntlet", "greedy", "--rules", "pisti", "--deals", "2", "--opponent", "random",
                    "--first-deal", "5", "--grace-ms", "300", "--rounds", "2", "--workers", "1",
                    "--json", str(out_json))
    assert result.returncode == 0, result.stderr
    assert "in matches of 2 rounds" in result.stdout
    summary = json.loads(out_json.read_text())
    config = summary["config"]
    assert (config["first_deal"], config["grace_ms"], config["rounds"]) == (5, 300, 2)
    assert summary["opponents"][0]["per_deal"]["index"] == [5, 6]


def test_gauntlet_pool_pools_the_commands_runs_and_refuses_what_does_not_pool(tmp_path: Path) -> None:
    paths = []
    for first in (0, 2):
        paths.append(tmp_path / f"part{first}.json")
        result = _kseri("gauntlet", "greedy", "--rules", "pisti", "--deals", "2", "--opponent", "random",
                        "--first-deal", str(first), "--workers", "1", "--json", str(paths[-1]))
        assert result.returncode == 0, result.stderr
    whole, picture = tmp_path / "whole.json", tmp_path / "whole.png"
    result = _kseri("gauntlet-pool", *map(str, paths), "--json", str(whole), "--plot", str(picture))
    assert result.returncode == 0, result.stderr
    assert "gain over expert" in result.stdout
    summary = json.loads(whole.read_text())
    assert summary["config"]["deals"] == 4 and summary["opponents"][0]["per_deal"]["index"] == [0, 1, 2, 3]
    assert picture.read_bytes().startswith(b"\x89PNG")
    twice = _kseri("gauntlet-pool", str(paths[0]), str(paths[0]))
    assert twice.returncode == 2 and "deals played twice against random: 0, 1" in twice.stderr
    missing = _kseri("gauntlet-pool", str(tmp_path / "none.json"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr and "none.json" in missing.stderr


def test_the_gauntlet_command_refuses_bad_arguments() -> None:
    unknown = _kseri("gauntlet", "grandmaster", "--deals", "1")
    assert unknown.returncode == 2 and "unknown bot level 'grandmaster'" in unknown.stderr
    opponent = _kseri("gauntlet", "expert", "--opponent", "shark", "--deals", "1")
    assert opponent.returncode == 2 and "no opponent 'shark' in the pool" in opponent.stderr
    dial = _kseri("gauntlet", "greedy", "--strength", "0.5", "--deals", "1")
    assert dial.returncode == 2 and "'greedy' has no strength dial" in dial.stderr
    rounds = _kseri("gauntlet", "greedy", "--opponent", "random", "--deals", "3", "--rounds", "2")
    assert rounds.returncode == 2 and "the deals (3) must make whole matches of 2 rounds" in rounds.stderr


def test_the_gauntlet_command_plays_a_trained_network_from_its_file(tmp_path: Path) -> None:
    """``--weights`` plays the learned level with the network of a file (the shipped one, copied,
    plays exactly as the level itself), and refuses what it cannot read or does not go with."""
    mine = tmp_path / "mine.npz"
    mine.write_bytes((Path(kseri.agents.__file__).parent / "learned.npz").read_bytes())
    runs = {}
    for name, extra in (("file", ["--weights", str(mine)]), ("shipped", [])):
        out_json = tmp_path / f"{name}.json"
        result = _kseri("gauntlet", "learned", *extra, "--rules", "pisti", "--deals", "3", "--opponent",
                        "random", "--workers", "1", "--json", str(out_json))
        assert result.returncode == 0, result.stderr
        runs[name] = json.loads(out_json.read_text())
    assert runs["file"]["config"]["level"] == {"name": "learned:mine", "plays": "learned(weights=mine.npz)"}
    assert runs["file"]["opponents"][0]["per_deal"] == runs["shipped"]["opponents"][0]["per_deal"]
    master = _kseri("gauntlet", "master", "--weights", str(mine), "--deals", "1")
    assert master.returncode == 2 and "--weights is the learned level's network" in master.stderr
    (tmp_path / "bad.npz").write_text("not a network")
    for path in (tmp_path / "none.npz", tmp_path / "bad.npz"):
        bad = _kseri("gauntlet", "learned", "--weights", str(path), "--deals", "1")
        assert bad.returncode == 2 and "cannot read the network" in bad.stderr and path.name in bad.stderr


def test_the_gauntlet_command_plays_the_exploiter_against_its_target(tmp_path: Path) -> None:
    out_json = tmp_path / "exploit.json"
    result = _kseri("gauntlet", "greedy", "--exploit", "--exploit-worlds", "2", "--rules", "pisti",
                    "--deals", "2", "--workers", "1", "--json", str(out_json))
    assert result.returncode == 0, result.stderr
    summary = json.loads(out_json.read_text())
    assert summary["config"]["level"] == {"name": "exploiter-of-greedy",
                                          "plays": "exploiter(target=greedy, worlds=2)"}
    assert [row["opponent"] for row in summary["opponents"]] == ["target-greedy"]
    assert summary["opponents"][0]["scored"] == 2
