"""``kseri rules``: the presets and their options."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from kseri.cli.command import app
from kseri.notation import option_text
from kseri.rules import PRESET_SOURCES, PRESETS, Rules, RulesError


@app.command("rules")
def rules_command(
    spec: Annotated[
        str | None,
        typer.Argument(help="Show one rule set: a preset with overrides, e.g. greek,jack_kseri=25"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the options as JSON.")] = False,
) -> None:
    """List the presets and how they differ from the Greek game, or show one rule set."""
    console = Console()
    if spec:
        try:
            rules = Rules.from_spec(spec)
        except RulesError as error:
            console.print(f"[red]error:[/red] {error}")
            raise typer.Exit(2) from None
        if as_json:
            print(json.dumps(rules.options(), indent=2))
            return
        table = Table(title=f"rules {spec}")
        table.add_column("option")
        table.add_column("value")
        for name, value in rules.options().items():
            table.add_row(name, option_text(value))
        console.print(table)
        return
    if as_json:
        print(json.dumps({name: rules.options() for name, rules in PRESETS.items()}, indent=2))
        return
    table = Table(title="kseri presets: --rules NAME[,option=value,...]", show_lines=True)
    table.add_column("preset", style="bold", no_wrap=True)
    table.add_column("how it plays", ratio=2)
    table.add_column("where it comes from", ratio=1)
    for name, rules in PRESETS.items():
        table.add_row(name, in_words(rules), PRESET_SOURCES[name])
    console.print(table)
    console.print("Every option of one rule set: kseri rules NAME (or NAME,option=value,...).")


_RANKS = {"A": "aces", "K": "kings", "Q": "queens", "J": "jacks", "T": "tens"}


def _point_card(code: str) -> str:
    if len(code) == 1:
        return _RANKS.get(code, code)
    return {"TD": "10♦", "2C": "2♣"}.get(code, code)


def in_words(rules: Rules) -> str:
    """A rule set as a player would describe it: who plays, the deal, the kseris, the points,
    the target.

    >>> print(in_words(PRESETS["greek"]))
    2 players, 6 cards each per deal, 4 face-up cards in the centre (dealt again on a Jack or a pair).
    Jacks take any pile. Kseri 10, Jack on a lone Jack 20.
    Points: aces, kings, queens, jacks, tens 1 each, 10♦ 1, 2♣ 1; most cards 3.
    First to 151; if both pass it in the same round, the target rises by 100.
    """
    who = (f"{rules.players} players in two teams of {rules.players // 2} (partners opposite)"
           if rules.partnerships else f"{rules.players} players")
    decks = " with two decks" if rules.decks == 2 else ""
    centre = {
        "redeal": f"{rules.centre_size} face-up cards in the centre (dealt again on a Jack or a pair)",
        "replace-jacks": f"{rules.centre_size} face-up cards in the centre (a Jack there is replaced)",
        "pisti": f"{rules.centre_size} cards in the centre, only the top one face up; "
                 "the stock's bottom card is shown",
    }[rules.centre_deal.value]
    kseris = [f"Kseri {rules.kseri_value}"]
    kseris.append("Jack on a lone Jack " + (str(rules.jack_kseri) if rules.jack_kseri is not None
                                            else "an ordinary kseri"))
    if rules.double_kseri is not None:
        kseris.append(f"kseri after a kseri {rules.double_kseri}")
    if not rules.kseri_on_last_card:
        kseris.append("none on the last card")
    ranks = [code for code, _ in rules.card_points if len(code) == 1]
    by_rank = {points for code, points in rules.card_points if len(code) == 1}
    points = []
    if ranks and len(by_rank) == 1:
        points.append(f"{', '.join(_point_card(r) for r in ranks)} {by_rank.pop()} each")
    else:
        points.extend(f"{_point_card(code)} {value}" for code, value in rules.card_points if len(code) == 1)
    points.extend(f"{_point_card(code)} {value}" for code, value in rules.card_points if len(code) == 2)
    extras = [f"most cards {rules.majority_bonus}"] if rules.majority_bonus else []
    if rules.last_capture_bonus:
        extras.append(f"last capture {rules.last_capture_bonus}")
    if rules.jacks_table_bonus:
        extras.append(f"a pile of Jacks only {rules.jacks_table_bonus}")
    if rules.two_clubs_match_bonus:
        extras.append(f"2♣ taken by a two {rules.two_clubs_match_bonus}")
    target = (f"First to {rules.target}; if both pass it in the same round, the target rises by "
              f"{rules.escalation}." if rules.target_rule.value == "escalate" else
              f"First to {rules.target}; if several pass it in the same round, the higher score wins.")
    jacks = "Jacks take any pile." if rules.jacks_capture_all else "Jacks take only Jacks."
    return (f"{who}{decks}, {rules.batch_size} cards each per deal, {centre}.\n"
            f"{jacks} {', '.join(kseris)}.\n"
            f"Points: {', '.join(points)}" + (f"; {', '.join(extras)}" if extras else "") + ".\n"
            + target)
