"""Docs and examples import agentmsg only through public paths that exist.

Every ``import agentmsg...`` and ``from agentmsg... import name`` in README.md, docs/*.md,
ARCHITECTURE.md and examples/ must name a module that imports, no private module (no path part
starting with ``_``; the contributors' pages excepted), and names that module really has. One path per name: the package keeps no
alias modules.
"""

from __future__ import annotations

import ast
import importlib
import re
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_IMPORT = re.compile(r"^\s*(?:>>>\s+|\.\.\.\s+)?((?:from\s+agentmsg[\w.]*\s+import\s+.+)|(?:import\s+agentmsg[\w.]*.*))$")


def _sources() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").rglob("*.py"))]
    architecture = ROOT / "ARCHITECTURE.md"
    if architecture.exists():
        files.append(architecture)
    return [f for f in files if "node_modules" not in f.parts]


def _statements(path: Path) -> list[tuple[int, ast.stmt]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        tree = ast.parse(text)
        return [(node.lineno, node) for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    found: list[tuple[int, ast.stmt]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        match = _IMPORT.match(line.rstrip())
        if not match:
            continue
        statement = match.group(1).split("  #")[0].strip().rstrip("(").strip()
        if statement.endswith(","):
            statement = statement[:-1]
        try:
            node = ast.parse(statement).body[0]
        except SyntaxError:  # a multi-line import: its first line names the module, enough here
            statement = statement.split(" import ")[0] + " import *" if " import " in statement else statement
            node = ast.parse(statement).body[0]
        found.append((lineno, node))
    return found


def _imports() -> list[tuple[str, str, list[str]]]:
    out = []
    for path in _sources():
        for lineno, node in _statements(path):
            where = f"{path.relative_to(ROOT)}:{lineno}"
            if isinstance(node, ast.Import):
                out += [(where, alias.name, []) for alias in node.names if alias.name.split(".")[0] == "agentmsg"]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "agentmsg":
                out.append((where, node.module or "", [a.name for a in node.names if a.name != "*"]))
    return out


IMPORTS = _imports()
CONTRIBUTORS = {"ARCHITECTURE.md", "docs/field-tables.md"}


def test_docs_and_examples_import_agentmsg() -> None:
    assert len(IMPORTS) > 50  # the scan found the imports (README, docs, examples)


@pytest.mark.parametrize(("where", "module", "names"), IMPORTS, ids=[f"{w} {m}" for w, m, _ in IMPORTS])
def test_import_path_is_public_and_exists(where: str, module: str, names: list[str]) -> None:
    private = [part for part in module.split(".") if part.startswith("_")]
    # the contributors' pages show the private machinery on purpose; user-facing pages never do
    assert not private or where.split(":")[0] in CONTRIBUTORS, f"{where}: {module} is a private module"
    loaded = importlib.import_module(module)
    public = getattr(loaded, "__all__", None)
    for name in names:
        assert not name.startswith("_"), f"{where}: {module}.{name} is private"
        if not hasattr(loaded, name):  # a submodule, imported by name
            importlib.import_module(f"{module}.{name}")
            continue
        if public is not None and not isinstance(getattr(loaded, name), types.ModuleType):
            assert name in public, f"{where}: {module}.{name} is not in {module}.__all__"

def test_no_alias_modules() -> None:
    # Each I/O module has one path, under agentmsg.io.
    for name in ("execution", "files", "mcp", "recognition", "store"):
        assert not (ROOT / "agentmsg" / f"{name}.py").exists(), name
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(f"agentmsg.{name}")
