"""The fast paths decide exactly what the slow, obvious code decides."""

from __future__ import annotations

import base64
import dataclasses
import json
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


# -- the generated code (agentmsg._construct) against the constructor and the obvious code ------
#
# Each core type's builder, to_dict and repr are written from its field table. Below, values are
# drawn, every object is made through the constructor (the reference path: dataclass __init__ and
# __post_init__'s checks), and the generated code must give the same object, the same JSON text
# (key order included) and the same repr as the rules written out plainly here.

from agentmsg import ImagePart, ReasoningPart, TextPart, ToolCall, ToolCallDelta, ToolDefinition, ToolResult  # noqa: E402
from agentmsg._checks import count, sized  # noqa: E402
from agentmsg.messages import _make  # noqa: E402
from agentmsg.streaming import ReasoningDelta  # noqa: E402

_TEXT = st.text(alphabet="ab é\n", max_size=3)
_ID = st.sampled_from(["c1", "c2", "call_3", "é"])
_ARGUMENTS = st.dictionaries(st.sampled_from(["a", "b", "path"]), _JSON, max_size=3)
_CALLS = st.lists(st.builds(ToolCall, _ID, st.sampled_from(["ls", "write_file"]), _ARGUMENTS), max_size=3,
                  unique_by=lambda call: call.id)
_SOURCES = st.one_of(
    st.builds(ImageSource, st.just("url"), st.sampled_from(["https://e.com/a.png", "data:image/png;base64,iVBORw0KGgo="])),
    st.builds(ImageSource, st.just("base64"), media_type=st.sampled_from(["image/png", "image/gif"]),
              data=st.sampled_from(["", "QQ==", "iVBORw0KGgo="]).filter(bool)),
    st.builds(ImageSource, st.just("file"), path=st.sampled_from(["a", "shots/b.png"])),
)
_PARTS = st.lists(st.one_of(st.builds(TextPart, _TEXT), st.builds(ImagePart, _SOURCES)), min_size=1, max_size=3)


@st.composite
def _reasoning(draw: Any) -> ReasoningPart:
    provider = draw(st.sampled_from([None, "anthropic", "openai"]))
    if provider is None:
        return ReasoningPart(draw(_TEXT.filter(bool)))
    redacted = draw(st.booleans())
    optional = st.sampled_from([None, "s", "sig_2"])
    signature = draw(st.sampled_from(["s", "c2ln"]) if redacted else optional)
    text = "" if redacted else draw(_TEXT)
    part_id = draw(optional if text or signature else st.just("rs_1"))
    return ReasoningPart(text, signature, redacted, provider, part_id, draw(optional))


@st.composite
def _fields(draw: Any) -> dict[str, Any]:
    """The fields of a valid ChatMessage, as the constructor takes them."""
    role = draw(_ROLE)
    fields: dict[str, Any] = {"role": role}
    if role == "assistant":
        fields["tool_calls"] = tuple(draw(_CALLS))
        fields["reasoning"] = tuple(draw(st.lists(_reasoning(), max_size=2)))
        text = st.one_of(_TEXT, st.lists(st.builds(TextPart, _TEXT), min_size=1, max_size=2).map(tuple))
        fields["content"] = draw(st.one_of(st.none(), text) if fields["tool_calls"] else text)
    else:
        fields["content"] = draw(st.one_of(_TEXT, _PARTS.map(tuple)) if role in ("user", "tool") else _TEXT)
    if role == "tool":
        fields["tool_call_id"] = draw(_ID)
        fields["is_error"] = draw(st.booleans())
    return fields


def _ordered(value: dict[str, Any]) -> str:
    """JSON text with the keys in their order: what to_json writes."""
    return json.dumps(value, ensure_ascii=False)


def _message_dict(m: ChatMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": m.role.name.lower()}
    if m.tool_call_id is not None:
        out["tool_call_id"] = m.tool_call_id
    if m.content is not None:
        out["content"] = m.content if isinstance(m.content, str) else [p.to_dict() for p in m.content]
    if m.tool_calls:
        out["tool_calls"] = [_call_dict(call) for call in m.tool_calls]
    if m.is_error:
        out["is_error"] = True
    if m.reasoning:
        out["reasoning"] = [_reasoning_dict(p) for p in m.reasoning]
    return out


def _message_repr(m: ChatMessage) -> str:
    shown = [f"role={m.role.name.lower()}"]
    if m.content is not None:
        shown.append(f"content={count(len(m.content), 'char' if isinstance(m.content, str) else 'part')}")
    if m.tool_calls:
        shown.append("tool_calls=[" + ", ".join(f"{c.id}:{c.name}" for c in m.tool_calls) + "]")
    if m.tool_call_id is not None:
        shown.append(f"tool_call_id={m.tool_call_id!r}")
    if m.is_error:
        shown.append("is_error=True")
    if m.reasoning:
        shown.append("reasoning=[" + ", ".join(sized(p.text) for p in m.reasoning) + "]")
    return f"ChatMessage({', '.join(shown)})"


def _call_dict(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "name": call.name, "arguments": thaw_json(call.arguments)}


def _reasoning_dict(p: ReasoningPart) -> dict[str, Any]:
    keys = ("signature", "redacted", "provider", "id", "anchor")
    return {"type": "reasoning", "text": p.text, **{k: getattr(p, k) for k in keys if getattr(p, k) not in (None, False)}}


def _reasoning_repr(p: ReasoningPart) -> str:
    shown = [f"text={sized(p.text)}"]
    shown += [f"signature={sized(p.signature)}"] if p.signature is not None else []
    shown += ["redacted=True"] if p.redacted else []
    shown += [f"provider={p.provider!r}"] if p.provider is not None else []
    shown += [f"{k}={sized(getattr(p, k))}" for k in ("id", "anchor") if getattr(p, k) is not None]
    return f"ReasoningPart({', '.join(shown)})"


def _source_repr(s: ImageSource) -> str:
    if s.type == "url":
        return f"ImageSource(type=url, url={sized(s.url)})"
    if s.type == "base64":
        return f"ImageSource(type=base64, media_type={s.media_type}, data={sized(s.data)})"
    return f"ImageSource(type=file, path={sized(s.path)})"


def _same(made: Any, reference: Any) -> None:
    assert type(made) is type(reference) and made == reference and hash(made) == hash(reference)
    assert _ordered(made.to_dict()) == _ordered(reference.to_dict()) and repr(made) == repr(reference)


@given(_fields())
def test_messages_built_any_way_equal_the_constructed_one(fields: dict[str, Any]) -> None:
    reference = ChatMessage(**fields)
    assert _ordered(reference.to_dict()) == _ordered(_message_dict(reference))
    assert repr(reference) == _message_repr(reference)
    ordered = [fields.get(f.name, f.default) for f in dataclasses.fields(ChatMessage)]
    _same(_make(reference.role, *ordered[1:]), reference)
    _same(ChatMessage.from_dict(json.loads(_ordered(reference.to_dict()))), reference)
    role, content = reference.role, reference.content
    if role.name == "ASSISTANT":
        made = ChatMessage.assistant(content, list(reference.tool_calls), list(reference.reasoning))
    elif role.name == "TOOL":
        made = ChatMessage.tool(fields["tool_call_id"], content, fields["is_error"])  # type: ignore[arg-type]
    elif role.name == "USER":
        made = ChatMessage.user(content)  # type: ignore[arg-type]
    else:
        made = ChatMessage.system(content)  # type: ignore[arg-type]
    _same(made, reference)


@given(_CALLS, st.lists(_reasoning(), max_size=3))
def test_tool_calls_and_reasoning_parts_built_any_way_equal_the_constructed_ones(
    calls: list[ToolCall], parts: list[ReasoningPart]
) -> None:
    from agentmsg.content import reasoning_part
    from agentmsg.tools import _build_call, tool_calls_to_dicts

    for call in calls:
        assert _ordered(call.to_dict()) == _ordered(_call_dict(call))
        assert repr(call) == f"ToolCall(id={call.id!r}, name={call.name!r}, arguments={count(len(call.arguments), 'key')})"
        _same(_build_call(call.id, call.name, call.arguments), call)
        _same(ToolCall.from_dict(call.to_dict()), call)
    assert _ordered(tool_calls_to_dicts(tuple(calls))) == _ordered([_call_dict(call) for call in calls])
    for part in parts:
        assert _ordered(part.to_dict()) == _ordered(_reasoning_dict(part)) and repr(part) == _reasoning_repr(part)
        _same(reasoning_part(**{f.name: getattr(part, f.name) for f in dataclasses.fields(part)}), part)
        _same(ReasoningPart.from_dict(part.to_dict()), part)


@given(_SOURCES, _TEXT)
def test_content_parts_built_any_way_equal_the_constructed_ones(source: ImageSource, text: str) -> None:
    from agentmsg.content import part_from_dict, text_part

    factory = {"url": lambda: ImageSource.from_url(source.url),  # type: ignore[arg-type]
               "base64": lambda: ImageSource.from_base64(source.data, source.media_type),  # type: ignore[arg-type]
               "file": lambda: ImageSource.from_path(source.path)}[source.type]  # type: ignore[arg-type]
    _same(factory(), source)
    assert repr(source) == _source_repr(source)
    assert _ordered(source.to_dict()) == _ordered({k: v for k, v in dataclasses.asdict(source).items() if v is not None})
    image, part = ImagePart(source), TextPart(text)
    assert _ordered(image.to_dict()) == _ordered({"type": "image", "source": source.to_dict()})
    assert repr(image) == f"ImagePart(source={_source_repr(source)})"
    assert _ordered(part.to_dict()) == _ordered({"type": "text", "text": text}) and repr(part) == f"TextPart(text={sized(text)})"
    _same(part_from_dict(image.to_dict()), image)
    _same(part_from_dict(part.to_dict()), part)
    _same(text_part(text), part)


@given(st.integers(0, 3), st.one_of(st.none(), _ID), st.one_of(st.none(), _TEXT), st.one_of(st.none(), _TEXT), st.booleans())
def test_the_other_core_types_show_what_their_rules_say(
    index: int, id: str | None, text: str | None, other: str | None, flag: bool
) -> None:
    delta = ToolCallDelta(index, id, text, other)
    assert _ordered(delta.to_dict()) == _ordered({"index": index, **{k: v for k, v in (
        ("id", id), ("name", text), ("arguments_delta", other)) if v is not None}})
    assert repr(delta) == f"ToolCallDelta(index={index}, id={id!r}, name={text!r}, arguments_delta={sized(other)})"
    thought = ReasoningDelta(index, text or "", other)
    assert _ordered(thought.to_dict()) == _ordered({"index": index, "text": text or "", **({"signature": other} if other is not None else {})})
    assert repr(thought) == f"ReasoningDelta(index={index}, text={sized(text or '')}" + (
        f", signature={sized(other)})" if other is not None else ")")
    result = ToolResult(id or "c", text or "", flag)
    assert _ordered(result.to_dict()) == _ordered({"tool_call_id": id or "c", "result": text or "", **({"is_error": True} if flag else {})})
    assert repr(result) == f"ToolResult(tool_call_id={id or 'c'!r}, result={sized(text or '')}" + (", is_error=True)" if flag else ")")
    extras = {"openai": {"x": [1]}, "anthropic": {}} if flag else {}
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    tool = ToolDefinition("t", "Do it." + (text or ""), schema, other is None, extras)
    assert _ordered(tool.to_dict()) == _ordered({"name": "t", "description": tool.description, "parameters": schema,
                                                 "strict": other is None, **({"extras": extras} if extras else {})})
    assert repr(tool) == f"ToolDefinition(name='t', description={sized(tool.description)}, strict={other is None}" + (
        ", extras=['anthropic', 'openai'])" if extras else ")")


def test_objects_built_through_their_mutable_twin_are_the_real_class() -> None:
    import copy
    import pickle

    from agentmsg.content import reasoning_part, text_part

    calls = [ToolCall("c1", "ls", {"path": "."}), ToolCall.from_dict({"id": "c2", "name": "ls", "arguments": {}})]
    built = ChatMessage.from_dict({"role": "assistant", "content": "hi", "tool_calls": [c.to_dict() for c in calls]})
    direct = ChatMessage(role="assistant", content="hi", tool_calls=calls)
    pairs = [(built, direct), (built.tool_calls[1], calls[1]), (text_part("t"), TextPart("t")),
             (reasoning_part("r", provider="openai"), ReasoningPart("r", provider="openai")),
             (ImageSource.from_path("a.png"), ImageSource("file", path="a.png")),
             (ChatMessage.user([ImagePart(ImageSource.from_url("https://e.com/a.png"))]).content[0],  # type: ignore[index]
              ImagePart(ImageSource("url", "https://e.com/a.png")))]
    for made, reference in pairs:
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


def test_each_generated_function_takes_the_place_of_its_stand_in() -> None:
    from types import FunctionType

    import agentmsg.content
    import agentmsg.messages
    import agentmsg.tools
    from agentmsg._construct import SOURCE

    message = ChatMessage.user([TextPart("a"), ImagePart(ImageSource.from_path("a.png"))])
    repr(message), message.to_dict(), ToolCall.from_dict({"id": "c", "name": "ls", "arguments": {}})
    part, image = message.content  # a message's repr counts its parts: each part's own repr is asked for here
    repr(part), repr(image), repr(image.source)
    for cls in (ChatMessage, TextPart, ImagePart, ImageSource):
        assert type(cls.__dict__["to_dict"]) is FunctionType and type(cls.__dict__["__repr__"]) is FunctionType
        assert f"{cls.__name__}.to_dict" in SOURCE
    for module, name in ((agentmsg.messages, "_make"), (agentmsg.tools, "_build_call"), (agentmsg.content, "_build_source")):
        assert type(getattr(module, name)) is FunctionType, name


def test_chat_message_to_dict_returns_one_dict_literal_per_shape() -> None:
    from agentmsg._construct import SOURCE

    ChatMessage.user("hi").to_dict()
    source = SOURCE["ChatMessage.to_dict"]
    # tool messages: content and is_error; the others: content, tool_calls and reasoning
    assert "out[" not in source and source.count("return {") == 2 * 2 + 2 * 2 * 2
    assert source.count("if self.is_error:") == 2 and source.count("if self.reasoning:") == 4
    # the role is a constant where another field tells it: only user, system and a plain assistant look it up
    assert source.count("ROLE_NAMES[self.role]") == 2 and source.count("'role': \"tool\"") == 4


def test_to_dict_past_the_branched_keys_stores_the_rest_in_order() -> None:
    import itertools

    from agentmsg._construct import SOURCE, from_table, row

    names = [f"k{i}" for i in range(7)]

    @from_table()
    @dataclasses.dataclass(frozen=True, slots=True, repr=False)
    class Wide:
        first: str
        k0: int | None = None
        k1: int | None = None
        k2: int | None = None
        k3: int | None = None
        k4: int | None = None
        k5: int | None = None
        k6: int | None = dataclasses.field(default=None, metadata=row(to_dict="[$, $]"))

    for present in itertools.product((False, True), repeat=len(names)):
        values = {name: i for i, (name, on) in enumerate(zip(names, present)) if on}
        expected = {"first": "x", **values}
        if "k6" in values:
            expected["k6"] = [6, 6]
        assert json.dumps(Wide("x", **values).to_dict()) == json.dumps(expected)  # type: ignore[attr-defined]
    source = SOURCE[f"{Wide.__qualname__}.to_dict"]
    assert source.count("out = {") == 2**5 and source.count("out['k6'] = [v_k6, v_k6]") == 2**5


def test_a_row_that_requires_a_later_field_is_refused() -> None:
    from agentmsg._construct import from_table, row

    @from_table()
    @dataclasses.dataclass(frozen=True, slots=True, repr=False)
    class Backwards:
        flag: bool = dataclasses.field(default=False, metadata=row(requires="name"))
        name: str | None = None

    try:
        Backwards().to_dict()  # type: ignore[attr-defined]
    except TypeError as exc:
        assert "'name' must be a field whose key comes before" in str(exc)
    else:
        raise AssertionError("requires= naming a later key must be refused")
