"""``kseri tournament`` and ``kseri simulate`` on Ray clusters: a local one, and one of three
processes (a head and two worker nodes, started with ``ray start``) on this machine. Either
gives the local run's JSON and records byte for byte. Ray (``kseri[cluster]``) must be
installed: these tests fail without it."""

import contextlib
import json
import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from engine_commands import kseri_engine

import kseri
from kseri.bench.executors import ClusterError, check_ray_address

SOURCE = Path(kseri.__file__).resolve().parents[1]
RAY = Path(sys.executable).with_name("ray")
TOURNAMENT = ["tournament", "greedy", "random", "--rules", "pisti", "--deals", "6", "--matches", "1",
              "--seed", "9", "--bootstrap", "30", "--grace-ms", "60000"]
"""21 games (3 pairs with the engine entered): small, but cut into several pieces of work. The
engine may answer late on a busy machine without forfeiting (a busy run's Ray workers left it
past the default 2 s three times: 3 deals forfeited, so the two runs differed)."""


def _environment(**extra: str) -> dict[str, str]:
    paths = [str(SOURCE), os.environ.get("PYTHONPATH")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths)), "RAY_USAGE_STATS_ENABLED": "0",
            **extra}


def _kseri(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kseri", *args], capture_output=True, text=True, timeout=240,
                          check=False, env=env or _environment())


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _tournament_json(tmp_path: Path, name: str, *where: str, env: dict[str, str] | None = None) -> bytes:
    out = tmp_path / f"{name}.json"
    engine = "random-engine=" + shlex.join(kseri_engine("random"))
    result = _kseri(*TOURNAMENT, "--engine", engine, "--json", str(out), *where, env=env)
    assert result.returncode == 0, result.stderr
    assert "21/21" in result.stderr  # the progress bar ran to the end
    forfeits = json.loads(out.read_text())["forfeits"]
    assert not forfeits, f"the {name} run's engine forfeited: {forfeits}"
    return out.read_bytes()


def _stop(sessions: list[subprocess.Popen[str]]) -> None:
    """End every process of the sessions these ``ray start`` commands lead (Ray's workers too)."""
    for leader in sessions:
        if leader.poll() is None:
            os.killpg(leader.pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(leader.poll() is None for leader in sessions):
        time.sleep(0.2)
    ids = {leader.pid for leader in sessions}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[3]) in ids:  # the session id
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(stat.parent.name), signal.SIGKILL)
    for leader in sessions:
        leader.wait(timeout=30)


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, dict[str, str]]]:
    """A Ray cluster of three nodes on this machine (one CPU each, token authentication): its
    address and the environment that joins it."""
    folder = tempfile.mkdtemp(prefix="kseri-ray-")  # short: Ray's socket paths live under it
    token = Path(folder, "token")
    token.write_text(secrets.token_hex(32))
    env = _environment(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token))
    address = f"127.0.0.1:{_free_port()}"
    nodes: list[subprocess.Popen[str]] = []

    def start(*args: str) -> None:
        node = subprocess.Popen([str(RAY), "start", "--block", "--num-cpus=1", f"--temp-dir={folder}", *args],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                                start_new_session=True)
        nodes.append(node)
        assert node.stdout is not None
        said = []
        for line in node.stdout:  # --block keeps it running; this line says the node is up
            said.append(line)
            if "Ray runtime started" in line:
                return
        raise AssertionError(f"ray start {' '.join(args)} failed:\n{''.join(said[-20:])}")

    try:
        start("--head", f"--port={address.rpartition(':')[2]}", "--include-dashboard=false")
        start(f"--address={address}")
        start(f"--address={address}")
        count = ("import ray; ray.init(address=%r, log_to_driver=False); "
                 "print(sum(node['Alive'] for node in ray.nodes()), int(ray.cluster_resources()['CPU']))")
        joined = subprocess.run([sys.executable, "-c", count % address], capture_output=True, text=True,
                                env=env, timeout=120, check=True)
        assert joined.stdout.split() == ["3", "3"], joined.stderr
        yield address, env
    finally:
        _stop(nodes)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow  # up to 194 s in a busy run: Ray starts a local cluster of its own
def test_a_tournament_on_a_local_ray_cluster_equals_the_local_run(tmp_path: Path) -> None:
    alone = _tournament_json(tmp_path, "alone", "--workers", "1")
    assert _tournament_json(tmp_path, "ray", "--ray") == alone


def test_a_simulation_on_a_local_ray_cluster_writes_the_local_records(tmp_path: Path) -> None:
    runs = {}
    for name, where in (("alone", []), ("ray", ["--ray", "local"])):
        records = tmp_path / f"{name}.jsonl"
        result = _kseri("simulate", "--rules", "pisti", "-n", "24", "--seed", "sim",
                        "--records", str(records), *where)
        assert result.returncode == 0, result.stderr
        # The summary's rows are the same too, but for the measured throughput.
        rows = [" ".join(line.replace("│", " ").split()) for line in result.stdout.splitlines()
                if "│" in line and "/s" not in line]
        runs[name] = (records.read_bytes(), rows)
    assert runs["ray"] == runs["alone"]
    assert runs["alone"][0].count(b"\n") == 24


def test_a_tournament_on_a_three_node_cluster_equals_the_local_run(
    tmp_path: Path, cluster: tuple[str, dict[str, str]]
) -> None:
    address, env = cluster
    alone = _tournament_json(tmp_path, "alone", "--workers", "2")
    assert _tournament_json(tmp_path, "cluster", "--ray", address, env=env) == alone


def test_a_simulation_on_a_three_node_cluster_writes_the_local_records(
    tmp_path: Path, cluster: tuple[str, dict[str, str]]
) -> None:
    address, env = cluster
    files = []
    for name, where in (("alone", []), ("cluster", ["--ray", address])):
        records = tmp_path / f"{name}.jsonl"
        result = _kseri("simulate", "-n", "12", "--seed", "7", "--records", str(records), *where, env=env)
        assert result.returncode == 0, result.stderr
        files.append(records.read_bytes())
    assert files[0] == files[1]


def test_a_bad_ray_address_is_named() -> None:
    closed = f"127.0.0.1:{_free_port()}"
    result = _kseri(*TOURNAMENT, "--ray", closed)
    assert result.returncode == 2
    assert f"error: cannot reach a Ray cluster at {closed}" in result.stderr
    assert "Traceback" not in result.stderr
    result = _kseri("simulate", "-n", "3", "--ray", "greedy")
    assert result.returncode == 2
    assert "a Ray address is 'local' or HOST:PORT" in result.stderr and "'greedy'" in result.stderr
    for wrong in ("nowhere", "host:port", "host:0", ":80"):
        with pytest.raises(ClusterError, match=f"not '{wrong}'"):
            check_ray_address(wrong)


def test_without_ray_the_command_says_what_to_install() -> None:
    # This interpreter as if Ray were not installed: importing it fails.
    run = ("import sys; sys.modules['ray'] = None; sys.argv = ['kseri', *sys.argv[1:]]; "
           "from kseri.cli import main; main()")
    result = subprocess.run([sys.executable, "-c", run, *TOURNAMENT, "--ray"], capture_output=True, text=True,
                            timeout=60, check=False, env=_environment())
    assert result.returncode == 2
    said = "error: Ray is not installed: install 'kseri[cluster]' to run on a cluster"
    assert result.stderr.strip() == said


def test_workers_and_ray_are_not_given_together() -> None:
    result = _kseri(*TOURNAMENT, "--workers", "2", "--ray")
    assert result.returncode == 2
    assert "not both" in result.stderr
