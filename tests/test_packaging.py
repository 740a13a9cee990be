"""The package is stdlib-only, vendorable (a copied folder works in isolation) and side-effect free."""

import ast
import importlib
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import agentmsg

PACKAGE = Path(agentmsg.__file__).parent


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_imports_only_the_standard_library_and_itself_relatively() -> None:
    problems = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top == "agentmsg" or top not in sys.stdlib_module_names:
                    problems.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {name}")
    assert problems == []
    assert len(_modules()) >= 10


def test_every_public_name_is_exported_and_importable() -> None:
    assert isinstance(agentmsg.__all__, tuple) and len(set(agentmsg.__all__)) == len(agentmsg.__all__)
    for name in agentmsg.__all__:
        assert hasattr(agentmsg, name), name
    assert (PACKAGE / "py.typed").exists()


def test_every_module_imports_without_side_effects() -> None:
    for info in pkgutil.walk_packages([str(PACKAGE)], "agentmsg."):
        if info.name.endswith(".validate"):
            continue  # the CLI module is imported by its own subprocess tests
        importlib.import_module(info.name)


VENDORED_FLOW = r"""
import sys, json, warnings
warnings.simplefilter("error")
assert sys.flags.isolated
import vendored.agentmsg as am
from vendored.agentmsg import *
names = am.__all__
assert "ChatMessage" in names
for name in names:
    getattr(am, name)
call = ToolCall("call_1", "write_file", {"path": "hello.py"})
history = ConversationHistory([ChatMessage.system("s"), ChatMessage.user("hi"),
                               ChatMessage.assistant("ok", [call]), ChatMessage.tool("call_1", "done")])
text = json.dumps(history.to_list())
again = ConversationHistory.from_list(json.loads(text))
assert again.messages == history.messages
assert from_json(to_json(call), ToolCall) == call
assert json_schema("chat_message")["$ref"] == "#/$defs/chat_message"
print("vendored ok", len(names))
"""


def test_copied_folder_works_in_isolated_mode(tmp_path: Path) -> None:
    target = tmp_path / "vendored"
    target.mkdir()
    (target / "__init__.py").write_text("")
    shutil.copytree(PACKAGE, target / "agentmsg", ignore=shutil.ignore_patterns("__pycache__"))
    result = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path[:] = [{str(tmp_path)!r}] + [p for p in sys.path if 'site-packages' not in p]\n" + VENDORED_FLOW],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("vendored ok")


def test_import_does_not_pull_heavy_modules() -> None:
    code = f"import sys; sys.path.insert(0, {str(PACKAGE.parent)!r}); import agentmsg; print(' '.join(sorted(m for m in ('asyncio', 'sqlite3', 'subprocess', 'socket', 'agentmsg.validate') if m in sys.modules)))"
    result = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


LAZY_MODULES = ("json", "json.decoder", "json.encoder", "json.scanner", "base64", "agentmsg.formats", "agentmsg.streaming")


def test_import_leaves_json_and_base64_to_first_use() -> None:
    # import time: these load on the first encode/decode or image check, not with the package
    code = (f"import sys; sys.path.insert(0, {str(PACKAGE.parent)!r}); before = set(sys.modules); import agentmsg; "
            f"print(' '.join(sorted(m for m in {LAZY_MODULES!r} if m in sys.modules and m not in before)))")
    result = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_lazily_exported_names_load_on_first_access() -> None:
    code = (f"import sys; sys.path.insert(0, {str(PACKAGE.parent)!r}); import agentmsg; "
            "names = dir(agentmsg); from agentmsg import ToolCallDelta, json_schema; import agentmsg.streaming as s; "
            "print('ToolCallDelta' in names, ToolCallDelta is s.ToolCallDelta, agentmsg.ToolCallAccumulator is s.ToolCallAccumulator, "
            "json_schema('tool_call')['$ref'])\n"
            "try:\n    agentmsg.nope\nexcept AttributeError as exc:\n    print(exc)")
    result = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["True True True #/$defs/tool_call", "module 'agentmsg' has no attribute 'nope'"]


FIRST_USE = """
import sys
sys.path.insert(0, {root!r})
from agentmsg import ChatMessage, ValidationError, from_json, to_json
from agentmsg.tools import to_canonical_name, to_wire_name
from agentmsg.content import ImageSource
for text in (b"\\xff", "{{", '{{"a": NaN}}'):
    try:
        from_json(text, ChatMessage)
    except ValidationError as exc:
        print(exc.code, exc.path or "-")
print(ValidationError("must not be empty", "name").prefixed("odd key").prefixed("tools").path)
print(to_json(ChatMessage.user("hi")), to_canonical_name("db.query"), to_wire_name("db_x2e_query"))
print(ImageSource.from_dict({{"type": "url", "url": "data:image/gif;base64,R0lGODlhAQABAAAAACw="}}).type)
"""


def test_lazily_loaded_parts_work_on_first_use_in_a_fresh_interpreter() -> None:
    # each path is the first use of its lazily built decoder, encoder or pattern in that interpreter
    result = subprocess.run([sys.executable, "-I", "-c", FIRST_USE.format(root=str(PACKAGE.parent))],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "json -", "json -", "json -",
        'tools["odd key"].name',
        '{"role":"user","content":"hi"} db_x2e_query db.query',
        "url",
    ]
