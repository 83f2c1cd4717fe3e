"""``kseri gauntlet``: a level against a pool of opponents of other styles, paired with the expert;
``kseri gauntlet-pool``: runs of it over disjoint deals, pooled deal by deal."""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from kseri.agents.base import AGENTS, STYLES, make_agent
from kseri.agents.exploiter import DEFAULT_WORLDS, ExploiterAgent
from kseri.bench.gauntlet import Entrant, GauntletConfig, builtin, engine, run_gauntlet
from kseri.bench.gauntlet_report import plot, pool, render, summarize
from kseri.cli.command import (
    RayOptionCommand,
    app,
    check_workers,
    errors,
    ray_option,
    rules_spec,
    run_on_executor,
)
from kseri.rules import Rules, RulesError

NOISY_TEMPERATURES = (0.5, 1.0, 2.0)
"""The noisy experts' temperatures in the default pool, in points."""
ISMCTS_SIMULATIONS = 50
"""IS-MCTS's simulations a move in the default pool (200, its own default, takes seconds a deal)."""


def default_pool(ismcts_simulations: int = ISMCTS_SIMULATIONS) -> list[Entrant]:
    """The opponents none of which the master's model assumes: the baselines, noisy experts, the
    Pisti hunter, the defensive player, IS-MCTS (when OpenSpiel is installed) and the expert served
    as an external engine over the engine protocol."""
    pool = [builtin("random"), builtin("greedy"), builtin("learned")]
    pool += [builtin("noisy-expert", f"noisy-expert-{temperature:g}", temperature=temperature)
             for temperature in NOISY_TEMPERATURES]
    pool += [builtin("pisti-hunter"), builtin("defensive")]
    ismcts = ismcts_entrant(ismcts_simulations)
    if ismcts is not None:
        pool.append(ismcts)
    pool.append(engine(f"expert-engine={sys.executable} -m kseri engine --level expert"))
    return pool


def ismcts_entrant(simulations: int) -> Entrant | None:
    """OpenSpiel's IS-MCTS (:mod:`kseri.rl.ismcts`) as an opponent, ``None`` without the
    ``kseri[rl]`` extra."""
    try:
        from kseri.rl.ismcts import ISMCTSAgent
    except ImportError:
        return None
    ISMCTSAgent(simulations=simulations)  # a bad count fails now, not in a worker
    return Entrant("ismcts", make=partial(ISMCTSAgent, simulations=simulations),
                   description=f"ismcts(simulations={simulations})")


def level_options(strength: float | None, iterations: int | None) -> dict[str, Any]:
    """A level's options from the command line (those given)."""
    options: dict[str, Any] = {}
    if strength is not None:
        options["strength"] = strength
    if iterations is not None:
        options["iterations"] = iterations
    return options


def level_entrant(level: str, strength: float | None, iterations: int | None, prefix: str = "") -> Entrant:
    """The level under test with its options, named after them."""
    options = level_options(strength, iterations)
    label = prefix + level
    if strength is not None:
        label += f"@{strength:g}"
    if iterations is not None:
        label += f"/{iterations}"
    return builtin(level, label, **options)


def learned_entrant(weights: Path) -> Entrant:
    """The ``learned`` level playing the network in ``weights`` (an ``.npz``, e.g. one trained by
    ``examples/train_policy.py``), named after the file."""
    from kseri.agents.learned import PolicyNetwork
    try:
        network = PolicyNetwork.load(weights)
    except (OSError, ValueError, KeyError) as error:
        raise ValueError(f"cannot read the network {str(weights)!r}: {error}") from None
    return Entrant(f"learned:{weights.stem}", make=partial(make_agent, "learned", network=network),
                   description=f"learned(weights={weights.name})")


def exploiter_entrant(level: str, strength: float | None, iterations: int | None, worlds: int) -> Entrant:
    """The exploiter of ``level`` (:class:`~kseri.agents.exploiter.ExploiterAgent`), the level with
    its options as its target."""
    options = level_options(strength, iterations)
    try:
        ExploiterAgent(target=level, worlds=worlds, **options)  # bad options fail now, not in a worker
    except TypeError as error:
        raise ValueError(f"bad options for {level!r}: {error}") from None
    text = "".join(f", {key}={value}" for key, value in options.items())
    make = partial(ExploiterAgent, target=level, worlds=worlds, **options)
    return Entrant(f"exploiter-of-{level}", make=make,
                   description=f"exploiter(target={level}, worlds={worlds}{text})")


@app.command("gauntlet", cls=RayOptionCommand)
def gauntlet_command(
    level: Annotated[str, typer.Argument(help=f"The level to test: {', '.join(AGENTS)} (or a style).")],
    rules_text: Annotated[str, typer.Option(
        "--rules", callback=rules_spec, help="Rule set: a preset with overrides.")] = "greek",
    deals: Annotated[int, typer.Option(help="Duplicate deals per opponent.")] = 200,
    opponents: Annotated[list[str] | None, typer.Option(
        "--opponent", help="Play only these opponents of the pool (repeatable); default: all of it.")] = None,
    engines: Annotated[list[str] | None, typer.Option(
        "--engine", help="Add an external engine as NAME=COMMAND (repeatable).")] = None,
    strength: Annotated[float | None, typer.Option(
        help="The level's strength, 0 to 1 (expert, master).")] = None,
    iterations: Annotated[int | None, typer.Option(help="The master's worlds a move.")] = None,
    weights: Annotated[Path | None, typer.Option(
        help="The learned level's network: an .npz from examples/train_policy.py (default: the "
             "shipped one).")] = None,
    baseline: Annotated[str, typer.Option(help="The level the gains are measured over.")] = "expert",
    exploit: Annotated[bool, typer.Option(
        "--exploit", help="Play the exploiter of LEVEL (a search whose opponents play LEVEL's policy) "
                          "against LEVEL itself, instead of LEVEL against the pool.")] = False,
    exploit_worlds: Annotated[int, typer.Option(
        "--exploit-worlds", help="The exploiter's worlds a move.")] = DEFAULT_WORLDS,
    ismcts_simulations: Annotated[int, typer.Option(
        "--ismcts-simulations", help="IS-MCTS's simulations a move.")] = ISMCTS_SIMULATIONS,
    first_deal: Annotated[int, typer.Option(
        "--first-deal", help="Index of the first deal: runs over consecutive ranges pool deal by deal.")] = 0,
    seed: Annotated[int, typer.Option(
        help="Gauntlet seed: the same seed gives the same deals and results.")] = 1,
    rounds: Annotated[int, typer.Option(
        help="Consecutive deals played as one match, the level and the baseline kept over them "
             "(what they read of the opponent carries on).")] = 1,
    workers: Annotated[int, typer.Option(help="Worker processes (0: one per CPU core).")] = 0,
    ray: Annotated[str | None, ray_option()] = None,
    time_ms: Annotated[int, typer.Option("--time-ms", help="Thinking time per play for engines.")] = 1000,
    grace_ms: Annotated[int, typer.Option("--grace-ms", help="Extra wait before an engine forfeits.")] = 1000,
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the summary as JSON here.")] = None,
    plot_path: Annotated[Path | None, typer.Option(
        "--plot", help="Write the margins and gains as a PNG.")] = None,
) -> None:
    """Play LEVEL and the baseline against each opponent of the pool on the same duplicate deals;
    print each margin and the paired gain over the baseline with intervals."""
    console = Console()
    try:
        check_workers(workers, ray)
        if level not in AGENTS and level not in STYLES:
            raise ValueError(f"unknown bot level {level!r}; the levels are: {', '.join(AGENTS)}; "
                             f"the styles are: {', '.join(STYLES)}")
        if weights is not None and (level != "learned" or exploit or strength is not None
                                    or iterations is not None):
            raise ValueError("--weights is the learned level's network: it goes with LEVEL learned "
                             "only, without --exploit, --strength or --iterations")
        pool = default_pool(ismcts_simulations)
        tested = (level_entrant(level, strength, iterations) if weights is None
                  else learned_entrant(weights))
        if exploit:
            tested, pool = exploiter_entrant(level, strength, iterations, exploit_worlds), [
                level_entrant(level, strength, iterations, prefix="target-")]
        elif opponents:
            names = {entrant.name: entrant for entrant in pool}
            unknown = [name for name in opponents if name not in names]
            if unknown:
                raise ValueError(f"no opponent {', '.join(map(repr, unknown))} in the pool; it holds: "
                                 f"{', '.join(names)}")
            pool = [names[name] for name in opponents]
        elif not any(entrant.name == "ismcts" for entrant in pool):
            errors.print("note: IS-MCTS is left out of the pool: OpenSpiel is not installed (kseri[rl])")
        pool += [engine(spec) for spec in engines or []]
        config = GauntletConfig(tested, tuple(pool), Rules.from_spec(rules_text), deals, seed,
                                baseline=builtin(baseline), time_ms=time_ms, first_deal=first_deal,
                                grace_ms=grace_ms, rounds=rounds)
    except (ValueError, RulesError) as error:
        errors.print(f"[red]error:[/red] {escape(str(error))}")
        raise typer.Exit(2) from None
    outcome = run_on_executor("gauntlet", "deals", deals * len(config.opponents), workers, ray,
                              partial(run_gauntlet, config))
    _report(summarize(outcome), console, json_path, plot_path)


@app.command("gauntlet-pool")
def gauntlet_pool_command(
    paths: Annotated[list[Path], typer.Argument(
        help="Summaries written by `kseri gauntlet --json` over disjoint deals (--first-deal).")],
    json_path: Annotated[Path | None, typer.Option(
        "--json", help="Write the pooled summary as JSON here.")] = None,
    plot_path: Annotated[Path | None, typer.Option(
        "--plot", help="Write the pooled margins and gains as a PNG.")] = None,
) -> None:
    """Pool runs of the same gauntlet (level, baseline, opponents, rules, seed) over disjoint deals,
    deal by deal, and print the margins and gains with their intervals, as one long run would."""
    try:
        summaries = []
        for path in paths:
            try:
                summaries.append(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, json.JSONDecodeError) as error:
                raise ValueError(f"cannot read {path}: {error}") from None
        summary = pool(summaries)
    except (ValueError, KeyError, TypeError) as error:
        errors.print(f"[red]error:[/red] {escape(str(error))}")
        raise typer.Exit(2) from None
    _report(summary, Console(), json_path, plot_path)


def _report(summary: dict[str, Any], console: Console, json_path: Path | None,
            plot_path: Path | None) -> None:
    """Print ``summary``, and write it as JSON and as a plot where asked."""
    render(summary, console)
    if json_path is not None:
        json_path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        console.print(f"summary written to {json_path}", highlight=False)
    if plot_path is not None:
        plot(summary, plot_path)
        console.print(f"plot written to {plot_path}", highlight=False)
