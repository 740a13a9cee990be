"""The fast paths of issue 19 decide exactly what the slow, obvious code decides."""

from __future__ import annotations

import base64
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentmsg import ChatMessage, ImageSource, ValidationError
from agentmsg._frozen import FrozenDict, freeze_json, thaw_json
from agentmsg._images import is_base64

# The definition is_base64 used to be: the alphabet, then at most two '=', in a length divisible by 4.
_DEFINITION = re.compile(r"[A-Za-z0-9+/]*={0,2}", re.ASCII)
_NEAR_BASE64 = st.text(alphabet="AZaz09+/=-_.é\n \x00\udc80", max_size=16)


@given(st.one_of(_NEAR_BASE64, st.text(max_size=12), st.binary(max_size=30).map(lambda b: base64.b64encode(b).decode())))
def test_is_base64_matches_its_definition(text: str) -> None:
    assert is_base64(text) == (len(text) % 4 == 0 and _DEFINITION.fullmatch(text) is not None)


def test_is_base64_cases() -> None:
    assert is_base64("") and is_base64("QQ==") and is_base64("QUI=") and is_base64("QUJD")
    for bad in ("QQ=", "Q===", "QQ=A", "=QQA", "QU I", "QUJ\u00e9", "QUJ-", "QUJ_", "QQ==QQ=="):
        assert not is_base64(bad), bad
    source = ImageSource.from_url("data:image/png;base64,iVBORw0KGgo=")
    assert source.url == "data:image/png;base64,iVBORw0KGgo="
    try:
        ChatMessage.from_dict({"role": "user", "content": [{"type": "image", "source": {
            "type": "url", "url": "data:image/png;base64,iVBORw0KGgo*"}}]})
    except ValidationError as exc:
        assert (exc.path, exc.code) == ("content[0].source.url", "value")
    else:
        raise AssertionError("bad base64 in a data URL must be refused")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


def _plain(value: Any) -> bool:
    """Return whether ``value`` holds only plain, mutable containers (what a caller may edit)."""
    if type(value) is dict:
        return all(_plain(v) for v in value.values())
    if type(value) is list:
        return all(_plain(v) for v in value)
    return type(value) not in (tuple, FrozenDict)


def _direct(value: Any) -> Any:
    """Freeze without freeze_json: FrozenDicts built directly carry no flatness mark."""
    if isinstance(value, dict):
        return FrozenDict({k: _direct(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_direct(v) for v in value)
    return value


@given(_JSON)
def test_thaw_gives_back_plain_equal_copies(value: Any) -> None:
    for frozen in (freeze_json(value), _direct(value)):
        thawed = thaw_json(frozen)
        assert thawed == value and _plain(thawed)
        if isinstance(value, (dict, list)):
            assert thawed is not frozen and thaw_json(frozen) is not thawed  # a fresh copy each time


def _containers(value: Any) -> tuple[str, ...]:
    return tuple(k for k, v in value.items() if isinstance(v, (dict, list, tuple)))


@given(st.dictionaries(st.text(max_size=4), _JSON, max_size=5))
def test_freeze_marks_exactly_the_keys_holding_containers(value: dict[str, Any]) -> None:
    frozen = freeze_json(value)
    assert tuple(key for key, _ in frozen._nested) == _containers(value)
    assert freeze_json(frozen) is frozen  # the mark says "already checked"
    assert thaw_json(frozen) == value and _plain(thaw_json(frozen))


_BAD = st.sampled_from([float("nan"), float("inf"), "\ud800", 10**4301, object()])


def _plant(draw: Any, value: Any, bad: Any) -> tuple[Any, str]:
    """Put ``bad`` somewhere inside ``value`` (a container) and return the path that names it."""
    if isinstance(value, dict) and value and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(value)))
        if key.isidentifier() and isinstance(value[key], (dict, list)) and value[key]:
            inner, path = _plant(draw, value[key], bad)
            return {**value, key: inner}, key + ("" if path.startswith("[") or not path else ".") + path
    if isinstance(value, list) and value and draw(st.booleans()):
        i = draw(st.integers(0, len(value) - 1))
        if isinstance(value[i], (dict, list)) and value[i]:
            inner, path = _plant(draw, value[i], bad)
            return [*value[:i], inner, *value[i + 1:]], f"[{i}]" + ("" if path.startswith("[") or not path else ".") + path
    if isinstance(value, dict):
        return {**value, "bad": bad}, "bad"
    return [*value, bad], f"[{len(value)}]"


@st.composite
def _planted(draw: Any) -> tuple[Any, str]:
    value = draw(st.recursive(st.lists(st.integers(), max_size=2) | st.dictionaries(st.sampled_from("abc"), st.text(max_size=3), max_size=2),
                              lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abcd"), inner, max_size=3),
                              max_leaves=8))
    return _plant(draw, value, draw(_BAD))


@given(_planted())
def test_freeze_names_the_path_of_a_bad_value_at_any_depth(planted: tuple[Any, str]) -> None:
    value, path = planted
    try:
        freeze_json(value)
    except ValidationError as exc:
        assert exc.path == path, (exc.path, path)
    else:
        raise AssertionError("a NaN, infinity, lone surrogate, huge integer or non-JSON value must be refused")


_ROLE = st.sampled_from(["system", "user", "assistant", "tool"])
_CALL = st.fixed_dictionaries({"id": st.sampled_from(["c1", "c2", "", "ç"]), "name": st.sampled_from(["ls", "bad name"]),
                               "arguments": st.sampled_from([{}, {"a": [1, {"b": "x"}]}])})
_MESSAGE = st.fixed_dictionaries({"role": _ROLE}, optional={
    "content": st.sampled_from([None, "", "hi", "grüß", [{"type": "text", "text": "t"}], 5]),
    "tool_calls": st.one_of(st.none(), st.lists(_CALL, max_size=3), st.just("x")),
    "tool_call_id": st.sampled_from([None, "c1", "", "ç", 3]),
    "is_error": st.sampled_from([None, False, True, 0]),
    "reasoning": st.sampled_from([None, [], "", [{"text": "why"}], 0]),
})


def _reference(data: dict[str, Any]) -> ChatMessage:
    """Decode through the constructor: every rule checked by ``__post_init__`` in its general order."""
    from agentmsg import ReasoningPart, ToolCall
    from agentmsg.content import part_from_dict

    content = data.get("content")
    if isinstance(content, list):
        content = [part_from_dict(p) for p in content]
    calls = data.get("tool_calls")
    if isinstance(calls, list):
        calls = [ToolCall.from_dict(c) for c in calls]
    reasoning = data.get("reasoning")
    if isinstance(reasoning, list):
        reasoning = [ReasoningPart.from_dict(p) for p in reasoning]
    is_error = data.get("is_error")
    return ChatMessage(role=data["role"], content=content, tool_calls=calls or (),
                       tool_call_id=data.get("tool_call_id"), is_error=False if is_error is None else is_error,
                       reasoning=reasoning or ())


@given(_MESSAGE)
def test_from_dict_fast_paths_decide_as_the_constructor(data: dict[str, Any]) -> None:
    try:
        ours: ChatMessage | ValidationError = ChatMessage.from_dict(data)
    except ValidationError as exc:
        ours = exc
    try:
        reference: ChatMessage | ValidationError = _reference(data)
    except ValidationError as exc:
        reference = exc
    if isinstance(ours, ChatMessage) and isinstance(reference, ChatMessage):
        assert ours == reference and ours.to_dict() == reference.to_dict()
        assert ChatMessage.from_dict(ours.to_dict()) == ours
    elif isinstance(ours, ChatMessage) or isinstance(reference, ChatMessage):
        # the constructor takes Python values the wire refuses (a string as tool_calls or reasoning,
        # 0 for is_error...): only the decoder may refuse more, never accept more
        assert isinstance(ours, ValidationError), (data, reference)


def test_objects_built_through_their_slots_twin_are_the_real_class() -> None:
    import copy
    import dataclasses
    import pickle

    from agentmsg import ToolCall

    calls = [ToolCall("c1", "ls", {"path": "."}), ToolCall.from_dict({"id": "c2", "name": "ls", "arguments": {}})]
    built = ChatMessage.from_dict({"role": "assistant", "content": "hi", "tool_calls": [c.to_dict() for c in calls]})
    direct = ChatMessage(role="assistant", content="hi", tool_calls=calls)
    for made, reference in ((built, direct), (built.tool_calls[1], calls[1])):
        assert type(made) is type(reference) and made == reference and hash(made) == hash(reference)
        assert not hasattr(made, "__dict__")
        assert pickle.loads(pickle.dumps(made)) == made and copy.deepcopy(made) == made
        assert dataclasses.fields(made) == dataclasses.fields(reference)
        try:
            setattr(made, dataclasses.fields(made)[0].name, "other")
        except dataclasses.FrozenInstanceError:
            pass
        else:
            raise AssertionError("an object built through its twin must stay frozen")
    assert dataclasses.replace(built, content="bye").content == "bye"
