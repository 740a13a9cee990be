"""One big JSON array checked an element at a time: the report is the whole-document path's.

A big array is parsed one element at a time (``agentmsg.validate._json_array``) and fed to the
element check of each kind it may be (a conversation, tools, a recorded stream...); anything
this path cannot explain as the whole-document path would sends the file back to that path.
Every test here runs both paths over the same file and compares the report byte for byte (and
the exit status), with read sizes small enough that elements, escapes, multi-byte characters
and the byte-order mark fall across reads.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentmsg import ChatMessage, ConversationHistory, ToolCall
from agentmsg.errors import ConversationOrderError
from agentmsg.history import OrderCheck
from agentmsg import validate
from agentmsg.validate import _big_document, _cli, _diagnosis, _reader, _report
from agentmsg.validate._json_array import ArrayReader, GiveUp

CHUNKS = (1, 7, 64)
BOM = b"\xef\xbb\xbf"


@contextlib.contextmanager
def settings_of(stream_min: int, chunk: int) -> Iterator[None]:
    saved = _big_document._STREAM_MIN, _big_document._STREAM_CHUNK
    _big_document._STREAM_MIN, _big_document._STREAM_CHUNK = stream_min, chunk
    try:
        yield
    finally:
        _big_document._STREAM_MIN, _big_document._STREAM_CHUNK = saved


class Spy:
    """Count the files the streamed path found valid (the real function runs)."""

    def __init__(self) -> None:
        self.taken = 0
        self.real = _big_document.check_big_document

    def __call__(self, *args: Any) -> bool:
        done = self.real(*args)
        self.taken += done
        return done


def run_cli(args: list[str], stream_min: int, chunk: int = 7) -> tuple[int, str, int]:
    """Run ``main(args)`` in-process; return the exit status, stdout and how often it streamed."""
    out = io.StringIO()
    spy = Spy()
    saved = _big_document.check_big_document
    _big_document.check_big_document = spy  # type: ignore[assignment]
    try:
        with settings_of(stream_min, chunk), contextlib.redirect_stdout(out):
            status = validate.main(args)
    finally:
        _big_document.check_big_document = saved  # type: ignore[assignment]
    return status, out.getvalue(), spy.taken


def both(path: Path, *options: str, chunk: int = 7) -> tuple[tuple[int, str], int]:
    """Check ``path`` by the whole-document path and the streamed one; assert the same report."""
    old = run_cli([*options, str(path)], stream_min=1 << 62)
    new = run_cli([*options, str(path)], stream_min=0, chunk=chunk)
    assert old[2] == 0
    assert new[:2] == old[:2], (path.read_bytes()[:300], old[1], new[1])
    return old[:2], new[2]


# -- documents --------------------------------------------------------------------------------

texts = st.text(max_size=12)
names = st.sampled_from(["look_up", "run", "get_weather"])


def containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3)


scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(scalars | texts, containers, max_leaves=8)


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    messages = [ChatMessage.system(draw(texts))]
    for turn in range(draw(st.integers(0, 4))):
        messages.append(ChatMessage.user(draw(texts)))
        if draw(st.booleans()):
            ids = draw(st.lists(st.text("abc123_", min_size=1, max_size=6), min_size=1, max_size=3, unique=True))
            calls = [ToolCall(id=i, name=draw(names), arguments=draw(st.dictionaries(texts, json_values, max_size=3)))
                     for i in ids]
            messages.append(ChatMessage.assistant(tool_calls=calls))
            for i in draw(st.permutations(ids)):
                messages.append(ChatMessage.tool(i, draw(texts)))
        messages.append(ChatMessage.assistant(draw(texts)))
    return [message.to_dict() for message in messages]


@st.composite
def layouts(draw: st.DrawFn, doc: Any) -> bytes:
    """Write ``doc`` as JSON in one of many layouts: one line or many, BOM, CRLF, blank lines."""
    indent = draw(st.sampled_from([None, 0, 1, 2]))
    text = json.dumps(doc, indent=indent, ensure_ascii=draw(st.booleans()),
                      separators=draw(st.sampled_from([None, (",", ":"), (" , ", " : ")])))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    text = draw(st.sampled_from(["", "\n", " \n\t\n", "  "])) + text + draw(st.sampled_from(["", "\n", "\n\n", " \r\n "]))
    data = text.encode()
    return (BOM if draw(st.booleans()) else b"") + data


def mutate(data: bytes, where: int, how: int) -> bytes:
    """Break ``data`` at ``where``: cut it, drop a byte, or put in a byte that changes things."""
    where %= len(data) + 1
    inserts = [b"]", b",", b'"', b"\n", b"\xff", b"\xc3", b"{", b"1", b"N", b"[", b"}", b" x", b"\\"]
    if how == 0:
        return data[:where]
    if how == 1:
        return data[:where] + data[where + 1:]
    return data[:where] + inserts[how % len(inserts)] + data[where:]


# -- the property: the same report --------------------------------------------------------------

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), chunk=st.sampled_from(CHUNKS))
def test_valid_conversations_stream_with_the_same_report(tmp_path: Path, data: st.DataObject, chunk: int) -> None:
    doc = data.draw(conversations())
    path = tmp_path / "doc.json"
    path.write_bytes(data.draw(layouts(doc)))
    (status, report), taken = both(path, chunk=chunk)
    assert status == 0 and report == "1 document, 1 valid (1 conversation), 0 invalid\n"
    assert taken == 1  # the streamed path decided it


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), chunk=st.sampled_from(CHUNKS), where=st.integers(0, 10**6), how=st.integers(0, 40),
       fmt=st.sampled_from(["text", "json"]))
def test_broken_documents_get_the_same_report(
    tmp_path: Path, data: st.DataObject, chunk: int, where: int, how: int, fmt: str
) -> None:
    doc = data.draw(conversations())
    path = tmp_path / "doc.json"
    path.write_bytes(mutate(data.draw(layouts(doc)), where, how))
    both(path, "--format", fmt, chunk=chunk)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), chunk=st.sampled_from(CHUNKS), i=st.integers(0, 100), j=st.integers(0, 100))
def test_messages_out_of_order_or_invalid_get_the_same_report(
    tmp_path: Path, data: st.DataObject, chunk: int, i: int, j: int
) -> None:
    doc = data.draw(conversations())
    i, j = i % len(doc), j % len(doc)
    change = data.draw(st.sampled_from(["swap", "drop", "duplicate", "bad"]))
    if change == "swap":
        doc[i], doc[j] = doc[j], doc[i]
    elif change == "drop":
        del doc[i]
    elif change == "duplicate":
        doc.insert(i, doc[j])
    else:
        doc[i] = {**doc[i], "role": "wizard"}
    path = tmp_path / "doc.json"
    path.write_bytes(data.draw(layouts(doc)))
    (status, report), taken = both(path, chunk=chunk)
    assert taken == (1 if doc else 0)  # decided, and reported, a message at a time ([] is read whole)


# -- explicit cases -----------------------------------------------------------------------------

SYSTEM = {"role": "system", "content": "Be brief."}
USER = {"role": "user", "content": "Grüß dich \U0001f600 \\ \" \u2028"}
CALL = {"role": "assistant", "tool_calls": [{"id": "c1", "name": "look_up", "arguments": {"q": [1, 2.5e3, None]}}]}
RESULT = {"role": "tool", "tool_call_id": "c1", "content": "found"}
ANSWER = {"role": "assistant", "content": "Here."}
VALID = [SYSTEM, USER, CALL, RESULT, ANSWER]
TOOL = {"name": "now", "description": "The time.", "parameters": {"type": "object"}}
OPENAI_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
FIXTURES = Path(__file__).parent / "data" / "provider-fixtures"
ONE_LINE = json.dumps(VALID).encode()
INDENTED = json.dumps(VALID, indent=2).encode()

CASES = {
    "valid, one line": ONE_LINE,
    "valid, indented": INDENTED,
    "valid, BOM and CRLF": BOM + INDENTED.replace(b"\n", b"\r\n"),
    "valid, blank lines first": b"\n \n\t\n" + INDENTED + b"\n\n",
    "invalid JSON inside an element": INDENTED.replace(b'"found"', b'"found'),
    "invalid JSON between elements": INDENTED.replace(b"},", b"}", 1),
    "a trailing comma": INDENTED[:-2] + b",\n]",
    "text after the ]": INDENTED + b"\n{}",
    "a second array after the ]": INDENTED + b"\n" + INDENTED,
    "no ]": INDENTED[:-1],
    "empty file": b"",
    "only blank": b" \n\r\n",
    "an empty array": b"[]",
    "an empty array, indented": b"[\n]\n",
    "an object": json.dumps(USER, indent=2).encode(),
    "a string": b'"hello"',
    "a BOM alone": BOM,
    "two BOMs": BOM + BOM + INDENTED,
    "invalid UTF-8 at the start": b"\xff" + INDENTED,
    "invalid UTF-8 inside a string": INDENTED.replace(b"Here.", b"He\xffre."),
    "invalid UTF-8 after the ]": INDENTED + b"\n\xc3",
    "a cut multi-byte character at the end": INDENTED + b"\xc3",
    "UTF-16": "\ufeff".encode("utf-16-le") + json.dumps(VALID).encode("utf-16-le"),
    "a duplicate key": INDENTED.replace(b'"content": "found"', b'"content": "found", "content": "x"'),
    "NaN": INDENTED.replace(b"2500.0", b"NaN"),
    "-Infinity": INDENTED.replace(b"2500.0", b"-Infinity"),
    "a number out of range": INDENTED.replace(b"2500.0", b"1e999"),
    "a huge integer": INDENTED.replace(b"2500.0", b"9" * 5000),
    "a first line that stands alone": json.dumps([SYSTEM]).encode()[:-1] + b"\n," + json.dumps(VALID[1:]).encode()[1:],
    "a first line ending in ]": b'[[1], [2]\n, [3]]',
    "a first line ending in }": ONE_LINE.replace(b"}, ", b"}\n, ", 1),
    "valid, only [ on the first line": b"[\n" + ONE_LINE[1:],
    "JSON Lines of arrays": ONE_LINE + b"\n" + ONE_LINE + b"\n",
    "a tool call left unanswered": json.dumps([SYSTEM, USER, CALL]).encode(),
    "no system message": json.dumps(VALID[1:], indent=1).encode(),
    "an invalid message": json.dumps([SYSTEM, USER, {"role": "assistant", "content": 5}], indent=1).encode(),
    "user twice": json.dumps([SYSTEM, USER, USER], indent=1).encode(),
    "an OpenAI messages array": json.dumps([{"role": "developer", "content": "x"}, USER], indent=1).encode(),
    "an array of numbers": b"[1, 2, 3]",
    "an array of tool definitions": json.dumps([{"name": "now", "parameters": {"type": "object"}}], indent=1).encode(),
    "a first element that is not a message": json.dumps([5, SYSTEM], indent=1).encode(),
    "a number at the end of the array": json.dumps([SYSTEM, 123456789], indent=1).encode(),
    "a number with an exponent as element": b"[1.5e+300]",
    "a huge string element": json.dumps([SYSTEM, {"role": "user", "content": "x\u00e9" * 40_000}, ANSWER]).encode(),
    "unknown fields": json.dumps([SYSTEM, {**USER, "lang": "en"}, {**CALL, "tool_calls": [
        {**CALL["tool_calls"][0], "type": "function"}]}, RESULT, {**ANSWER, "content": [{"type": "text", "text": "Here.",
        "cache_control": {}}]}], indent=1).encode(),
    "unknown fields in a message out of order and in a wrong value": json.dumps([SYSTEM, {**ANSWER, "x": 1}, USER,
        {"role": "assistant", "content": [{"type": "image", "source": {"type": "url", "url": "https://a.example/b.png"}}],
         "x": 2}], indent=1).encode(),
    "more problems than a document shows": json.dumps([SYSTEM] + [{"role": "user", "content": i, "x": i}
                                                                  for i in range(30)], indent=1).encode(),
    "an OpenAI tools array": json.dumps([OPENAI_TOOL, {**OPENAI_TOOL, "function": {**OPENAI_TOOL["function"],
                                         "name": "get weather!"}}, OPENAI_TOOL], indent=1).encode(),
    "an array of tool definitions, one twice and one long": json.dumps([TOOL, {**TOOL, "name": "other"}, TOOL,
        {**TOOL, "name": "wordy", "description": "x" * 2000}], indent=1).encode(),
    "an array of tool definitions, one long": json.dumps([TOOL, {**TOOL, "name": "wordy", "description": "x" * 2000}],
                                                         indent=1).encode(),
    "an OpenAI stream": (FIXTURES / "openai" / "chat_stream_tool_call_single.json").read_bytes(),
    "an OpenAI stream cut short": json.dumps(json.loads((FIXTURES / "openai" / "chat_stream_tool_call_single.json")
                                                        .read_bytes())[:-2], indent=1).encode(),
    "an Anthropic stream": (FIXTURES / "anthropic" / "messages_stream_text_then_tool_use.json").read_bytes(),
    "a Responses stream": (FIXTURES / "openai-responses" / "stream_function_call.json").read_bytes(),
    "a Responses stream with an error event": (FIXTURES / "openai-responses" / "stream_error_insufficient_quota.json")
    .read_bytes(),
    "a Gemini stream": (FIXTURES / "gemini" / "stream_function_call.json").read_bytes(),
    "an Ollama stream": (FIXTURES / "ollama" / "chat_stream_tool_calls.json").read_bytes(),
}


# Decided an element at a time (the rest, and every "valid..." case not, is read whole again).
STREAMED = {"a huge string element", "a number at the end of the array", "a tool call left unanswered",
            "an invalid message", "no system message", "user twice", "an OpenAI messages array",
            "an array of tool definitions", "unknown fields", "unknown fields in a message out of order and in a wrong value",
            "more problems than a document shows", "an OpenAI tools array",
            "an array of tool definitions, one twice and one long", "an array of tool definitions, one long",
            "an OpenAI stream", "an OpenAI stream cut short", "an Anthropic stream", "a Responses stream",
            "a Responses stream with an error event", "a Gemini stream", "an Ollama stream"}


@pytest.mark.parametrize("chunk", CHUNKS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_explicit_cases_get_the_same_report(tmp_path: Path, name: str, chunk: int) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(CASES[name])
    (status, report), taken = both(path, chunk=chunk)
    assert taken == (name.startswith("valid") or name in STREAMED), report
    for fmt in (["--format", "json"], ["--kind", "conversation"], ["--quiet"], ["--kind", "openai_messages"],
                ["--strict"], ["--kind", "openai_tools"], ["--kind", "anthropic_stream"]):
        both(path, *fmt, chunk=chunk)


def test_streamed_only_when_it_may_be(tmp_path: Path) -> None:
    """JSON Lines (by name or --jsonl), other kinds, standard input, over --max-bytes: the old path."""
    valid = tmp_path / "doc.json"
    valid.write_bytes(INDENTED)
    assert run_cli([str(valid)], stream_min=0)[2] == 1
    assert run_cli([str(valid)], stream_min=len(INDENTED) + 1)[2] == 0  # small: read whole
    assert run_cli(["--jsonl", str(valid)], stream_min=0)[2] == 0
    assert run_cli(["--kind", "openai_messages", str(valid)], stream_min=0)[2] == 1  # any array kind streams
    assert run_cli(["--kind", "chat_message", str(valid)], stream_min=0)[2] == 0  # an object kind: read whole
    lines = tmp_path / "doc.jsonl"
    lines.write_bytes(ONE_LINE)
    assert run_cli([str(lines)], stream_min=0)[2] == 0
    for limit in (str(len(INDENTED) - 1), str(len(INDENTED))):
        both(valid, "--max-bytes", limit)
    assert run_cli(["--max-bytes", str(len(INDENTED)), str(valid)], stream_min=0)[2] == 1


@pytest.mark.parametrize("depth", [*range(880, 1010, 2), *range(1480, 1520, 4), 5000])
@pytest.mark.parametrize("role", ["assistant", "wizard"])
def test_deep_arguments_get_the_same_report(tmp_path: Path, depth: int, role: str) -> None:
    """Nesting near the recursion limit: the streamed check is no more lenient than the whole one.

    With an invalid role too, the message fails before its arguments are looked at: the streamed
    path must still leave it to the whole-document path when the parse itself would fail there.
    """
    arguments = "[" * depth + "]" * depth
    call = json.dumps({**CALL, "role": role}).replace('{"q": [1, 2500.0, null]}', '{"q": ' + arguments + "}")
    path = tmp_path / "doc.json"
    path.write_bytes(("[" + ", ".join([json.dumps(SYSTEM), json.dumps(USER), call, json.dumps(RESULT), json.dumps(ANSWER)])
                      + "]").encode())
    both(path, chunk=64)


# -- hostile files ------------------------------------------------------------------------------

class Changing:
    """A real file whose content is changed on disk after the first read (grown or cut)."""

    def __init__(self, path: Path, change: Callable[[Path], None]) -> None:
        self.file = open(path, "rb", buffering=0)  # noqa: SIM115 - closed by the test; unbuffered: each read sees the disk
        self.path, self.change, self.reads = path, change, 0

    def read(self, n: int = -1) -> bytes:
        data = self.file.read(n)
        self.reads += 1
        if self.reads == 1:
            self.change(self.path)
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self.file, name)


def check_changing(path: Path, change: Callable[[Path], None], *options: str) -> str:
    parser = _cli._parser()
    out = io.StringIO()
    run = _report.Run(parser.parse_args([*options, str(path)]), out)
    stream = Changing(path, change)
    try:
        with settings_of(0, 64):
            _reader._check_stream(run, str(path), stream, str(path))  # type: ignore[arg-type]
    finally:
        stream.file.close()
    run.finish()
    return out.getvalue()


@pytest.mark.parametrize("what", ["grows", "grows past --max-bytes", "shrinks", "becomes invalid"])
def test_a_file_that_changes_while_read_gets_a_report_of_what_was_read(tmp_path: Path, what: str) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(INDENTED)
    options = ["--max-bytes", "4096"]

    def change(p: Path) -> None:
        if what == "grows":
            p.write_bytes(json.dumps(VALID + [USER, ANSWER], indent=2).encode())
        elif what == "grows past --max-bytes":
            p.write_bytes(json.dumps(VALID + [USER, ANSWER] * 100, indent=2).encode())
        elif what == "shrinks":
            p.write_bytes(INDENTED[:200])
        else:
            p.write_bytes(INDENTED + b"x")

    report = check_changing(path, change, *options)
    # Whatever was read, the report is the whole-document path's report of some state of the file.
    final = tmp_path / "final.json"
    final.write_bytes(path.read_bytes())
    assert report == run_cli([*options, str(final)], stream_min=1 << 62)[1].replace(str(final), str(path))
    if what == "grows past --max-bytes":
        assert "larger than 4 KiB" in report


def test_a_huge_element_is_parsed_in_linear_time() -> None:
    """An element that needs many reads is parsed a logarithmic number of times, not once per read."""
    element = json.dumps({"role": "user", "content": "x" * 200_000})
    data = ("[" + element + "]").encode()
    scanned = 0
    scan = _diagnosis.scan

    def counting(text: str, index: int) -> tuple[Any, int]:
        nonlocal scanned
        scanned += len(text) - index
        return scan(text, index)

    reader = ArrayReader(io.BytesIO(data).read, counting, chunk=64)
    assert len(list(reader.elements())) == 1
    assert scanned < 4 * len(data)  # doubling: 64 + 128 + ... < 2x, plus the last read-ahead


def test_a_flood_of_tiny_elements_is_read_with_a_bounded_buffer() -> None:
    """A hundred thousand tiny elements (73 reads): each is dropped; the buffer never holds much more than a read."""
    data = b"[" + b",".join([b"{}"] * 100_000) + b"]"
    reader = ArrayReader(io.BytesIO(data).read, _diagnosis.scan, chunk=4096)
    longest = 0
    count = 0
    for _ in reader.elements():
        count += 1
        longest = max(longest, len(reader._buf))
    assert count == 100_000 and longest <= 2 * 4096


def test_the_reader_refuses_what_is_not_one_clean_array() -> None:
    for data in (b"", b"{}", b"[1,]", b"[1 2]", b"[1] 2", b"[1", b"[\"a", b"[1e", b"[-Infinity]", b'[{"a":1,"a":2}]',
                 b"[\xff]", b"[1]\xc3", b"[]", b"[" * 100_000 + b"]" * 100_000):
        with pytest.raises(GiveUp):
            list(ArrayReader(io.BytesIO(data).read, _diagnosis.scan, chunk=3).elements())
    with pytest.raises(GiveUp):  # over the limit
        list(ArrayReader(io.BytesIO(b"[1, 2, 3]").read, _diagnosis.scan, chunk=3, limit=5).elements())


@pytest.mark.parametrize("chunk", [1, 2, 3, 5])
def test_numbers_cut_by_a_read_are_whole(chunk: int) -> None:
    data = b"[1.5e+3, -0.25, 12345678901234567890, 7E-2, 0]"
    assert list(ArrayReader(io.BytesIO(data).read, _diagnosis.scan, chunk=chunk).elements()) == json.loads(data)


def test_memory_stays_bounded_on_a_big_conversation(tmp_path: Path) -> None:
    """A 1 MB conversation, read 24 KiB at a time, is checked holding far less than its size (the whole path held ~10x).

    The peak is about 45 KB plus four reads: the read size shrinks with the document, so the
    ratio stays as far from the bound (0.12-0.13) as 2 MB read 64 KiB at a time (0.15).
    """
    turn = [USER, CALL, RESULT, ANSWER]
    doc = [SYSTEM] + turn * (1_000_000 // len(json.dumps(turn)))
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc[:5]))
    run_cli(["--quiet", str(path)], stream_min=0, chunk=24 * 1024)  # the modules it loads are not the run's memory
    path.write_text(json.dumps(doc))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        status, report, taken = run_cli(["--quiet", str(path)], stream_min=0, chunk=24 * 1024)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (status, report, taken) == (0, "1 document, 1 valid (1 conversation), 0 invalid\n", 1)
    assert peak < size / 4, (peak, size)


# -- one set of order rules -------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(doc=conversations(), i=st.integers(0, 100), j=st.integers(0, 100), require_system=st.booleans())
def test_order_check_is_conversation_history(doc: list[dict[str, Any]], i: int, j: int, require_system: bool) -> None:
    """``OrderCheck`` (the CLI) and ``ConversationHistory`` raise the same errors at the same message."""
    i, j = i % len(doc), j % len(doc)
    doc[i], doc[j] = doc[j], doc[i]
    messages = [ChatMessage.from_dict(item) for item in doc]

    def outcome(add: Callable[[ChatMessage], None], validate_: Callable[[], None]) -> Any:
        try:
            for message in messages:
                add(message)
            validate_()
        except ConversationOrderError as exc:
            return exc.code, exc.index, str(exc)
        return None

    history = ConversationHistory(require_system=require_system)
    order = OrderCheck(require_system)
    assert outcome(order.add, order.validate) == outcome(history.add, history.validate)


def test_progress_on_a_terminal_while_streamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal, the streamed document shows the progress line (bytes of the total), then wipes it."""
    pytest.importorskip("pty", reason="pseudo-terminals are POSIX")
    master, slave = os.openpty()
    err = open(slave, "w", encoding="utf-8", closefd=True)  # noqa: SIM115 - closed below
    try:
        monkeypatch.setattr(sys, "stderr", err)
        monkeypatch.setattr(_report, "_PROGRESS_EVERY", 0.0)
        path = tmp_path / "doc.json"
        path.write_bytes(INDENTED)
        status, report, taken = run_cli([str(path)], stream_min=0, chunk=64)
        shown = b""
        while select.select([master], [], [], 0)[0]:
            chunk = os.read(master, 65536)
            if not chunk:
                break
            shown += chunk
    finally:
        err.close()
        os.close(master)
    assert (status, report, taken) == (0, "1 document, 1 valid (1 conversation), 0 invalid\n", 1)
    frames = [frame.strip() for frame in shown.decode().split("\r") if frame.strip()]
    size = len(INDENTED) / 2**20
    assert frames and all((f.startswith(f"{path}: ") or f.startswith("...")) and f" of {size:.1f} MiB (" in f
                          for f in frames), frames
    percents = [int(f.split(" MiB (")[1].split("%")[0]) for f in frames]
    assert percents == sorted(percents) and percents[-1] == 100
    assert shown.endswith(b"\r") and shown.rstrip(b"\r").split(b"\r")[-1].strip() == b""  # wiped at the end


def test_a_document_shows_its_first_problems_and_counts_the_rest(tmp_path: Path) -> None:
    """A streamed document holds its first problems and a count, and writes what the whole path writes."""
    bad = {"role": "assistant", "content": 5}
    path = tmp_path / "doc.json"
    path.write_text(json.dumps([SYSTEM] + [USER, bad] * 30, indent=1))
    (status, report), taken = both(path)
    lines = report.splitlines()
    assert status == 1 and taken == 1 and len(lines) == 22
    assert lines[-2] == f"{path}:1: $: note: 10 more problems in this document (the first 20 are shown) [conversation]"
    assert both(path, "--max-problems", "5") == ((status, "\n".join(lines[:5] + [
        f"{path}: note: 25 more problems in this file (--max-problems 5 are shown)", lines[-1]]) + "\n"), 1)
