"""A tournament's summary: per-pair statistics and the rating ladder, as JSON, a Rich table and a plot.

The summary is a JSON-ready dict (:func:`summarize`); the screen table (:func:`render`) and
the PNG (:func:`plot`) are drawn from it, so all three always agree.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Final

from rich.console import Console
from rich.table import Table

from kseri.bench.stats import Game, Interval, bootstrap_ratings, mean_interval, wilson_interval
from kseri.bench.tournament import DealOutcome, MatchOutcome, TournamentOutcome

FORMAT: Final = 1
"""The version of the summary's JSON layout."""

RATING_BASIS: Final = (
    "Bradley-Terry on duplicate deals (a positive point difference wins, zero draws, a forfeit "
    "loses), Elo scale with mean 0, percentile bootstrap over each pair's deals"
)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _interval(interval: Interval) -> list[float | None]:
    return [_round(interval.low), _round(interval.high)]


def _deal_score(outcome: DealOutcome) -> float:
    """The first player's result on a deal: 1 won, 0.5 drawn, 0 lost (forfeits decide)."""
    if outcome.difference is None:
        return 0.0 if outcome.forfeit == outcome.pair[0] else 1.0
    return 0.5 if outcome.difference == 0 else float(outcome.difference > 0)


def summarize(outcome: TournamentOutcome, bootstrap: int = 200, confidence: float = 0.95) -> dict[str, Any]:
    """The tournament's results with their intervals, as JSON-ready values.

    Repeatable: the bootstrap is seeded from the tournament seed.
    """
    config = outcome.config
    names = [player.name for player in config.players]
    pairs: list[dict[str, Any]] = []
    games_by_pair: list[list[Game]] = []
    forfeits: list[dict[str, str]] = []
    for pair in config.pairs:
        deals = [d for d in outcome.deals if d.pair == pair]
        matches = [m for m in outcome.matches if m.pair == pair]
        differences = [d.difference for d in deals if d.difference is not None]
        scores = [_deal_score(d) for d in deals]
        games_by_pair.append([(pair[0], pair[1], score) for score in scores])
        entry: dict[str, Any] = {"first": names[pair[0]], "second": names[pair[1]]}
        deal_part: dict[str, Any] = {
            "played": len(deals),
            "scored": len(differences),
            "first_wins": scores.count(1.0),
            "draws": scores.count(0.5),
            "second_wins": scores.count(0.0),
            "mean_difference": None,
            "interval": [None, None],
            "forfeits": dict(Counter(names[d.forfeit] for d in deals if d.forfeit is not None)),
        }
        if differences:
            difference = mean_interval(differences, confidence)
            deal_part["mean_difference"] = _round(difference.estimate)
            deal_part["interval"] = _interval(difference)
        entry["deals"] = deal_part
        if matches:
            score = sum(m.score for m in matches)
            rate = wilson_interval(score, len(matches), confidence)
            entry["matches"] = {
                "played": len(matches),
                "first_score": score,
                "first_win_rate": _round(rate.estimate),
                "interval": _interval(rate),
                "even_rate": _round(1 / config.rules.sides),
                "mean_rounds": _round(sum(m.rounds for m in matches) / len(matches)),
                "forfeits": dict(Counter(names[m.forfeit] for m in matches if m.forfeit is not None)),
            }
        pairs.append(entry)
        games: list[DealOutcome | MatchOutcome] = [*deals, *matches]
        for item in games:
            if item.forfeit is not None:
                forfeits.append({"player": names[item.forfeit], "problem": item.problem})
    ratings = bootstrap_ratings(len(names), games_by_pair, samples=bootstrap, seed=config.seed,
                                confidence=confidence)
    order = sorted(range(len(names)), key=lambda player: -ratings[player].estimate)
    ladder = [
        {"name": names[p], "elo": _round(ratings[p].estimate), "interval": _interval(ratings[p])}
        for p in order
    ]
    return {
        "format": FORMAT,
        "config": {
            "players": [player.describe() for player in config.players],
            "rules": config.rules.options(),
            "deals": config.deals,
            "matches": config.matches,
            "seed": config.seed,
            "time_ms": config.time_ms,
            "grace_ms": config.grace_ms,
            "confidence": confidence,
            "bootstrap": bootstrap,
        },
        "pairs": pairs,
        "ladder": ladder,
        "rating_basis": RATING_BASIS,
        "forfeits": forfeits,
    }


def _span(value: float | None, interval: list[float | None], digits: int = 2) -> str:
    if value is None:
        return "—"
    low, high = interval
    if low is None or high is None:
        return f"{value:+.{digits}f}"
    return f"{value:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]"


def render(summary: dict[str, Any], console: Console) -> None:
    """Print the summary: the pairs, the ladder, and the forfeits grouped by player."""
    level = round(summary["config"]["confidence"] * 100)
    pairs = Table(title=f"pairs ({level}% intervals; differences are the first player's points per round)")
    for column in ("first", "second", "deals W-D-L", "point difference", "match win rate", "forfeits"):
        pairs.add_column(column)
    for entry in summary["pairs"]:
        deals = entry["deals"]
        rate = "—"
        forfeits = Counter(deals["forfeits"])
        if "matches" in entry:
            matches = entry["matches"]
            low, high = matches["interval"]
            rate = f"{matches['first_win_rate']:.2f} [{low:.2f}, {high:.2f}] of {matches['played']}"
            forfeits.update(matches["forfeits"])
        pairs.add_row(
            entry["first"], entry["second"],
            f"{deals['first_wins']}-{deals['draws']}-{deals['second_wins']}",
            _span(deals["mean_difference"], deals["interval"]),
            rate,
            ", ".join(f"{name} {count}" for name, count in sorted(forfeits.items())) or "",
        )
    console.print(pairs)
    ladder = Table(title=f"rating ladder (Elo scale, {level}% bootstrap intervals)")
    for column in ("rank", "player", "Elo", "interval"):
        ladder.add_column(column)
    for rank, row in enumerate(summary["ladder"], 1):
        low, high = row["interval"]
        span = "—" if low is None or high is None else f"[{low:+.0f}, {high:+.0f}]"
        ladder.add_row(str(rank), row["name"], f"{row['elo']:+.0f}", span)
    console.print(ladder)
    first_problem: dict[str, str] = {}
    counts: Counter[str] = Counter()
    for item in summary["forfeits"]:
        counts[item["player"]] += 1
        first_problem.setdefault(item["player"], item["problem"])
    for name, count in counts.items():
        console.print(f"[red]{name} forfeited {count} game(s)[/red]; first: {first_problem[name]}",
                      highlight=False, markup=True)


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def plot(summary: dict[str, Any], path: Path) -> None:
    """Write a PNG: the ratings with their intervals, and the pairwise mean point differences."""
    # Imported here: matplotlib takes longer to import than the rest of the ``kseri`` command.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ladder = list(reversed(summary["ladder"]))
    names = [player["name"] for player in summary["config"]["players"]]
    figure = Figure(figsize=(11, max(3.5, 0.5 * len(names) + 2)), layout="constrained")
    FigureCanvasAgg(figure)
    ratings, matrix_axes = figure.subplots(1, 2)
    values = [row["elo"] for row in ladder]
    lows = [row["elo"] - _or(row["interval"][0], row["elo"]) for row in ladder]
    highs = [_or(row["interval"][1], row["elo"]) - row["elo"] for row in ladder]
    positions = list(range(len(ladder)))
    ratings.errorbar(values, positions, xerr=[lows, highs], fmt="o", capsize=4)
    ratings.set_yticks(positions, [row["name"] for row in ladder])
    ratings.axvline(0, color="grey", linewidth=0.8)
    ratings.set_xlabel("rating (Elo scale, mean 0)")
    ratings.set_title(f"ratings, {round(summary['config']['confidence'] * 100)}% intervals")
    size = len(names)
    matrix = [[0.0] * size for _ in range(size)]
    for entry in summary["pairs"]:
        i, j = names.index(entry["first"]), names.index(entry["second"])
        difference = entry["deals"]["mean_difference"] or 0.0
        matrix[i][j], matrix[j][i] = difference, -difference
    limit = max((abs(v) for row in matrix for v in row), default=0.0) or 1.0
    image = matrix_axes.imshow(matrix, cmap="RdBu", vmin=-limit, vmax=limit)
    matrix_axes.set_xticks(range(size), names, rotation=30, ha="right")
    matrix_axes.set_yticks(range(size), names)
    for i in range(size):
        for j in range(size):
            if i != j:
                colour = "white" if abs(matrix[i][j]) > limit / 2 else "black"
                matrix_axes.text(j, i, f"{matrix[i][j]:+.1f}", ha="center", va="center", fontsize=9,
                                 color=colour)
    matrix_axes.set_title("row's mean point difference per round over column")
    figure.colorbar(image, ax=matrix_axes)
    figure.savefig(path, format="png", dpi=100)
