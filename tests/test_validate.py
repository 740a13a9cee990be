"""``python -m agentmsg.validate``: exit codes, output, detection, hostile input, bounded memory.

Most cases run the real command in a subprocess; the many-example property tests call ``main()``
in-process to stay quick.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentmsg
from agentmsg import ChatMessage, ValidationError, json_schema
from agentmsg.validate._registry import KINDS, Problems, candidates
from agentmsg.validate import main
from agentmsg.validate._json_lines import line_blocks

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data" / "validate"
CORE = Path(__file__).parent / "data" / "core"
EXAMPLES = ROOT / "examples" / "data"
USER = '{"role": "user", "content": "Hi"}'


def cli(*args: str, stdin: bytes | None = None, cwd: Path = ROOT, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the command in a fresh interpreter, as a user would."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "agentmsg.validate", *args],
        input=stdin, capture_output=True, cwd=cwd, env=env, timeout=timeout,
    )
    out = subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode(), result.stderr.decode())
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr
    return out


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``main()`` in-process; return (status, stdout, stderr)."""
    status = main(args)
    out, err = capsys.readouterr()
    assert "internal error" not in err, err
    return status, out, err


def write(tmp_path: Path, name: str, data: str | bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


# -- exit codes -------------------------------------------------------------------------------


def test_exit_0_when_every_document_is_valid(tmp_path: Path) -> None:
    result = cli(write(tmp_path, "ok.json", USER))
    assert (result.returncode, result.stdout, result.stderr) == (0, "1 document, 1 valid (1 chat_message), 0 invalid\n", "")


def test_exit_1_when_a_document_is_invalid(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.json", '{"role": "user", "content": 5}')
    result = cli(path)
    assert result.returncode == 1
    assert result.stdout == (f"{path}:1: $.content: expected a string or a list of parts, got number [chat_message]\n"
                             "1 document, 0 valid, 1 invalid\n")


def test_exit_2_for_a_missing_file_and_the_others_are_still_checked(tmp_path: Path) -> None:
    ok = write(tmp_path, "ok.json", USER)
    result = cli(str(tmp_path / "missing.json"), ok)
    assert result.returncode == 2
    assert result.stdout == "1 document, 1 valid (1 chat_message), 0 invalid\n"
    assert "cannot read" in result.stderr and "missing.json: No such file or directory" in result.stderr


def test_exit_2_for_a_directory(tmp_path: Path) -> None:
    result = cli(str(tmp_path))
    assert result.returncode == 2 and "Is a directory" in result.stderr


def test_exit_2_when_permission_is_denied(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # As root, chmod 000 does not stop a read; make open() refuse the way the OS would.
    path = write(tmp_path, "secret.json", USER)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied", args[0])

    monkeypatch.setattr("agentmsg.validate._reader._open_input", refuse)
    status, out, err = run([path], capsys)
    assert status == 2 and "secret.json: Permission denied" in err


def test_exit_2_beats_exit_1(tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.json", "{")
    assert cli(bad, str(tmp_path / "missing.json")).returncode == 2


@pytest.mark.parametrize("args", [[], ["--no-such-option", "x.json"], ["--kind", "nonsense", "x.json"],
                                  ["--format", "xml", "x.json"], ["--max-bytes", "lots", "x.json"],
                                  ["--max-bytes", "0", "x.json"], ["--schema", "nonsense"]])
def test_exit_2_for_usage_errors(args: list[str]) -> None:
    result = cli(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("usage: python -m agentmsg.validate")
    assert "error:" in result.stderr


@pytest.mark.parametrize("error, message", [(TypeError("boom"), "internal error: TypeError (please report this bug)"),
                                            (KeyboardInterrupt(), "interrupted")])
def test_last_resort_and_interrupt_end_with_2_and_one_line(error: BaseException, message: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # No input reaches the last-resort handler (every other test checks that); a bug would.
    def fail(*args: Any) -> None:
        raise error

    monkeypatch.setattr("agentmsg.validate._reader._check_stream", fail)
    status = main([write(tmp_path, "ok.json", USER)])
    out, err = capsys.readouterr()
    assert (status, out, err) == (2, "", f"python -m agentmsg.validate: {message}\n")


def test_help_and_version() -> None:
    result = cli("--help")
    assert result.returncode == 0 and "--max-bytes SIZE" in result.stdout and "Exit status" in result.stdout
    result = cli("--version")
    assert (result.returncode, result.stdout.strip()) == (0, f"python -m agentmsg.validate {agentmsg.__version__}")


def test_standard_input() -> None:
    result = cli("-", stdin=b'{"role": "user", "content": 5}\n')
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == "<stdin>:1: $.content: expected a string or a list of parts, got number [chat_message]"
    assert cli("-", stdin=USER.encode()).returncode == 0


def test_console_script_is_declared() -> None:
    assert 'agentmsg-validate = "agentmsg.validate:main"' in (ROOT / "pyproject.toml").read_text()


def test_the_package_does_not_import_the_cli() -> None:
    assert "validate" not in agentmsg.__all__
    code = "import sys, agentmsg; print('agentmsg.validate' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.stdout.strip() == "False"


def test_the_cli_loads_records_events_and_provider_codecs_only_for_a_document_that_needs_them(tmp_path: Path) -> None:
    # they cost the CLI's start-up more than the core types do; a chat log never needs them
    chat = tmp_path / "chat.jsonl"
    chat.write_text('{"role": "user", "content": "Hi"}\n{"role": "assistant", "content": "Hello"}\n')
    record = sorted((Path(__file__).parent / "data" / "records" / "valid").glob("*.json"))[0]
    response = tmp_path / "response.json"
    response.write_text(json.dumps({"id": "r1", "object": "chat.completion", "created": 1, "model": "m", "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi"}}]}))
    code = (
        "import sys\n"
        "from agentmsg.validate import main\n"
        "lazy = ('agentmsg.records', 'agentmsg.events', 'agentmsg.providers')\n"
        "for path in sys.argv[1:]:\n"
        "    status = main(['--quiet', path])\n"
        "    print('loaded:', status, sorted(m for m in sys.modules if m.startswith(lazy)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code, str(chat), str(record), str(response)], capture_output=True,
                            text=True, cwd=ROOT, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    loaded = [line.removeprefix("loaded: ") for line in result.stdout.splitlines() if line.startswith("loaded: ")]
    chat_line, record_line, response_line = loaded
    assert chat_line == "0 []"
    assert record_line.startswith("0 [") and "'agentmsg.records'" in record_line
    assert "'agentmsg.providers.openai'" not in record_line
    assert response_line.startswith("0 [") and "'agentmsg.providers.openai'" in response_line


# -- output -----------------------------------------------------------------------------------


CONVERSATION = """[{"role": "system", "content": "Be brief."},
  {"role": "user", "content": "Hi"},
  {"role": "assistant", "tool_calls": [
    {"id": "c1", "name": "bad name", "arguments": {}}
  ]},
  {"role": "user", "content": 7}
]
"""


def test_one_line_per_problem_at_the_line_where_the_value_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.json", CONVERSATION)
    status, out, _ = run([path], capsys)
    assert status == 1
    assert out.splitlines() == [
        f"{path}:4: $[2].tool_calls[0].name: must be 1-64 characters of letters, digits and underscores [conversation]",
        f"{path}:6: $[3].content: expected a string or a list of parts, got number [conversation]",
        "1 document, 0 valid, 1 invalid",
    ]


def test_a_missing_key_is_reported_where_its_object_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "m.json", '[{"role": "system", "content": "s"},\n  {"role": "user", "content": "Hi"},\n\n  {"content": "Hello"}\n]')
    status, out, _ = run([path], capsys)
    assert out.splitlines()[0] == f"{path}:4: $[2].role: is required [conversation]"


def test_order_errors_point_at_the_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "o.json", '[\n{"role": "system", "content": "s"},\n{"role": "user", "content": "a"},\n{"role": "user", "content": "b"}\n]')
    status, out, _ = run([path], capsys)
    assert out.splitlines()[0] == (f"{path}:4: $[2]: user and assistant messages must alternate: expected an assistant "
                                   "message [conversation]")


def test_a_conversation_must_open_with_the_system_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """AC-105 as the CLI applies it to a canonical conversation (provider bodies may have none)."""
    path = write(tmp_path, "n.json", '[\n{"role": "user", "content": "a"}\n]')
    status, out, _ = run([path], capsys)
    assert status == 1
    assert out.splitlines()[0].startswith(f"{path}:2: $[0]: the first message must be a system message")


def test_json_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.json", CONVERSATION)
    ok = write(tmp_path, "ok.json", USER)
    status, out, _ = run(["--format", "json", path, ok, str(tmp_path / "gone.json")], capsys)
    report = json.loads(out)
    assert status == 2
    assert (report["documents"], report["valid"], report["invalid"]) == (2, 1, 1)
    assert report["unreadable"] == [{"file": str(tmp_path / "gone.json"), "message": "No such file or directory"}]
    assert report["problems"][0] == {
        "file": path, "line": 4, "column": 26, "path": "$[2].tool_calls[0].name", "code": "pattern",
        "message": "must be 1-64 characters of letters, digits and underscores", "kind": "conversation",
        "severity": "error",
    }
    assert [p["line"] for p in report["problems"]] == [4, 6]


def test_json_format_when_all_valid_and_when_quiet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ok = write(tmp_path, "ok.json", USER)
    status, out, _ = run(["--format", "json", ok], capsys)
    assert json.loads(out) == {"problems": [], "unreadable": [], "documents": 1, "valid": 1, "invalid": 0,
                               "accepted": {"chat_message": 1}}
    bad = write(tmp_path, "bad.json", "[")
    status, out, _ = run(["--format", "json", "--quiet", bad], capsys)
    assert status == 1
    assert json.loads(out) == {"unreadable": [], "documents": 1, "valid": 0, "invalid": 1, "accepted": {}}


def test_quiet_prints_only_the_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.json", CONVERSATION)
    status, out, err = run(["--quiet", path], capsys)
    assert (status, out, err) == (1, "1 document, 0 valid, 1 invalid\n", "")


def test_paths_with_control_characters_stay_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {"role": "assistant", "tool_calls": [{"id": "c1", "name": "f", "arguments": {"a\nb\u2028": {"x\x00": float("inf")}}}]}
    path = write(tmp_path, "k.json", json.dumps(doc))
    status, out, _ = run([path], capsys)
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0] == f"{path}:1: $.tool_calls[0].arguments.a\\nb\\u2028.x\\x00: NaN and Infinity are not JSON"


def test_warnings_are_reported_without_failing_the_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tool = {"name": "wordy", "description": "x" * 2000, "parameters": {"type": "object"}, "strict": False}
    path = write(tmp_path, "t.json", json.dumps(tool))
    status, out, _ = run([path], capsys)
    assert status == 0
    assert out.splitlines() == [
        f"{path}:1: $: warning: tool 'wordy': description is 2000 characters; some providers accept at most 1024 [tool_definition]",
        "1 document, 1 valid (1 tool_definition), 0 invalid",
    ]


def test_broken_pipe_ends_quietly(tmp_path: Path) -> None:
    path = write(tmp_path, "many.jsonl", '{"role": "user", "content": 1}\n' * 20_000)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "agentmsg.validate", path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 2
    assert first.startswith(path.encode() + b":1: $.content:")
    assert err == ""


# -- kinds ------------------------------------------------------------------------------------


def test_list_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["--list-kinds"], capsys)
    names = [line.split()[0] for line in out.splitlines()]
    assert status == 0
    assert names == ["chat_message", "conversation", "tool_call", "tool_result", "tool_definition",
                     "tool_definitions", "tool_call_delta", "event", "record", "openai_request", "anthropic_request",
                     "ollama_request", "openai_messages", "openai_tool", "openai_tools", "anthropic_tool",
                     "anthropic_tools", "ollama_tool", "ollama_tools", "mcp_request", "mcp_notification", "mcp_result",
                     "mcp_error", "openai_response", "anthropic_response", "ollama_response", "openai_stream",
                     "anthropic_stream", "ollama_stream", "reasoning_part", "responses_request",
                     "responses_response", "responses_stream", "gemini_request", "gemini_response",
                     "gemini_stream", "openai_error", "anthropic_error", "gemini_error", "mcp_resource_contents",
                     "bedrock_request", "bedrock_response", "bedrock_stream", "openai_finetune", "openai_preference",
                     "hf_chat"]


@pytest.mark.parametrize("kind", ["chat_message", "conversation", "tool_call", "tool_result", "tool_definition",
                                  "tool_call_delta", "event", "record"])
def test_schema_prints_the_shipped_schema(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["--schema", kind], capsys)
    assert status == 0 and json.loads(out) == json_schema(kind)


@pytest.mark.parametrize("kind", ["tool_definitions", "openai_request"])
def test_schema_of_a_kind_without_one(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["--schema", kind], capsys)
    assert (status, out) == (2, "") and f"no JSON Schema is shipped for {kind}" in err


def test_kind_forces_the_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "m.json", USER)
    assert run(["--kind", "chat_message", path], capsys)[0] == 0
    status, out, _ = run(["--kind", "tool_call", path], capsys)
    assert status == 1 and out.startswith(f"{path}:1: $.id: is required [tool_call]\n")


def test_undetected_documents_say_what_was_tried(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "u.json", '{"rol": "user", "content": "Hi"}')
    status, out, _ = run([path], capsys)
    assert status == 1
    assert out.splitlines()[0] == (
        f"{path}:1: $: no known kind matches (tried {len(KINDS)} kinds; closest: chat_message ($.role: is required); "
        "tool_call ($.id: is required)); use --kind KIND (--kind anthropic_response accepts it)")
    path = write(tmp_path, "s.json", "3")
    assert run([path], capsys)[1].splitlines()[0] == f"{path}:1: $: expected a JSON object or array, got number"


def test_ambiguous_documents_name_the_other_candidates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Both a tool call ("id", "name") and a tool definition ("name", "parameters"), valid as neither.
    doc = {"id": "", "name": "search", "parameters": {"type": "array"}, "description": "Search."}
    path = write(tmp_path, "a.json", json.dumps(doc))
    status, out, _ = run([path], capsys)
    assert status == 1
    assert out.splitlines()[:2] == [
        f"{path}:1: $: checked as tool_definition; also tried tool_call ($.id: must not be empty) [tool_definition]",
        f'{path}:1: $.parameters.type: must be "object" (tool parameters are a JSON object schema) [tool_definition]',
    ]


def test_a_document_valid_as_any_candidate_is_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {"id": "call_1", "name": "search", "arguments": {}, "parameters": {"type": "array"}}  # a fine tool call
    assert run([write(tmp_path, "a.json", json.dumps(doc))], capsys)[0] == 0


# -- JSON Lines -------------------------------------------------------------------------------


def test_json_lines_are_detected_and_each_line_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = f'{USER}\n\n{{"role": "user", "content": 1}}\n{{"role": "user"\n{USER}\n[1]\n'
    path = write(tmp_path, "log.txt", text)
    status, out, _ = run([path], capsys)
    assert status == 1
    assert [line.split(": ")[0] for line in out.splitlines()] == [
        f"{path}:3", f"{path}:4", f"{path}:6", "5 documents, 2 valid (2 chat_message), 3 invalid"]


def test_jsonl_suffix_and_flag_force_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = '{\n"role": "user", "content": "Hi"}\n'  # a pretty-printed document, read line by line
    assert run([write(tmp_path, "a.json", text)], capsys)[0] == 0
    status, out, _ = run([write(tmp_path, "a.jsonl", text)], capsys)
    assert status == 1 and out.endswith("2 documents, 0 valid, 2 invalid\n")
    status, out, _ = run(["--jsonl", write(tmp_path, "b.json", text)], capsys)
    assert status == 1 and out.endswith("2 documents, 0 valid, 2 invalid\n")


def test_each_line_is_checked_on_its_own(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Two users in a row: an order error as a conversation, two fine messages as lines.
    path = write(tmp_path, "l.jsonl", USER + "\n" + USER + "\n")
    assert run([path], capsys)[0] == 0


@settings(max_examples=200)
@given(st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=12), st.booleans(),
       st.integers(1, 16), st.integers(1, 40))
def test_line_blocks_keep_every_line_and_hold_none_too_long(lines: list[bytes], newline_at_end: bool,
                                                            chunk: int, limit: int) -> None:
    data = b"\n".join(lines) + (b"\n" if newline_at_end and lines else b"")
    expected = data.split(b"\n")
    if not data or data.endswith(b"\n"):
        expected.pop()
    got: list[bytes | None] = []
    for block in line_blocks(io.BytesIO(data).read, limit, chunk):
        if block is None:
            got.append(None)
        else:
            got.extend(block.split(b"\n"))
    assert len(got) == len(expected)
    for line, want in zip(got, expected):
        if line is None:
            assert len(want) > limit
        else:
            assert line == want
        if len(want) > limit + chunk:
            assert line is None, "a line that long must never be held whole"


@pytest.mark.parametrize("chunk", [1, 2, 7, 64])
def test_small_chunks_give_the_same_report(chunk: int, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join([f'{USER}\n', '\n', '{"role": "user", "content": 1}\r\n', '  \n', '{"role": "user"\n',
                    json.dumps({"role": "user", "content": "Grüße " * 30}) + "\n", '{"a": 1, "a": 2}\n',
                    '{"role": "user", "content": "\xff"}\n'.replace("\xff", "\u00ff"), USER])
    path = write(tmp_path, "l.jsonl", text.encode() + b"\ncaf\xe9\n" + USER.encode())
    expected = run(["--max-bytes", "100", path], capsys)
    monkeypatch.setattr("agentmsg.validate._json_lines.CHUNK", chunk)
    assert run(["--max-bytes", "100", path], capsys) == expected
    assert expected[1].splitlines() == [
        f"{path}:3: $.content: expected a string or a list of parts, got number [chat_message]",
        f"{path}:5: $: not valid JSON: expecting ',' delimiter (truncated) at line 5, column 16",
        f"{path}:6: $: line larger than 100 bytes (--max-bytes); not checked",
        f"{path}:7: $.a: duplicate key: JSON objects must not repeat a key",
        f"{path}:10: $: not valid UTF-8: byte 0xe9 at line 10, column 4",
        "9 documents, 4 valid (4 chat_message), 5 invalid",
    ]


# -- hostile input: the data folders ----------------------------------------------------------

VALID = sorted((DATA / "valid").iterdir())
INVALID = sorted((DATA / "invalid").iterdir())
EXPECTED: dict[str, list[list[Any]]] = json.loads((DATA / "expected.json").read_text())


def test_folders_are_not_empty_and_every_invalid_file_has_its_expectation() -> None:
    assert len(VALID) >= 8 and len(INVALID) >= 20
    assert sorted(path.name for path in INVALID) == sorted(EXPECTED)


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_file(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run([str(path)], capsys)
    assert status == 0, out


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_file(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["--format", "json", str(path)], capsys)
    report = json.loads(out)
    assert status == 1
    assert [[p["line"], p["path"], p["code"]] for p in report["problems"]] == EXPECTED[path.name]


def test_hostile_files_through_the_real_command() -> None:
    result = cli(*(str(path) for path in INVALID))
    assert result.returncode == 1
    # Every file holds one invalid document, except the JSON Lines files with good lines too.
    assert result.stdout.endswith(f"{len(INVALID) + 6} documents, 5 valid (5 chat_message), {len(INVALID) + 1} invalid\n")
    assert len(result.stdout.splitlines()) == sum(len(problems) for problems in EXPECTED.values()) + 1


def test_json_errors_give_line_and_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "t.json", '{\n  "role": "user",\n  "content": "Hel')
    assert run([path], capsys)[1].splitlines()[0] == (
        f"{path}:3: $: not valid JSON: unterminated string starting at line 3, column 14")
    path = write(tmp_path, "u.json", '[\n  {"role": "user", "content": "Hi"},\n')
    assert run([path], capsys)[1].splitlines()[0] == (
        f"{path}:2: $: not valid JSON: expecting value (truncated) at line 2, column 37")


def test_nesting_just_inside_the_parser_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Deep enough that the parser may accept it and the checks may not: either way a clean answer.
    for depth in (900, 990, 1100):
        args = "[" * depth + "]" * depth
        doc = '{"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": {"x": ' + args + "}}]}"
        status, out, _ = run([write(tmp_path, f"d{depth}.json", doc)], capsys)
        assert status in (0, 1)
        if status == 1:
            assert "nested too deeply" in out


def test_a_large_document_is_refused_above_the_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.dumps({"role": "user", "content": "x" * 5000})
    path = write(tmp_path, "big.json", "\n" + doc)
    status, out, _ = run(["--max-bytes", "4K", path], capsys)
    assert (status, out) == (1, f"{path}:2: $: document larger than 4 KiB (--max-bytes); not checked\n"
                                "1 document, 0 valid, 1 invalid\n")
    assert run(["--max-bytes", "8K", path], capsys)[0] == 0


def test_a_long_line_is_refused_and_the_rest_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    long_line = json.dumps({"role": "user", "content": "x" * 3_000_000})
    path = write(tmp_path, "l.jsonl", f"{USER}\n{long_line}\n{USER}\n")
    status, out, _ = run(["--max-bytes", "1M", path], capsys)
    assert (status, out) == (1, f"{path}:2: $: line larger than 1 MiB (--max-bytes); not checked\n"
                                "3 documents, 2 valid (2 chat_message), 1 invalid\n")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero (an endless stream)")
def test_an_endless_document_is_refused_without_reading_it_all() -> None:
    result = cli("--max-bytes", "1M", "/dev/zero", timeout=60)
    assert (result.returncode, result.stdout) == (
        1, "/dev/zero:1: $: document larger than 1 MiB (--max-bytes); not checked\n1 document, 0 valid, 1 invalid\n")


# The peak resident size of this process alone, in KiB. Not ru_maxrss: Linux carries it across
# exec, so a child started by a big test process would report its parent's size.
PEAK_KIB = "int([line for line in open('/proc/self/status') if line.startswith('VmHWM:')][0].split()[1])"
PEAK_FROM_PROC = pytest.mark.skipif(not os.path.exists("/proc/self/status"),
                                    reason="reads the peak memory of one process from /proc (Linux)")

MEMORY_PROBE = f"""
import sys
from agentmsg.validate._registry import KINDS, Problems, candidates
from agentmsg.validate import main
from agentmsg.validate._json_lines import line_blocks
before = {PEAK_KIB} * 1024
status = main([sys.argv[1], "--quiet"])
after = {PEAK_KIB} * 1024
print(status, before, after, file=sys.stderr)
"""


@PEAK_FROM_PROC
def test_json_lines_stream_in_bounded_memory(tmp_path: Path) -> None:
    lines = [
        '{"role": "user", "content": [{"type": "text", "text": "What is in this picture?"}, '
        '{"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}}]}',
        '{"role": "assistant", "content": "Let me look.", "tool_calls": [{"id": "call_1", "name": "describe", '
        '"arguments": {"detail": "high", "regions": [[0, 0, 64, 64], [64, 64, 128, 128]]}}]}',
        '{"role": "tool", "tool_call_id": "call_1", "content": "' + "A cat on a sofa. " * 20 + '"}',
    ]
    block = ("\n".join(lines) + "\n").encode() * 100
    path = tmp_path / "big.jsonl"
    size = 24 * 1024 * 1024  # 1.5x the bound: holding the file (or its parse) would not fit
    with open(path, "wb") as f:
        for _ in range(size // len(block) + 1):
            f.write(block)
            f.write(b'{"role": "user", "content": 42}\n')  # one bad line in 301, each reported
    result = subprocess.run([sys.executable, "-c", MEMORY_PROBE, str(path)], capture_output=True, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    status, before, after = map(int, result.stderr.split())
    assert result.stdout.endswith(" invalid\n")
    assert status == 1
    assert os.path.getsize(path) >= size
    assert after - before < 16 * 1024 * 1024, f"peak memory grew by {(after - before) >> 20} MiB on a 24 MiB file"


# -- every core document, through the command -------------------------------------------------


def _case(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", sorted((CORE / "valid").glob("*.json")), ids=lambda p: p.stem)
def test_core_valid_documents_pass_detected_and_forced(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = _case(path)
    doc = write(tmp_path, "doc.json", json.dumps(case["document"], indent=2))
    status, out, _ = run([doc], capsys)
    summary = f"1 document, 1 valid (1 {case['kind']}), 0 invalid"
    if "unknown_keys" in path.stem:  # read, and the keys no reader knows are named
        assert out.splitlines() == [
            f"{doc}:4: $.refusal: warning: unknown field, ignored by agentmsg [chat_message]",
            f"{doc}:5: $.provider_extra: warning: unknown field, ignored by agentmsg [chat_message]", summary]
    else:
        assert out.splitlines() == [summary]
    assert status == 0
    assert run(["--kind", case["kind"], doc], capsys)[0] == 0


@pytest.mark.parametrize("path", sorted((CORE / "invalid").glob("*.json")), ids=lambda p: p.stem)
def test_core_invalid_documents_fail_with_the_same_path_and_code(path: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    case = _case(path)
    doc = write(tmp_path, "doc.json", json.dumps(case["document"], indent=2))
    status, out, _ = run(["--format", "json", "--kind", case["kind"], doc], capsys)
    first = json.loads(out)["problems"][0]
    expected = case["error"]["path"]
    assert status == 1
    assert (first["path"], first["code"]) == ("$" + ("" if not expected else expected if expected[0] == "[" else "." + expected),
                                              case["error"]["code"])


EVENTS = Path(__file__).parent / "data" / "events"


@pytest.mark.parametrize("path", sorted((EVENTS / "valid").glob("*.json")), ids=lambda p: p.stem)
def test_event_documents_pass_detected(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run([str(path)], capsys)
    lines = out.splitlines()
    assert (status, lines[-1]) == (0, "1 document, 1 valid (1 event), 0 invalid")
    if "unknown_keys" in path.stem:  # read, and the key no reader knows is named
        assert lines[:-1] == [f"{path}:5: $.payload.clientVersion: warning: unknown field, ignored by agentmsg [event]"]
    else:
        assert lines[:-1] == []


@pytest.mark.parametrize("path", sorted((EVENTS / "invalid").glob("*.json")), ids=lambda p: p.stem)
def test_event_documents_fail_with_the_payload_path(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expect = _case(path)["expect"]
    status, out, _ = run(["--format", "json", str(path)], capsys)
    first = json.loads(out)["problems"][0]
    where = "$.event" if expect["path"] == "event" else "$.payload" + ("." + expect["path"] if expect["path"] else "")
    assert status == 1
    assert (first["path"], first["code"], first["kind"]) == (where.replace(".[", "["), expect["code"], "event")


RECORDS = Path(__file__).parent / "data" / "records"
FIXTURES = Path(__file__).parent / "data" / "provider-fixtures"


@pytest.mark.parametrize("path", sorted((RECORDS / "valid").glob("*.json")), ids=lambda p: p.stem)
def test_record_documents_pass_detected(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run([str(path)], capsys)
    assert status == 0
    if path.stem.startswith("unknown_"):  # kept as UnknownRecord: valid, with a warning
        assert "$: warning: record type" in out and "kept as an UnknownRecord" in out
    else:
        assert out == "1 document, 1 valid (1 record), 0 invalid\n"


@pytest.mark.parametrize("path", sorted((RECORDS / "invalid").glob("*.json")), ids=lambda p: p.stem)
def test_record_documents_fail_with_the_same_path_and_code(path: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    case = _case(path)
    doc = write(tmp_path, "doc.json", json.dumps(case["document"], indent=2))
    status, out, _ = run(["--format", "json", "--kind", "record", doc], capsys)
    first = json.loads(out)["problems"][0]
    assert status == 1
    assert (first["path"], first["code"]) == ("$" + ("." + case["path"] if case["path"] else ""), case["code"])


def _provider_body(path: Path) -> bool:
    parts = path.stem.split("_")
    if path.parent.name == "llama-cpp":  # each file an exchange, a request and its reply: test_provider_llama_cpp.py
        return False
    if path.parent.name == "bedrock":  # named request_*, response_*, stream_*; error bodies are no kind
        return parts[0] in ("request", "response", "stream") and parts[1] != "error"
    return len(parts) > 1 and parts[1] in ("request", "response", "stream", "compat")


# Request and response bodies and recorded streams (not the bare message lists and tools of vllm/).
PROVIDER_BODIES = sorted(path for path in FIXTURES.glob("*/*.json") if _provider_body(path))


def test_provider_fixtures_are_there() -> None:
    assert len(PROVIDER_BODIES) >= 45


@pytest.mark.parametrize("path", PROVIDER_BODIES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_provider_bodies_are_detected_as_their_provider(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    passing = []
    for kind in candidates(doc):
        try:
            kind.check(doc)
        except (ValidationError, Problems):
            continue
        passing.append(kind.name)
    provider = "openai" if path.parent.name == "vllm" or "openai_compat" in path.stem else path.parent.name
    kind = "request" if "request" in path.stem else "stream" if "stream" in path.stem else "response"
    if (provider, kind) == ("ollama", "request"):  # the OpenAI shape, told apart only by --kind
        assert "ollama_request" not in passing
        status, out, _ = run(["--kind", "ollama_request", str(path)], capsys)
        assert (status, out.splitlines()) == (0, ["1 document, 1 valid (1 ollama_request), 0 invalid"])
        return
    status, out, _ = run([str(path)], capsys)
    if path.stem == "messages_request_orphan_tool_result_rejected":  # the API refused it
        assert status == 1 and passing == []
        assert "$.messages[1].content[0].tool_use_id: answers no tool_use of the previous assistant message (Anthropic)" in out
        return
    assert status == 0, out
    assert passing[0] == f"{provider}_{kind}"
    assert out.splitlines()[-1] == f"1 document, 1 valid (1 {provider}_{kind}), 0 invalid"


def test_provider_request_problems_use_the_providers_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": "}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": 3}],
        "tools": [{"type": "function", "function": {"name": "get weather", "parameters": {"type": "object"}}}]}
    path = write(tmp_path, "req.json", json.dumps(body, indent=1))
    status, out, _ = run(["--kind", "openai_request", path], capsys)
    assert status == 1
    assert [line.split(": ", 2)[1] for line in out.splitlines()[:-1]] == [
        "$.messages[1].tool_calls[0].function.arguments", "$.messages[2].content", "$.tools[0].function.name"]


def test_anthropic_system_and_turns_map_back_to_their_items(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = {"model": "claude", "max_tokens": 100, "system": "Be brief.", "messages": [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Rain"},
                                     {"type": "text", "text": "Thanks"}]},
        {"role": "user", "content": "Again?"}]}
    path = write(tmp_path, "req.json", json.dumps(body))
    status, out, _ = run([path], capsys)
    assert status == 1
    assert out.splitlines()[0].startswith(f"{path}:1: $: checked as anthropic_request; also tried openai_request")
    assert out.splitlines()[1] == (f"{path}:1: $.messages[3]: user and assistant messages must alternate: "
                                   "expected an assistant message [anthropic_request]")
    body["system"] = 5
    status, out, _ = run([write(tmp_path, "req.json", json.dumps(body))], capsys)
    assert "$.system: expected a string or an array of text blocks, got number" in out


# -- the example in the README ----------------------------------------------------------------


DOCS_EXAMPLES = [  # (the committed output, the command's arguments): each shown in docs/validate.md
    ("validate-output.txt", ["examples/data/session.jsonl", "examples/data/conversation.json"]),
    ("validate-finetune-output.txt", ["--kind", "openai_finetune", "examples/data/finetune.jsonl"]),
]


@pytest.mark.parametrize(("output", "args"), DOCS_EXAMPLES, ids=[output for output, _ in DOCS_EXAMPLES])
def test_the_committed_example_output_is_current(output: str, args: list[str]) -> None:
    # AGENTMSG_REGENERATE=1 rewrites the file, and its copy in docs/validate.md, instead of failing
    path, docs = EXAMPLES / output, ROOT / "docs" / "validate.md"
    expected = path.read_text(encoding="utf-8")
    result = cli(*args)
    assert result.returncode == 1
    fresh = f"$ python -m agentmsg.validate {' '.join(args)}\n{result.stdout}"
    if os.environ.get("AGENTMSG_REGENERATE") == "1" and fresh != expected:
        text = docs.read_text(encoding="utf-8")
        assert f"```console\n{expected}```" in text
        docs.write_text(text.replace(f"```console\n{expected}```", f"```console\n{fresh}```"), encoding="utf-8")
        path.write_text(fresh, encoding="utf-8")
        expected = fresh
    assert fresh == expected, f"stale: AGENTMSG_REGENERATE=1 rewrites examples/data/{output} and docs/validate.md"


@pytest.mark.parametrize("output", [output for output, _ in DOCS_EXAMPLES])
def test_the_docs_show_the_committed_output(output: str) -> None:
    docs = (ROOT / "docs" / "validate.md").read_text(encoding="utf-8")
    expected = (EXAMPLES / output).read_text()
    assert f"```console\n{expected}```" in docs


# -- any input at all: a clean answer ---------------------------------------------------------

@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file the property tests overwrite for every example (module-scoped: hypothesis-safe)."""
    return tmp_path_factory.mktemp("validate") / "doc.bin"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)
KEYS = ["role", "content", "tool_calls", "tool_call_id", "is_error", "id", "name", "arguments", "type", "text",
        "source", "url", "data", "media_type", "path", "parameters", "description", "strict", "index",
        "arguments_delta", "result", "event", "payload", "message", "status", "messages", "patch"]
WORDS = st.sampled_from(["user", "assistant", "system", "tool", "text", "image", "url", "base64", "file", "object",
                         "call_1", "search", "https://example.com/a.png", "image/png", "aGk=", "", "chat:send",
                         "chat:init", "message:chunk", "tool:message:update", "success", "running"])
shaped = st.recursive(
    json_values | WORDS,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(KEYS), children, max_size=5),
    max_leaves=25,
)


def _main_on(path: Path, data: bytes, *options: str) -> int:
    path.write_bytes(data)
    status = main([*options, "--quiet", str(path)])
    assert status in (0, 1)  # a readable file never gives 2
    return status


@settings(max_examples=150)
@given(st.binary(max_size=600))
def test_any_bytes_get_a_clean_answer(scratch: Path, data: bytes) -> None:
    _main_on(scratch, data)
    _main_on(scratch, data, "--jsonl")


@settings(max_examples=150)
@given(json_values, st.booleans())
def test_any_json_gets_a_clean_answer(scratch: Path, value: Any, pretty: bool) -> None:
    text = json.dumps(value, indent=2 if pretty else None)
    _main_on(scratch, text.encode())
    _main_on(scratch, b"\xef\xbb\xbf" + text.encode(), "--kind", "conversation")


@settings(max_examples=150)
@given(shaped)
def test_message_shaped_json_agrees_with_the_core(scratch: Path, value: Any) -> None:
    text = json.dumps(value).encode()
    try:
        ChatMessage.from_dict(value)
    except ValidationError:
        expected = 1
    else:
        expected = 0
    assert _main_on(scratch, text, "--kind", "chat_message") == expected
    assert _main_on(scratch, text) in (0, 1)


@settings(max_examples=100)
@given(st.lists(shaped, max_size=6), st.binary(max_size=40))
def test_lines_with_garbage_get_a_clean_answer(scratch: Path, values: list[Any], garbage: bytes) -> None:
    lines = [json.dumps(v).encode() for v in values] + [garbage]
    _main_on(scratch, b"\n".join(lines), "--jsonl")


# -- hostile inputs: sizes, FIFOs, memory --------------------------------------------------------

BOUNDED = r"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # 1 GiB of address space at most
sys.path.insert(0, sys.argv[1])
from agentmsg.validate import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("size", ["30G", "99999999999999999999999G"])
def test_max_bytes_is_a_bound_not_an_allocation(tmp_path: Path, size: str) -> None:
    """--max-bytes 30G on a 50-byte file read 30 GB ahead (MemoryError); a huge value overflowed."""
    doc = write(tmp_path, "c.json", '[\n{"role": "system", "content": "s"},\n{"role": "user", "content": "hi"}\n]\n')
    result = subprocess.run(
        [sys.executable, "-c", BOUNDED, str(ROOT), "--max-bytes", size, doc], capture_output=True, text=True, timeout=120
    )
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    assert result.stdout.splitlines()[-1] == "1 document, 1 valid (1 conversation), 0 invalid"


@pytest.mark.parametrize("options, empty", [([], "empty input: no JSON document"),
                                            (["--conversation"], "empty input: no message")])
def test_a_fifo_without_a_writer_does_not_block(options: list[str], empty: str, tmp_path: Path) -> None:
    """open() on a FIFO waits for a writer forever; the CLI opens it without blocking."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    result = subprocess.run([sys.executable, "-m", "agentmsg.validate", *options, str(fifo)], capture_output=True,
                            text=True, cwd=ROOT, timeout=60)  # a bound on the test, not a speed assertion
    assert result.returncode == 1 and empty in result.stdout


def test_a_fifo_with_a_writer_is_read(tmp_path: Path) -> None:
    """A writer already waiting on the FIFO (as in a shell pipeline) is read to its end."""
    import threading

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)

    def writer() -> None:
        with open(fifo, "w") as pipe:  # waits for the CLI to open its end (counted as a writer meanwhile)
            pipe.write('[{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}]\n')

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        result = subprocess.run([sys.executable, "-m", "agentmsg.validate", str(fifo)], capture_output=True,
                                text=True, cwd=ROOT, timeout=60)
    finally:
        if thread.is_alive():  # the CLI never opened the FIFO: release the writer
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        thread.join(10)
    assert result.returncode == 0 and result.stdout.splitlines()[-1] == "1 document, 1 valid (1 conversation), 0 invalid", result.stderr


MEASURE = f"""
import sys
sys.path.insert(0, sys.argv[1])
from agentmsg.validate import main
status = main(sys.argv[2:])
print({PEAK_KIB}, status)
"""


@PEAK_FROM_PROC
def test_a_big_document_costs_a_small_multiple_of_its_size(tmp_path: Path) -> None:
    """One multi-line document is held once as bytes, then once as text, then parsed (no extra copies)."""
    turn = [{"role": "user", "content": "Weather in Paris and Oslo, please? %d"},
            {"role": "assistant", "content": "Checking.", "tool_calls": [{"id": "c%d", "name": "weather", "arguments": {"city": "Paris"}}]},
            {"role": "tool", "tool_call_id": "c%d", "content": "Paris: 18 C, sunny; Oslo: 4 C, rain."},
            {"role": "assistant", "content": "Paris is mild; Oslo is wet."}]
    messages = [{"role": "system", "content": "Be brief."}]
    for i in range(20_000):
        messages.extend(json.loads(json.dumps(turn).replace("%d", str(i))))
    path = tmp_path / "big.json"
    path.write_text(json.dumps(messages, indent=1))
    size_kb = path.stat().st_size // 1024
    baseline = subprocess.run([sys.executable, "-c", MEASURE, str(ROOT), "--list-kinds"], capture_output=True, text=True, timeout=120)
    result = subprocess.run([sys.executable, "-c", MEASURE, str(ROOT), str(path)], capture_output=True, text=True, timeout=300)
    peak, status = result.stdout.split()[-2:]
    assert status == "0", result.stdout
    grown = int(peak) - int(baseline.stdout.split()[-2])
    # json.loads alone costs about 5x the text for such a document; 8x leaves room, 25x did not fit
    assert 0 < grown < 8 * size_kb, (grown, size_kb)


# -- the command line read without argparse ----------------------------------------------------

_TOKENS = [
    "a.json", "b.jsonl", "-", "--", "--jsonl", "--json", "--quiet", "-q", "-qj2", "--strict", "--conversation",
    "--list-kinds", "--kind", "--kind=chat_message", "--kind=nope", "chat_message", "openai_request", "--format",
    "--format=json", "text", "json", "yaml", "--jobs", "-j", "-j2", "-j=3", "--jobs=0", "2", "0", "x", "--max-bytes",
    "--max-bytes=64K", "512K", "1e3", "--max-problems", "--max-problems=0", "--schema", "--schema=conversation",
    "--jsonl=1", "--nope", "-1", "-h", "--help", "--version", "--quiet=", "--kind=", "--max",
]


def _argparse_reading(argv: list[str]) -> dict[str, Any] | None:
    from agentmsg.validate import _cli

    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(sys, "stdout", io.StringIO())
            patch.setattr(sys, "stderr", io.StringIO())
            return vars(_cli._parser().parse_args(argv))
    except SystemExit:
        return None


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=7))
def test_the_quick_reading_of_a_command_line_is_argparses(argv: list[str]) -> None:
    from agentmsg.validate import _cli

    quick = _cli._read(argv)
    if quick is not None:  # it reads only what argparse reads, and reads it the same
        assert vars(quick) == _argparse_reading(argv), argv


@pytest.mark.parametrize("argv", [
    ["a.json"], ["--quiet", "--jsonl", "a.json", "b.jsonl"], ["a.json", "--jobs", "2"], ["-q", "-j", "3", "-"],
    ["--kind=chat_message", "--format", "json", "--max-bytes", "512K", "--max-problems=0", "a.json"],
    ["--strict", "--conversation", "a.json", "--quiet"], ["--list-kinds"], ["--schema", "conversation"],
])
def test_an_ordinary_command_line_is_read_without_argparse(argv: list[str]) -> None:
    from agentmsg.validate import _cli

    quick = _cli._read(argv)
    assert quick is not None and vars(quick) == _argparse_reading(argv)


@pytest.mark.parametrize("argv", [
    ["a.json", "--jsonl", "b.json"], ["--json", "a.json"], ["--jobs", "x", "a.json"], ["--kind", "nope", "a"],
    ["--", "a.json"], ["--help"], ["--version"], ["-qj2", "a"], ["--kind"], ["--jsonl=1", "a"],
])
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    from agentmsg.validate import _cli

    assert _cli._read(argv) is None


def test_the_command_starts_without_argparse(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"role": "user", "content": "Hi"}\n', encoding="utf-8")
    code = ("import sys; from agentmsg.validate import main; status = main(['--quiet', '--jsonl', sys.argv[1]]); "
            "print(status, 'argparse' in sys.modules, 'gettext' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(log)], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.split()[-3:] == ["0", "False", "False"]
