"""The engine protocol: messages, the engine side, and real engine processes driven by the client."""

import io
import json

import pytest
from engine_commands import kseri_engine, misbehaving_engine

from kseri import Match, Rules
from kseri.agents import make_agent
from kseri.bench.duplicate import play_match
from kseri.protocol.client import EngineAgent, EngineError, EngineProcess
from kseri.protocol.engine_side import serve_level
from kseri.protocol.messages import ENGINE_MESSAGES, HOST_MESSAGES, ProtocolError, decode
from kseri.views import view_to_json


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("e2e4", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"type": "resign"}', "unknown message type 'resign'"),
        ('{"card": "TD"}', "unknown message type None"),
        ('{"type": "play"}', "lacks the field 'card'"),
        ('{"type": "play", "card": 10}', "field 'card' must be a string"),
    ],
)
def test_malformed_engine_lines_are_refused_with_the_reason(line: str, problem: str) -> None:
    with pytest.raises(ProtocolError, match=problem):
        decode(line, ENGINE_MESSAGES)


def test_a_boolean_is_not_a_number() -> None:
    with pytest.raises(ProtocolError, match="'protocol' must be a number"):
        decode('{"type": "hello", "protocol": true}', HOST_MESSAGES)


def _converse(lines: list[dict[str, object] | str], level: str = "greedy") -> list[dict[str, object]]:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    host = io.StringIO(text)
    out = io.StringIO()
    serve_level(level, None, host, out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_engine_side_answers_hello_and_plays_a_legal_card_for_its_seat() -> None:
    match = Match(Rules.preset("greek"), seed=11)
    seat = match.turn
    assert seat is not None
    view = view_to_json(match.view(seat))
    answers = _converse([
        {"type": "hello", "protocol": 1},
        {"type": "new_match", "rules": Rules.preset("greek").options(), "seat": seat, "seed": 5},
        {"type": "turn", "view": view, "time_ms": 500},
        {"type": "quit"},
        {"type": "hello", "protocol": 1},  # after quit: never read
    ])
    assert answers[0] == {"type": "id", "name": "kseri greedy", "author": "kseri"}
    assert answers[1]["type"] == "play"
    assert answers[1]["card"] == str(make_agent("greedy").choose(match.view(seat)))
    assert len(answers) == 2


def test_the_engine_side_reports_bad_messages_and_carries_on() -> None:
    match = Match(Rules.preset("greek"), seed=11)
    waiting = 1 - (match.turn or 0)
    answers = _converse([
        "not json at all",
        {"type": "hello", "protocol": 2},
        {"type": "new_match", "rules": {"players": 9}, "seat": 0, "seed": 1},
        {"type": "turn", "view": view_to_json(match.view(waiting)), "time_ms": 500},
        {"type": "turn", "view": {"seat": 0}, "time_ms": 500},
        {"type": "hello", "protocol": 1},
    ])
    assert [a["type"] for a in answers] == ["error"] * 5 + ["id"]
    assert "not JSON" in str(answers[0]["message"])
    assert "unsupported protocol version 2" in str(answers[1]["message"])
    assert "bad rules" in str(answers[2]["message"])
    assert f"seat {waiting}'s, but it is seat {match.turn}'s turn" in str(answers[3]["message"])
    assert "bad view" in str(answers[4]["message"])


def test_serving_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot level 'grandmaster'"):
        serve_level("grandmaster", None, io.StringIO(), io.StringIO())


def test_a_full_match_between_two_engine_processes_repeats_the_same_match_in_process() -> None:
    rules = Rules.preset("greek")
    greedy = EngineProcess("greedy", kseri_engine("greedy"))
    rnd = EngineProcess("random", kseri_engine("random"))
    try:
        external = play_match(Match(rules, seed="protocol"),
                              [EngineAgent(greedy, seed=1), EngineAgent(rnd, seed=77)])
        assert greedy.engine_id == {"type": "id", "name": "kseri greedy", "author": "kseri"}
    finally:
        greedy.close()
        rnd.close()
    assert not greedy.running and not rnd.running
    internal = play_match(Match(rules, seed="protocol"),
                          [make_agent("greedy"), make_agent("random", seed=77)])
    assert external.is_over() and external.winner is not None
    assert external.plays == internal.plays
    assert external.totals == internal.totals


def test_info_lines_before_the_play_are_kept() -> None:
    process = EngineProcess("first", misbehaving_engine("first"))
    try:
        match = Match(Rules.preset("pisti"), seed=2)
        seat = match.turn
        assert seat is not None
        agent = EngineAgent(process, seed=1)
        view = match.view(seat)
        assert agent.choose(view) == view.hand[0]
        assert agent.last_info == {"type": "info", "depth": 1, "nodes": len(view.hand), "value": 0.0}
    finally:
        process.close()


@pytest.mark.parametrize(
    ("mode", "problem", "said"),
    [
        ("garbage", "sent a malformed line: not JSON", "e2e4 is a chess move, not kseri"),
        ("illegal", "which is not in its hand", "2C"),
        ("sleep", "timed out waiting for a play (100 ms to think + 300 ms grace)", ""),
        ("exit", "exited with status 3 while the host waited for a play", ""),
    ],
)
def test_each_misbehaviour_raises_an_engine_error_naming_it(mode: str, problem: str, said: str) -> None:
    process = EngineProcess(f"bad-{mode}", misbehaving_engine(mode))
    match = Match(Rules.preset("greek"), seed=3)
    seat = match.turn
    assert seat is not None
    view = match.view(seat)
    agent = EngineAgent(process, seed=1, time_ms=100, grace_ms=300)
    with pytest.raises(EngineError) as caught:
        agent.choose(view)
    error = caught.value
    assert error.engine == f"bad-{mode}"
    assert problem in error.problem
    assert str(error).startswith(f"engine 'bad-{mode}': ")
    if said:
        assert said in error.said
    if mode == "exit":
        assert "giving up" in error.stderr
    assert not process.running  # killed: the next game starts it afresh
    process.start()
    assert process.running
    process.close()


def test_an_engine_that_cannot_start_is_reported() -> None:
    process = EngineProcess("ghost", ["/nonexistent/engine-binary"])
    with pytest.raises(EngineError, match="engine 'ghost': could not start"):
        process.start()

