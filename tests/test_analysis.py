"""Post-game analysis: losses against exact endgames, views only, the command line."""

from __future__ import annotations

import json
from typing import Any

from builders import exact
from typer.testing import CliRunner

from kseri.agents import make_agent
from kseri.analysis import analyse_plays, analyse_record, record_plays
from kseri.cards import Card
from kseri.cli import app
from kseri.engine import Match
from kseri.records import record_from_match


def _after(match: Match, card: Card) -> Match:
    copy = match.copy()
    copy.play(card)
    return copy


def blundered_game() -> tuple[dict[str, Any], int, int, float]:
    """A two-player Greek round played by experts up to the last batch, where the seat to play
    then plays its worst card (by exact solve) while another was worth at least 2 points more;
    the record, the blunder's round and play index, and its exact loss."""
    for seed in range(100):
        match = Match(seed=seed)
        bots = [make_agent("expert", seed=1), make_agent("expert", seed=2)]
        while match.turn is not None and (match.stock_size or len(match.legal_plays()) > 4):
            match.play(bots[match.turn].choose(match.view(match.turn)))
        if match.turn is None or len(match.legal_plays()) < 2:
            continue
        side = match.rules.side_of(match.turn)
        values = {card: exact(_after(match, card), side) for card in match.legal_plays()}
        worst = min(values, key=values.__getitem__)
        loss = max(values.values()) - values[worst]
        if loss >= 2:
            index = len(match.plays[-1])
            match.play(worst)
            return record_from_match(match), match.round_index, index, loss
    raise AssertionError("no position with a blunder of 2 points in 100 deals")


def test_a_planted_blunder_in_a_solved_endgame_is_flagged_with_its_exact_loss() -> None:
    record, round_index, index, loss = blundered_game()
    analysis = analyse_record(record, iterations=4)
    review = next(r for r in analysis.reviews if (r.round, r.play) == (round_index, index))
    assert abs(review.loss - loss) < 1e-9
    assert review in analysis.mistakes(len(analysis.reviews))
    blunderer = analysis.players[review.seat]
    assert blunderer.accuracy is not None and blunderer.accuracy < 100
    assert blunderer.total_loss >= loss


def test_the_analysis_never_reads_a_card_its_seat_could_not_see() -> None:
    match = Match(seed=8)
    for _ in range(2):
        match.play(match.legal_plays()[0])
    record = record_from_match(match)
    # the same two plays, but the batches still in the stock swapped: hidden cards differ
    other = json.loads(json.dumps(record))
    hands = other["rounds"][0]["hands"]
    hands[1], hands[2] = hands[2], hands[1]
    assert other != record
    first = analyse_record(record, iterations=24)
    second = analyse_record(other, iterations=24)
    assert first == second
    # and the analysis takes views: the same figures from the views alone
    views = [(view, card, r, p) for view, card, r, p in record_plays(record)]
    assert analyse_plays(views, ["Player 1", "Player 2"], iterations=24) == first


def test_a_forced_play_costs_nothing_and_is_not_a_decision() -> None:
    match = Match(seed=2)
    bots = [make_agent("greedy"), make_agent("greedy")]
    while len(match.legal_plays()) != 1:
        assert match.turn is not None
        match.play(bots[match.turn].choose(match.view(match.turn)))
    match.play(match.legal_plays()[0])
    review = analyse_record(record_from_match(match), iterations=4).reviews[-1]
    assert review.loss == 0 and review.forced and review.score == 1.0


def test_kseri_analyse_prints_a_table_and_json(tmp_path: Any) -> None:
    record, _, _, loss = blundered_game()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    runner = CliRunner()
    shown = runner.invoke(app, ["analyse", str(path), "--iterations", "4"])
    assert shown.exit_code == 0, shown.output
    assert "accuracy" in shown.output.lower() and "Player 1" in shown.output
    answer = runner.invoke(app, ["analyse", str(path), "--iterations", "4", "--json"])
    assert answer.exit_code == 0, answer.output
    data = json.loads(answer.output)
    assert data["format"] == "kseri-analysis/1"
    assert any(abs(m["loss"] - loss) < 1e-3 for m in data["plays"])
    missing = runner.invoke(app, ["analyse", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "cannot read" in missing.output
