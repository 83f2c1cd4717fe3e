"""Each floor of the package imports only the floors below it (docs/architecture.md)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "kseri"

FLOORS = {
    "cards": 1, "rules": 2, "deal": 3, "engine": 3, "fast": 3,
    "views": 4, "records": 4, "notation": 4, "fairness": 4, "learn": 4,
    "agents": 5, "bench": 6, "analysis": 6, "protocol": 6, "offline": 6,
    "cli": 7, "tui": 7, "server": 7, "rl": 7,
}
INTERFACES = {"tui", "server", "rl"}  # side by side: none imports another (the CLI imports tui and server)
BESIDE_THE_ENGINE = {"engine", "fast"}  # the reference core and the compiled one: neither imports the other
STANDARD_LIBRARY_ONLY = {"cards", "rules", "deal", "engine"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def floor_of(path: Path) -> str:
    return path.relative_to(PACKAGE).with_suffix("").parts[0]


def test_every_import_goes_down_the_floors() -> None:
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        if path.name in ("__init__.py", "__main__.py") and path.parent == PACKAGE:
            continue
        own = floor_of(path)
        for module in imported_modules(path):
            parts = module.split(".")
            if parts[0] != "kseri" or len(parts) < 2 or parts[1] == own:
                continue
            other = parts[1]
            side_by_side = (own in INTERFACES and other in INTERFACES) or (
                own in BESIDE_THE_ENGINE and other in BESIDE_THE_ENGINE)
            if FLOORS[other] > FLOORS[own] or side_by_side:
                wrong.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert wrong == []


def test_the_core_engine_uses_the_standard_library_only() -> None:
    import sys

    outside = []
    for name in STANDARD_LIBRARY_ONLY:
        for module in imported_modules(PACKAGE / f"{name}.py"):
            top = module.split(".")[0]
            if top not in ("kseri", "__future__") and top not in sys.stdlib_module_names:
                outside.append(f"{name}.py imports {module}")
    assert outside == []


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def kseri_imports(path: Path) -> set[str]:
    """The kseri modules ``path`` imports (``from kseri.x import y`` counts ``kseri.x.y`` when
    that is a module, else ``kseri.x``), at any depth of the file."""
    modules = {module_name(p) for p in PACKAGE.rglob("*.py")}
    found = set()
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("kseri."))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("kseri"):
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                found.add(child if child in modules else node.module)
    return {name for name in found if name in modules}


def test_no_circles_among_modules() -> None:
    """No module reaches itself through the modules it imports, on one floor or across."""
    graph = {module_name(p): kseri_imports(p) - {module_name(p)} for p in PACKAGE.rglob("*.py")}
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for other in sorted(graph.get(module, ())):
            if other == "kseri":
                continue  # the package face re-exports; nothing below imports it back
            if state.get(other) == 1:
                circles.append([*path[path.index(other):], other])
            elif other not in state:
                visit(other, [*path, other])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert circles == []



def test_no_private_name_is_imported_from_another_module() -> None:
    """A name with a leading underscore belongs to its module: none is imported elsewhere."""
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kseri"):
                wrong += [f"{path.relative_to(PACKAGE)} imports {alias.name} from {node.module}"
                          for alias in node.names if alias.name.startswith("_") and alias.name[:2] != "__"]
    assert wrong == []


SERVER_ROOMS = ["limits", "throttles", "settings", "errors", "protocol", "db", "metrics", "stacks", "guard",
                "workers", "history", "hints", "talk", "eventlog", "delta", "audience", "seats", "clock",
                "passplay", "room", "wire", "resign", "accounts", "guests", "ratings", "fairplay",
                "moderation", "refunds", "pairing", "cluster", "relay", "registry", "players", "puzzles",
                "daily", "tournament_tables", "tournaments", "challenges", "results", "schedule", "backup",
                "api", "app"]
"""The server's rooms, lowest first (docs/architecture.md): each imports only rooms before it (a
room is a module, or a package such as ``api/``, whose modules may import one another)."""


def test_the_server_rooms_keep_their_order() -> None:
    server = PACKAGE / "server"
    packages = {path.parent.name for path in server.glob("*/__init__.py")}
    rooms = ({path.stem for path in server.glob("*.py")} - {"__init__"}) | packages
    assert rooms == set(SERVER_ROOMS), "a new server room needs its place in SERVER_ROOMS"
    wrong = []
    for room in SERVER_ROOMS:
        files = sorted((server / room).glob("*.py")) if room in packages else [server / f"{room}.py"]
        for path in files:
            for module in kseri_imports(path):
                parts = module.split(".")
                inside = parts[:2] == ["kseri", "server"] and len(parts) > 2 and parts[2] in rooms
                if inside and parts[2] != room and SERVER_ROOMS.index(parts[2]) >= SERVER_ROOMS.index(room):
                    wrong.append(f"server/{path.relative_to(server)} imports {module}")
    assert wrong == []
