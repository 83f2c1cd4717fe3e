"""Both sides of the offline rules' differential test (and of ``benchmarks/offline.py``): the
browser's, Python that runs in the page under Pyodide and drives ``kseri.offline.OfflineTable``
as the offline table does, and the server's, the same matches played by ``Match`` in CPython.
Each side gives, per match, every round's plays (card, seat, cards taken, kseris and bonuses),
its result and the totals after it, and the winner."""

from __future__ import annotations

from typing import Any

from kseri.agents import make_agent
from kseri.engine import Match, Phase
from kseri.rules import Rules
from kseri.views import play_to_json, result_to_json

BROWSER_DRIVER = """
import json
from kseri.offline import OfflineTable

def offline_transcripts(preset, level, seeds):
    matches = []
    for seed in seeds:
        table = OfflineTable.new(preset, level, seed, people=0)
        rounds = []
        while True:
            if table.match.turn is not None:
                table.bot_play()
                continue
            state = json.loads(table.state())
            rounds.append({"plays": state["plays"], "result": state["round_results"][-1],
                           "totals": state["totals"]})
            if state["phase"] == "match-over":
                break
            table.next_round()
        matches.append({"seed": seed, "rounds": rounds, "winner": state["winner"]})
    return json.dumps(matches)
"""
"""Defines ``offline_transcripts(preset, level, seeds)`` (JSON text) in the page's Python."""


def server_transcript(preset: str, level: str, seed: int) -> dict[str, Any]:
    """The match of ``seed`` as the server plays it: ``Match`` and one bot per seat, each seeded
    with the match's seed plus its seat, as ``kseri.offline.OfflineTable`` seeds them."""
    match = Match(Rules.preset(preset), seed=seed)
    bots = [make_agent(level, seed=seed + seat) for seat in range(match.rules.players)]
    rounds = []
    while True:
        if match.phase is Phase.PLAYING:
            seat = match.turn
            assert seat is not None
            match.play(bots[seat].choose(match.view(seat)), seat=seat)
            continue
        index = len(match.round_results) - 1
        rounds.append({"plays": [play_to_json(play) for play in match.plays[index]],
                       "result": result_to_json(match.round_results[index]), "totals": list(match.totals)})
        if match.phase is Phase.MATCH_OVER:
            break
        match.next_round()
    return {"seed": seed, "rounds": rounds, "winner": match.winner}
