"""The session reducer: the history it builds, and the events it refuses without changing anything."""

import itertools
import threading
from typing import Any, Callable

import jsonschema
import pytest

from agentmsg import ValidationError, json_schema
from agentmsg.events import (
    ChatCancel,
    ChatInit,
    ChatInitRequest,
    ChatRequest,
    Completion,
    MessageChunk,
    MessageEnd,
    MessageStart,
    Progress,
    ReasoningChunk,
    ReasoningEnd,
    ReasoningStart,
    SessionReducer,
    ToolApprovalRequest,
    ToolApprovalResponse,
    ToolArtifact,
    ToolMessageComplete,
    ToolMessageStart,
    ToolMessageUpdate,
    TurnStart,
    UserEntry,
    decode,
    encode,
)

T0, T1, T2, T3, T4 = (f"2024-05-01T12:00:0{i}.000Z" for i in range(5))
HISTORY_ENTRY = jsonschema.Draft202012Validator(json_schema("history_entry"))
EVENT = jsonschema.Draft202012Validator(json_schema("event"))


def _clock() -> Callable[[], str]:
    counter = itertools.count()
    return lambda: f"2024-05-01T13:00:{next(counter):02d}.000Z"


def _state(session: SessionReducer) -> tuple[Any, ...]:
    return (session.history(), session.artifacts, session.turn_open, session.progress, session.completion)


def _tool_start(id: str = "t1") -> ToolMessageStart:
    return ToolMessageStart(
        id=id, tool_name="weather", title="Checking the weather", progress_text="Calling the API", timestamp=T1
    )


def _turn() -> SessionReducer:
    """A turn: a question, streamed text, a tool with two artifacts, a final answer."""
    session = SessionReducer(clock=_clock())
    for event in [
        ChatRequest(message="Weather in Paris?", conversation_id="s1"),
        MessageStart(id="m1"),
        MessageChunk(id="m1", chunk="Let me "),
        MessageChunk(id="m1", chunk="check."),
        _tool_start(),
        ToolMessageUpdate(id="t1", patch={"progressText": "Parsing", "content": "18 C"}),  # type: ignore[arg-type]
        ToolArtifact(message_id="t1", artifact={"id": "a1", "type": "chart", "points": [1, 2]}),  # type: ignore[arg-type]
        ToolArtifact(message_id="t1", artifact={"id": "a2", "type": "table"}, show_in_canvas=True),  # type: ignore[arg-type]
        Progress(status="running", progress=80, message="Almost"),
        ToolMessageComplete(id="t1", status="completed", timestamp=T2),
        MessageStart(id="m2", content="It is "),
        MessageChunk(id="m2", chunk="18 C and sunny."),
        Completion.ok({"answer": "18 C"}, final_artifact_id="a1"),
    ]:
        session.apply(event)
    return session


def test_a_turn_gives_exactly_the_protocol_history() -> None:
    session = _turn()
    assert session.history() == [
        {"role": "user", "content": "Weather in Paris?", "timestamp": "2024-05-01T13:00:00.000Z"},
        {
            "id": "m1", "role": "assistant", "kind": "chat", "content": "Let me check.",
            "timestamp": "2024-05-01T13:00:01.000Z",
        },
        {
            "id": "t1", "role": "assistant", "kind": "tool", "status": "completed", "toolName": "weather",
            "title": "Checking the weather", "content": "18 C", "progressText": "Parsing",
            "timestamp": T1, "completedAt": T2, "artifactIds": ["a1", "a2"],
        },
        {
            "id": "m2", "role": "assistant", "kind": "chat", "content": "It is 18 C and sunny.",
            "timestamp": "2024-05-01T13:00:02.000Z",
        },
    ]
    assert [a["id"] for a in session.artifacts] == ["a1", "a2"]
    assert session.turn_open is False
    assert session.completion == Completion.ok({"answer": "18 C"}, final_artifact_id="a1")
    assert session.progress == Progress(status="running", progress=80, message="Almost")
    for entry in session.history():
        HISTORY_ENTRY.validate(entry)


def test_chat_init_reply_resumes_the_session() -> None:
    session = _turn()
    name, payload = encode(session.to_init())
    EVENT.validate({"event": name, "payload": payload})
    assert payload["status"] == "success" and payload["messages"] == session.history()
    assert payload["artifacts"][0] == {"id": "a1", "type": "chart", "points": [1, 2]}
    resumed = SessionReducer(decode(name, payload, sender="server"), clock=_clock())  # type: ignore[arg-type]
    assert resumed.history() == session.history() and resumed.artifacts == session.artifacts
    # The resumed session keeps going: chunks to an old chat message, artifacts to an old tool message.
    resumed.apply(MessageChunk(id="m2", chunk=" Enjoy!"))
    resumed.apply(ToolArtifact(message_id="t1", artifact={"id": "a3"}))  # type: ignore[arg-type]
    assert resumed.history()[3]["content"] == "It is 18 C and sunny. Enjoy!"
    assert resumed.history()[2]["artifactIds"] == ["a1", "a2", "a3"]
    assert session.history()[3]["content"] == "It is 18 C and sunny."


def test_new_session_init_is_empty() -> None:
    assert encode(SessionReducer().to_init()) == ("chat:init", {"status": "success", "messages": [], "artifacts": []})


def test_applying_chat_init_replaces_the_state() -> None:
    session = _turn()
    session.apply(ChatInit())
    assert session.history() == [] and session.artifacts == () and session.completion is None


def test_join_changes_nothing() -> None:
    session = _turn()
    before = _state(session)
    session.apply(ChatInitRequest(session_id="s1"))
    assert _state(session) == before


def test_artifact_sent_again_replaces_it_in_place() -> None:
    session = _turn()
    session.apply(ToolArtifact(message_id="t1", artifact={"id": "a1", "type": "chart", "points": [3]}))  # type: ignore[arg-type]
    assert session.artifacts[0] == {"id": "a1", "type": "chart", "points": (3,)}
    assert session.history()[2]["artifactIds"] == ["a1", "a2"]


def test_patch_status_moves_between_pending_and_running() -> None:
    session = SessionReducer(clock=_clock())
    session.apply(_tool_start())
    session.apply(ToolMessageUpdate(id="t1", patch={"status": "pending"}))  # type: ignore[arg-type]
    assert session.history()[0]["status"] == "pending"
    session.apply(ToolMessageComplete(id="t1", status="error", timestamp=T3))
    assert session.history()[0]["status"] == "error" and session.history()[0]["completedAt"] == T3


# -- refusals: each raises a clear error and leaves the state exactly as it was -------------------


def _started() -> SessionReducer:
    session = SessionReducer(clock=_clock())
    session.apply(ChatRequest(message="Hi"))
    session.apply(MessageStart(id="m1"))
    session.apply(MessageChunk(id="m1", chunk="Hel"))
    session.apply(_tool_start("t1"))
    session.apply(ToolArtifact(message_id="t1", artifact={"id": "a1"}))  # type: ignore[arg-type]
    session.apply(_tool_start("t2"))
    session.apply(ToolMessageComplete(id="t2", status="completed", timestamp=T2))
    return session


REFUSED = {
    "chunk_never_started": (MessageChunk(id="m9", chunk="x"), "id", "unknown", "never started"),
    "chunk_for_tool_message": (MessageChunk(id="t1", chunk="x"), "id", "protocol", "chat message"),
    "update_unknown_id": (
        ToolMessageUpdate(id="t9", patch={"content": "x"}), "id", "unknown", "never started"  # type: ignore[arg-type]
    ),
    "update_chat_message": (
        ToolMessageUpdate(id="m1", patch={"content": "x"}), "id", "protocol", "tool message"  # type: ignore[arg-type]
    ),
    "update_after_completion": (
        ToolMessageUpdate(id="t2", patch={"content": "x"}), "id", "protocol", "already completed"  # type: ignore[arg-type]
    ),
    "complete_unknown_id": (
        ToolMessageComplete(id="t9", status="completed", timestamp=T3), "id", "unknown", "never started"
    ),
    "complete_twice": (
        ToolMessageComplete(id="t2", status="error", timestamp=T3), "id", "protocol", "already completed"
    ),
    "complete_chat_message": (ToolMessageComplete(id="m1", status="completed", timestamp=T3), "id", "protocol", "tool"),
    "start_duplicate_chat": (MessageStart(id="t1"), "id", "unique", "already started"),
    "start_duplicate_tool": (_tool_start("m1"), "id", "unique", "already started"),
    "artifact_unknown_message": (
        ToolArtifact(message_id="t9", artifact={"id": "a2"}), "messageId", "unknown", "never started"  # type: ignore[arg-type]
    ),
    "artifact_on_chat_message": (
        ToolArtifact(message_id="m1", artifact={"id": "a2"}), "messageId", "protocol", "tool message"  # type: ignore[arg-type]
    ),
    "artifact_moved_to_other_message": (
        ToolArtifact(message_id="t2", artifact={"id": "a1"}), "artifact.id", "unique", "another message"  # type: ignore[arg-type]
    ),
    "final_artifact_unknown": (
        Completion.ok({}, final_artifact_id="a9"), "finalArtifactId", "unknown", "no artifact"
    ),
}


@pytest.mark.parametrize("case", REFUSED, ids=str)
def test_refused_event_leaves_state_unchanged(case: str) -> None:
    event, path, code, words = REFUSED[case]
    session = _started()
    before = _state(session)
    with pytest.raises(ValidationError, match=words) as info:
        session.apply(event)
    assert (info.value.path, info.value.code) == (path, code)
    assert _state(session) == before


def test_completion_twice_and_without_turn() -> None:
    session = SessionReducer(clock=_clock())
    with pytest.raises(ValidationError) as info:
        session.apply(Completion.ok({}))
    assert info.value.code == "protocol"
    session.apply(ChatRequest(message="Hi"))
    session.apply(Completion.failed("Sorry, no."))
    before = _state(session)
    with pytest.raises(ValidationError, match="already completed") as info:
        session.apply(Completion.ok({}))
    assert info.value.code == "protocol"
    assert _state(session) == before
    session.apply(ChatRequest(message="Again?"))  # a new turn may complete again
    session.apply(Completion.ok({}))
    assert session.completion == Completion.ok({})


@pytest.mark.parametrize("value", [-0.5, 100.01, 1e9, float("nan"), "50", True, None])
def test_progress_outside_range_is_refused_on_receive(value: Any) -> None:
    session = _started()
    session.apply(Progress(status="running", progress=10, message=""))
    before = _state(session)
    with pytest.raises(ValidationError) as info:
        session.receive("progress", {"status": "running", "progress": value, "message": ""})
    assert info.value.path == "progress" and info.value.code in ("value", "type", "missing")
    assert _state(session) == before


def test_receive_decodes_applies_and_returns() -> None:
    session = SessionReducer(clock=_clock())
    event = session.receive("chat:send", {"message": "Hi"})
    assert event == ChatRequest(message="Hi") and session.turn_open
    with pytest.raises(ValidationError) as info:
        session.receive("thought:update", {"id": "x"})
    assert info.value.code == "removed"
    assert len(session.history()) == 1


def test_a_bad_clock_is_refused_before_any_change() -> None:
    session = SessionReducer(clock=lambda: "noon")
    with pytest.raises(ValidationError) as info:
        session.apply(ChatRequest(message="Hi"))
    assert (info.value.path, info.value.code) == ("clock", "pattern")
    assert session.history() == [] and not session.turn_open


def test_apply_refuses_non_events() -> None:
    with pytest.raises(ValidationError) as info:
        SessionReducer().apply({"id": "m1"})  # type: ignore[arg-type]
    assert info.value.code == "type"


def test_long_stream_of_chunks() -> None:
    session = SessionReducer(clock=_clock())
    session.apply(MessageStart(id="m1"))
    for i in range(20_000):
        session.apply(MessageChunk(id="m1", chunk=str(i % 10)))
        if i % 5_000 == 0:
            assert session.messages[0].content == "".join(str(j % 10) for j in range(i + 1))
    assert session.history()[0]["content"] == "0123456789" * 2_000


def test_threads_apply_to_one_session() -> None:
    session = SessionReducer(clock=_clock())
    for t in range(8):
        session.apply(MessageStart(id=f"m{t}"))

    def stream(t: int) -> None:
        for _ in range(500):
            session.apply(MessageChunk(id=f"m{t}", chunk="x"))
            session.messages  # reads fold chunks while other threads append

    threads = [threading.Thread(target=stream, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [entry["content"] for entry in session.history()] == ["x" * 500] * 8


def test_a_clients_chat_init_cannot_pass_for_the_servers_reply():
    """Security item 7: a client's chat:init with a status key must not wipe the session history."""
    server = SessionReducer(clock=_clock())
    server.receive("chat:send", {"message": "hello"})
    server.receive("message:start", {"id": "m1", "role": "assistant", "content": "Hi"})
    before = _state(server)
    forged = {"status": "success", "messages": [], "artifacts": []}
    with pytest.raises(ValidationError) as info:
        server.receive("chat:init", forged)
    assert (info.value.path, info.value.code) == ("status", "protocol")
    assert _state(server) == before
    # a client that says it is a client only joins a room, whatever keys it adds
    assert server.receive("chat:init", forged, sender="client") == ChatInitRequest()
    assert _state(server) == before
    # a client's mirror loads the server's reply only when it says the payload is the server's
    mirror = SessionReducer(clock=_clock())
    mirror.receive(*encode(server.to_init()), sender="server")
    assert mirror.history() == server.history()
    with pytest.raises(TypeError):
        decode("chat:init", {}, sender="someone")


# -- turns, message ends, reasoning, approvals, entry ids --------------------------------


def _state2(session: SessionReducer) -> tuple[Any, ...]:
    return (*_state(session), session.turn_id, session.awaiting_approval)


def _new_protocol_turn() -> SessionReducer:
    """A turn of the new protocol: turn:start, reasoning, a text message that ends, an approval."""
    ids = iter(["u1", "u2", "u3"])
    session = SessionReducer(clock=_clock(), new_id=lambda: next(ids))
    for event in [
        ChatRequest(message="Delete the pancakes", conversation_id="s1"),
        TurnStart(turn_id="turn_1", session_id="s1"),
        ReasoningStart(id="r1"),
        ReasoningChunk(id="r1", chunk="They want a deletion."),
        ReasoningEnd(id="r1"),
        MessageStart(id="m1"),
        MessageChunk(id="m1", chunk="Deleting."),
        MessageEnd(id="m1"),
        ToolMessageStart(id="t1", tool_name="delete_recipe", title="Calling delete_recipe", status="pending",
                         timestamp=T1, arguments={"name": "Pancakes"}, tool_call_id="toolu_1"),  # type: ignore[arg-type]
        ToolApprovalRequest(id="t1", turn_id="turn_1", tool_name="delete_recipe", arguments={"name": "Pancakes"}),  # type: ignore[arg-type]
    ]:
        session.apply(event)
    return session


def test_new_protocol_turn_history_and_round_trip() -> None:
    session = _new_protocol_turn()
    assert session.turn_open and session.turn_id == "turn_1"
    assert session.awaiting_approval == ("t1",)
    session.apply(ToolApprovalResponse(session_id="s1", id="t1", approved=False, reason="keep them"))
    assert session.awaiting_approval == ()
    session.apply(ToolMessageComplete(id="t1", status="error", timestamp=T2, error="The user denied this tool call."))
    session.apply(Completion.ok({"steps": 1}, turn_id="turn_1"))
    assert not session.turn_open and session.turn_id == "turn_1"
    history = session.history()
    assert history[0] == {"id": "u1", "role": "user", "content": "Delete the pancakes",
                          "timestamp": "2024-05-01T13:00:00.000Z"}
    assert [entry.get("id") for entry in history] == ["u1", "m1", "t1"]  # reasoning is not history
    tool = history[2]
    assert (tool["arguments"], tool["toolCallId"], tool["error"], tool["status"]) == (
        {"name": "Pancakes"}, "toolu_1", "The user denied this tool call.", "error")
    for entry in history:
        HISTORY_ENTRY.validate(entry)
    name, payload = encode(session.to_init())
    EVENT.validate({"event": name, "payload": payload})
    again = decode(name, payload, sender="server")
    assert encode(again)[1] == payload  # the snapshot round-trips, ids and tool fields included
    resumed = SessionReducer(again, clock=_clock(), new_id=lambda: "u2")
    resumed.apply(ChatRequest(message="And the omelette?"))
    assert resumed.history()[-1]["id"] == "u2"
    with pytest.raises(ValidationError) as info:
        SessionReducer(again, clock=_clock(), new_id=lambda: "m1").apply(ChatRequest(message="x"))
    assert (info.value.path, info.value.code) == ("id", "unique")


def test_user_entries_have_no_id_without_new_id() -> None:
    session = SessionReducer(clock=_clock())
    session.apply(ChatRequest(message="Hi"))
    assert session.history() == [{"role": "user", "content": "Hi", "timestamp": "2024-05-01T13:00:00.000Z"}]
    assert session.messages[0] == UserEntry(content="Hi", timestamp="2024-05-01T13:00:00.000Z")


def test_turn_start_alone_opens_a_turn_and_completion_names_it() -> None:
    session = SessionReducer(clock=_clock())
    session.apply(TurnStart(turn_id="turn_9"))
    assert session.turn_open and session.history() == []
    session.apply(Completion.failed("stopped", code="cancelled", cancelled=True, turn_id="turn_9"))
    assert not session.turn_open and session.completion is not None and session.completion.cancelled
    session.apply(TurnStart(turn_id="turn_10"))  # the next turn
    assert session.turn_id == "turn_10"


def test_old_streams_without_the_new_events_stay_valid() -> None:
    """A server that never sends message:end may complete with a message open, as before."""
    session = SessionReducer(clock=_clock())
    for event in [ChatRequest(message="Hi"), MessageStart(id="m1"), MessageChunk(id="m1", chunk="Hello"),
                  Completion.ok({}), ChatRequest(message="Again"), MessageStart(id="m2"), Completion.ok({})]:
        session.apply(event)
    assert [e["content"] for e in session.history()] == ["Hi", "Hello", "Again", ""]


def test_once_message_end_was_seen_every_message_must_end() -> None:
    session = SessionReducer(clock=_clock())
    for event in [ChatRequest(message="Hi"), MessageStart(id="m1"), MessageEnd(id="m1"), MessageStart(id="m2"),
                  MessageChunk(id="m2", chunk="x")]:
        session.apply(event)
    before = _state2(session)
    with pytest.raises(ValidationError, match="message:end first") as info:
        session.apply(Completion.ok({}))
    assert info.value.code == "protocol" and _state2(session) == before
    session.apply(MessageEnd(id="m2"))
    session.apply(Completion.ok({}))


def _open_turn_reasoning_closed() -> SessionReducer:
    session = SessionReducer(clock=_clock())
    for event in [
        ChatRequest(message="Hi"),
        TurnStart(turn_id="turn_1"),
        MessageStart(id="m1"),
        MessageChunk(id="m1", chunk="Hel"),
        MessageStart(id="m2"),
        MessageEnd(id="m2"),
        ReasoningStart(id="r1"),
        ReasoningEnd(id="r1"),
        ToolMessageStart(id="t1", tool_name="x", title="", status="running", timestamp=T1),
        ToolMessageStart(id="t2", tool_name="x", title="", status="pending", timestamp=T1),
        ToolApprovalRequest(id="t2", turn_id="turn_1", tool_name="x", arguments={}),  # type: ignore[arg-type]
        ToolMessageStart(id="t3", tool_name="x", title="", status="pending", timestamp=T1),
        ReasoningStart(id="r2"),
    ]:
        session.apply(event)
    return session


REFUSED_15 = {
    "second_turn_start": (TurnStart(turn_id="turn_2"), "turnId", "protocol", "already running"),
    "completion_other_turn": (Completion.ok({}, turn_id="turn_2"), "turnId", "protocol", "another turn"),
    "completion_with_open_reasoning": (Completion.ok({}, turn_id="turn_1"), "", "protocol", "reasoning:end first"),
    "chunk_after_end": (MessageChunk(id="m2", chunk="x"), "id", "protocol", "already ended"),
    "end_twice": (MessageEnd(id="m2"), "id", "protocol", "already ended"),
    "end_unknown": (MessageEnd(id="m9"), "id", "unknown", "never started"),
    "end_tool_message": (MessageEnd(id="t1"), "id", "protocol", "not a tool message"),
    "chunk_while_reasoning": (MessageChunk(id="m1", chunk="x"), "id", "protocol", "reasoning is open"),
    "start_while_reasoning": (MessageStart(id="m5"), "id", "protocol", "reasoning is open"),
    "tool_start_while_reasoning": (
        ToolMessageStart(id="t5", tool_name="x", title="", timestamp=T1), "id", "protocol", "reasoning is open"),
    "second_open_reasoning": (ReasoningStart(id="r3"), "id", "protocol", "reasoning is open"),
    "reasoning_id_reused": (ReasoningStart(id="r1"), "id", "unique", "already started"),
    "reasoning_id_is_a_message_id": (ReasoningStart(id="m1"), "id", "unique", "already started"),
    "message_id_is_a_reasoning_id": (MessageStart(id="r1"), "id", "unique", "already started"),
    "reasoning_chunk_unknown": (ReasoningChunk(id="r9", chunk="x"), "id", "unknown", "never started"),
    "reasoning_chunk_after_end": (ReasoningChunk(id="r1", chunk="x"), "id", "protocol", "already ended"),
    "reasoning_end_twice": (ReasoningEnd(id="r1"), "id", "protocol", "already ended"),
    "approval_request_running_tool": (
        ToolApprovalRequest(id="t1", turn_id="turn_1", tool_name="x", arguments={}), "id", "protocol", "pending"),  # type: ignore[arg-type]
    "approval_request_unknown": (
        ToolApprovalRequest(id="t9", turn_id="turn_1", tool_name="x", arguments={}), "id", "unknown", "never started"),  # type: ignore[arg-type]
    "approval_request_chat_message": (
        ToolApprovalRequest(id="m1", turn_id="turn_1", tool_name="x", arguments={}), "id", "protocol", "tool message"),  # type: ignore[arg-type]
    "approval_request_other_turn": (
        ToolApprovalRequest(id="t3", turn_id="turn_2", tool_name="x", arguments={}), "turnId", "protocol", "another turn"),  # type: ignore[arg-type]
    "approval_response_not_requested": (
        ToolApprovalResponse(session_id="s1", id="t3", approved=True), "id", "protocol", "no approval is outstanding"),
    "approval_response_unknown": (
        ToolApprovalResponse(session_id="s1", id="t9", approved=True), "id", "unknown", "never started"),
    "cancel_other_turn": (ChatCancel(session_id="s1", turn_id="turn_2"), "turnId", "protocol", "another turn"),
}


@pytest.mark.parametrize("case", REFUSED_15, ids=str)
def test_refused_new_events_leave_state_unchanged(case: str) -> None:
    event, path, code, words = REFUSED_15[case]
    session = _open_turn_reasoning_closed()
    if case not in ("completion_with_open_reasoning", "chunk_while_reasoning", "start_while_reasoning",
                    "tool_start_while_reasoning", "second_open_reasoning"):
        session.apply(ReasoningEnd(id="r2"))
    before = _state2(session)
    with pytest.raises(ValidationError, match=words) as info:
        session.apply(event)
    assert (info.value.path, info.value.code) == (path, code)
    assert _state2(session) == before


def test_approval_response_once_and_cleared_by_progress() -> None:
    session = _open_turn_reasoning_closed()
    session.apply(ReasoningEnd(id="r2"))
    assert session.awaiting_approval == ("t2",)
    session.apply(ToolApprovalResponse(session_id="s1", id="t2", approved=True))
    with pytest.raises(ValidationError, match="no approval is outstanding"):
        session.apply(ToolApprovalResponse(session_id="s1", id="t2", approved=True))
    session.apply(ToolApprovalRequest(id="t3", turn_id="turn_1", tool_name="x", arguments={}))  # type: ignore[arg-type]
    session.apply(ToolMessageUpdate(id="t3", patch={"status": "running"}))  # type: ignore[arg-type]
    assert session.awaiting_approval == ()  # the call runs: nothing waits any more


def test_cancel_needs_a_running_turn() -> None:
    session = SessionReducer(clock=_clock())
    with pytest.raises(ValidationError, match="needs a running turn") as info:
        session.apply(ChatCancel(session_id="s1"))
    assert info.value.code == "protocol"
    session.apply(ChatRequest(message="Hi"))
    session.apply(ChatCancel(session_id="s1", turn_id="any"))  # the turn has no id yet: nothing to compare
    session.apply(TurnStart(turn_id="turn_1"))
    session.apply(ChatCancel(session_id="s1", turn_id="turn_1"))
    assert session.turn_open  # a cancel changes nothing; the server's completion closes the turn
