"""The core modules import only downward: roles → content → tools → messages → history/streaming."""

from __future__ import annotations

import ast
import re
import typing
from pathlib import Path

import pytest

import agentmsg
from agentmsg import ChatMessage, ToolResult

PACKAGE = Path(agentmsg.__file__).resolve().parent

# The core types, lowest first; a module may import only from a lower layer.
CORE_LAYERS = {"roles": 0, "content": 1, "tools": 2, "messages": 3, "history": 4, "streaming": 4}
# Beneath the core: the errors, the private helpers and the schema generator (which tools.py
# loads lazily for ToolDefinition.from_dataclass); none of them imports a core type.
BENEATH = {"errors", "_checks", "_json", "_frozen", "_fieldtable", "_construct", "_time", "_images", "schema"}


def _imports(path: Path) -> set[str]:
    """Return the top-level agentmsg modules that ``path`` imports, at any depth (lazy ones too)."""
    package_depth = len(path.relative_to(PACKAGE).parts) - 1  # 0 for agentmsg/x.py
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            assert not any(a.name.split(".")[0] == "agentmsg" for a in node.names), f"{path.name}: absolute import"
        elif isinstance(node, ast.ImportFrom):
            assert node.level or not (node.module or "").startswith("agentmsg"), f"{path.name}: absolute import"
            if node.level == 0:
                continue
            up = node.level - 1 - package_depth  # levels above the package root: must be none
            assert up <= 0, f"{path.name}: imports from outside the package"
            if node.level - 1 < package_depth:  # a sibling inside a subpackage
                found.add(path.relative_to(PACKAGE).parts[0])
            elif node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("module", sorted(CORE_LAYERS))
def test_core_modules_import_only_downward(module):
    layer = CORE_LAYERS[module]
    imported = _imports(PACKAGE / f"{module}.py")
    upward = sorted(m for m in imported if m not in BENEATH and not CORE_LAYERS.get(m, 99) < layer)
    assert not upward, f"{module} imports {upward}: a lower layer must not call up"


@pytest.mark.parametrize("module", sorted(BENEATH))
def test_helpers_and_schema_import_no_core_type(module):
    target = PACKAGE / module
    files = sorted(target.rglob("*.py")) if target.is_dir() else [PACKAGE / f"{module}.py"]
    assert files
    for path in files:
        imported = _imports(path)
        assert not imported & set(CORE_LAYERS), (path.name, imported & set(CORE_LAYERS))
        assert imported <= BENEATH, (path.name, imported - BENEATH)


def test_the_scan_sees_lazy_and_sibling_imports():
    assert {"messages", "roles", "errors"} <= _imports(PACKAGE / "history.py")
    assert "schema" in _imports(PACKAGE / "tools.py")  # imported inside ToolDefinition's methods
    assert "_checks" in _imports(PACKAGE / "schema" / "_validator.py")


# The packages split into rooms: each module imports only the rooms of a lower rank, and
# ``__init__`` re-exports.
ROOMS = {
    "io/mcp": {
        "protocol": 0, "transport": 1, "tools": 2, "resources": 2, "prompts": 3, "sampling": 3, "elicitation": 3,
        "server_requests": 4, "_bookkeeping": 1, "session": 5, "__init__": 6,
    },
    "agent": {"_report": 0, "_namespace": 0, "turn": 1, "__init__": 2},
    "events": {"history": 0, "requests": 0, "stream": 1, "protocol": 2, "reducer": 3, "journal": 4, "__init__": 5},
    "records": {
        "_envelope": 0, "text": 1, "images": 1, "files": 1, "tool_calls": 1, "control": 1, "mcp": 1,
        "registry": 2, "__init__": 3,
    },
    "validate": {
        "_rules": 0, "_json_position": 0, "_fields": 0, "_order": 0, "_provider_rules": 1, "_mcp_rules": 1,
        "_error_bodies": 1, "_json_array": 1, "_check_only": 1, "_fields_openai": 1, "_fields_anthropic": 1,
        "_fields_responses": 1, "_fields_gemini": 1, "_fields_ollama": 1, "_fields_bedrock": 1,
        "_provider_kinds": 2, "_datasets": 2, "_registry": 3, "_report": 4, "_diagnosis": 5, "_json_lines": 6,
        "_jobs": 7, "_big_document": 7, "_reader": 8, "_cli": 9, "__init__": 10, "__main__": 10,
    },
}


def _room_imports(path: Path) -> set[str]:
    """Return the sibling modules ``path`` imports (``from .x import``, at any depth)."""
    return {
        node.module.split(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
    }


@pytest.mark.parametrize("package", sorted(ROOMS))
def test_rooms_import_only_lower_rooms(package):
    ranks = ROOMS[package]
    modules = {path.stem: path for path in (PACKAGE / package).glob("*.py")}
    assert set(modules) == set(ranks), f"{package}: place each module in ROOMS"
    for name, path in modules.items():
        upward = sorted(m for m in _room_imports(path) if ranks[m] >= ranks[name])
        assert not upward, f"{package}/{name} imports {upward}: a room must not call up"
    init = ast.parse(modules["__init__"].read_text(encoding="utf-8"))
    assert all(isinstance(node, (ast.Expr, ast.ImportFrom, ast.Assign)) for node in init.body), f"{package}: __init__ only re-exports"


def test_the_room_scan_sees_sibling_imports():
    assert _room_imports(PACKAGE / "io" / "mcp" / "session.py") == {
        "_bookkeeping", "elicitation", "prompts", "protocol", "resources", "sampling", "server_requests", "tools",
        "transport",
    }
    assert _room_imports(PACKAGE / "agent" / "turn.py") == {"_namespace", "_report"}
    assert _room_imports(PACKAGE / "events" / "reducer.py") == {"history", "protocol", "requests", "stream"}


def test_tool_result_to_message_is_typed_and_unchanged():
    assert typing.get_type_hints(ToolResult.to_message)["return"] is ChatMessage
    message = ToolResult.success("call_1", "42").to_message()
    assert type(message) is ChatMessage and message.to_dict() == {"role": "tool", "tool_call_id": "call_1", "content": "42"}
    assert agentmsg.ToolResult is ToolResult


# -- house style: one way to write annotations, ignores that say why ----------------------------

# Modules without ``from __future__ import annotations``, each for the reason its comment gives.
_NO_FUTURE = {"__init__.py", "schema/__init__.py", "schema/_generate.py"}


def _package_files() -> list[tuple[str, str]]:
    return [(str(p.relative_to(PACKAGE)), p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))]


def test_every_module_postpones_annotations():
    files = _package_files()
    assert len(files) > 30
    missing = sorted(rel for rel, text in files if not re.search(r"^from __future__ import annotations$", text, re.M))
    assert missing == sorted(_NO_FUTURE), missing
    for rel in _NO_FUTURE:
        assert "No ``from __future__ import annotations`` here" in (PACKAGE / rel).read_text(encoding="utf-8")


def test_annotations_say_x_or_none_never_optional_or_union():
    found = []
    for rel, text in _package_files():
        if "Optional" not in text and "Union" not in text:  # no annotation can name them
            continue
        for node in ast.walk(ast.parse(text)):
            annotations: list[ast.expr] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                every = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
                annotations += [a.annotation for a in every if a.annotation is not None]
                annotations += [node.returns] if node.returns is not None else []
            elif isinstance(node, ast.AnnAssign):
                annotations.append(node.annotation)
            for annotation in annotations:
                text_of = ast.unparse(annotation)
                if "Optional[" in text_of or "Union[" in text_of:
                    found.append(f"{rel}:{annotation.lineno}: {text_of}")
    assert not found, found


def test_every_type_ignore_says_why():
    bare = [
        f"{rel}:{number}"
        for rel, text in _package_files()
        for number, line in enumerate(text.splitlines(), 1)
        if "# type: ignore" in line and not re.search(r"# type: ignore\[[^\]]+\]  # \S", line)
    ]
    assert not bare, bare


@pytest.mark.parametrize(
    "init", sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE)
)
def test_every_package_init_only_re_exports(init):
    """A subpackage's ``__init__`` holds a docstring, imports and ``__all__``: its code lives in its modules."""
    body = ast.parse((PACKAGE / init).read_text(encoding="utf-8")).body
    assert all(isinstance(node, (ast.Expr, ast.ImportFrom, ast.Import, ast.Assign)) for node in body), init
    assert all(isinstance(node.value, ast.Constant) for node in body if isinstance(node, ast.Expr)), init


MAX_MODULE_LINES = 700  # a room a reader can hold: split a module along its seams before it grows past this


def test_every_module_is_at_most_700_lines() -> None:
    sizes = {path.relative_to(PACKAGE).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in PACKAGE.rglob("*.py")}
    assert len(sizes) > 50, "the scan must see the whole package"
    assert {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES} == {}
