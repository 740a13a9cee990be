"""Hypothesis strategies for every record type (shared by the record and context tests)."""

import base64
from datetime import datetime, timedelta, timezone

from hypothesis import strategies as st

from agentmsg.content import ImageSource, TextPart
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
)
from agentmsg.roles import MessageRole
from agentmsg.tools import ToolCall

texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
nonempty = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20)
ids = nonempty
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
json_objects = st.dictionaries(texts, json_values, max_size=4)
timestamps = st.datetimes(
    min_value=datetime(1970, 1, 2),
    max_value=datetime(2100, 1, 1),
    timezones=st.sampled_from([timezone.utc, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))]),
)
segments = st.text("abcXYZ019_-.", min_size=1, max_size=8).filter(lambda s: s not in (".", ".."))
paths = st.builds(lambda parts, root: root + "/".join(parts), st.lists(segments, min_size=1, max_size=4), st.sampled_from(["", "/"]))
b64 = st.binary(min_size=1, max_size=24).map(lambda b: base64.b64encode(b).decode("ascii"))
image_sources = st.one_of(
    st.builds(ImageSource.from_url, st.builds("https://example.com/{}.png".format, st.text("abc123", max_size=8))),
    st.builds(ImageSource.from_base64, b64, st.sampled_from(["image/png", "image/jpeg", "image/gif", "image/webp"])),
    st.builds(ImageSource.from_path, paths),
)
maybe = lambda strategy: st.none() | strategy  # noqa: E731
tool_names = st.from_regex(r"[A-Za-z0-9_]{1,64}", fullmatch=True)
branch_names = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20)

text_records = st.builds(
    lambda rid, role, parts: TextRecord(id=rid, role=role, parts=tuple(TextPart(p) for p in parts)),
    ids,
    st.sampled_from([MessageRole.SYSTEM, MessageRole.USER, MessageRole.ASSISTANT]),
    st.lists(texts, min_size=1, max_size=3),
)


@st.composite
def image_records(draw: st.DrawFn) -> ImageRecord:
    mode = draw(st.sampled_from(["vision", "ocr", "auto"]))
    image = ImageRecord(id=draw(ids), source=draw(image_sources), mode=mode)
    outcome = draw(st.sampled_from(["pending", "vision", "ocr", "failed"]))
    if outcome == "vision" and mode != "ocr":
        return image.with_vision(draw(maybe(texts)), language=draw(maybe(nonempty)))
    if outcome == "ocr" and mode != "vision":
        confidence = draw(maybe(st.floats(min_value=0.0, max_value=1.0)))
        return image.with_ocr(draw(texts), confidence=confidence, language=draw(maybe(nonempty)))
    if outcome == "failed":
        return image.fail(draw(nonempty))
    return image


@st.composite
def file_references(draw: st.DrawFn) -> FileReference:
    start = draw(maybe(st.integers(min_value=1, max_value=10**6)))
    end = None if start is None else draw(maybe(st.integers(min_value=start, max_value=start + 500)))
    ref = FileReference(id=draw(ids), path=draw(paths), start_line=start, end_line=end)
    outcome = draw(st.sampled_from(["pending", "resolved", "failed"]))
    if outcome == "resolved":
        return ref.resolve(draw(texts))
    if outcome == "failed":
        return ref.fail(draw(nonempty))
    return ref


requested_calls = st.builds(
    lambda cid, name, args, approval: RequestedToolCall(call=ToolCall(cid, name, args), approval=approval),
    ids,
    tool_names,
    json_objects,
    st.sampled_from(["pending", "approved", "denied"]),
)
tool_requests = st.builds(
    lambda rid, calls: ToolRequest(id=rid, calls=tuple(calls)),
    ids,
    st.lists(requested_calls, min_size=1, max_size=3, unique_by=lambda c: c.call.id),
)


@st.composite
def tool_results(draw: st.DrawFn) -> ToolResultRecord:
    common = dict(
        id=draw(ids),
        duration_seconds=draw(maybe(st.floats(min_value=0.0, max_value=1e6))),
        finished_at=draw(maybe(timestamps)),
    )
    if draw(st.booleans()):
        return ToolResultRecord.success(draw(ids), draw(json_values), **common)
    return ToolResultRecord.failure(
        draw(ids),
        draw(nonempty),
        output=draw(json_values),
        stack_trace=draw(maybe(texts)),
        recoverable=draw(st.booleans()),
        **common,
    )


@st.composite
def system_controls(draw: st.DrawFn) -> SystemControl:
    if draw(st.booleans()):
        old = draw(st.sampled_from(["plan", "act"]))
        return SystemControl.mode_change(old, "act" if old == "plan" else "plan", id=draw(ids))
    old, new = draw(st.lists(branch_names, min_size=2, max_size=2, unique=True))
    return SystemControl.branch_switch(old, new, id=draw(ids))


@st.composite
def mcp_resources(draw: st.DrawFn) -> McpResource:
    uri = draw(st.builds("{}://{}".format, st.sampled_from(["file", "docs", "db"]), st.text("abc/._-", max_size=12)))
    res = McpResource(id=draw(ids), server=draw(nonempty), uri=uri, mime_type=draw(maybe(st.sampled_from(["text/plain", "image/png", "application/json; charset=utf-8"]))))
    outcome = draw(st.sampled_from(["pending", "text", "blob", "failed"]))
    if outcome == "text":
        return res.retrieve(text=draw(texts), retrieved_at=draw(timestamps))
    if outcome == "blob":
        return res.retrieve(blob=draw(b64), retrieved_at=draw(timestamps))
    if outcome == "failed":
        return res.fail(draw(nonempty), retrieved_at=draw(maybe(timestamps)))
    return res


unknown_records = st.builds(
    lambda t, v, rid, data, extra: UnknownRecord({**extra, "type": t, "version": v, "id": rid, "data": data}),
    nonempty.filter(lambda t: t not in RECORD_TYPES),
    st.integers(min_value=1, max_value=99),
    ids,
    json_objects,
    st.dictionaries(st.sampled_from(["meta", "created_at", "x"]), json_values, max_size=2),
)

STRATEGIES = {
    "text": text_records,
    "image": image_records(),
    "file_reference": file_references(),
    "tool_request": tool_requests,
    "tool_result": tool_results(),
    "system_control": system_controls(),
    "mcp_resource": mcp_resources(),
    "unknown": unknown_records,
}
any_record = st.one_of(*STRATEGIES.values())
