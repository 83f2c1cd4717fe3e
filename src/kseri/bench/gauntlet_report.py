"""A gauntlet's summary: per opponent the level's margin, the baseline's, and the paired gain,
as JSON, a Rich table and a plot.

The summary is a JSON-ready dict (:func:`summarize`); the table (:func:`render`) and the PNG
(:func:`plot`) are drawn from it, so all three agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kseri.bench.gauntlet import GauntletOutcome, paired_gain, pooled_gain
from kseri.bench.stats import Interval, mean_interval

FORMAT: Final = 1
"""The version of the summary's JSON layout."""
ADDED: Final = {"rounds": 1}
"""Config keys added to the format since, with the value the summaries written before meant."""


def _figure(interval: Interval | None) -> dict[str, float | None]:
    if interval is None:
        return {"mean": None, "low": None, "high": None}
    return {name: None if value is None else round(value, 4)
            for name, value in (("mean", interval.estimate), ("low", interval.low), ("high", interval.high))}


def _row(name: str, played: int, index: list[int], level: list[float], baseline: list[float],
         confidence: float) -> dict[str, Any]:
    """One opponent's figures from its scored deals (``played`` counts the forfeited ones too)."""
    return {
        "opponent": name,
        "played": played,
        "scored": len(index),
        "level": _figure(mean_interval(level, confidence) if level else None),
        "baseline": _figure(mean_interval(baseline, confidence) if baseline else None),
        "gain": _figure(paired_gain(level, baseline, confidence) if level else None),
        "per_deal": {"index": index, "level": level, "baseline": baseline},
    }


def _summary(config: dict[str, Any], rows: list[dict[str, Any]], forfeits: list[dict[str, str]],
             ) -> dict[str, Any]:
    """The summary of ``rows`` (:func:`_row`) under ``config`` (JSON)."""
    gains = [row["gain"]["mean"] for row in rows if row["gain"]["mean"] is not None]
    per_opponent = [
        {index: level - baseline for index, level, baseline in
         zip(row["per_deal"]["index"], row["per_deal"]["level"], row["per_deal"]["baseline"], strict=True)}
        for row in rows]
    return {
        "format": FORMAT,
        "config": config,
        "opponents": rows,
        "pooled_gain": _figure(pooled_gain(per_opponent, config["confidence"])),
        "worst_gain": min(gains) if gains else None,
        "forfeits": forfeits,
    }


def summarize(outcome: GauntletOutcome, confidence: float = 0.95) -> dict[str, Any]:
    """The gauntlet's results with their intervals, as JSON-ready values."""
    config = outcome.config
    rows: list[dict[str, Any]] = []
    forfeits: list[dict[str, str]] = []
    for number, opponent in enumerate(config.opponents):
        deals = [deal for deal in outcome.deals if deal.opponent == number]
        scored = [deal for deal in deals if deal.level is not None and deal.baseline is not None]
        forfeits += [{"opponent": opponent.name, "problem": deal.problem} for deal in deals if deal.problem]
        rows.append(_row(opponent.name, len(deals), [deal.index for deal in scored],
                         [deal.level for deal in scored if deal.level is not None],
                         [deal.baseline for deal in scored if deal.baseline is not None], confidence))
    return _summary({
        "level": config.level.describe(),
        "baseline": config.baseline.describe(),
        "opponents": [opponent.describe() for opponent in config.opponents],
        "rules": config.rules.options(),
        "deals": config.deals,
        "first_deal": config.first_deal,
        "seed": config.seed,
        "time_ms": config.time_ms,
        "grace_ms": config.grace_ms,
        "rounds": config.rounds,
        "confidence": confidence,
    }, rows, forfeits)


def pool(summaries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One summary from runs of the same gauntlet over disjoint deals (``--first-deal``), pooled
    deal by deal: the same level, baseline, opponents, rules and seed, no deal played twice.

    >>> from kseri import Rules
    >>> from kseri.bench.gauntlet import GauntletConfig, builtin, run_gauntlet
    >>> def part(first: int) -> dict[str, Any]:
    ...     config = GauntletConfig(builtin("greedy"), (builtin("random"),), Rules.preset("pisti"),
    ...                             deals=2, seed=1, first_deal=first)
    ...     return summarize(run_gauntlet(config))
    >>> whole = pool([part(0), part(2)])
    >>> whole["config"]["deals"], whole["config"]["first_deal"], whole["opponents"][0]["per_deal"]["index"]
    (4, 0, [0, 1, 2, 3])
    """
    if not summaries:
        raise ValueError("nothing to pool: no summary given")
    first = summaries[0]
    shared = ("level", "baseline", "opponents", "rules", "seed", "time_ms", "grace_ms", "rounds",
              "confidence")
    for number, summary in enumerate(summaries):
        if not isinstance(summary, dict) or summary.get("format") != FORMAT:
            raise ValueError(f"summary {number + 1} is not a gauntlet summary of format {FORMAT}")
        for key in shared:
            theirs = summary["config"].get(key, ADDED.get(key))
            ours = first["config"].get(key, ADDED.get(key))
            if theirs != ours:
                raise ValueError(f"summary {number + 1} is of another gauntlet: its {key} differs from the "
                                 f"first's ({_difference(theirs, ours)})")
    rows: list[dict[str, Any]] = []
    for number, opponent in enumerate(first["config"]["opponents"]):
        index: list[int] = []
        level: list[float] = []
        baseline: list[float] = []
        for summary in summaries:
            deals = summary["opponents"][number]["per_deal"]
            twice = sorted(set(index) & set(deals["index"]))
            if twice:
                raise ValueError(f"deals played twice against {opponent['name']}: "
                                 f"{', '.join(map(str, twice[:5]))}{' …' if len(twice) > 5 else ''}")
            index += deals["index"]
            level += deals["level"]
            baseline += deals["baseline"]
        order = sorted(range(len(index)), key=index.__getitem__)
        played = sum(summary["opponents"][number]["played"] for summary in summaries)
        rows.append(_row(opponent["name"], played, [index[i] for i in order], [level[i] for i in order],
                         [baseline[i] for i in order], first["config"]["confidence"]))
    config = dict(first["config"])
    config["deals"] = sum(summary["config"]["deals"] for summary in summaries)
    config["first_deal"] = min(summary["config"]["first_deal"] for summary in summaries)
    return _summary(config, rows, [item for summary in summaries for item in summary["forfeits"]])


def _difference(theirs: Any, ours: Any) -> str:
    """What differs between two values of a summary's config, in a few words."""
    if isinstance(theirs, dict) and isinstance(ours, dict):
        keys = sorted(key for key in theirs.keys() | ours.keys() if theirs.get(key) != ours.get(key))
        return "; ".join(f"{key}: {theirs.get(key)!r}, not {ours.get(key)!r}" for key in keys)
    if isinstance(theirs, list) and isinstance(ours, list):
        return f"{[_name(each) for each in theirs]}, not {[_name(each) for each in ours]}"
    return f"{theirs!r}, not {ours!r}"


def _name(entrant: Any) -> Any:
    return entrant.get("name", entrant) if isinstance(entrant, dict) else entrant


def _span(figure: dict[str, float | None]) -> str:
    mean, low, high = figure["mean"], figure["low"], figure["high"]
    if mean is None:
        return "—"
    if low is None or high is None:
        return f"{mean:+.2f}"
    return f"{mean:+.2f} [{low:+.2f}, {high:+.2f}]"


def render(summary: dict[str, Any], console: Console) -> None:
    """Print one row per opponent, the pooled gain, and the forfeits (names and problems as
    written, never read as Rich markup)."""
    config = summary["config"]
    level, baseline = escape(config["level"]["name"]), escape(config["baseline"]["name"])
    percent = round(config["confidence"] * 100)
    rounds = config.get("rounds", ADDED["rounds"])
    matches = f", in matches of {rounds} rounds" if rounds > 1 else ""
    table = Table(title=f"gauntlet of {level} on {config['rules']['name']}: points per round over each "
                        f"opponent, duplicate deals{matches}, {percent}% intervals")
    for column in ("opponent", "deals", f"{level} margin", f"{baseline} margin", f"gain over {baseline}"):
        table.add_column(column)
    for row in summary["opponents"]:
        table.add_row(escape(row["opponent"]), str(row["scored"]), _span(row["level"]),
                      _span(row["baseline"]), _span(row["gain"]))
    table.add_row("all (mean)", "", "", "", _span(summary["pooled_gain"]))
    console.print(table)
    for item in summary["forfeits"][:5]:
        console.print(f"[red]{escape(item['opponent'])} forfeited[/red]: {escape(item['problem'])}",
                      highlight=False)
    if len(summary["forfeits"]) > 5:
        console.print(f"[red]… {len(summary['forfeits'])} forfeits in all[/red]")


def plot(summary: dict[str, Any], path: Path) -> None:
    """Write a PNG: per opponent the level's and the baseline's margins, and the paired gain."""
    # Imported here: matplotlib takes longer to import than the rest of the ``kseri`` command.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    config = summary["config"]
    rows = [row for row in summary["opponents"] if row["gain"]["mean"] is not None]
    names = [row["opponent"] for row in rows]
    figure = Figure(figsize=(11, max(3.5, 0.45 * len(rows) + 2)), layout="constrained")
    FigureCanvasAgg(figure)
    margins, gains = figure.subplots(1, 2, sharey=True)
    positions = list(range(len(rows)))

    def bars(axes: Any, key: str, offset: float, label: str) -> None:
        means = [row[key]["mean"] for row in rows]
        lows = [row[key]["mean"] - (row[key]["low"] if row[key]["low"] is not None else row[key]["mean"])
                for row in rows]
        highs = [(row[key]["high"] if row[key]["high"] is not None else row[key]["mean"]) - row[key]["mean"]
                 for row in rows]
        axes.errorbar(means, [p + offset for p in positions], xerr=[lows, highs], fmt="o", capsize=3,
                      label=label)

    bars(margins, "level", 0.15, config["level"]["name"])
    bars(margins, "baseline", -0.15, config["baseline"]["name"])
    margins.set_yticks(positions, names)
    margins.axvline(0, color="grey", linewidth=0.8)
    margins.set_xlabel("points per round over the opponent")
    margins.set_title("margin against each opponent")
    margins.legend()
    bars(gains, "gain", 0.0, f"{config['level']['name']} less {config['baseline']['name']}")
    gains.axvline(0, color="grey", linewidth=0.8)
    gains.set_xlabel("points per round, paired by deal")
    gains.set_title(f"gain over {config['baseline']['name']}, {round(config['confidence'] * 100)}% intervals")
    figure.suptitle(f"gauntlet on {config['rules']['name']}, {config['deals']} duplicate deals")
    figure.savefig(path, format="png", dpi=100)
