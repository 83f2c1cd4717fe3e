"""No file in ``src/`` over 800 lines and no function over 100, unless it says why (issue 20).

A survivor carries a ``# long: REASON`` comment: a file anywhere in it, a function on the line
above its ``def`` (or its decorators) or within its body.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "kseri"
MOST_FILE_LINES = 800
MOST_FUNCTION_LINES = 100
REASON = "# long:"


def too_long(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    """The file itself and each of its functions that pass their size without a reason, named
    from ``root``."""
    text = path.read_text()
    lines = text.splitlines()
    name = path.relative_to(root)
    found = []
    if len(lines) > MOST_FILE_LINES and REASON not in text:
        found.append(f"{name}: {len(lines)} lines")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
            size = node.end_lineno - node.lineno + 1
            first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            if size > MOST_FUNCTION_LINES and not any(
                    REASON in line for line in lines[max(first - 2, 0):node.end_lineno]):
                found.append(f"{name}:{node.lineno} {node.name}: {size} lines")
    return found


def test_no_file_or_function_is_long_without_a_reason() -> None:
    assert [problem for path in sorted(PACKAGE.rglob("*.py")) for problem in too_long(path)] == []


def test_the_check_sees_a_long_function_and_its_reason(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MOST_FUNCTION_LINES))
    probe = tmp_path / "probe.py"
    probe.write_text(f"def f() -> None:\n{body}\n\ndef g() -> None:\n    pass\n")
    assert too_long(probe, tmp_path) == ["probe.py:1 f: 101 lines"]
    probe.write_text(f"# long: a table of numbers\ndef f() -> None:\n{body}")
    assert too_long(probe, tmp_path) == []
    probe.write_text("x = 1\n" * (MOST_FILE_LINES + 1))
    assert too_long(probe, tmp_path) == [f"probe.py: {MOST_FILE_LINES + 1} lines"]
