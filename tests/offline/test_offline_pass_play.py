"""Pass and play offline (``kseri.offline.OfflineTable.new_shared``): several people at one
device, the page given one seat's view at a time, none between turns; saved and resumed as a
one-person game is, and its record verifies."""

from __future__ import annotations

import json

import pytest

from kseri.offline import OfflineTable, replay_record, verify_record


def test_the_page_sees_no_hand_until_the_seat_to_play_is_shown_and_none_after_it_played() -> None:
    table = OfflineTable.new_shared("greek", json.dumps([None, None]), 3)
    state = json.loads(table.state())
    assert state["seat"] is None and state["hand"] == [] and state["levels"] == [None, None]
    turn = state["turn"]
    with pytest.raises(ValueError, match="hand the device over first"):
        table.play("TD")
    assert table.state() == json.dumps(state)
    table.show(turn)
    shown = json.loads(table.state())
    assert shown["seat"] == turn and len(shown["hand"]) == state["hand_sizes"][turn] > 0
    table.play(shown["hand"][0])
    after = json.loads(table.state())
    assert after["seat"] is None and after["hand"] == [] and after["turn"] == 1 - turn
    table.show(after["turn"])
    assert json.loads(table.state())["seat"] == after["turn"]


def test_bad_input_is_refused_with_its_reason() -> None:
    with pytest.raises(ValueError, match="two people or more"):
        OfflineTable.new_shared("greek", json.dumps([None, "greedy"]), 1)
    with pytest.raises(ValueError, match="seat 3 players, not 2"):
        OfflineTable.new_shared("three-player", json.dumps([None, None]), 1)
    with pytest.raises(ValueError, match="unknown offline level 'master'"):
        OfflineTable.new_shared("three-player", json.dumps([None, None, "master"]), 1)
    table = OfflineTable.new_shared("three-player", json.dumps([None, "greedy", None]), 1)
    with pytest.raises(ValueError, match="seat 1 is not a person's at this device"):
        table.show(1)
    assert json.loads(table.state())["seat"] is None


@pytest.mark.parametrize(("preset", "levels"), [("greek", [None, None]),
                                                ("partnership", [None, "greedy", None, "expert"]),
                                                ("three-player", [None, None, None])])
def test_a_shared_game_resumes_after_any_play_and_its_record_verifies(preset: str,
                                                                      levels: list[str | None]) -> None:
    table = OfflineTable.new_shared(preset, json.dumps(levels), 9)
    plays = 0
    while not table.is_over():
        state = json.loads(table.state())
        assert state["seat"] is None, "a hand left on show after its play"
        if state["phase"] == "round-over":
            table.next_round()
        elif levels[state["turn"]] is None:
            table.show(state["turn"])
            table.play(json.loads(table.state())["hand"][-1])
        else:
            table.bot_play()
        plays += 1
        if plays % 13 == 0:  # the page keeps the game after every play; a reload resumes it
            resumed = OfflineTable.resume(table.saved())
            assert resumed.state() == table.state() and resumed.levels == levels
            table = resumed
    names = [f"Player {seat + 1}" for seat in range(len(levels))]
    record = json.loads(table.record(json.dumps(names)))
    assert record["complete"] and replay_record(record) == [] and verify_record(record) == []


def test_a_quick_game_is_one_round_the_higher_score_winning() -> None:
    table = OfflineTable.new_shared("greek", json.dumps([None, None]), 4, one_round=True)
    while not table.is_over():
        turn = json.loads(table.state())["turn"]
        table.show(turn)
        table.play(json.loads(table.state())["hand"][0])
    state = json.loads(table.state())
    totals = state["totals"]
    assert len(state["round_results"]) == 1 and totals[state["winner"]] > totals[1 - state["winner"]]
    assert state["rules"]["name"] == "greek" and state["target"] == 1
