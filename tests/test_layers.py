"""The core modules import only downward: roles → content → tools → messages → history/streaming."""

from __future__ import annotations

import ast
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
BENEATH = {"errors", "_checks", "_json", "_frozen", "_fields", "_time", "_images", "schema"}


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


def test_tool_result_to_message_is_typed_and_unchanged():
    assert typing.get_type_hints(ToolResult.to_message)["return"] is ChatMessage
    message = ToolResult.success("call_1", "42").to_message()
    assert type(message) is ChatMessage and message.to_dict() == {"role": "tool", "tool_call_id": "call_1", "content": "42"}
    assert agentmsg.ToolResult is ToolResult
