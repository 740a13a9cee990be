"""Field tables: every event and record class is built from its table, the constructor and the
decoder it generates agree, to_dict and the repr follow the rows, the generator's options do what
they say, and events, records and the session reducer speak one error voice (codes from
errors.CODES, JSON type names, one wording)."""

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
from agentmsg._fieldtable import SOURCE, each, field_table, nested, row, size
from agentmsg.events.protocol import EVENT_TYPES
from agentmsg.errors import CODES

DATA = Path(__file__).parent / "data"
EVENT_CLASSES = [*EVENT_TYPES, ev.ImageAttachment, ev.UserEntry, ev.ChatEntry, ev.ToolEntry]
HAND_WRITTEN = {ev.Completion}  # to_dict and __repr__ depend on success: see the class
RECORD_CLASSES = [*rec.RECORD_TYPES.values(), rec.RequestedToolCall]
T = "2024-05-01T12:00:00Z"


# -- one table per class ----------------------------------------------------------------------


@pytest.mark.parametrize("cls", EVENT_CLASSES + RECORD_CLASSES, ids=lambda c: c.__name__)
def test_every_class_is_generated_from_its_table(cls: type) -> None:
    source = SOURCE[cls.__qualname__]
    for f in dataclasses.fields(cls):
        assert "agentmsg.row" in f.metadata, f.name
        assert f"_set_{f.name}(self, " in source and f"_set_{f.name}(obj, " in source
    assert cls.__init__.__qualname__ == f"{cls.__qualname__}.__init__"
    decoder = "_from_data" if cls in rec.RECORD_TYPES.values() else "from_dict"
    generated = [getattr(cls, decoder).__func__, cls.__init__]
    if cls not in HAND_WRITTEN:
        generated += [cls.to_dict, cls.__repr__]
    for fn in generated:
        assert fn.__code__.co_filename == "<string>", fn  # generated, not written by hand


def test_event_names_derive_from_the_classes() -> None:
    assert ev.EVENT_NAMES == tuple(dict.fromkeys(cls.EVENT for cls in EVENT_TYPES))
    assert set(ev.EVENT_NAMES) == {cls.EVENT for cls in EVENT_TYPES}


def _wire_strings(cls: type) -> list[tuple[str, str]]:
    """(attribute, wire key) of the fields whose wire value is the attribute value, a string."""
    out = []
    for f in dataclasses.fields(cls):
        r = f.metadata["agentmsg.row"]
        if type(r.key) is str and r.decode is None and r.check is not None:
            out.append((f.name, r.key))
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
        if bad is None and spec.default is not dataclasses.MISSING and not spec.metadata["agentmsg.row"].required:
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


@field_table(tags=(("kind", "sample"),))
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class Lenient:
    name: str = field(metadata=row("name", check_nonempty))
    shape: str = field(default="ROUND", metadata=row("shapeName", _shape, show=str))
    mode: str = field(default="a", metadata=row("mode", check_choice, ("a", "b"), required=True, show=False))
    note: str | None = field(default=None, metadata=row("note", check_nonempty, optional=True, show=size("char")))
    parts: tuple[Any, ...] = field(
        default=(), metadata=row("parts", decode=each(ImageSource.from_dict), omit_default=True, show=len)
    )


def _call_keys(call: ToolCall) -> dict[str, str]:
    return {"call_id": call.id, "call_name": call.name}


@field_table(envelope=True, strict=True)
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class Strict:
    TYPE = "strict"
    VERSION = 3

    id: str = field(default_factory=lambda: "generated", metadata=row(None, check_nonempty))
    mode: str = field(default="a", metadata=row("mode", check_choice, ("a", "b")))
    call: ToolCall = field(metadata=row(
        ("call_id", "call_name"), decode=lambda d, p: ToolCall(d.get("call_id"), d.get("call_name"), {}), encode=_call_keys,
        show=lambda call: call.name,
    ))
    source: ImageSource | None = field(
        default=None, metadata=row("source", optional=True, decode=nested(ImageSource.from_dict))
    )


@field_table(tags=(("role", "user"),))
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class Tagged:
    id: str | None = field(default=None, metadata=row("id", check_nonempty, optional=True))
    text: str = field(metadata=row("text", check_str, show=size("char")))
    count: int = field(default=0, metadata=row("count", omit_default=True))
    sizes: tuple[int, ...] = field(default=(), metadata=row("sizes", lambda value, path: tuple(value), encode=list))


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


def test_to_dict_writes_the_rows_in_order_and_leaves_out_defaults_where_asked() -> None:
    url = ImageSource.from_url("https://example.com/a.png")
    lenient = Lenient(name="n", note="hi", parts=(url,))
    assert list(lenient.to_dict().items()) == [  # tags first; nested objects through their to_dict
        ("kind", "sample"), ("name", "n"), ("shapeName", "ROUND"), ("mode", "a"), ("note", "hi"),
        ("parts", [url.to_dict()]),
    ]
    assert Lenient(name="n").to_dict() == {"kind": "sample", "name": "n", "shapeName": "ROUND", "mode": "a"}
    # An id leads, then the tags; a key that may be left out is left out wherever it stands.
    assert list(Tagged(id="t", text="x", count=2, sizes=(1,)).to_dict()) == ["id", "role", "text", "count", "sizes"]
    assert Tagged(text="x").to_dict() == {"role": "user", "text": "x", "sizes": []}  # encode=list, never left out
    for item in (lenient, Lenient(name="n"), Tagged(text="x", count=3), Tagged(id="t", text="")):
        assert type(item).from_dict(item.to_dict()) == item


def test_a_record_writes_its_envelope_and_a_field_of_several_keys_spreads() -> None:
    got = Strict(id="s1", call=ToolCall("c1", "ls", {}), source=ImageSource.from_url("https://example.com/a.png"))
    assert got.to_dict() == {
        "type": "strict", "version": 3, "id": "s1",
        "data": {"mode": "a", "call_id": "c1", "call_name": "ls", "source": {"type": "url", "url": "https://example.com/a.png"}},
    }
    assert Strict._from_data("s1", got.to_dict()["data"]) == got  # type: ignore[attr-defined]


def test_the_repr_shows_each_field_as_its_row_says() -> None:
    assert repr(Lenient(name="n")) == "Lenient(name='n', shape=ROUND)"  # hidden, and left out as on the wire
    assert repr(Lenient(name="n", note="secret", parts=(ImageSource.from_url("https://e.com/a.png"),) * 2)) == (
        "Lenient(name='n', shape=ROUND, note=<6 chars>, parts=2)"
    )
    assert repr(Tagged(text="secret")) == "Tagged(text=<6 chars>, sizes=())"  # the first field left out
    assert repr(Tagged(id="t", text="a", count=1)) == "Tagged(id='t', text=<1 char>, count=1, sizes=())"
    assert repr(Strict(id="s", call=ToolCall("c1", "ls", {}))) == "Strict(id='s', mode='a', call=ls)"


def test_a_class_that_writes_its_own_to_dict_or_repr_keeps_it() -> None:
    @field_table()
    @dataclass(frozen=True, slots=True, kw_only=True, repr=False)
    class Own:
        name: str = field(metadata=row("name", check_str))

        def to_dict(self) -> dict[str, Any]:
            return {"own": self.name}

    assert Own(name="x").to_dict() == {"own": "x"} and repr(Own(name="x")) == "Own(name='x')"
    assert "def to_dict" not in SOURCE[Own.__qualname__]


def test_a_field_without_a_row_is_a_programming_error() -> None:
    with pytest.raises(TypeError, match="has no row"):

        @field_table()
        @dataclass(frozen=True, slots=True, kw_only=True, repr=False)
        class Broken:
            name: str


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: dataclass(frozen=True, slots=True, kw_only=True)(
            type("R", (), {"__annotations__": {"a": str}, "a": field(metadata=row("a"))})), "repr=False"),
        (lambda: dataclass(frozen=True, slots=True, kw_only=True, repr=False)(
            type("K", (), {"__annotations__": {"a": str}, "a": field(metadata=row(None))})), "only a record's id"),
        (lambda: dataclass(frozen=True, slots=True, kw_only=True, repr=False)(
            type("D", (), {"__annotations__": {"a": str}, "a": field(metadata=row("a", omit_default=True))})), "needs a default"),
    ],
)
def test_a_table_the_generator_cannot_write_is_a_programming_error(make: Any, words: str) -> None:
    with pytest.raises(TypeError, match=words):
        field_table()(make())


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
