"""Records: fixtures, schemas, migrations, unknown types, round trips and each variant's rules."""

import copy
import functools
import json
import logging
import pickle
from datetime import datetime, timedelta, timezone
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies_records import STRATEGIES, json_values

from agentmsg._frozen import FrozenDict
from agentmsg.formats import SCHEMA_FILES
from agentmsg.content import ImageSource, TextPart
from agentmsg import json_schema
from agentmsg.errors import ValidationError
from agentmsg.records import (
    RECORD_TYPES,
    FileReference,
    ImageRecord,
    McpResource,
    RequestedToolCall,
    SystemControl,
    TextRecord,
    ToolRequest,
    ToolResultRecord,
    UnknownRecord,
    decode,
    new_record_id,
)
from agentmsg.roles import MessageRole
from agentmsg.tools import ToolCall

DATA = Path(__file__).parent / "data" / "records"
UTC = timezone.utc
WHEN = datetime(2026, 11, 25, 10, tzinfo=UTC)


def load(path: Path) -> Any:
    return json.loads(path.read_bytes())


def record_schema_name(record_type: str, version: int) -> str:
    return f"record_{record_type}_v{version}"


RECORD_SCHEMAS = {name: entry[0] for name, entry in SCHEMA_FILES.items() if name.startswith("record")}
SCHEMAS = {name: json_schema(name) for name in RECORD_SCHEMAS}


def schema_errors(document: Any) -> list[str]:
    """Validate against the envelope and, for a known type and version, that version's schema."""
    names = ["record"]
    if isinstance(document, dict) and isinstance(document.get("type"), str) and type(document.get("version")) is int:
        name = record_schema_name(document["type"], document["version"])
        if name in SCHEMAS:
            names.append(name)
    found = []
    for name in names:
        found += [f"{name}: {error.message}" for error in _validator(name).iter_errors(document)]
    return found


@functools.cache  # one validator per schema, shared by the file's tests
def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(SCHEMAS[name], format_checker=jsonschema.FormatChecker())


def files(folder: str) -> list[Path]:
    found = sorted((DATA / folder).glob("*.json"))
    assert found, f"no fixtures in {folder}"
    return found


VALID = files("valid")
INVALID = files("invalid")
MIGRATED = files("migrated")


# --- data folders ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_fixture_decodes_and_matches_schema(path: Path, caplog: pytest.LogCaptureFixture) -> None:
    document = load(path)
    assert schema_errors(document) == []
    record = decode(document)
    encoded = record.to_dict()
    assert schema_errors(encoded) == []
    assert decode(encoded) == record
    if isinstance(record, UnknownRecord):
        assert encoded == document
    else:
        assert encoded["version"] == type(record).VERSION
        if document["version"] == type(record).VERSION and "finished_at" not in document["data"]:
            assert encoded == document  # current documents come back unchanged


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_fixture_fails_schema_and_decode(path: Path) -> None:
    case = load(path)
    assert set(case) == {"description", "code", "path", "document"}
    assert schema_errors(case["document"]), "the schema accepts an invalid fixture"
    with pytest.raises(ValidationError) as info:
        decode(case["document"])
    assert (info.value.code, info.value.path) == (case["code"], case["path"])


@pytest.mark.parametrize("path", MIGRATED, ids=lambda p: p.stem)
def test_earlier_version_migrates_to_expected_current_document(path: Path) -> None:
    old = load(DATA / "valid" / path.name)
    expected = load(path)
    assert old["version"] < expected["version"] == RECORD_TYPES[old["type"]].VERSION
    record = decode(old)
    assert record.to_dict() == expected
    assert record == decode(expected)
    assert type(record).from_dict(old) == record


def test_every_type_and_version_has_fixtures_and_a_schema() -> None:
    valid = {(d["type"], d["version"]) for d in map(load, VALID)}
    invalid_types = {load(p)["document"].get("type") for p in INVALID if isinstance(load(p)["document"], dict)}
    for record_type, cls in RECORD_TYPES.items():
        for version in range(1, cls.VERSION + 1):
            assert (record_type, version) in valid
            assert record_schema_name(record_type, version) in RECORD_SCHEMAS
        assert record_type in invalid_types
    earlier = {
        p.name for p in VALID if (d := load(p))["type"] in RECORD_TYPES and d["version"] < RECORD_TYPES[d["type"]].VERSION
    }
    assert earlier and {p.name for p in MIGRATED} == earlier
    shipped = {p.name for p in resources.files("agentmsg").joinpath("formats").iterdir() if p.name.startswith("record")}
    assert shipped == set(RECORD_SCHEMAS.values())


@pytest.mark.parametrize("name", sorted(RECORD_SCHEMAS))
def test_schema_is_draft_2020_12(name: str) -> None:
    schema = SCHEMAS[name]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_mcp_spec_resource_contents_become_records() -> None:
    """The MCP spec's example ResourceContents (copied, see PROVENANCE.md) fill McpResource records."""
    text = load(DATA / "mcp" / "2026-07-28_text_resource_contents.json")
    blob = load(DATA / "mcp" / "2026-07-28_blob_resource_contents_png.json")
    pending = McpResource(id="m1", server="fs", uri=text["uri"])
    got = pending.retrieve(text=text["text"], mime_type=text["mimeType"], retrieved_at=WHEN)
    assert (got.status, got.text, got.mime_type) == ("retrieved", "Resource content", "text/plain")
    image = McpResource(id="m2", server="fs", uri=blob["uri"]).retrieve(blob=blob["blob"], mime_type=blob["mimeType"], retrieved_at=WHEN)
    assert decode(image.to_dict()) == image
    assert schema_errors(image.to_dict()) == []


# --- round trips (hypothesis) -----------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(STRATEGIES))
def test_round_trip_every_record_type(kind: str) -> None:
    @settings(max_examples=60, deadline=None)
    @given(STRATEGIES[kind])
    def check(record: Any) -> None:
        document = record.to_dict()
        assert json.loads(json.dumps(document)) == document
        again = decode(json.loads(json.dumps(document)))
        assert again == record
        assert hash(again) == hash(record)
        assert again.to_dict() == document
        assert type(record).from_dict(document) == record
        assert schema_errors(document) == []
        assert pickle.loads(pickle.dumps(record)) == record
        assert copy.deepcopy(record) == record

    logging.getLogger("agentmsg.records").disabled = True
    try:
        check()
    finally:
        logging.getLogger("agentmsg.records").disabled = False


KNOWN_KEYS = {
    "text": ["role", "parts"],
    "image": ["source", "mode", "state", "recognized_by", "analysis", "text", "confidence", "language", "error"],
    "file_reference": ["path", "start_line", "end_line", "status", "content", "error", "lines", "resolved"],
    "tool_request": ["calls"],
    "tool_result": ["tool_call_id", "status", "output", "error", "stack_trace", "recoverable", "duration_seconds", "finished_at"],
    "system_control": ["kind", "old", "new"],
    "mcp_resource": ["server", "uri", "status", "text", "blob", "mime_type", "retrieved_at", "error"],
}
envelopes = st.sampled_from(sorted(KNOWN_KEYS)).flatmap(
    lambda t: st.fixed_dictionaries(
        {
            "type": st.just(t),
            "version": st.integers(min_value=-1, max_value=3) | json_values,
            "id": st.text(max_size=3) | json_values,
            "data": st.dictionaries(st.sampled_from(KNOWN_KEYS[t]), json_values, max_size=6) | json_values,
        }
    )
)


@settings(max_examples=120, deadline=None)
@given(st.one_of(json_values, envelopes))
def test_any_json_input_raises_only_validation_error(document: Any) -> None:
    logging.getLogger("agentmsg.records").disabled = True
    try:
        decode(document)
    except ValidationError as err:
        assert isinstance(err.code, str) and err.code
    finally:
        logging.getLogger("agentmsg.records").disabled = False


# --- unknown records --------------------------------------------------------------------------


def test_unknown_type_is_kept_exactly_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    document = load(DATA / "valid" / "unknown_type.json")
    with caplog.at_level(logging.WARNING, logger="agentmsg.records"):
        record = decode(document)
    assert isinstance(record, UnknownRecord)
    assert [r.name for r in caplog.records] == ["agentmsg.records"]
    assert "Ship it" not in caplog.text and "unknown record type" in caplog.text
    assert (record.type, record.version, record.id) == ("poll", 2, "p-1")
    out = record.to_dict()
    assert out == document and json.dumps(out) == json.dumps(document)
    out["data"]["votes"]["yes"] = 99  # a fresh copy: the record is untouched
    assert record.to_dict() == document
    assert isinstance(record.document["data"]["votes"], FrozenDict)
    with pytest.raises(TypeError):
        record.document["data"]["votes"]["yes"] = 1  # type: ignore[index]
    hash(record)


@pytest.mark.parametrize(
    "document",
    [
        {"type": "poll", "version": 1, "data": {}},  # no id
        {"type": "poll"},  # nothing but the type
        {"type": "poll", "version": True, "id": 7, "data": []},  # a newer writer's envelope
        {"type": "poll", "id": "p", "version": 1, "data": {}, "extra": [1, {"a": None}]},
    ],
)
def test_unknown_types_never_fail_and_re_encode_exactly(document: dict, caplog: pytest.LogCaptureFixture) -> None:
    """Robustness: decode of an unknown record type without an id (or any envelope) keeps it."""
    with caplog.at_level(logging.WARNING, logger="agentmsg.records"):
        record = decode(document)
    assert isinstance(record, UnknownRecord) and record.type == "poll"
    assert record.to_dict() == document and json.dumps(record.to_dict()) == json.dumps(document)
    assert decode(record.to_dict()) == record
    assert record.id == (document["id"] if isinstance(document.get("id"), str) else None)
    repr(record)
    with pytest.raises(ValidationError) as info:
        decode({"version": 1, "id": "x", "data": {}})  # without a type it is not a record
    assert (info.value.code, info.value.path) == ("missing", "type")


def test_newer_version_of_known_type_is_kept_as_unknown(caplog: pytest.LogCaptureFixture) -> None:
    document = load(DATA / "valid" / "unknown_newer_version.json")
    with caplog.at_level(logging.WARNING, logger="agentmsg.records"):
        record = decode(document)
    assert isinstance(record, UnknownRecord) and "newer" in caplog.text
    assert record.to_dict() == document
    with pytest.raises(ValidationError) as info:
        FileReference.from_dict(document)
    assert (info.value.code, info.value.path) == ("value", "version")


def test_from_dict_of_another_type_is_refused() -> None:
    with pytest.raises(ValidationError) as info:
        TextRecord.from_dict(SystemControl.mode_change("plan", "act", id="s").to_dict())
    assert (info.value.code, info.value.path) == ("value", "type")


# --- ids, immutability, reprs -----------------------------------------------------------------


def test_ids_default_to_fresh_hex_and_are_never_generated_while_decoding() -> None:
    a, b = TextRecord.of("user", "x"), TextRecord.of("user", "x")
    assert a.id != b.id and len(a.id) == 32 and int(a.id, 16) >= 0
    assert len(new_record_id()) == 32
    document = a.to_dict()
    del document["id"]
    with pytest.raises(ValidationError) as info:
        decode(document)
    assert (info.value.code, info.value.path) == ("missing", "id")
    with pytest.raises(ValidationError):
        TextRecord.of("user", "x", id="")


SAMPLES: list[Any] = [
    TextRecord.of("user", "secret words", id="t"),
    ImageRecord(id="i", source=ImageSource.from_url("https://example.com/a.png"), mode="ocr").with_ocr("secret words"),
    FileReference(id="f", path="src/secret.py").resolve("secret words"),
    ToolRequest.of([ToolCall("c1", "ls", {"q": "secret words"})], id="q"),
    ToolResultRecord.failure("c1", "secret words", stack_trace="secret words", id="r"),
    SystemControl.branch_switch("main", "b", id="s"),
    McpResource(id="m", server="s", uri="file:///secret.txt").retrieve(text="secret words", retrieved_at=WHEN),
    UnknownRecord({"type": "x", "version": 1, "id": "u", "data": {"t": "secret words"}}),
]


@pytest.mark.parametrize("record", SAMPLES, ids=lambda r: type(r).__name__)
def test_records_are_frozen_hashable_and_reprs_hide_content(record: Any) -> None:
    assert "secret" not in repr(record)
    assert record.id in repr(record)
    hash(record)
    with pytest.raises((AttributeError, TypeError)):
        record.id = "other"
    with pytest.raises((AttributeError, TypeError)):
        record.anything = 1


# --- variants ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("a.py", "a.py"),
        ("./src//app/./main.py", "src/app/main.py"),
        ("src/app/../lib/x.py", "src/lib/x.py"),
        ("src/", "src"),
        ("/abs/../etc/hosts", "/etc/hosts"),
        ("//srv///x", "/srv/x"),
    ],
)
def test_file_paths_are_normalized(raw: str, normalized: str) -> None:
    assert FileReference(id="f", path=raw).path == normalized


@pytest.mark.parametrize(
    ("raw", "code"),
    [("", "value"), (".", "value"), ("/", "value"), ("..", "value"), ("a/../..", "value"), ("/../x", "value"),
     ("a/b/../../../c", "value"), ("a\x00b", "value"), (5, "type")],
)
def test_bad_file_paths_are_refused(raw: Any, code: str) -> None:
    with pytest.raises(ValidationError) as info:
        FileReference(id="f", path=raw)
    assert (info.value.code, info.value.path) == (code, "path")


def test_file_reference_lines_and_helpers() -> None:
    ref = FileReference(id="f", path="a.py", start_line=3, end_line=3)
    assert ref.lines == "3-3"
    with pytest.raises(ValidationError) as info:
        FileReference(id="f", path="a.py", start_line=5, end_line=4)
    assert (info.value.code, info.value.path) == ("value", "end_line")
    with pytest.raises(ValidationError) as info:
        FileReference(id="f", path="a.py", start_line=True)  # type: ignore[arg-type]
    assert info.value.code == "type"
    resolved = ref.resolve("x")
    failed = resolved.fail("gone")
    assert (failed.status, failed.content, failed.error) == ("failed", None, "gone")
    assert failed.resolve("y").error is None
    assert ref.status == "pending"  # helpers return copies


def test_file_reference_v1_migration_edge_cases() -> None:
    v1 = {"type": "file_reference", "version": 1, "id": "f", "data": {"path": "a.py", "lines": "20-10", "resolved": False}}
    with pytest.raises(ValidationError) as info:
        decode(v1)
    assert (info.value.code, info.value.path) == ("value", "data.end_line")
    v1["data"] = {"path": "../x", "resolved": False}
    with pytest.raises(ValidationError) as info:
        decode(v1)
    assert (info.value.code, info.value.path) == ("value", "data.path")


def test_image_states_and_helpers() -> None:
    image = ImageRecord(id="i", source=ImageSource.from_path("a.png"))
    assert (image.mode, image.state) == ("auto", "pending")
    vision = image.with_vision("a cat", language="en")
    assert (vision.recognized_by, vision.analysis, vision.text) == ("vision", "a cat", None)
    ocr = vision.with_ocr("TEXT", confidence=1)
    assert (ocr.recognized_by, ocr.analysis, ocr.confidence) == ("ocr", None, 1.0)
    new_source = ImageSource.from_url("https://example.com/a.png")
    assert image.with_vision(source=new_source).source == new_source
    failed = ocr.fail("blurry")
    assert (failed.state, failed.text, failed.recognized_by) == ("failed", None, None)
    with pytest.raises(ValidationError) as info:
        ImageRecord(id="i", source=ImageSource.from_path("a.png"), mode="ocr").with_vision()
    assert (info.value.code, info.value.path) == ("value", "recognized_by")
    with pytest.raises(ValidationError) as info:
        ImageRecord(id="i", source="a.png")  # type: ignore[arg-type]
    assert (info.value.code, info.value.path) == ("type", "source")
    with pytest.raises(ValidationError) as info:
        image.with_ocr("x", confidence=float("nan"))
    assert (info.value.code, info.value.path) == ("value", "confidence")


def test_tool_request_approvals() -> None:
    request = ToolRequest.of([ToolCall("c1", "read", {"p": "a"}), ToolCall("c2", "rm", {})], id="q")
    assert request.approvals == ("pending", "pending")
    decided = request.approve("c1").deny("c2")
    assert decided.approvals == ("approved", "denied")
    assert [c.id for c in decided.approved_calls] == ["c1"]
    assert decided.get("c2").approval == "denied" and request.get("c2").approval == "pending"
    assert [c.name for c in decided.tool_calls] == ["read", "rm"]
    with pytest.raises(ValidationError) as info:
        request.with_approval("c1", "maybe")  # type: ignore[arg-type]
    assert (info.value.code, info.value.path) == ("value", "approval")
    with pytest.raises(ValidationError) as info:
        request.approve("nope")
    assert info.value.code == "unknown"


def test_tool_request_refuses_duplicate_ids_and_empty_calls() -> None:
    call = RequestedToolCall(call=ToolCall("c1", "ls", {}))
    with pytest.raises(ValidationError) as info:
        ToolRequest(id="q", calls=(call, call))
    assert (info.value.code, info.value.path) == ("unique", "calls[1].id")
    document = ToolRequest(id="q", calls=(call,)).to_dict()
    document["data"]["calls"].append(dict(document["data"]["calls"][0]))
    with pytest.raises(ValidationError) as info:
        decode(document)
    assert (info.value.code, info.value.path) == ("unique", "data.calls[1].id")
    with pytest.raises(ValidationError) as info:
        ToolRequest(id="q", calls=())
    assert info.value.code == "value"
    with pytest.raises(ValidationError) as info:
        ToolRequest(id="q", calls=(ToolCall("c1", "ls", {}),))  # type: ignore[arg-type]
    assert (info.value.code, info.value.path) == ("type", "calls[0]")


def test_tool_result_rules_and_output_freezing() -> None:
    result = ToolResultRecord.success("c1", {"rows": [1, 2]}, id="r", duration_seconds=2)
    assert result.duration_seconds == 2.0 and isinstance(result.duration_seconds, float)
    assert isinstance(result.output, FrozenDict) and result.output["rows"] == (1, 2)
    assert result.to_dict()["data"]["output"] == {"rows": [1, 2]}
    with pytest.raises(ValidationError) as info:
        ToolResultRecord.success("c1", {"x": float("inf")}, id="r")
    assert info.value.path == "output.x"
    with pytest.raises(ValidationError) as info:
        ToolResultRecord.failure("c1", "", id="r")
    assert (info.value.code, info.value.path) == ("value", "error")
    with pytest.raises(ValidationError) as info:
        ToolResultRecord(id="r", tool_call_id="c1", status="success", recoverable=1)  # type: ignore[arg-type]
    assert (info.value.code, info.value.path) == ("type", "recoverable")


def test_timestamps_are_aware_utc_and_rfc3339() -> None:
    local = datetime(2026, 11, 25, 11, 30, tzinfo=timezone(timedelta(hours=1, minutes=30)))
    result = ToolResultRecord.success("c1", None, id="r", finished_at=local)
    assert result.finished_at == local and result.finished_at.tzinfo is UTC
    assert result.to_dict()["data"]["finished_at"] == "2026-11-25T10:00:00Z"
    with pytest.raises(ValidationError) as info:
        ToolResultRecord.success("c1", None, id="r", finished_at=datetime(2026, 11, 25))
    assert (info.value.code, info.value.path) == ("value", "finished_at")
    with pytest.raises(ValidationError) as info:
        McpResource(id="m", server="s", uri="x:y").retrieve(text="t", retrieved_at="2026-11-25T10:00:00Z")  # type: ignore[arg-type]
    assert (info.value.code, info.value.path) == ("type", "retrieved_at")
    for text, expected in [
        ("2026-11-25t10:00:00.5z", "2026-11-25T10:00:00.5Z"),
        ("2026-11-25T10:00:00.123456789-02:00", "2026-11-25T12:00:00.123456Z"),
    ]:
        document = {"type": "tool_result", "version": 1, "id": "r", "data": {"tool_call_id": "c", "status": "success", "finished_at": text}}
        assert decode(document).to_dict()["data"]["finished_at"] == expected
    for bad in ["2026-02-30T10:00:00Z", "2026-11-25T25:00:00Z", "2026-11-25T10:00:00+24:00", 1700000000]:
        document["data"]["finished_at"] = bad
        with pytest.raises(ValidationError) as info:
            decode(document)
        assert info.value.path == "data.finished_at"


def test_system_control_rules() -> None:
    with pytest.raises(ValidationError) as info:
        SystemControl.mode_change("act", "act", id="s")
    assert (info.value.code, info.value.path) == ("value", "new")
    with pytest.raises(ValidationError) as info:
        SystemControl.branch_switch("main", "a\nb", id="s")
    assert (info.value.code, info.value.path) == ("pattern", "new")


def test_mcp_resource_rules() -> None:
    res = McpResource(id="m", server="s", uri="file:///a", mime_type="text/plain")
    got = res.retrieve(blob="aGk=", retrieved_at=WHEN)
    assert got.mime_type == "text/plain" and got.text is None
    failed = got.fail("gone")
    assert (failed.blob, failed.retrieved_at, failed.error) == (None, None, "gone")
    with pytest.raises(ValidationError) as info:
        res.retrieve(text="a", blob="aGk=", retrieved_at=WHEN)
    assert info.value.code == "value"


def test_text_record_rules() -> None:
    record = TextRecord(id="t", role="assistant", parts=[TextPart("a"), TextPart("b")])  # type: ignore[arg-type]
    assert record.role is MessageRole.ASSISTANT and record.parts == (TextPart("a"), TextPart("b"))
    with pytest.raises(ValidationError) as info:
        TextRecord.of(MessageRole.TOOL, "x", id="t")
    assert (info.value.code, info.value.path) == ("value", "role")
    with pytest.raises(ValidationError) as info:
        TextRecord(id="t", role=MessageRole.USER, parts=("x",))  # type: ignore[arg-type]
    assert (info.value.code, info.value.path) == ("type", "parts[0]")


def test_error_messages_never_echo_values() -> None:
    cases = [
        {"type": "file_reference", "version": 2, "id": "f", "data": {"path": "../TOPSECRET", "status": "pending"}},
        {"type": "file_reference", "version": 1, "id": "f", "data": {"path": "a", "lines": "TOPSECRET", "resolved": False}},
        {"type": "system_control", "version": 1, "id": "s", "data": {"kind": "mode_change", "old": "plan", "new": "TOPSECRET"}},
        {"type": "mcp_resource", "version": 1, "id": "m", "data": {"server": "s", "uri": "TOPSECRET", "status": "pending"}},
    ]
    for document in cases:
        with pytest.raises(ValidationError) as info:
            decode(document)
        assert "TOPSECRET" not in str(info.value)


@settings(max_examples=150, deadline=None)
@given(st.text("ab./", max_size=12))
def test_path_normalization_agrees_with_posixpath(raw: str) -> None:
    import posixpath

    try:
        path = FileReference(id="f", path=raw).path
    except ValidationError as err:
        assert err.code == "value"
        expected = posixpath.normpath("/" + raw.lstrip("/") if raw.startswith("/") else raw) if raw else "."
        parts = [p for p in raw.split("/") if p not in ("", ".")]
        depth = 0
        for part in parts:
            depth += -1 if part == ".." else 1
            if depth < 0:
                break
        assert depth < 0 or expected in (".", "/")
        return
    assert path == posixpath.normpath("/" + raw.lstrip("/") if raw.startswith("/") else raw)
    assert FileReference(id="f", path=path).path == path
