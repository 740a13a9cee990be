"""The socket events: data folders, the shipped schema, round trips, and the codec's rules."""

import copy
import json
import pickle
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmsg import ChatMessage, FrozenDict, ImagePart, ImageSource, TextPart, ValidationError, json_schema
from agentmsg import events as ev
from agentmsg.events import (
    ChatCancel,
    ChatEntry,
    ChatInit,
    ChatInitRequest,
    ChatRequest,
    Completion,
    ImageAttachment,
    MessageChunk,
    MessageEnd,
    MessageStart,
    Progress,
    ReasoningChunk,
    ReasoningEnd,
    ReasoningStart,
    ToolApprovalRequest,
    ToolApprovalResponse,
    ToolArtifact,
    ToolEntry,
    ToolMessageComplete,
    ToolMessageStart,
    ToolMessageUpdate,
    TurnStart,
    UserEntry,
    decode,
    encode,
)

DATA = Path(__file__).parent / "data" / "events"
VALID = sorted((DATA / "valid").glob("*.json"))
INVALID = sorted((DATA / "invalid").glob("*.json"))
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
T = "2024-05-01T12:00:00.000Z"


def _decode(name: Any, payload: Any) -> Any:
    """Decode a recorded event; a chat:init with a status is the server's (decode never guesses)."""
    server = name == "chat:init" and isinstance(payload, dict) and "status" in payload
    return decode(name, payload, sender="server" if server else None)


def _load(path: Path) -> Any:
    return json.loads(path.read_bytes())


VALIDATOR = jsonschema.Draft202012Validator(json_schema("event"))


def _envelope(name: str, payload: Any) -> dict[str, Any]:
    return {"event": name, "payload": payload}


# -- data folders ------------------------------------------------------------------------------


def test_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(json_schema("event"))
    jsonschema.Draft202012Validator.check_schema(json_schema("history_entry"))


def test_folders_are_not_empty_and_cover_every_event() -> None:
    assert len(VALID) >= 20 and len(INVALID) >= 40
    assert {_load(p)["event"] for p in VALID} == set(ev.EVENT_NAMES)
    assert {_load(p)["event"] for p in INVALID} >= set(ev.EVENT_NAMES) | set(ev.REMOVED_EVENTS)


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_event(path: Path) -> None:
    doc = _load(path)
    VALIDATOR.validate(doc)
    event = _decode(doc["event"], doc["payload"])
    name, payload = encode(event)
    assert name == doc["event"]
    VALIDATOR.validate(_envelope(name, payload))
    assert _decode(name, json.loads(json.dumps(payload))) == event
    # Encoding keeps every field the sender gave (nulls and unknown keys aside).
    given_fields = {k: v for k, v in doc["payload"].items() if v is not None and k != "clientVersion"}
    assert {k: payload[k] for k in given_fields} == given_fields


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_event(path: Path) -> None:
    doc = _load(path)
    with pytest.raises(ValidationError) as info:
        _decode(doc["event"], doc["payload"])
    assert (info.value.path, info.value.code) == (doc["expect"]["path"], doc["expect"]["code"])
    assert VALIDATOR.is_valid(_envelope(doc["event"], doc["payload"])) is not doc["schema_rejects"]


# -- the codec ---------------------------------------------------------------------------------


def test_event_names_are_the_protocols() -> None:
    assert ev.EVENT_NAMES == (
        "chat:send",
        "chat:init",
        "chat:cancel",
        "tool:approval:response",
        "turn:start",
        "message:start",
        "message:chunk",
        "message:end",
        "reasoning:start",
        "reasoning:chunk",
        "reasoning:end",
        "tool:message:start",
        "tool:message:args",
        "tool:message:update",
        "tool:message:complete",
        "tool:approval:request",
        "tool:artifact",
        "progress",
        "completion",
    )


def test_wire_fields_are_camel_case() -> None:
    _, start = encode(ToolMessageStart(id="t1", tool_name="search", title="S", timestamp=T))
    assert sorted(start) == sorted(
        ["id", "role", "kind", "status", "toolName", "title", "content", "progressText", "timestamp"]
    )
    _, art = encode(ToolArtifact(message_id="t1", artifact={"id": "a1"}))
    assert sorted(art) == ["artifact", "messageId", "showInCanvas"]
    _, prog = encode(Progress(status="running", progress=5, message="", artifact_id="a1"))
    assert sorted(prog) == ["artifactId", "message", "progress", "status"]
    assert encode(Completion.ok({})) == ("completion", {"success": True, "result": {}, "finalArtifactId": None})


def test_removed_events_name_their_replacement() -> None:
    with pytest.raises(ValidationError) as info:
        decode("thought:update", {"id": "t1", "thought": "secret reasoning"})
    assert info.value.code == "removed"
    assert "tool:message:update" in str(info.value)
    assert "secret" not in str(info.value)
    with pytest.raises(ValidationError, match="tool:artifact") as info:
        decode("artifact:update", {"artifact": {"id": "a1"}})
    assert info.value.code == "removed"


def test_unknown_event_name_is_not_echoed() -> None:
    with pytest.raises(ValidationError) as info:
        decode("leak:" + "x" * 100, {})
    assert info.value.code == "unknown" and "leak" not in str(info.value)
    with pytest.raises(ValidationError) as info:
        decode(42, {})  # type: ignore[arg-type]
    assert (info.value.path, info.value.code) == ("event", "type")


def test_chat_init_goes_both_ways() -> None:
    assert decode("chat:init", {}) == ChatInitRequest()
    assert decode("chat:init", {"sessionId": "s1"}) == ChatInitRequest(session_id="s1")
    assert decode("chat:init", {"status": "success", "messages": [], "artifacts": []}, sender="server") == ChatInit()
    assert encode(ChatInit()) == ("chat:init", {"status": "success", "messages": [], "artifacts": []})
    assert encode(ChatInitRequest(session_id="s1")) == ("chat:init", {"sessionId": "s1"})


def test_encode_refuses_non_events() -> None:
    with pytest.raises(ValidationError) as info:
        encode({"id": "m1"})  # type: ignore[arg-type]
    assert info.value.code == "type"
    with pytest.raises(ValidationError):
        encode(UserEntry(content="x", timestamp=T))  # type: ignore[arg-type]


def test_rooms() -> None:
    assert ev.session_room("abc-123") == "session_abc-123"
    with pytest.raises(ValidationError):
        ev.session_room("")
    assert ev.room_for(ChatInitRequest(session_id="s1")) == "session_s1"
    assert ev.room_for(ChatRequest(message="Hi", conversation_id="s2")) == "session_s2"
    assert ev.room_for(ChatRequest(message="Hi")) is None
    assert ev.room_for(MessageStart(id="m1")) is None


# -- the chat request --------------------------------------------------------------------------


def test_chat_request_to_message_text_and_image() -> None:
    req = decode("chat:send", {"message": "What is it?", "image": {"data": PNG, "media_type": "image/png"}})
    assert isinstance(req, ChatRequest)
    msg = req.to_message()
    assert msg == ChatMessage.user(
        [TextPart("What is it?"), ImagePart(ImageSource.from_base64(PNG, "image/png"))]
    )
    assert msg.to_dict()["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
    }


def test_chat_request_to_message_variants() -> None:
    assert ChatRequest(message="Hi").to_message() == ChatMessage.user("Hi")
    image_only = ChatRequest(image=ImageAttachment(data=PNG, media_type="image/webp")).to_message()
    assert [type(p) for p in image_only.content] == [ImagePart]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("data", "media_type", "path", "code"),
    [
        ("data:image/png;base64," + PNG, "image/png", "data", "value"),
        ("%%%%", "image/png", "data", "value"),
        ("", "image/png", "data", "value"),
        (PNG, "image/tiff", "media_type", "value"),
        (PNG, None, "media_type", "missing"),
        (None, "image/png", "data", "missing"),
        (b"abc", "image/png", "data", "type"),
    ],
)
def test_image_attachment_rules(data: Any, media_type: Any, path: str, code: str) -> None:
    with pytest.raises(ValidationError) as info:
        ImageAttachment(data=data, media_type=media_type)
    assert (info.value.path, info.value.code) == (path, code)


def test_data_prefix_error_is_clear_and_short() -> None:
    with pytest.raises(ValidationError) as info:
        ImageAttachment(data="data:image/png;base64," + PNG, media_type="image/png")
    assert "data:" in info.value.message and PNG not in str(info.value)


# -- the event types ---------------------------------------------------------------------------

SAMPLES = [
    ChatRequest(message="Hi", conversation_id="c1", image=ImageAttachment(data=PNG, media_type="image/png")),
    ChatInitRequest(session_id="s1"),
    ChatInit(
        messages=(
            UserEntry(content="Hi", timestamp=T),
            ToolEntry(
                id="t1", status="running", tool_name="x", title="", content="", progress_text="",
                timestamp=T, artifact_ids=["a1"],
            ),
        ),
        artifacts=({"id": "a1", "rows": [[1, 2]]},),  # type: ignore[arg-type]
    ),
    MessageStart(id="m1", content="Sure"),
    MessageChunk(id="m1", chunk="secret words"),
    ToolMessageStart(id="t1", tool_name="search", title="secret title", timestamp=T),
    ToolMessageUpdate(id="t1", patch={"content": "secret words"}),  # type: ignore[arg-type]
    ToolMessageComplete(id="t1", status="completed", timestamp=T),
    ToolArtifact(message_id="t1", artifact={"id": "a1", "content": "secret words", "list": [1]}),  # type: ignore[arg-type]
    Progress(status="running", progress=12.5, message="secret words"),
    Completion.ok({"answer": "secret words", "nested": {"xs": [1, 2]}}, final_artifact_id="a1"),
    Completion.failed("secret words"),
    ChatCancel(session_id="s1", turn_id="turn_1"),
    ToolApprovalResponse(session_id="s1", id="t1", approved=False, reason="secret words"),
    TurnStart(turn_id="turn_1", session_id="s1"),
    MessageEnd(id="m1"),
    ReasoningStart(id="r1"),
    ReasoningChunk(id="r1", chunk="secret thoughts"),
    ReasoningEnd(id="r1"),
    ToolApprovalRequest(id="t1", turn_id="turn_1", tool_name="delete", arguments={"name": "secret words"}),  # type: ignore[arg-type]
    ToolMessageStart(id="t1", tool_name="search", title="", timestamp=T, arguments={"q": "secret words"},  # type: ignore[arg-type]
                     tool_call_id="call_1"),
    ToolMessageComplete(id="t1", status="error", timestamp=T, error="secret words"),
    Completion.failed("secret words", code="cancelled", cancelled=True, turn_id="turn_1"),
    ChatInit(messages=(
        UserEntry(id="u1", content="secret words", timestamp=T),
        ToolEntry(id="t1", status="error", tool_name="x", title="", content="", progress_text="", timestamp=T,
                  completed_at=T, arguments={"q": "secret words"}, tool_call_id="c1", error="secret words"),  # type: ignore[arg-type]
    )),
]


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_events_are_immutable_hashable_and_copyable(event: Any) -> None:
    assert hash(event) == hash(copy.deepcopy(event))
    assert pickle.loads(pickle.dumps(event)) == event
    assert copy.deepcopy(event) == event
    field = next(iter(event.__dataclass_fields__))
    with pytest.raises((AttributeError, TypeError)):
        setattr(event, field, "other")
    with pytest.raises((AttributeError, TypeError)):
        event.extra = 1
    assert "secret" not in repr(event)


def test_given_containers_are_copied_in() -> None:
    artifact = {"id": "a1", "list": [1, 2]}
    event = ToolArtifact(message_id="t1", artifact=artifact)  # type: ignore[arg-type]
    artifact["list"].append(3)
    artifact["id"] = "changed"
    assert event.artifact == {"id": "a1", "list": (1, 2)}
    assert type(event.artifact) is FrozenDict
    out = event.to_dict()
    out["artifact"]["list"].append(9)
    assert event.artifact["list"] == (1, 2)


def test_completion_result_is_deep_frozen_and_thawed_on_encode() -> None:
    done = Completion.ok({"rows": [{"a": 1}]})
    assert done.result == FrozenDict({"rows": (FrozenDict({"a": 1}),)})
    assert encode(done)[1]["result"] == {"rows": [{"a": 1}]}
    with pytest.raises(ValidationError) as info:
        Completion.ok({"x": float("nan")})
    assert info.value.path == "result.x"


def test_direct_construction_validates_like_decode() -> None:
    with pytest.raises(ValidationError) as info:
        MessageChunk(id="m1", chunk=None)  # type: ignore[arg-type]
    assert (info.value.path, info.value.code) == ("chunk", "missing")
    with pytest.raises(ValidationError) as info:
        ChatEntry(id="m1", content="\ud800", timestamp=T)
    assert (info.value.path, info.value.code) == ("content", "encoding")
    with pytest.raises(ValidationError) as info:
        ChatInit(messages=({"role": "user"},))  # type: ignore[arg-type]
    assert (info.value.path, info.value.code) == ("messages[0]", "type")


def test_timestamps() -> None:
    for good in ["2024-05-01T12:00:00Z", "2024-05-01T12:00:00.123456789+05:30", "1999-12-31T23:59:59-08:00"]:
        ToolMessageComplete(id="t", status="completed", timestamp=good)
    for bad in ["2024-05-01 12:00:00Z", "2024-13-01T12:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T12:00:00", ""]:
        with pytest.raises(ValidationError) as info:
            ToolMessageComplete(id="t", status="completed", timestamp=bad)
        assert info.value.code == "pattern"


# -- hypothesis ----------------------------------------------------------------------------------

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
ids = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
timestamps = st.builds(
    lambda moment, zone: moment.strftime("%Y-%m-%dT%H:%M:%S") + zone,
    st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31)),
    st.sampled_from(["Z", ".000Z", ".123456789Z", "+05:30", "-08:00", ".5+00:00"]),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
json_objects = st.dictionaries(text, json_values, max_size=4)
artifacts = st.builds(lambda i, rest: {**rest, "id": i}, ids, json_objects)
images = st.builds(
    ImageAttachment,
    data=st.sampled_from([PNG, "AAAA", "iVBORw0KGgo="]),
    media_type=st.sampled_from(["image/png", "image/jpeg", "image/gif", "image/webp"]),
)
patches = st.dictionaries(
    st.sampled_from(["title", "content", "progressText", "status"]), text, min_size=1
).map(lambda p: {**p, "status": "pending"} if "status" in p else p)

events = st.one_of(
    st.builds(ChatRequest, message=text.filter(str.strip), conversation_id=st.none() | ids, image=st.none() | images),
    st.builds(ChatRequest, message=text, image=images),
    st.builds(ChatInitRequest, session_id=st.none() | ids),
    st.builds(MessageStart, id=ids, content=text),
    st.builds(MessageChunk, id=ids, chunk=text),
    st.builds(
        ToolMessageStart, id=ids, tool_name=ids, title=text, timestamp=timestamps,
        status=st.sampled_from(["pending", "running"]), content=text, progress_text=text,
    ),
    st.builds(ToolMessageUpdate, id=ids, patch=patches),
    st.builds(ToolMessageComplete, id=ids, status=st.sampled_from(["completed", "error"]), timestamp=timestamps),
    st.builds(ToolArtifact, message_id=ids, artifact=artifacts, show_in_canvas=st.booleans()),
    st.builds(
        Progress, status=ids, message=text, artifact_id=st.none() | ids,
        progress=st.integers(0, 100) | st.floats(0, 100),
    ),
    st.builds(Completion.ok, json_objects, st.none() | ids, turn_id=st.none() | ids),
    st.builds(Completion.failed, ids),
    st.builds(Completion.failed, ids, code=st.none() | ids, turn_id=st.none() | ids),
    st.builds(Completion.failed, ids, code=st.sampled_from([None, "cancelled"]), turn_id=st.none() | ids,
              cancelled=st.just(True)),
    st.builds(ChatCancel, session_id=ids, turn_id=st.none() | ids),
    st.builds(ToolApprovalResponse, session_id=ids, id=ids, approved=st.booleans(), reason=st.none() | ids),
    st.builds(TurnStart, turn_id=ids, session_id=st.none() | ids),
    st.builds(MessageEnd, id=ids),
    st.builds(ReasoningStart, id=ids),
    st.builds(ReasoningChunk, id=ids, chunk=text),
    st.builds(ReasoningEnd, id=ids),
    st.builds(ToolApprovalRequest, id=ids, turn_id=ids, tool_name=ids, arguments=json_objects),
    st.builds(
        ToolMessageStart, id=ids, tool_name=ids, title=text, timestamp=timestamps,
        arguments=st.none() | json_objects, tool_call_id=st.none() | ids,
    ),
    st.builds(ToolMessageComplete, id=ids, status=st.just("error"), timestamp=timestamps, error=st.none() | ids),
)


@settings(max_examples=200)
@given(events)
def test_round_trip_through_json_and_schema(event: Any) -> None:
    name, payload = encode(event)
    text_form = json.dumps(payload, ensure_ascii=False)
    back = _decode(name, json.loads(text_form))
    assert back == event and hash(back) == hash(event)
    VALIDATOR.validate(_envelope(name, json.loads(text_form)))


@settings(max_examples=200)
@given(st.sampled_from(ev.EVENT_NAMES + tuple(ev.REMOVED_EVENTS) + ("nope",)), json_values)
def test_any_json_payload_raises_only_validation_error(name: str, payload: Any) -> None:
    try:
        decode(name, payload)
    except ValidationError:
        pass


@settings(max_examples=200)
@given(events, st.data())
def test_mutated_payloads_raise_only_validation_error(event: Any, data: st.DataObject) -> None:
    name, payload = encode(event)
    key = data.draw(st.sampled_from(sorted(payload) or ["sessionId"]), label="key")
    payload[key] = data.draw(json_values, label="value")
    try:
        decoded = _decode(name, payload)
    except ValidationError:
        return
    # Whatever decodes also encodes to something the schema accepts.
    VALIDATOR.validate(_envelope(*encode(decoded)))


@pytest.mark.parametrize("stamp", ["2023-02-30T12:00:00.000Z", "2023-02-29T12:00:00Z", "2024-04-31T00:00:00.000Z", "1900-02-29T00:00:00Z"])
def test_impossible_dates_are_refused(stamp: str) -> None:
    """Robustness: a timestamp is checked against the calendar, not only its form."""
    for name, payload, path in [
        ("tool:message:complete", {"id": "t1", "status": "completed", "timestamp": stamp}, "timestamp"),
    ]:
        with pytest.raises(ValidationError) as info:
            decode(name, payload)
        assert (info.value.code, info.value.path) == ("pattern", path)
    from agentmsg.records import decode as decode_record

    with pytest.raises(ValidationError) as info:
        decode_record({"type": "tool_result", "version": 1, "id": "r", "data": {
            "tool_call_id": "c", "status": "success", "output": 1, "finished_at": stamp}})
    assert info.value.code == "pattern" and info.value.path.endswith("finished_at")
    assert decode("tool:message:complete", {"id": "t1", "status": "completed", "timestamp": "2024-02-29T12:00:00.000Z"})


# -- the later additions are optional, so today's payloads are unchanged ---------------------


def test_new_optional_fields_are_omitted_when_absent() -> None:
    assert encode(ToolMessageStart(id="t1", tool_name="x", title="", timestamp=T))[1].keys() == {
        "id", "role", "kind", "status", "toolName", "title", "content", "progressText", "timestamp"}
    assert encode(ToolMessageComplete(id="t1", status="error", timestamp=T))[1] == {
        "id": "t1", "status": "error", "timestamp": T}
    assert encode(Completion.failed("x"))[1] == {"success": False, "error": "x"}
    init = ChatInit(messages=(UserEntry(content="x", timestamp=T),))
    assert encode(init)[1]["messages"] == [{"role": "user", "content": "x", "timestamp": T}]


def test_new_fields_on_the_wire() -> None:
    start = ToolMessageStart(id="t1", tool_name="x", title="", timestamp=T, arguments={"a": [1]},  # type: ignore[arg-type]
                             tool_call_id="call_1")
    payload = encode(start)[1]
    assert (payload["arguments"], payload["toolCallId"]) == ({"a": [1]}, "call_1")
    entry = start.to_entry()
    assert (thaw(entry.arguments), entry.tool_call_id) == ({"a": [1]}, "call_1")
    assert encode(Completion.ok({}, turn_id="turn_1"))[1]["turnId"] == "turn_1"
    with pytest.raises(ValidationError) as info:
        ToolMessageComplete(id="t1", status="completed", timestamp=T, error="x")
    assert (info.value.path, info.value.code) == ("error", "value")
    assert set(ev.COMPLETION_CODES) == {"cancelled", "model", "tool", "step_limit", "internal", "interrupted"}


def thaw(value: Any) -> Any:
    from agentmsg._frozen import thaw_json

    return thaw_json(value)
