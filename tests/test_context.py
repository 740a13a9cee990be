"""ConversationContext: branches, mode, dirty tracking, rendering to chat messages, token budget."""

import logging
from datetime import datetime, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies_records import any_record

from agentmsg import ChatMessage, ConversationHistory, ConversationOrderError, ImagePart, ImageSource, TextPart, ToolCall
from agentmsg.context import DENIED_RESULT, ConversationContext, estimate_tokens
from agentmsg.errors import ValidationError
from agentmsg.records import (
    FileReference,
    ImageRecord,
    McpResource,
    SystemControl,
    TextRecord,
    ToolRequest,
    ToolResultRecord,
    UnknownRecord,
)

WHEN = datetime(2026, 11, 25, 10, tzinfo=timezone.utc)
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def new_context(**kwargs: Any) -> ConversationContext:
    return ConversationContext(plan_prompt="You plan. Do not change files.", act_prompt="You act.", **kwargs)


def dicts(messages: tuple[ChatMessage, ...]) -> list[dict[str, Any]]:
    rendered = [m.to_dict() for m in messages]
    ConversationHistory.from_list(rendered, require_system=False)  # the order every provider accepts
    return rendered


def user(text: str, rid: str) -> TextRecord:
    return TextRecord.of("user", text, id=rid)


def resource(rid: str, text: str) -> McpResource:
    return McpResource(id=rid, server="docs", uri=f"docs://{rid}").retrieve(text=text, retrieved_at=WHEN)


# --- mode, branches, dirty ------------------------------------------------------------------


def test_mode_switch_appends_control_and_changes_prompt() -> None:
    ctx = new_context(mode="plan")
    ctx.add(user("hi", "t1"))
    assert ctx.system_prompt == "You plan. Do not change files."
    control = ctx.set_mode("act", record_id="s1")
    assert control == SystemControl.mode_change("plan", "act", id="s1")
    assert ctx.mode == "act" and ctx.records[-1] is control
    assert dicts(ctx.to_chat_messages())[0] == {"role": "system", "content": "You act."}
    assert ctx.set_mode("act") is None and len(ctx.records) == 2
    with pytest.raises(ValidationError) as info:
        ctx.set_mode("run")  # type: ignore[arg-type]
    assert (info.value.code, info.value.path) == ("value", "mode")


def test_branches_fork_switch_and_log() -> None:
    ctx = new_context()
    ctx.add(user("one", "t1"))
    ctx.add(TextRecord.of("assistant", "ok", id="a1"))
    ctx.create_branch("retry", at="t1")
    assert ctx.branches == ("main", "retry") and ctx.branch == "main"
    control = ctx.switch_branch("retry", record_id="s1")
    assert control is not None and (control.old, control.new) == ("main", "retry")
    assert [r.id for r in ctx.records] == ["t1", "s1"]
    assert [r.id for r in ctx.records_on("main")] == ["t1", "a1"]
    ctx.add(TextRecord.of("assistant", "another answer", id="a2"))
    assert [m["content"] for m in dicts(ctx.to_chat_messages())] == ["You act.", "one", "another answer"]
    assert ctx.switch_branch("retry") is None
    for call, code in [
        (lambda: ctx.switch_branch("nope"), "unknown"),
        (lambda: ctx.create_branch("main"), "unique"),
        (lambda: ctx.create_branch("x", source="nope"), "unknown"),
        (lambda: ctx.create_branch("x", at="missing"), "unknown"),
        (lambda: ctx.create_branch(""), "value"),
        (lambda: ctx.switch_branch("main", record_id="t1"), "unique"),
    ]:
        with pytest.raises(ValidationError) as info:
            call()
        assert info.value.code == code
    assert ctx.branch == "retry"  # the refused switch changed nothing


def test_dirty_set_tracks_adds_replacements_and_clean() -> None:
    ctx = new_context()
    ctx.add(user("hi", "t1"))
    ref = ctx.add(FileReference(id="f1", path="a.py"))
    assert ctx.dirty == {"t1", "f1"}
    ctx.mark_clean()
    assert ctx.dirty == frozenset()
    assert isinstance(ref, FileReference)
    ctx.replace(ref.resolve("x = 1"))
    assert ctx.dirty == {"f1"}
    ctx.add(user("more", "t2"))
    ctx.mark_clean(["f1"])
    assert ctx.dirty == {"t2"}
    with pytest.raises(ValidationError) as info:
        ctx.replace(TextRecord.of("user", "x", id="f1"))
    assert info.value.code == "type"
    with pytest.raises(ValidationError) as info:
        ctx.replace(user("x", "nope"))
    assert info.value.code == "unknown"
    with pytest.raises(ValidationError) as info:
        ctx.add("not a record")  # type: ignore[arg-type]
    assert info.value.code == "type"


def test_approve_and_deny_replace_the_request_on_every_branch() -> None:
    ctx = new_context()
    ctx.add(user("clean up", "t1"))
    request = ToolRequest.of([ToolCall("c1", "ls", {}), ToolCall("c2", "rm", {"path": "x"})], id="q1")
    ctx.add(request)
    ctx.create_branch("alt")
    ctx.mark_clean()
    approved = ctx.approve("c1")
    assert approved.approvals == ("approved", "pending")
    assert ctx.deny("c2").approvals == ("approved", "denied")
    assert ctx.dirty == {"q1"}
    for branch in ctx.branches:
        stored = ctx.records_on(branch)[1]
        assert isinstance(stored, ToolRequest) and stored.approvals == ("approved", "denied")
    assert request.approvals == ("pending", "pending")  # the old record is untouched
    with pytest.raises(ValidationError) as info:
        ctx.approve("c9")
    assert (info.value.code, info.value.path) == ("unknown", "call_id")


# --- rendering --------------------------------------------------------------------------------


def test_full_conversation_renders_in_provider_order() -> None:
    ctx = new_context(mode="plan")
    ctx.add(TextRecord.of("system", "The user prefers short answers.", id="t0"))
    ctx.add(user("Why does main.py fail?", "t1"))
    ctx.add(FileReference(id="f1", path="src/main.py", start_line=9, end_line=11).resolve("import a\nimport b\nmain()\n"))
    ctx.add(ImageRecord(id="i1", source=ImageSource.from_base64(PNG, "image/png"), mode="vision").with_vision("a pixel"))
    ctx.add(ImageRecord(id="i2", source=ImageSource.from_path("err.png"), mode="ocr").with_ocr("Error 42", confidence=0.5))
    ctx.add(resource("m1", "API docs"))
    ctx.set_mode("act", record_id="s1")
    ctx.add(TextRecord.of("assistant", "Let me run it.", id="a1"))
    ctx.add(ToolRequest.of([ToolCall("c1", "run", {"file": "main.py"}), ToolCall("c2", "rm", {"path": "/"})], id="q1"))
    ctx.approve("c1")
    ctx.deny("c2")
    ctx.add(user("(while it runs) thanks", "t2"))
    ctx.add(ToolResultRecord.failure("c1", "ImportError: b", stack_trace="Traceback...", recoverable=True, duration_seconds=0.5, id="r1"))
    ctx.add(UnknownRecord({"type": "poll", "version": 1, "id": "p1", "data": {}}))
    ctx.add(TextRecord.of("assistant", "Module b is missing.", id="a2"))
    messages = ctx.to_chat_messages()
    rendered = dicts(messages)
    assert [m["role"] for m in rendered] == ["system", "user", "assistant", "tool", "tool", "user", "assistant"]
    system = rendered[0]["content"]
    assert system.startswith("You act.\n\nThe user prefers short answers.\n\n<resource ")
    assert 'server="docs" uri="docs://m1">\nAPI docs\n</resource>' in system
    parts = messages[1].content
    assert isinstance(parts, tuple) and len(parts) == 4
    assert parts[0] == TextPart("Why does main.py fail?")
    assert parts[1] == TextPart('<file path="src/main.py" lines="9-11">\n 9 | import a\n10 | import b\n11 | main()\n</file>')
    assert parts[2] == ImagePart(ImageSource.from_base64(PNG, "image/png"))
    assert parts[3] == TextPart("<image_text>\nError 42\n</image_text>")
    assert rendered[2] == {
        "role": "assistant",
        "content": "Let me run it.",
        "tool_calls": [
            {"id": "c1", "name": "run", "arguments": {"file": "main.py"}},
            {"id": "c2", "name": "rm", "arguments": {"path": "/"}},
        ],
    }
    assert rendered[3] == {"role": "tool", "tool_call_id": "c1", "content": "ImportError: b", "is_error": True}
    assert rendered[4] == {"role": "tool", "tool_call_id": "c2", "content": DENIED_RESULT, "is_error": True}
    assert rendered[5:] == [
        {"role": "user", "content": "(while it runs) thanks"},
        {"role": "assistant", "content": "Module b is missing."},
    ]
    text = repr(rendered)
    for secret in ("Traceback", "0.5", "a pixel", "plan", "poll", "s1"):
        assert secret not in text  # internal metadata is never sent


def test_success_output_is_sent_as_json_or_text() -> None:
    ctx = new_context()
    ctx.add(user("go", "t1"))
    ctx.add(ToolRequest.of([ToolCall("c1", "a", {}), ToolCall("c2", "b", {}), ToolCall("c3", "c", {})], id="q1"))
    ctx.add(ToolResultRecord.success("c2", "plain text", id="r2"))
    ctx.add(ToolResultRecord.success("c1", {"n": [1, 2], "é": True}, id="r1"))
    ctx.add(ToolResultRecord.success("c3", None, id="r3"))
    for call_id in ("c1", "c2", "c3"):
        ctx.approve(call_id)
    tools = [m for m in dicts(ctx.to_chat_messages()) if m["role"] == "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in tools] == [("c1", '{"n": [1, 2], "é": true}'), ("c2", "plain text"), ("c3", "null")]


def test_consecutive_texts_merge_and_a_request_follows_user_text() -> None:
    ctx = ConversationContext(plan_prompt="", act_prompt="")
    ctx.add(user("a", "t1"))
    ctx.add(user("b", "t2"))
    ctx.add(ToolRequest.of([ToolCall("c1", "ls", {})], id="q1"))
    ctx.add(ToolResultRecord.success("c1", "ok", id="r1"))
    ctx.add(ToolRequest.of([ToolCall("c2", "ls", {})], id="q2"))
    ctx.add(ToolResultRecord.success("c2", "ok", id="r2"))
    ctx.add(TextRecord.of("assistant", "x", id="a1"))
    ctx.add(TextRecord.of("assistant", "y", id="a2"))
    ctx.approve("c1")
    ctx.approve("c2")
    rendered = dicts(ctx.to_chat_messages())
    assert [m["role"] for m in rendered] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert rendered[0]["content"] == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert rendered[-1]["content"] == "x\n\ny"


def test_failed_items_are_rendered_as_marked_notices() -> None:
    ctx = new_context()
    ctx.add(FileReference(id="f1", path="gone.py").fail("file not found"))
    ctx.add(ImageRecord(id="i1", source=ImageSource.from_path("a.png")).fail("unreadable image"))
    ctx.add(McpResource(id="m1", server="s", uri="docs://x", mime_type="text/plain").fail("not found"))
    ctx.add(McpResource(id="m2", server="s", uri="file:///p.png").retrieve(blob=PNG, mime_type="image/png", retrieved_at=WHEN))
    messages = ctx.to_chat_messages()
    system, first = dicts(messages)[:2]
    assert '<resource server="s" uri="docs://x" mime_type="text/plain" status="failed">\nnot found\n</resource>' in system["content"]
    assert "[binary content, 70 bytes, not shown]" in system["content"]
    assert PNG not in system["content"]
    assert first["content"] == [
        {"type": "text", "text": '<file path="gone.py" status="failed">\nfile not found\n</file>'},
        {"type": "text", "text": '<image status="failed">\nunreadable image\n</image>'},
    ]


def test_file_rendering_edge_cases() -> None:
    ctx = ConversationContext(plan_prompt="", act_prompt="")
    ctx.add(FileReference(id="f1", path='odd "name".txt').resolve(""))
    ctx.add(FileReference(id="f2", path="b.txt", start_line=99).resolve("x\ny"))
    parts = ctx.to_chat_messages()[0].content
    assert isinstance(parts, tuple)
    assert parts[0] == TextPart('<file path="odd \\"name\\".txt">\n</file>')
    assert parts[1] == TextPart('<file path="b.txt" lines="99-100">\n 99 | x\n100 | y\n</file>')


@pytest.mark.parametrize(
    ("record", "code", "path"),
    [
        (FileReference(id="f1", path="a.py"), "pending", "records[1]"),
        (ImageRecord(id="i1", source=ImageSource.from_path("a.png")), "pending", "records[1]"),
        (McpResource(id="m1", server="s", uri="docs://a"), "pending", "records[1]"),
        (ToolRequest.of([ToolCall("c1", "ls", {})], id="q1"), "pending", "records[1].calls[0]"),
        (ToolResultRecord.success("c9", "x", id="r1"), "unknown", "records[1]"),
    ],
)
def test_records_that_are_not_ready_are_refused(record: Any, code: str, path: str) -> None:
    ctx = new_context()
    ctx.add(user("hi", "t1"))
    ctx.add(record)
    with pytest.raises(ValidationError) as info:
        ctx.to_chat_messages()
    assert (info.value.code, info.value.path) == (code, path)


def test_approved_call_without_result_and_duplicate_results_are_refused() -> None:
    ctx = new_context()
    ctx.add(user("hi", "t1"))
    ctx.add(ToolRequest.of([ToolCall("c1", "ls", {})], id="q1"))
    ctx.approve("c1")
    with pytest.raises(ValidationError) as info:
        ctx.to_chat_messages()
    assert (info.value.code, info.value.path, info.value.message) == ("pending", "records[1].calls[0]", "tool call has no result yet")
    ctx.add(ToolResultRecord.success("c1", "a", id="r1"))
    ctx.add(ToolResultRecord.success("c1", "b", id="r2"))
    with pytest.raises(ValidationError) as info:
        ctx.to_chat_messages()
    assert (info.value.code, info.value.path) == ("unique", "records[3]")


def test_result_before_its_request_is_an_orphan() -> None:
    ctx = new_context()
    ctx.add(user("hi", "t1"))
    ctx.add(ToolResultRecord.success("c1", "a", id="r1"))
    ctx.add(ToolRequest.of([ToolCall("c1", "ls", {})], id="q1"))
    ctx.approve("c1")
    with pytest.raises(ValidationError) as info:
        ctx.to_chat_messages()
    assert (info.value.code, info.value.path) == ("unknown", "records[1]")


def test_order_problems_raise_conversation_order_error() -> None:
    ctx = new_context()
    ctx.add(TextRecord.of("assistant", "I speak first", id="a1"))
    with pytest.raises(ConversationOrderError):
        ctx.to_chat_messages()


# --- token budget -----------------------------------------------------------------------------


def budget_context() -> ConversationContext:
    ctx = ConversationContext(plan_prompt="", act_prompt="P")
    ctx.add(resource("old", "o" * 400))
    ctx.add(resource("used_early", "e" * 400))
    ctx.add(resource("used_late", "l" * 400))
    ctx.add(resource("new", "n" * 400))
    ctx.add(user("question", "t1"))
    ctx.mark_referenced("used_early")
    ctx.mark_referenced("used_late")
    return ctx


def kept(messages: tuple[ChatMessage, ...]) -> list[str]:
    system = messages[0].text
    return [name for name in ("old", "used_early", "used_late", "new") if f"docs://{name}" in system]


def test_budget_drops_never_referenced_then_least_recently_used(caplog: pytest.LogCaptureFixture) -> None:
    ctx = budget_context()
    full = ctx.to_chat_messages()
    assert kept(full) == ["old", "used_early", "used_late", "new"]
    total = sum(4 + estimate_tokens(m.text) for m in full)
    with caplog.at_level(logging.INFO, logger="agentmsg.context"):
        assert kept(ctx.to_chat_messages(max_tokens=total)) == ["old", "used_early", "used_late", "new"]
        assert caplog.records == []
        assert kept(ctx.to_chat_messages(max_tokens=total - 1)) == ["used_early", "used_late", "new"]
        caplog.clear()
        assert kept(ctx.to_chat_messages(max_tokens=total - 200)) == ["used_early", "used_late"]
        assert kept(ctx.to_chat_messages(max_tokens=total - 300)) == ["used_late"]
    dropped = [r.getMessage() for r in caplog.records]
    assert len(dropped) == 2 + 3 and all("dropped resource record" in m for m in dropped)
    assert "old" in dropped[0] and "new" in dropped[1] and "used_early" in dropped[4]
    assert all("oooo" not in m for m in dropped)
    ctx.mark_referenced("used_early")  # now the most recent: used_late goes first
    assert kept(ctx.to_chat_messages(max_tokens=total - 300)) == ["used_early"]
    assert kept(ctx.to_chat_messages()) == ["old", "used_early", "used_late", "new"]  # records are kept


def test_budget_too_small_even_without_resources() -> None:
    ctx = budget_context()
    with pytest.raises(ValidationError) as info:
        ctx.to_chat_messages(max_tokens=3)
    assert (info.value.code, info.value.path) == ("size", "max_tokens")
    with pytest.raises(ValidationError) as info:
        ctx.to_chat_messages(max_tokens=0)
    assert info.value.code == "value"


def test_budget_uses_a_replaceable_estimator() -> None:
    ctx = budget_context()
    words = lambda text: len(text.split())  # noqa: E731
    # counted in words, each resource block is 5 tokens: all fit in 30 (4 per message + "P" + "question")
    assert kept(ctx.to_chat_messages(max_tokens=30, estimator=words)) == ["old", "used_early", "used_late", "new"]
    assert kept(ctx.to_chat_messages(max_tokens=29, estimator=words)) == ["used_early", "used_late", "new"]
    assert kept(ctx.to_chat_messages(max_tokens=30)) == []
    with pytest.raises(TypeError):
        ctx.to_chat_messages(max_tokens=10, estimator=lambda text: -1)


def test_images_and_tool_calls_count_toward_the_budget() -> None:
    ctx = ConversationContext(plan_prompt="", act_prompt="")
    ctx.add(ImageRecord(id="i1", source=ImageSource.from_path("a.png")).with_vision())
    ctx.add(ToolRequest.of([ToolCall("c1", "ls", {"path": "abcdefgh"})], id="q1"))
    ctx.add(ToolResultRecord.success("c1", "", id="r1"))
    ctx.approve("c1")
    with pytest.raises(ValidationError):
        ctx.to_chat_messages(max_tokens=765)
    assert len(ctx.to_chat_messages(max_tokens=800)) == 3


# --- properties -------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(st.lists(any_record, max_size=8), st.data())
def test_any_records_render_in_valid_order_or_fail_cleanly(records: list[Any], data: st.DataObject) -> None:
    logging.getLogger("agentmsg.context").disabled = True
    ctx = ConversationContext(plan_prompt="p", act_prompt="a")
    for record in records:
        try:
            ctx.add(record)
        except ValidationError as err:
            assert err.code == "unique"
    for record in ctx.records:
        if isinstance(record, ToolRequest) and data.draw(st.booleans()):
            for item in record.calls:
                ctx.deny(item.call.id)
    try:
        messages = ctx.to_chat_messages(max_tokens=data.draw(st.none() | st.integers(min_value=1, max_value=2000)))
    except (ValidationError, ConversationOrderError):
        return
    finally:
        logging.getLogger("agentmsg.context").disabled = False
    history = ConversationHistory.from_list([m.to_dict() for m in messages], require_system=False)
    assert history.messages == messages
    assert sum(m.role == 0 for m in messages) <= 1  # one system message at most


def test_repr_shows_no_content() -> None:
    ctx = new_context()
    ctx.add(user("very secret", "t1"))
    assert repr(ctx) == "ConversationContext(mode='act', branch='main', branches=1, records=1, dirty=1)"
