"""Behaviour of the core types: construction rules, immutability, equality, pickling, repr."""

import copy
import pickle
import warnings
from typing import Any

import pytest

from agentmsg import (
    ChatMessage,
    ConversationOrderError,
    FrozenDict,
    ImagePart,
    ImageSource,
    InvalidArgumentsError,
    MessageRole,
    TextPart,
    ToolCall,
    ToolCallDelta,
    ToolDefinition,
    ToolResult,
    ValidationError,
)

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
SECRET = "my password is hunter2"


def samples() -> list[Any]:
    call = ToolCall("call_001", "write_file", {"path": "a.py", "lines": [1, {"x": [None, True]}]})
    return [
        MessageRole.USER,
        TextPart(SECRET),
        ImagePart(ImageSource.from_base64(PNG, "image/png")),
        ImageSource.from_url("https://example.com/" + SECRET.replace(" ", "_")),
        ImageSource.from_path("/tmp/" + SECRET.replace(" ", "_")),
        call,
        ToolResult.success("call_001", SECRET),
        ToolDefinition("f", "Does f.", {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False}),
        ToolCallDelta(0, "call_001", "f", SECRET),
        ChatMessage.system(SECRET),
        ChatMessage.user([TextPart(SECRET), ImagePart(ImageSource.from_url("https://example.com/a.png"))]),
        ChatMessage.assistant(SECRET, [call]),
        ChatMessage.tool("call_001", SECRET, is_error=True),
    ]


@pytest.mark.parametrize("obj", samples(), ids=lambda o: type(o).__name__)
def test_equal_hashable_pickle_deepcopy(obj: Any) -> None:
    again = pickle.loads(pickle.dumps(obj))
    assert again == obj and hash(again) == hash(obj) and type(again) is type(obj)
    assert copy.deepcopy(obj) == obj and copy.copy(obj) == obj
    assert len({obj, again}) == 1


@pytest.mark.parametrize("obj", samples()[1:], ids=lambda o: type(o).__name__)
def test_frozen_and_repr_hides_content(obj: Any) -> None:
    with pytest.raises((AttributeError, TypeError)):
        obj.anything = 1
    first_field = obj.__dataclass_fields__.__iter__().__next__()
    with pytest.raises((AttributeError, TypeError)):
        setattr(obj, first_field, None)
    assert "hunter2" not in repr(obj)


def test_repr_shows_role_ids_names_and_sizes() -> None:
    msg = ChatMessage.user("x" * 52)
    assert repr(msg) == "ChatMessage(role=user, content=<52 chars>)"
    call = ToolCall("call_9", "search", {"q": "cats"})
    assert repr(ChatMessage.assistant(tool_calls=[call])) == "ChatMessage(role=assistant, tool_calls=[call_9:search])"


def test_inputs_are_copied_into_immutable_forms() -> None:
    args = {"path": "a.py", "tags": ["x"], "opts": {"mode": "w"}}
    call = ToolCall("c1", "write", args)
    args["path"] = "b.py"
    args["tags"].append("y")
    args["opts"]["mode"] = "r"
    assert call.arguments == {"path": "a.py", "tags": ("x",), "opts": {"mode": "w"}}
    assert type(call.arguments) is FrozenDict and type(call.arguments["opts"]) is FrozenDict
    with pytest.raises(TypeError):
        call.arguments["path"] = "c.py"
    with pytest.raises(TypeError):
        call.arguments["opts"].update(mode="x")
    out = call.to_dict()
    out["arguments"]["tags"].append("z")  # to_dict hands out fresh, mutable copies
    assert call.arguments["tags"] == ("x",)
    parts = [TextPart("a")]
    msg = ChatMessage.user(parts)
    parts.append(TextPart("b"))
    assert msg.content == (TextPart("a"),)
    calls = [call]
    assistant = ChatMessage("assistant", None, calls)  # direct construction with a list
    calls.clear()
    assert assistant.tool_calls == (call,) and assistant.role is MessageRole.ASSISTANT


def test_role_parse() -> None:
    assert MessageRole.parse("TOOL") is MessageRole.TOOL
    assert [str(r) for r in MessageRole] == ["system", "user", "assistant", "tool"]
    for bad in ("", "bot", 3, None):
        with pytest.raises(ValidationError) as info:
            MessageRole.parse(bad)
        assert (info.value.code, info.value.message) == ("value", "expected one of 'system', 'user', 'assistant', 'tool'")


@pytest.mark.parametrize(
    "build, path, code",
    [
        (lambda: ChatMessage(MessageRole.SYSTEM), "content", "missing"),
        (lambda: ChatMessage(MessageRole.USER, None), "content", "missing"),
        (lambda: ChatMessage(MessageRole.TOOL, "x"), "tool_call_id", "missing"),
        (lambda: ChatMessage(MessageRole.USER, "x", tool_call_id="c"), "tool_call_id", "value"),
        (lambda: ChatMessage(MessageRole.USER, "x", is_error=True), "is_error", "value"),
        (lambda: ChatMessage(MessageRole.SYSTEM, "x", (ToolCall("c", "f", {}),)), "tool_calls", "value"),
        (lambda: ChatMessage(MessageRole.ASSISTANT, [ImagePart(ImageSource.from_url("https://a.io/x.png"))]), "content[0]", "value"),
        (lambda: ChatMessage(MessageRole.USER, ["text"]), "content[0]", "type"),
        (lambda: ChatMessage(MessageRole.USER, ()), "content", "value"),
        (lambda: ChatMessage(MessageRole.USER, 5), "content", "type"),
        (lambda: ChatMessage("robot", "x"), "role", "value"),
        (lambda: ChatMessage(7, "x"), "role", "type"),
        (lambda: ChatMessage.assistant("x", [ToolCall("c", "f", {}), ToolCall("c", "g", {})]), "tool_calls[1].id", "unique"),
        (lambda: ChatMessage.assistant(None, ["call"]), "tool_calls[0]", "type"),
        (lambda: ChatMessage.tool("", "x"), "tool_call_id", "value"),
        (lambda: ChatMessage.tool("c", "x", is_error="no"), "is_error", "type"),
        (lambda: ChatMessage.system(["x"]), "content", "type"),
        (lambda: ChatMessage.user("bad \ud800 text"), "content", "encoding"),
        (lambda: TextPart("\udfff"), "text", "encoding"),
        (lambda: ToolCall("", "f", {}), "id", "value"),
        (lambda: ToolCall("c", "f" * 65, {}), "name", "pattern"),
        (lambda: ToolCall("c", "f", {"x": {1, 2}}), "arguments.x", "type"),
        (lambda: ToolCall("c", "f", {"x": b"bytes"}), "arguments.x", "type"),
        (lambda: ToolCall("c", "f", {1: "x"}), "arguments", "type"),
        (lambda: ToolCall("c", "f", {"x": [1, float("inf")]}), "arguments.x[1]", "value"),
        (lambda: ToolCall("c", "f", {"x": "\ud800"}), "arguments.x", "encoding"),
        (lambda: ToolCall("c", "f", [1]), "arguments", "type"),
        (lambda: ToolResult("c", 5), "result", "type"),
        (lambda: ImageSource("base64", media_type="image/png", data="AAA"), "data", "value"),
        (lambda: ImageSource("url", url="https://a.io/x.png", data=PNG), "", "value"),
        (lambda: ImageSource("svg"), "type", "value"),
        (lambda: ImageSource.from_url("data:image/tiff;base64," + PNG), "url", "value"),
        (lambda: ImageSource.from_url("https://"), "url", "pattern"),
        (lambda: ImageSource.from_path("a\x00b"), "path", "value"),
        (lambda: ToolCallDelta(True), "index", "type"),
        (lambda: ToolCallDelta(0, id=5), "id", "type"),
    ],
)
def test_rules(build: Any, path: str, code: str) -> None:
    with pytest.raises(ValidationError) as info:
        build()
    assert (info.value.path, info.value.code) == (path, code)


def test_name_error_for_65_characters_says_64() -> None:
    with pytest.raises(ValidationError, match="64"):
        ToolCall("c", "a" * 65, {})
    assert ToolCall("c", "a" * 64, {}).name == "a" * 64


def test_valid_edge_messages() -> None:
    assert ChatMessage.user("").content == ""
    assert ChatMessage.system("").text == ""
    assert ChatMessage.tool("c", "").to_dict() == {"role": "tool", "tool_call_id": "c", "content": ""}
    both = ChatMessage.assistant("Let me check.", [ToolCall("c", "f", {})])
    assert both.text == "Let me check." and len(both.tool_calls) == 1
    shot = ChatMessage.tool("c", [ImagePart(ImageSource.from_base64(PNG, "image/png"))])
    assert isinstance(shot.content, tuple)
    assert ChatMessage(MessageRole.ASSISTANT, [TextPart("a"), TextPart("b")]).text == "ab"
    assert ChatMessage.user("Grüße 👋").to_dict()["content"] == "Grüße 👋"


def test_get_argument_types() -> None:
    call = ToolCall("c", "f", {"s": "x", "i": 3, "f": 1.5, "b": True, "l": [1], "d": {"k": 1}, "n": None})
    assert call.get_argument("s", str) == "x"
    assert call.get_argument("i", int) == 3 and call.get_argument("b", int) is None
    assert call.get_argument("b", bool) is True and call.get_argument("i", bool) is None
    assert call.get_argument("f", float) == 1.5 and call.get_argument("i", float) == 3.0
    assert call.get_argument("l", list) == (1,) and call.get_argument("d", dict) == {"k": 1}
    assert call.get_argument("missing", str) is None and call.get_argument("n", str) is None
    assert ToolCall("c", "f", {"big": 10**400}).get_argument("big", float) is None
    assert call.get_argument("s", int) is None and call.get_argument("d", list) is None
    with pytest.raises(TypeError):
        call.get_argument("s", bytes)


@pytest.mark.parametrize("text", ["", "  ", "{}"])
def test_empty_arguments_are_an_empty_object(text: str) -> None:
    assert ToolCall.from_json_arguments("c", "f", text).arguments == {}


@pytest.mark.parametrize(
    "text, code",
    [('{"a": ', "json"), ("[1, 2]", "type"), ('"x"', "type"), ('{"a": NaN}', "json"), ("[" * 50000, "depth"),
     ('{"n": 1' + "0" * 5000 + "}", "json"), ('{"n": 1e999}', "size"), ('{"n": [-1e400]}', "size")],
)
def test_invalid_json_arguments_keep_the_raw_text(text: str, code: str) -> None:
    with pytest.raises(InvalidArgumentsError) as info:
        ToolCall.from_json_arguments("c", "f", text)
    err = info.value
    assert err.raw_arguments == text and err.path == "arguments" and err.code == code
    assert isinstance(err, ValidationError)
    again = pickle.loads(pickle.dumps(err))
    assert (again.raw_arguments, again.path, again.code, str(again)) == (text, "arguments", code, str(err))


def test_errors_pickle_with_attributes() -> None:
    err = ValidationError("must not be empty", "tool_calls[1].name", "value")
    again = pickle.loads(pickle.dumps(err))
    assert (type(again), again.path, again.code, again.message, str(again)) == (
        ValidationError, err.path, err.code, err.message, str(err))
    order = ConversationOrderError("the user must speak first", 1, "user_first")
    again2 = pickle.loads(pickle.dumps(order))
    assert (again2.index, again2.code, str(again2)) == (1, "user_first", "messages[1]: the user must speak first")


def test_tool_result() -> None:
    ok = ToolResult.success("c", "")
    assert ok.to_message() == ChatMessage.tool("c", "")
    assert ToolResult.from_dict(ok.to_dict()) == ok
    bad = ToolResult.error("c", "boom")
    assert bad.to_message().is_error and bad.to_dict()["is_error"] is True


def test_tool_definition() -> None:
    params = {"type": "object", "properties": {"a": {"type": "object", "properties": {}}}, "additionalProperties": False}
    with pytest.raises(ValidationError) as info:
        ToolDefinition("f", "Does f.", params, strict=True)
    assert (info.value.path, info.value.code) == ("parameters.properties.a.additionalProperties", "strict")
    loose = ToolDefinition("f", "Does f.", params)  # not strict by default: schemas as providers take them
    assert loose.to_dict() == {"name": "f", "description": "Does f.", "parameters": params, "strict": False}
    assert ToolDefinition.from_dict({"name": "f", "description": "Does f.", "parameters": params}).strict is False
    with pytest.warns(UserWarning, match="1024"):
        long = ToolDefinition("f", "d" * 1025, {"type": "object", "additionalProperties": False})
    assert len(long.description) == 1025
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ToolDefinition("f", "d" * 1024, {"type": "object", "additionalProperties": False})


def test_hand_built_frozendict_is_still_checked_and_frozen() -> None:
    call = ToolCall("c", "f", FrozenDict({"a": [1, {"b": [2]}]}))
    assert call.arguments == {"a": (1, {"b": (2,)})}
    assert type(call.arguments["a"]) is tuple and type(call.arguments["a"][1]["b"]) is tuple
    with pytest.raises(ValidationError) as info:
        ToolCall("c", "f", FrozenDict({"x": float("nan")}))
    assert info.value.path == "arguments.x"
    assert pickle.loads(pickle.dumps(call)).arguments == call.arguments


def test_a_tool_call_without_arguments_is_refused() -> None:
    """FR-004a-44: arguments are required in the canonical shape; {} says "no arguments"."""
    from agentmsg import ValidationError as VE

    for doc in ({"id": "c1", "name": "ls"}, {"id": "c1", "name": "ls", "arguments": None}):
        with pytest.raises(VE) as info:
            ToolCall.from_dict(doc)
        assert (info.value.path, info.value.code) == ("arguments", "missing")
        with pytest.raises(VE) as info:
            ChatMessage.from_dict({"role": "assistant", "tool_calls": [doc]})
        assert (info.value.path, info.value.code) == ("tool_calls[0].arguments", "missing")
    assert ToolCall.from_dict({"id": "c1", "name": "ls", "arguments": {}}).arguments == {}


def test_arguments_as_accepts_both_shapes_and_any_buildable_type() -> None:
    """Decoding is not schema generation: nulls or left-out optional keys, mixed tuples, by default."""
    import dataclasses
    from typing import Optional

    from agentmsg import ValidationError as VE

    @dataclasses.dataclass(frozen=True)
    class Inner:
        unit: str = "c"

    @dataclasses.dataclass(frozen=True)
    class Forecast:
        city: str
        days: int = 1
        span: tuple[int, str] = (0, "h")
        note: Optional[str] = None
        inner: Inner = Inner()

    expected = Forecast("Oslo")
    every_key = {"city": "Oslo", "days": None, "span": None, "note": None, "inner": {"unit": None}}
    for arguments in ({"city": "Oslo"}, every_key):
        assert ToolCall("c", "forecast", arguments).arguments_as(Forecast) == expected
    full = {"city": "Oslo", "days": 3, "span": [2, "d"], "note": "n", "inner": {"unit": "f"}}
    assert ToolCall("c", "forecast", full).arguments_as(Forecast) == Forecast("Oslo", 3, (2, "d"), "n", Inner("f"))
    for bad, path in (({"days": 2}, "city"), ({"city": "Oslo", "days": "3"}, "days"), ({"city": "Oslo", "x": 1}, "x")):
        with pytest.raises(VE) as info:
            ToolCall("c", "forecast", bad).arguments_as(Forecast)
        assert info.value.path == path
    with pytest.raises(TypeError):  # strict schema generation still cannot express the mixed tuple
        ToolCall("c", "forecast", full).arguments_as(Forecast, strict=True)


def test_integers_beyond_4300_digits_are_refused_where_values_are_checked(tmp_path) -> None:
    """Robustness: a value every encoder would choke on is refused at construction, with a path."""
    from agentmsg import ValidationError as VE
    from agentmsg import to_json
    from agentmsg.io.store import MessageStore
    from agentmsg.providers import anthropic, ollama, openai
    from agentmsg.records import FileReference, ToolResultRecord

    big = 10**4300  # 4301 digits
    for build, path in [
        (lambda: ToolCall("c", "f", {"n": big}), "arguments.n"),
        (lambda: ToolCall("c", "f", {"n": [1, -big]}), "arguments.n[1]"),
        (lambda: ToolCall.from_dict({"id": "c", "name": "f", "arguments": {"a": {"b": big}}}), "arguments.a.b"),
        (lambda: ToolResultRecord.success("c", {"rows": [big]}), "output.rows[0]"),
        (lambda: FileReference(id="f", path="a.txt", start_line=big), "start_line"),
    ]:
        with pytest.raises(VE) as info:
            build()
        assert (info.value.code, info.value.path) == ("size", path)
    # the largest accepted integer goes through every encoder
    edge = ToolCall("c", "f", {"n": big - 1})
    messages = [ChatMessage.system("s"), ChatMessage.user("u"), ChatMessage.assistant(None, [edge]), ChatMessage.tool("c", "ok")]
    assert str(big - 1) in to_json(messages[2])
    openai.to_messages(messages), anthropic.to_messages(messages), ollama.to_messages(messages)
    with MessageStore(tmp_path / "s.db") as store:
        store.save_many("conv", messages[1:])  # the store keeps no system prompt
        assert store.load("conv") == tuple(messages[1:])


def test_loads_strict_refuses_a_number_that_overflows_a_float() -> None:
    from agentmsg._json import loads_strict

    for text in ('{"role": "user", "content": "a", "x": 1e999}', "[-1E+400]", '{"a": {"b": [2e308]}}'):
        with pytest.raises(ValidationError) as info:
            loads_strict(text)
        assert info.value.code == "size"
        with pytest.raises(ValidationError):
            loads_strict(text, duplicates=False)
    assert loads_strict("[1.7976931348623157e308, 5e-324, 1e-999]") == [1.7976931348623157e308, 5e-324, 0.0]


def test_from_json_takes_text_only_and_refuses_duplicate_keys() -> None:
    """Robustness: one rule everywhere (duplicates refused, as the CLI); no allocation from a number."""
    from agentmsg import InvalidArgumentsError, from_json
    from agentmsg import ValidationError as VE

    for not_text in (3 * 10**9, None, 1.5, ["{}"], {"role": "user"}):
        with pytest.raises(VE) as info:
            from_json(not_text, ChatMessage)  # type: ignore[arg-type]
        assert info.value.code == "type"
    for text in ('{"role": "user", "content": "a", "content": "b"}', b'{"role": "user", "content": "a", "content": "b"}'):
        with pytest.raises(VE) as info:
            from_json(text, ChatMessage)
        assert info.value.code == "unique" and "'content'" in info.value.message
    with pytest.raises(InvalidArgumentsError) as info:
        ToolCall.from_json_arguments("c", "rm", '{"path": "a.txt", "path": "/etc/passwd"}')
    assert info.value.code == "unique" and info.value.raw_arguments.startswith('{"path"')
    assert from_json(bytearray(b'{"role": "user", "content": "a"}'), ChatMessage) == ChatMessage.user("a")
