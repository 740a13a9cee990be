"""A history rebuilt from the store (``events.restore``) equals the live one, and an interrupted turn is closed.

Offline: a scripted model, a ``ToolRegistry``, SQLite in memory. The server's end-to-end tests
(tests/test_web_chat_restart.py) prove the same through real processes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentmsg import ChatMessage, ConversationHistory, ToolCall
from agentmsg.agent import AgentTurn
from agentmsg.events import (
    ChatRequest,
    ImageAttachment,
    SessionReducer,
    close_interrupted,
    encode,
    restore,
)
from agentmsg.events.journal import INTERRUPTED_ANSWER, INTERRUPTED_RESULT
from agentmsg.io.execution import ApprovalPolicy, ToolRegistry
from agentmsg.io.store import MessageStore
from agentmsg.providers import openai

PNG = "iVBORw0KGgoAAAANSUhEUg=="
PARAMS = {"model": "gpt-4o", "stream": True}


def openai_stream(text: str, calls: list[tuple[str, str, dict[str, Any]]]) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": piece + " "}) for piece in text.split(" ")] if text else []
    for i, (call_id, name, args) in enumerate(calls):
        out.append(chunk({"tool_calls": [{"index": i, "id": call_id, "type": "function",
                                          "function": {"name": name, "arguments": json.dumps(args)}}]}))
    out.append(chunk({}, "tool_calls" if calls else "stop"))
    return out


def registry() -> ToolRegistry:
    tools = ToolRegistry()

    @tools.register(safe=True)
    def list_recipes() -> str:
        """List the recipes."""
        return "Pancakes\nOmelette"

    return tools


def recipes_model(body: dict[str, Any]) -> Any:
    if body["messages"][-1]["role"] == "tool":
        return iter(openai_stream("You have Pancakes and Omelette.", []))
    return iter(openai_stream("Let me look.", [("call_1", "list_recipes", {})]))


class Live:
    """A server's view: the reducer fed with the chat:send echo and every event of the turn."""

    def __init__(self, store: MessageStore) -> None:
        self.store = store
        self.reducer = SessionReducer()
        self.history = ConversationHistory([ChatMessage.system("You are a cook.")])
        self.n = 0

    def turn(self, text: str, model: Any, *, image: ImageAttachment | None = None,
             policy: ApprovalPolicy | None = None) -> AgentTurn:
        self.n += 1
        request = ChatRequest(message=text, image=image, id=f"user_{self.n}", timestamp=f"2024-05-01T12:00:0{self.n}.000Z")
        self.reducer.apply(request)
        turn = AgentTurn(openai, self.history, request, tools=registry(), policy=policy or ApprovalPolicy(default="auto"),
                         params=PARAMS, on_event=self.reducer.apply, store=self.store, conversation_id="c1")
        if model is not None:
            turn.run(model)
        return turn

    def restored(self) -> list[dict[str, Any]]:
        return encode(restore(self.store.load_with_meta("c1")))[1]["messages"]  # type: ignore[no-any-return]

    def live(self) -> list[dict[str, Any]]:
        return self.reducer.history()


@pytest.fixture
def live() -> Any:
    with MessageStore(":memory:") as store:
        yield Live(store)


def test_message_ids_change_across_a_restart(live: Live) -> None:
    """The restored history equals the live one entry for entry: ids, titles, timestamps, image, artifacts."""
    live.turn("What recipes do I have?", recipes_model, image=ImageAttachment(data=PNG, media_type="image/png"))
    live.turn("Thanks!", lambda body: iter(openai_stream("You are welcome.", [])))
    history = live.live()
    assert [(e["role"], e.get("kind")) for e in history] == [
        ("user", None), ("assistant", "chat"), ("assistant", "tool"), ("assistant", "chat"), ("user", None),
        ("assistant", "chat")]
    assert history[0]["id"] == "user_1" and history[0]["image"] == f"data:image/png;base64,{PNG}"
    assert history[2]["title"] == "Calling list_recipes" and history[2]["id"] != "call_1"
    assert not any(e["id"].startswith("stored_") or e["timestamp"].startswith("1970") for e in history)
    assert live.restored() == history


def test_a_failed_turn_keeps_its_partial_answer_and_its_completion(live: Live) -> None:
    def breaks(body: dict[str, Any]) -> Any:
        def events() -> Any:
            yield from openai_stream("half an answer", [])[:3]
            raise TimeoutError("read timed out")

        return events()

    live.turn("Hi", breaks)
    history = live.live()
    assert history[0]["completion"]["code"] == "model" and history[1]["content"] == "half an "
    assert live.restored() == history


def test_a_denied_call_and_a_cancel_restore_as_they_were_seen(live: Live) -> None:
    turn = live.turn("What recipes do I have?", recipes_model, policy=ApprovalPolicy(default="ask"))
    assert turn.state == "approval"
    turn.cancel("stopped by the user")
    history = live.live()
    assert history[0]["completion"]["code"] == "cancelled" and history[-1]["status"] == "error"
    assert live.restored() == history


def test_an_interrupted_turn_is_left_half_stored_and_unmarked(live: Live) -> None:
    """A turn whose process died (here: its tool call never answered) is closed, marked, and the next turn is valid."""
    turn = live.turn("What recipes do I have?", recipes_model, policy=ApprovalPolicy(default="ask"))
    assert turn.state == "approval"  # the process dies here: nothing more is stored
    stored = live.store.load_with_meta("c1")
    seen = live.live()
    closing = close_interrupted(stored)
    assert [m.role.name for m, _ in closing] == ["TOOL", "ASSISTANT"]
    assert closing[0][0].text == INTERRUPTED_RESULT and closing[1][0].text == INTERRUPTED_ANSWER
    live.store.save_many("c1", [m for m, _ in closing], meta=[meta for _, meta in closing])
    assert close_interrupted(live.store.load_with_meta("c1")) == []  # closed once
    restored = live.restored()
    assert [e["id"] for e in restored] == [e["id"] for e in seen]  # the same entries, ids included
    assert restored[0]["completion"] == {"success": False, "error": "the turn was interrupted: the server stopped before it ended",
                                         "code": "interrupted", "turnId": turn.id}
    assert restored[-1]["status"] == "error" and restored[-1]["error"] == INTERRUPTED_RESULT
    # the next turn starts from a valid conversation: the model sees the closed exchange, then the new question
    messages = [m for m, _ in live.store.load_with_meta("c1")]
    history = ConversationHistory([ChatMessage.system("s"), *messages])
    history.validate()
    seen_bodies: list[dict[str, Any]] = []

    def model(body: dict[str, Any]) -> Any:
        seen_bodies.append(body)
        return iter(openai_stream("Hello again.", []))

    AgentTurn(openai, history, "Hello?", params=PARAMS).run(model)
    roles = [m["role"] for m in seen_bodies[0]["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert seen_bodies[0]["messages"][-2]["content"] == INTERRUPTED_ANSWER


def test_a_user_message_left_alone_is_closed_and_an_ended_turn_is_not() -> None:
    assert close_interrupted([]) == []
    alone = [(ChatMessage.user("Hi"), None)]
    assert [m.text for m, _ in close_interrupted(alone)] == [INTERRUPTED_ANSWER]
    answered = [(ChatMessage.user("Hi"), None), (ChatMessage.assistant("Hello"), None)]
    assert close_interrupted(answered) == []
    failed = [(ChatMessage.user("Hi"), {"completion": {"success": False, "error": "x", "code": "model"}})]
    assert close_interrupted(failed) == []


def test_rows_without_meta_load_with_the_old_fallback() -> None:
    stored = [(ChatMessage.user("Hi"), None),
              (ChatMessage.assistant("Looking.", tool_calls=[ToolCall("call_1", "list_recipes", {})]), None),
              (ChatMessage.tool("call_1", "boom", is_error=True), None)]
    entries = encode(restore(stored))[1]["messages"]
    assert [(e["id"], e["timestamp"]) for e in entries] == [
        ("stored_0", "1970-01-01T00:00:00Z"), ("stored_1", "1970-01-01T00:00:00Z"), ("call_1", "1970-01-01T00:00:00Z")]
    assert (entries[2]["title"], entries[2]["status"], entries[2]["error"]) == ("list_recipes", "error", "boom")


def test_events_the_reducer_refuses_are_left_out() -> None:
    stored = [(ChatMessage.user("Hi"), {"events": [["chat:send", {"id": "u1", "timestamp": "2024-05-01T12:00:00Z"}],
                                                   ["tool:message:update", {"id": "nope", "patch": {"content": "x"}}],
                                                   "not a pair"]})]
    assert [e["id"] for e in encode(restore(stored))[1]["messages"]] == ["u1"]


def test_a_draft_kept_before_chunks_are_sent_survives_a_kill(live: Live) -> None:
    """What a server kept with ``unsaved_events`` before sending chunks is in the history after the process died."""
    turns: list[AgentTurn] = []

    def dies_mid_answer(body: dict[str, Any]) -> Any:
        if body["messages"][-1]["role"] != "tool":
            return recipes_model(body)

        def events() -> Any:
            stream = openai_stream("You have Pancakes and Omelette.", [])
            yield from stream[:3]
            live.store.annotate("c1", {"draft": turns[0].unsaved_events()})  # what the server does before sending
            raise KeyboardInterrupt  # the process dies here: nothing below runs

        return events()

    turns.append(live.turn("What recipes do I have?", None))
    with pytest.raises(KeyboardInterrupt):
        turns[0].run(dies_mid_answer)
    seen = live.live()
    assert seen[-1]["kind"] == "chat" and seen[-1]["content"] == "You have "
    assert live.restored() == seen  # while the turn is open (another process may look), the draft shows
    closing = close_interrupted(live.store.load_with_meta("c1"))
    assert [(m.role.name, m.text) for m, _ in closing] == [("ASSISTANT", "You have ")]
    live.store.save_many("c1", [m for m, _ in closing], meta=[meta for _, meta in closing])
    restored = live.restored()
    assert [(e["id"], e["content"]) for e in restored] == [(e["id"], e["content"]) for e in seen]
    assert restored[0]["completion"]["code"] == "interrupted"
    late = {"draft": [["message:start", {"id": seen[-1]["id"], "role": "assistant", "content": ""}],
                      ["message:chunk", {"id": seen[-1]["id"], "chunk": "You have "}]]}
    live.store.annotate("c1", late)  # a draft written after its message was saved is not read twice
    assert live.restored() == restored


def test_the_reducer_takes_the_echo_s_id_time_and_image_and_marks_failed_turns() -> None:
    from agentmsg.errors import ValidationError
    from agentmsg.events import Completion, MessageStart, TurnStart

    reducer = SessionReducer(clock=lambda: "2024-05-01T13:00:00.000Z", new_id=lambda: "from_new_id")
    image = ImageAttachment(data=PNG, media_type="image/png")
    reducer.apply(ChatRequest(message="Look", image=image, id="user_1", timestamp="2024-05-01T12:00:00.000Z"))
    reducer.apply(TurnStart(turn_id="turn_1"))
    reducer.apply(MessageStart(id="m1", timestamp="2024-05-01T12:00:01.000Z"))
    reducer.apply(Completion.ok({}, turn_id="turn_1"))
    reducer.apply(ChatRequest(message="Again"))  # no echo fields: new_id and the clock, as before
    reducer.apply(Completion.failed("Stopped.", code="cancelled", cancelled=True))
    with pytest.raises(ValidationError) as info:
        reducer.apply(ChatRequest(message="Dup", id="m1"))
    assert (info.value.path, info.value.code) == ("id", "unique")
    history = reducer.history()
    assert history[0] == {"id": "user_1", "role": "user", "content": "Look", "timestamp": "2024-05-01T12:00:00.000Z",
                          "image": f"data:image/png;base64,{PNG}"}  # a turn that succeeded is not marked
    assert history[1]["timestamp"] == "2024-05-01T12:00:01.000Z"
    assert (history[2]["id"], history[2]["timestamp"]) == ("from_new_id", "2024-05-01T13:00:00.000Z")
    assert history[2]["completion"] == {"success": False, "error": "Stopped.", "code": "cancelled", "cancelled": True}
