"""``kseri trainer`` (the memory trainer's drill, line by line), driven as a player would: the
cards played pass by and are hidden, a bad answer is named and asked again, one position right
and one wrong, the running score."""

from __future__ import annotations

from typer.testing import CliRunner

from kseri.analysis.memory import Moment, Question, drill_view, questions
from kseri.cards import RANK_NAMES
from kseri.cli import app
from kseri.rules import Rules

runner = CliRunner()


def typed(question: Question, *, right: bool) -> str:
    """A line answering ``question`` (a count off by two when not ``right``)."""
    truth = question.truth
    if isinstance(truth, int):
        return str(truth if right else truth + 2)
    if not truth:
        return "none"
    return " ".join(str(item) if question.kind == "cards" else RANK_NAMES[int(item)] for item in truth)


def test_two_positions_one_right_one_partly_wrong_with_a_bad_answer_asked_again() -> None:
    rules = Rules.preset("pisti")
    first = questions(drill_view(rules, 8, Moment.LAST))
    second = questions(drill_view(rules, 9, Moment.LAST))
    # "many" and "ZZ" are refused for the Jacks (not a number) and the Jacks asked again
    lines = ["many", *(typed(q, right=True) for q in first),
             "ZZ", *(typed(q, right=q.id != "jacks") for q in second)]
    result = runner.invoke(app, ["trainer", "--preset", "pisti", "--moment", "last", "--seed", "8",
                                 "--count", "2", "--pace", "0"], input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    output = result.output
    assert "The cards played are hidden now: answer from memory." in output
    assert " 1. " in output and "Batch 6 of 6; 0 cards in the stock." in output
    assert output.count("jacks: answer with a whole number of cards, not 'many'") == 1
    assert output.count("jacks: answer with a whole number of cards, not 'ZZ'") == 1
    assert "Score 4 of 4 over 1 position; 1 in a row without a fault" in output
    assert "Wrong. How many Jacks are still out?" in output
    assert "Bye. Score 7 of 8 over 2 positions; 0 in a row without a fault" in output


def test_q_stops_and_an_unknown_preset_is_refused() -> None:
    stopped = runner.invoke(app, ["trainer", "--seed", "1", "--pace", "0"], input="q\n")
    assert stopped.exit_code == 0 and "Bye. Score 0 of 0 over 0 positions" in stopped.output
    refused = runner.invoke(app, ["trainer", "--preset", "poker"])
    assert refused.exit_code == 2 and "'poker' is not one of greek" in refused.output
