"""Field tables: every event and record class is built from its table, the constructor and the
decoder it generates agree, the generator's options do what they say, and events, records and the
session reducer speak one error voice (codes from errors.CODES, JSON type names, one wording)."""

import dataclasses
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agentmsg import ImageSource, ToolCall, ValidationError
from agentmsg import events as ev
from agentmsg import records as rec
from agentmsg._checks import check_choice, check_nonempty, check_str
from agentmsg._fields import SOURCE, each, nested, wire, wired
from agentmsg.errors import CODES

DATA = Path(__file__).parent / "data"
EVENT_CLASSES = [*ev._EVENT_TYPES, ev.ImageAttachment, ev.UserEntry, ev.ChatEntry, ev.ToolEntry]
RECORD_CLASSES = [*rec.RECORD_TYPES.values(), rec.RequestedToolCall]
T = "2024-05-01T12:00:00Z"


# -- one table per class ----------------------------------------------------------------------


@pytest.mark.parametrize("cls", EVENT_CLASSES + RECORD_CLASSES, ids=lambda c: c.__name__)
def test_every_class_is_generated_from_its_table(cls: type) -> None:
    source = SOURCE[cls.__qualname__]
    for f in dataclasses.fields(cls):
        assert "agentmsg.wire" in f.metadata, f.name
        assert f"_set_{f.name}(self, " in source and f"_set_{f.name}(obj, " in source
    assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
    decoder = "_from_data" if cls in rec.RECORD_TYPES.values() else "from_dict"
    assert getattr(cls, decoder).__func__.__code__.co_filename == "<string>"  # generated, not written by hand


def test_event_names_derive_from_the_classes() -> None:
    assert ev.EVENT_NAMES == tuple(dict.fromkeys(cls.EVENT for cls in ev._EVENT_TYPES))
    assert set(ev.EVENT_NAMES) == {cls.EVENT for cls in ev._EVENT_TYPES}


def _wire_strings(cls: type) -> list[tuple[str, str]]:
    """(attribute, wire key) of the fields whose wire value is the attribute value, a string."""
    out = []
    for f in dataclasses.fields(cls):
        row = f.metadata["agentmsg.wire"]
        if type(row.key) is str and row.decode is None and row.check is not None:
            out.append((f.name, row.key))
    return out


EVENT_SAMPLES = [
    ev.ChatRequest(message="Hi", conversation_id="c1"),
    ev.ChatInitRequest(session_id="s1"),
    ev.MessageStart(id="m1", content="x"),
    ev.MessageChunk(id="m1", chunk="x"),
    ev.ToolMessageStart(id="t1", tool_name="search", title="S", timestamp=T),
    ev.ToolMessageComplete(id="t1", status="completed", timestamp=T),
    ev.ToolMessageUpdate(id="t1", patch={"title": "x"}),  # type: ignore[arg-type]
    ev.ToolArtifact(message_id="t1", artifact={"id": "a1"}),  # type: ignore[arg-type]
    ev.Progress(status="running", progress=5, message="x", artifact_id="a1"),
    ev.Completion.ok({}),
]


@pytest.mark.parametrize("bad", [5, None, "", [], {"id": ""}, True])
@pytest.mark.parametrize("event", EVENT_SAMPLES, ids=lambda e: type(e).__name__)
def test_constructor_and_decoder_refuse_alike(event: Any, bad: Any) -> None:
    """Each field's check runs in __init__ and in from_dict, with the same path and code."""
    cls = type(event)
    for name, key in _wire_strings(cls):
        payload = event.to_dict()
        payload[key] = bad
        kwargs = {f.name: getattr(event, f.name) for f in dataclasses.fields(cls)}
        kwargs[name] = bad
        spec = cls.__dataclass_fields__[name]
        if bad is None and spec.default is not dataclasses.MISSING and not spec.metadata["agentmsg.wire"].required:
            kwargs.pop(name)  # a null on the wire is the constructor's default
        outcomes = []
        for build in (lambda: cls.from_dict(payload), lambda: cls(**kwargs)):
            try:
                built = build()
            except ValidationError as exc:
                outcomes.append((exc.path, exc.code))
            else:
                outcomes.append(("ok", type(built).__name__))
        assert outcomes[0] == outcomes[1], (name, outcomes)


@pytest.mark.parametrize("path", sorted((DATA / "records" / "valid").glob("*.json")), ids=lambda p: p.stem)
def test_record_decoder_and_constructor_build_the_same_record(path: Path) -> None:
    document = json.loads(path.read_bytes())
    record = rec.decode(document)
    if isinstance(record, rec.UnknownRecord):
        return
    kwargs = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    assert type(record)(**kwargs) == record
    assert rec.decode(record.to_dict()) == record


# -- the generator's options ------------------------------------------------------------------


def _shape(text: Any, path: str) -> str:
    return check_str(text, path).upper()


@wired(tags=(("kind", "sample"),))
@dataclass(frozen=True, slots=True, kw_only=True)
class Lenient:
    name: str = field(metadata=wire("name", check_nonempty))
    shape: str = field(default="ROUND", metadata=wire("shapeName", _shape))
    mode: str = field(default="a", metadata=wire("mode", check_choice, ("a", "b"), required=True))
    note: str | None = field(default=None, metadata=wire("note", check_nonempty, optional=True))
    parts: tuple[Any, ...] = field(default=(), metadata=wire("parts", decode=each(ImageSource.from_dict)))


@wired(decoder="_from_data", strict=True)
@dataclass(frozen=True, slots=True, kw_only=True)
class Strict:
    id: str = field(default_factory=lambda: "generated", metadata=wire(None, check_nonempty))
    mode: str = field(default="a", metadata=wire("mode", check_choice, ("a", "b")))
    call: ToolCall = field(metadata=wire(("call_id", "call_name"), decode=lambda d, p: ToolCall(d.get("call_id"), d.get("call_name"), {})))
    source: ImageSource | None = field(default=None, metadata=wire("source", optional=True, decode=nested(ImageSource.from_dict)))


def test_lenient_reading_ignores_unknown_keys_and_takes_defaults_for_null() -> None:
    got = Lenient.from_dict({"kind": "sample", "name": "n", "shapeName": None, "mode": "b", "extra": 1})
    assert (got.name, got.shape, got.mode, got.note, got.parts) == ("n", "ROUND", "b", None, ())
    assert Lenient(name="n", shape="square").shape == "SQUARE"  # the check's value is stored
    assert Lenient.from_dict({"kind": "sample", "name": "n", "shapeName": "tri", "mode": "a"}).shape == "TRI"


@pytest.mark.parametrize(
    ("payload", "path", "code"),
    [
        ({"name": "n", "mode": "a"}, "kind", "missing"),  # a tag is checked first
        ({"kind": "other", "name": "n", "mode": "a"}, "kind", "value"),
        ({"kind": "sample", "name": "n"}, "mode", "missing"),  # required on the wire despite the default
        ({"kind": "sample", "name": "n", "mode": "a", "note": ""}, "note", "value"),
        ({"kind": "sample", "name": "n", "mode": "a", "parts": [{"type": "url"}]}, "parts[0].url", "missing"),
        ([], "", "type"),
    ],
)
def test_lenient_reading_refuses(payload: Any, path: str, code: str) -> None:
    with pytest.raises(ValidationError) as info:
        Lenient.from_dict(payload)
    assert (info.value.path, info.value.code) == (path, code)


def test_strict_reading() -> None:
    got = Strict._from_data("s1", {"call_id": "c1", "call_name": "ls"})  # type: ignore[attr-defined]
    assert (got.id, got.mode, got.call.id, got.source) == ("s1", "a", "c1", None)
    assert Strict(call=ToolCall("c1", "ls", {})).id == "generated"  # default_factory
    for data, path, code in [
        ({"call_id": "c1", "call_name": "ls", "other": 1}, "other", "unexpected"),
        ({"call_id": "c1", "call_name": "ls", "mode": None}, "mode", "missing"),  # null is not absent
        ({"call_id": "c1", "call_name": "ls", "source": {"type": "url"}}, "source.url", "missing"),
    ]:
        with pytest.raises(ValidationError) as info:
            Strict._from_data("s1", data)  # type: ignore[attr-defined]
        assert (info.value.path, info.value.code) == (path, code)


def test_a_field_without_a_row_is_a_programming_error() -> None:
    with pytest.raises(TypeError, match="has no row"):

        @wired()
        @dataclass(frozen=True, slots=True, kw_only=True)
        class Broken:
            name: str


# -- one error voice ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", sorted((DATA / "events" / "invalid").glob("*.json")) + sorted((DATA / "records" / "invalid").glob("*.json")),
    ids=lambda p: f"{p.parent.parent.name}/{p.stem}",
)
def test_fixture_codes_are_in_the_table(path: Path) -> None:
    case = json.loads(path.read_bytes())
    code = case["expect"]["code"] if "expect" in case else case["code"]
    assert code in CODES


def _refusal(make: Any) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        make()
    return info.value


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: ev.ChatRequest(message="Hi", image={"data": "x"}), "image: expected an ImageAttachment, got object"),
        (lambda: ev.encode({"id": "m1"}), "event: expected an event, got object"),
        (lambda: ev.SessionReducer().apply("message:chunk"), "event: expected an event, got string"),
        (lambda: ev.SessionReducer(5), "init: expected a ChatInit, got number"),
        (lambda: rec.ImageRecord(id="i", source="a.png"), "source: expected an ImageSource, got string"),
        (lambda: rec.RequestedToolCall(call={"id": "c1"}), "call: expected a ToolCall, got object"),
        (lambda: rec.TextRecord(id="t", role=5, parts=()), "role: expected a string, got number"),
    ],
)
def test_type_errors_use_json_type_names(make: Any, words: str) -> None:
    err = _refusal(make)
    assert (str(err), err.code) == (words, "type")


_RULE = re.compile(r"(is required when|must be absent (unless|when)) [a-z_]+ is [a-z_ ]+|must be unique")
FILE = rec.FileReference(id="f", path="a.py")
IMAGE = rec.ImageRecord(id="i", source=ImageSource.from_path("a.png"))


@pytest.mark.parametrize(
    "make",
    [
        lambda: ev.ToolEntry(id="t", status="completed", tool_name="s", title="", content="", progress_text="", timestamp=T),
        lambda: ev.ToolEntry(id="t", status="running", tool_name="s", title="", content="", progress_text="", timestamp=T, completed_at=T),
        lambda: ev.ToolEntry(id="t", status="running", tool_name="s", title="", content="", progress_text="", timestamp=T, artifact_ids=("a", "a")),
        lambda: ev.Completion(success=False),
        lambda: ev.Completion(success=True, result={}, error="x"),
        lambda: ev.Completion(success=False, error="x", result={}),
        lambda: rec.FileReference(id="f", path="a.py", status="resolved"),
        lambda: rec.FileReference(id="f", path="a.py", status="failed"),
        lambda: rec.FileReference(id="f", path="a.py", content="x"),
        lambda: rec.FileReference(id="f", path="a.py", end_line=3),
        lambda: rec.ImageRecord(id="i", source=ImageSource.from_path("a.png"), text="x"),
        lambda: rec.ImageRecord(id="i", source=ImageSource.from_path("a.png"), state="failed"),
        lambda: rec.ImageRecord(id="i", source=ImageSource.from_path("a.png"), state="recognized"),
        lambda: rec.ImageRecord(id="i", source=ImageSource.from_path("a.png"), state="recognized", recognized_by="ocr"),
        lambda: rec.ImageRecord(id="i", source=ImageSource.from_path("a.png"), state="recognized", recognized_by="vision", text="x"),
        lambda: rec.ToolResultRecord(id="r", tool_call_id="c", status="error"),
        lambda: rec.ToolResultRecord(id="r", tool_call_id="c", status="success", stack_trace="x"),
        lambda: rec.McpResource(id="m", server="s", uri="x:y", status="failed"),
        lambda: rec.McpResource(id="m", server="s", uri="x:y", text="x"),
        lambda: rec.McpResource(id="m", server="s", uri="x:y", status="retrieved", text="x"),
        lambda: rec.ToolRequest(id="q", calls=(rec.RequestedToolCall(call=ToolCall("c", "ls", {})),) * 2),
        lambda: ev.ChatInit(artifacts=({"id": "a"}, {"id": "a"})),
    ],
)
def test_conditional_rules_have_one_wording(make: Any) -> None:
    err = _refusal(make)
    assert _RULE.fullmatch(err.message), err.message
    assert err.code in ("missing", "value", "unique")


def test_session_refusals_use_table_codes() -> None:
    from test_session import REFUSED

    assert {code for _, _, code, _ in REFUSED.values()} <= set(CODES)
