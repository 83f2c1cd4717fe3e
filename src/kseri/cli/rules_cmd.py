"""``kseri rules``: the presets and their options."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from kseri.cli import app
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
    greek = PRESETS["greek"].options()
    table = Table(title="kseri presets: --rules NAME[,option=value,...]", show_lines=True)
    table.add_column("preset", style="bold", no_wrap=True)
    table.add_column("what it is", ratio=1)
    table.add_column("options unlike greek", ratio=1)
    for name, rules in PRESETS.items():
        changed = [f"{key}={option_text(value)}" for key, value in rules.options().items()
                   if key != "name" and value != greek[key]]
        table.add_row(name, PRESET_SOURCES[name], "\n".join(changed) or "(the default)")
    console.print(table)
    console.print("Every option of one rule set: kseri rules NAME (or NAME,option=value,...).")
