"""ConversationHistory order rules and ToolCallAccumulator joining."""

import threading

import pytest

from agentmsg import (
    ChatMessage,
    ConversationHistory,
    ConversationOrderError,
    ToolCall,
    ToolCallAccumulator,
    ToolCallDelta,
    ValidationError,
)

SYS = ChatMessage.system("Be brief.")
USER = ChatMessage.user("Hi")
ASSIST = ChatMessage.assistant("Hello")
CALLS = ChatMessage.assistant("Checking.", [ToolCall("a", "f", {}), ToolCall("b", "g", {})])


def tool(call_id: str) -> ChatMessage:
    return ChatMessage.tool(call_id, "ok")


VALID_ORDERS = [
    [USER],
    [SYS, USER, ASSIST, USER, ASSIST],
    [USER, CALLS, tool("b"), tool("a"), ASSIST],
    [SYS, USER, CALLS, tool("a"), tool("b"), USER, ASSIST],  # user text after tool results
    [USER, CALLS, tool("a"), tool("b"), CALLS, tool("a"), tool("b"), ASSIST],
]


@pytest.mark.parametrize("messages", VALID_ORDERS)
def test_valid_orders(messages: list[ChatMessage]) -> None:
    has_system = messages[0] is SYS
    history = ConversationHistory(messages, require_system=has_system)
    history.validate()
    assert history.messages == tuple(messages) and len(history) == len(messages)
    assert list(history) == messages and history.last_message == messages[-1]
    again = ConversationHistory.from_list(history.to_list(), require_system=has_system)
    assert again.messages == history.messages


@pytest.mark.parametrize("messages", [m for m in VALID_ORDERS if m[0] is not SYS])
def test_the_system_message_is_required_by_default(messages: list[ChatMessage]) -> None:
    """AC-105: the first message is the system message unless the caller opts out."""
    for build in (ConversationHistory, lambda ms: ConversationHistory.from_list([m.to_dict() for m in ms])):
        with pytest.raises(ConversationOrderError) as info:
            build(messages)
        assert (info.value.code, info.value.index) == ("system_first", 0)
    history = ConversationHistory([SYS, *messages])
    assert history.require_system and len(history) == len(messages) + 1
    with pytest.raises(TypeError):
        ConversationHistory(require_system=None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "messages, code, rule",
    [
        ([USER, SYS], "system_first", "system message must come first"),
        ([SYS, SYS], "system_first", "system message must come first"),
        ([ASSIST], "user_first", "the user must speak first"),
        ([SYS, ASSIST], "user_first", "the user must speak first"),
        ([USER, USER], "alternate", "user and assistant messages must alternate"),
        ([USER, ASSIST, ASSIST], "alternate", "user and assistant messages must alternate"),
        ([tool("a")], "tool_unknown", "tool message must answer a pending tool call"),
        ([USER, CALLS, USER], "tool_pending", "every tool call must be answered"),
        ([USER, CALLS, tool("a"), ASSIST], "tool_pending", "every tool call must be answered"),
        ([USER, CALLS, tool("zzz")], "tool_unknown", "tool message must answer a pending tool call: unknown"),
        ([USER, CALLS, tool("a"), tool("a")], "tool_unknown", "tool message must answer a pending tool call"),
        ([USER, ASSIST, tool("a")], "tool_unknown", "tool message must answer a pending tool call"),
        ([USER, CALLS, tool("a"), tool("b"), tool("a")], "tool_unknown", "tool message must answer"),
    ],
)
def test_order_violations(messages: list[ChatMessage], code: str, rule: str) -> None:
    history = ConversationHistory(require_system=False)
    for message in messages[:-1]:
        history.add(message)
    before = history.messages
    with pytest.raises(ConversationOrderError) as info:
        history.add(messages[-1])
    assert info.value.code == code and rule in str(info.value)
    assert info.value.index == len(messages) - 1
    assert history.messages == before  # a refused message changes nothing
    with pytest.raises(ConversationOrderError):
        ConversationHistory.from_list([m.to_dict() for m in messages], require_system=False)


def test_validate_reports_unanswered_calls_and_clear_resets() -> None:
    history = ConversationHistory([SYS, USER, CALLS, tool("a")])
    assert history.pending_tool_call_ids == {"b"}
    with pytest.raises(ConversationOrderError) as info:
        history.validate()
    assert info.value.code == "incomplete"
    history.clear()
    assert len(history) == 0 and history.last_message is None and history.messages == ()
    history.add(SYS)


def test_from_list_shape_errors_have_index_paths() -> None:
    with pytest.raises(ValidationError) as info:
        ConversationHistory.from_list(
            [{"role": "system", "content": "s"}, {"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [{"id": "c"}]}]
        )
    assert (info.value.path, info.value.code) == ("[2].tool_calls[0].name", "missing")


def test_from_list_raises_the_first_error_in_message_order_whatever_its_kind() -> None:
    docs = [SYS.to_dict(), USER.to_dict(), USER.to_dict(), {"role": "assistant"}]
    with pytest.raises(ConversationOrderError) as order:  # message 2 breaks the order before message 3's shape
        ConversationHistory.from_list(docs)
    assert (order.value.index, order.value.code) == (2, "alternate")
    docs = [SYS.to_dict(), {"role": "user"}, USER.to_dict(), USER.to_dict()]
    with pytest.raises(ValidationError) as shape:  # message 1's shape before message 3's order
        ConversationHistory.from_list(docs)
    assert (shape.value.path, shape.value.code) == ("[1].content", "missing")
    with pytest.raises(ConversationOrderError) as first:
        ConversationHistory.from_list([USER.to_dict(), ASSIST.to_dict()])
    assert (first.value.index, first.value.code) == (0, "system_first")
    with pytest.raises(ConversationOrderError) as later:
        ConversationHistory.from_list([SYS.to_dict(), USER.to_dict(), ASSIST.to_dict(), SYS.to_dict()])
    assert (later.value.index, later.value.code) == (3, "system_first")


@pytest.mark.parametrize("order", VALID_ORDERS)
def test_from_list_accepts_what_add_accepts_and_keeps_adding(order: list[ChatMessage]) -> None:
    history = ConversationHistory.from_list([message.to_dict() for message in order], require_system=False)
    assert history.messages == tuple(order) and history == ConversationHistory(order, require_system=False)
    history.validate()  # no call left waiting: the order state came through
    history.add(ChatMessage.user("More?") if order[-1].role.name == "ASSISTANT" else ASSIST)


def test_snapshot_is_immutable_and_stable() -> None:
    history = ConversationHistory([SYS, USER])
    snapshot = history.messages
    history.add(ASSIST)
    assert snapshot == (SYS, USER) and history.messages == (SYS, USER, ASSIST)
    assert isinstance(history.messages, tuple)


def test_threads_adding_keep_the_order_rules() -> None:
    history = ConversationHistory([SYS])
    errors: list[Exception] = []
    barrier = threading.Barrier(8)

    def worker() -> None:
        barrier.wait()
        for _ in range(200):
            try:
                with_lock = history
                last = with_lock.last_message
                with_lock.add(ASSIST if last is not None and last.role.name == "USER" else USER)
            except ConversationOrderError as exc:
                errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Whatever interleaving happened, what was accepted is a valid conversation.
    ConversationHistory.from_list(history.to_list()).validate()
    assert len(history) + len(errors) == 1 + 8 * 200


def test_accumulator_interleaved_parallel_calls() -> None:
    acc = ToolCallAccumulator()
    deltas = [
        ToolCallDelta(1, "call_b", "get_time", None),
        ToolCallDelta(0, "call_a", "get_weather", '{"ci'),
        ToolCallDelta(1, arguments_delta='{"tz": "UTC"}'),
        ToolCallDelta(0, arguments_delta='ty": "Paris"}'),
        ToolCallDelta(0, "call_a", None, None),  # the same id again is harmless
    ]
    for delta in deltas:
        acc.add(delta)
    calls = acc.finish()
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_a", "get_weather", {"city": "Paris"}),
        ("call_b", "get_time", {"tz": "UTC"}),
    ]
    assert len(acc) == 2


@pytest.mark.parametrize(
    "deltas, path, code",
    [
        ([ToolCallDelta(0, "a", "f"), ToolCallDelta(0, "b")], "tool_calls[0].id", "value"),
        ([ToolCallDelta(0, "a", "f"), ToolCallDelta(0, name="g")], "tool_calls[0].name", "value"),
        ([ToolCallDelta(0, name="f", arguments_delta="{}")], "tool_calls[0].id", "missing"),
        ([ToolCallDelta(0, "a", arguments_delta="{}")], "tool_calls[0].name", "missing"),
        ([ToolCallDelta(0, "a", "f", "[1]")], "tool_calls[0].arguments", "type"),
        ([ToolCallDelta(0, "a", "f", '{"x": ')], "tool_calls[0].arguments", "json"),
    ],
)
def test_accumulator_errors(deltas: list[ToolCallDelta], path: str, code: str) -> None:
    acc = ToolCallAccumulator()
    with pytest.raises(ValidationError) as info:
        for delta in deltas:
            acc.add(delta)
        acc.finish()
    assert (info.value.path, info.value.code) == (path, code)


def test_clear_after_an_unanswered_call_leaves_nothing_pending() -> None:
    """Guard: clear() resets the pending call ids, and the empty history validates."""
    history = ConversationHistory([SYS, USER, CALLS])
    assert history.pending_tool_call_ids == {"a", "b"}
    history.clear()
    assert history.pending_tool_call_ids == frozenset() and len(history) == 0
    history.validate()
    history.extend([SYS, USER, ASSIST])  # starts over from the first rule
    history.validate()


def test_history_pickles_copies_and_compares_by_messages() -> None:
    import copy
    import pickle

    history = ConversationHistory([SYS, USER, CALLS, tool("a")])
    for twin in (pickle.loads(pickle.dumps(history)), copy.copy(history), copy.deepcopy(history)):
        assert twin == history and twin is not history
        assert twin.messages == history.messages and twin.pending_tool_call_ids == {"b"}
        assert twin._lock is not history._lock
        twin.add(tool("b"))  # each copy goes on alone
        assert twin != history and len(history) == 4
    loose = ConversationHistory([USER], require_system=False)
    assert pickle.loads(pickle.dumps(loose)) == loose and not copy.copy(loose).require_system
    assert ConversationHistory([SYS]) == ConversationHistory([SYS]) != ConversationHistory([SYS, USER])
    assert ConversationHistory() != ConversationHistory(require_system=False)
    with pytest.raises(TypeError):
        hash(history)
