"""The vendoring guide (docs/vendoring.md) holds: its subsets work when copied into a host package.

Each test builds a host project in a temporary folder, ``app/_vendor/agentmsg``, from the groups the
guide's table names, and runs it in a fresh interpreter where the top-level name ``agentmsg`` does
not exist (``-S`` drops site-packages, where the editable install lives; the doctest run, which
needs pytest from site-packages, blocks the name instead).
"""

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agentmsg"
GUIDE = ROOT / "docs" / "vendoring.md"


def groups() -> dict[str, list[str]]:
    """The guide's ``group: entries`` block, the one source of what a copy may delete."""
    text = GUIDE.read_text(encoding="utf-8")
    block = re.search(r"```text\n(core:.*?)```", text, re.S)
    assert block, "docs/vendoring.md lost its table of groups"
    result = {}
    for line in block.group(1).splitlines():
        name, _, entries = line.partition(":")
        result[name.strip()] = entries.split()
    return result


def package_entries() -> set[str]:
    entries = set()
    for path in PACKAGE.iterdir():
        if path.name == "__pycache__" or path.name.endswith(".pyc"):
            continue
        entries.add(path.name + "/" if path.is_dir() else path.name)
    return entries


def build_host(tmp_path: Path, keep: list[str]) -> Path:
    """Copy the named entries of agentmsg/ into tmp_path/app/_vendor/agentmsg; return tmp_path."""
    vendor = tmp_path / "app" / "_vendor" / "agentmsg"
    vendor.mkdir(parents=True)
    for name in ("app", "app/_vendor"):
        (tmp_path / name / "__init__.py").write_text("")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for entry in keep:
        source = PACKAGE / entry.rstrip("/")
        if entry.endswith("/"):
            shutil.copytree(source, vendor / entry.rstrip("/"), ignore=ignore)
        else:
            shutil.copy2(source, vendor / entry)
    return tmp_path


HOST_CODE = textwrap.dedent(
    """
    from ._vendor.agentmsg import ChatMessage, ConversationHistory, ToolCall, ToolResult, to_json, json_schema
    from ._vendor import agentmsg

    def conversation():
        history = ConversationHistory()
        history.add(ChatMessage.system("You are terse."))
        history.add(ChatMessage.user("Weather in Oslo?"))
        history.add(ChatMessage.assistant("Checking.", [ToolCall("call_1", "get_weather", {"city": "Oslo"})]))
        history.add(ToolResult.success("call_1", "4 C, rain").to_message())
        history.add(ChatMessage.assistant("4 C and rain."))
        history.validate()
        return history
    """
)

PROVIDER_CODE = textwrap.dedent(
    """
    from ._vendor.agentmsg.providers import anthropic, openai
    from .chat import conversation

    def round_trip():
        history = conversation()
        wire = openai.to_messages(history)
        assert openai.from_messages(wire) == tuple(history.messages), "openai round trip"
        system, turns = anthropic.to_messages(history)
        assert anthropic.from_messages(turns, system=system) == tuple(history.messages), "anthropic"
        body = {"choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "Done."}}]}
        return [m["role"] for m in wire], openai.parse_response(body).message
    """
)


def run_host(host: Path, code: str) -> str:
    # -I: no PYTHONPATH, no user site; -S: no site-packages, so no installed agentmsg either.
    prelude = f"import sys; sys.path.insert(0, {str(host)!r}); assert 'agentmsg' not in sys.modules\n"
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", prelude + code], capture_output=True, text=True, cwd=host, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_guide_names_every_module() -> None:
    named = [entry for entries in groups().values() for entry in entries]
    assert len(named) == len(set(named)), "an entry is in two groups"
    unlisted = package_entries() - set(named)
    assert not unlisted, f"say in docs/vendoring.md which group {sorted(unlisted)} belongs to"
    missing = set(named) - package_entries()
    assert not missing, f"docs/vendoring.md names files agentmsg/ no longer has: {sorted(missing)}"


def test_core_only_copy(tmp_path: Path) -> None:
    host = build_host(tmp_path, groups()["core"])
    (host / "app" / "chat.py").write_text(HOST_CODE)
    out = run_host(host, textwrap.dedent(
        """
        from app.chat import conversation, to_json, json_schema, agentmsg
        history = conversation()
        print(to_json(history.messages[2]))
        print(type(agentmsg.ValidationError("x")).__module__, json_schema("chat_message")["$ref"])
        print(sorted(name for name in sys.modules if name.startswith("agentmsg")))
        from app._vendor.agentmsg.schema import schema_for
        """
    ))
    lines = out.splitlines()
    assert lines[0] == (
        '{"role":"assistant","content":"Checking.","tool_calls":'
        '[{"id":"call_1","name":"get_weather","arguments":{"city":"Oslo"}}]}'
    )
    assert lines[1] == "app._vendor.agentmsg.errors #/$defs/chat_message"
    assert lines[2] == "[]", "the copy must never import the top-level name agentmsg"


def test_core_plus_providers_copy(tmp_path: Path) -> None:
    named = groups()
    host = build_host(tmp_path, named["core"] + named["providers"])
    (host / "app" / "chat.py").write_text(HOST_CODE)
    (host / "app" / "wire.py").write_text(PROVIDER_CODE)
    out = run_host(host, "from app.wire import round_trip\nroles, reply = round_trip()\nprint(roles, reply.content)")
    assert out.strip() == "['system', 'user', 'assistant', 'tool', 'assistant'] Done."
    assert not (host / "app" / "_vendor" / "agentmsg" / "records").exists()


@pytest.mark.parametrize(
    "extra",
    [["records"], ["events"], ["records", "io"], ["providers", "records", "events", "io", "agent"],
     ["providers", "records", "events", "io", "validate"]],
    ids=lambda groups: "+".join(groups),
)
def test_documented_dependencies_suffice(tmp_path: Path, extra: list[str]) -> None:
    """Each group imports with only the groups the guide says it needs."""
    named = groups()
    keep = named["core"] + [entry for name in extra for entry in named[name]]
    host = build_host(tmp_path, keep)
    modules = []
    for entry in keep:
        if entry.endswith(".py") and entry != "__init__.py":
            modules.append(entry[:-3])
        elif entry.endswith("/"):
            modules.append(entry.rstrip("/"))
    imports = "\n".join(f"import app._vendor.agentmsg.{name}" for name in modules)
    run_host(host, imports + "\nprint('ok')")


def run_vendored_doctests(host: Path) -> subprocess.CompletedProcess[str]:
    # A host with its own (empty) pytest configuration, where ``import agentmsg`` fails.
    (host / "pytest.ini").write_text("[pytest]\n")
    (host / "conftest.py").write_text("import sys\nsys.modules['agentmsg'] = None  # the host has no agentmsg\n")
    # Doctests need no third-party plugin; loading the installed ones (hypothesis, xdist...) takes seconds.
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--doctest-modules", "app"],
        capture_output=True, text=True, cwd=host, timeout=600, env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )


@pytest.mark.parametrize("subset", ["core", "core+providers", "everything"])
def test_vendored_doctests_pass(tmp_path: Path, subset: str) -> None:
    named = groups()
    keep = {
        "core": named["core"],
        "core+providers": named["core"] + named["providers"],
        "everything": [entry for entries in named.values() for entry in entries],
    }[subset]
    host = build_host(tmp_path, keep)
    result = run_vendored_doctests(host)
    assert result.returncode == 0, result.stdout[-4000:]
    assert re.search(r"\b\d{2,} passed\b", result.stdout), result.stdout[-2000:]
    assert "failed" not in result.stdout
