"""``kseri rules``: the presets and their options."""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.table import Table

from kseri.cli import app
from kseri.rules import OPTION_NAMES, PRESET_SOURCES, PRESETS, Rules, RulesError


@app.command("rules")
def rules_command(
    spec: str = typer.Argument(
        None, help="Show one rule set: a preset with overrides, e.g. greek,jack_kseri=25"
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the options as JSON."),
) -> None:
    """List the presets and their options, or show one rule set."""
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
            table.add_row(name, str(value))
        console.print(table)
        return
    if as_json:
        print(json.dumps({name: rules.options() for name, rules in PRESETS.items()}, indent=2))
        return
    table = Table(title="kseri presets (use --rules NAME,option=value,...)")
    table.add_column("option")
    for name in PRESETS:
        table.add_column(name)
    for option in OPTION_NAMES[1:]:
        table.add_row(option, *(_short(PRESETS[name].options()[option]) for name in PRESETS))
    console.print(table)
    for name, source in PRESET_SOURCES.items():
        console.print(f"[bold]{name}[/bold]: {source}")


def _short(value: object) -> str:
    if isinstance(value, list):
        return " ".join(f"{key}:{points}" for key, points in value)
    return str(value)
