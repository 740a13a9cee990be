"""The check-only path (``agentmsg/validate/_check_only.py``) against the constructors.

The CLI's fast path proves a chat message valid on the parsed dict, without building it. The
differential tests below generate plain documents (each valid) and mutate them (a field dropped,
retyped, emptied, nulled; an extra key; a bad role; bad tool-call arguments; a bad image URL,
media type or base64; repeated call ids; a lone surrogate): the check-only verdict must equal
``ChatMessage.from_dict``'s plus the check for unknown keys, and the CLI must print the same
report with the check-only path as without it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentmsg import ChatMessage
from agentmsg.errors import ValidationError
from agentmsg.validate import _json_lines
from agentmsg.validate._check_only import chat_message
from agentmsg.validate._cli import main
from agentmsg.validate._fields import FIELDS, has_unknown_fields

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="


def constructors_accept(doc: Any) -> bool:
    """The verdict of the path the check-only one replaces: ``from_dict``, then no unknown key."""
    try:
        ChatMessage.from_dict(doc)
    except ValidationError:
        return False
    return not has_unknown_fields(FIELDS["chat_message"], doc)


# -- generated plain documents ----------------------------------------------------------------

texts = st.one_of(st.text(max_size=30), st.sampled_from(["", "héllo", "日本", "a\u2028b", "\U0001f600"]))
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                         st.floats(allow_nan=False, allow_infinity=False), texts)
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(texts, inner, max_size=3)), max_leaves=10)
arguments = st.dictionaries(texts, json_values, max_size=4)
names = st.from_regex(r"[A-Za-z0-9_]{1,64}", fullmatch=True)
ids = st.one_of(st.from_regex(r"call_[a-z0-9]{1,8}", fullmatch=True), texts.filter(bool))
urls = st.one_of(st.sampled_from(["https://example.com/a.png", "http://cdn.example.com/img/1.png?x=1",
                                  f"data:image/png;base64,{PNG}", f"data:image/webp;base64,{PNG}"]),
                 st.from_regex(r"https://[a-z]{1,10}\.example/[a-z0-9/]{0,20}", fullmatch=True))
sources = st.one_of(st.builds(lambda url: {"type": "url", "url": url}, urls),
                    st.builds(lambda media: {"type": "base64", "media_type": media, "data": PNG},
                              st.sampled_from(["image/png", "image/jpeg", "image/gif", "image/webp"])))
text_parts = st.builds(lambda text: {"type": "text", "text": text}, texts)
image_parts = st.builds(lambda source: {"type": "image", "source": source}, sources)
calls = st.builds(lambda id, name, args: {"id": id, "name": name, "arguments": args}, ids, names, arguments)
unique_calls = st.lists(calls, min_size=1, max_size=3, unique_by=lambda call: call["id"])


def message(role: str, **fields: Any) -> dict[str, Any]:
    return {"role": role, **fields}


plain = st.one_of(
    st.builds(lambda c: message("system", content=c), st.one_of(texts, st.lists(text_parts, min_size=1, max_size=3))),
    st.builds(lambda c: message("user", content=c),
              st.one_of(texts, st.lists(st.one_of(text_parts, image_parts), min_size=1, max_size=3))),
    st.builds(lambda c: message("assistant", content=c), st.one_of(texts, st.lists(text_parts, min_size=1, max_size=2))),
    st.builds(lambda c: message("assistant", content=c), st.lists(text_parts, min_size=1, max_size=2)),
    st.builds(lambda cs: message("assistant", tool_calls=cs), unique_calls),
    st.builds(lambda c, cs: message("assistant", content=c, tool_calls=cs), texts, unique_calls),
    st.builds(lambda i, c: message("tool", tool_call_id=i, content=c), ids,
              st.one_of(texts, st.lists(st.one_of(text_parts, image_parts), min_size=1, max_size=2))),
    st.builds(lambda i, c, e: message("tool", tool_call_id=i, content=c, is_error=e), ids, texts, st.booleans()),
)


# -- mutations ---------------------------------------------------------------------------------

def objects(doc: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Return the paths of the objects in ``doc`` outside tool-call arguments (the message's, a part's, a call's)."""
    found: list[tuple[Any, ...]] = []
    if isinstance(doc, dict):
        found.append(at)
        for key, value in doc.items():
            if key != "arguments":
                found += objects(value, (*at, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            found += objects(value, (*at, i))
    return found


def get(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


RETYPED = [None, 0, 1.5, True, "", "x", [], {}, [{}], ["x"], {"type": "text"}]
BAD_URLS = ["ftp://example.com/a.png", "https://", "example.com/a.png", "data:image/bmp;base64," + PNG,
            "data:image/png;base64,not base64!", "data:image/png;base64,", "https://a b.png", "\ud800"]
BAD_ARGUMENTS = [[], "{}", None, 5, {"x": "\ud800"}, {"\udfff": 1}, {"x": [1, {"y": "\ud800"}]}, {"x": 10**80},
                 {"x": float("nan")}, {"x": float("inf")}, {"x": {"y": [float("-inf")]}}]


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """Draw a plain document changed once, and the name of the change."""
    doc = json.loads(json.dumps(draw(plain)))
    target_path = draw(st.sampled_from(objects(doc)))
    target = get(doc, target_path)
    key = draw(st.sampled_from(sorted(target))) if target else None
    change = draw(st.sampled_from(["drop", "retype", "empty", "extra", "role", "arguments", "url", "media",
                                   "base64", "duplicate id", "surrogate", "null", "image key", "image role"]))
    if change == "drop" and key is not None:
        del target[key]
    elif change == "retype" and key is not None:
        target[key] = draw(st.sampled_from(RETYPED))
    elif change == "empty" and key is not None:
        target[key] = type(target[key])() if isinstance(target[key], (str, list, dict)) else target[key]
    elif change == "extra":
        target[draw(st.sampled_from(["contnet", "extra", "cache", "type", "url", "role", "is_error",
                                     "tool_call_id", "tool_calls", "reasoning", "name", "media_type", "data", "path",
                                     "source", "text", "arguments", "id"]))] = draw(
            st.sampled_from(RETYPED + ["assistant", "c9", False]))
    elif change == "role":
        doc["role"] = draw(st.sampled_from(["system", "user", "assistant", "tool", "User", "ASSISTANT", "robot", "", "developer",
                                             "function", None, 3]))
    elif change in ("arguments", "duplicate id"):
        if len(doc.get("tool_calls") or ()) < 2:  # the change needs calls: two of them, then
            doc = {"role": "assistant", "tool_calls": [{"id": "c1", "name": "a", "arguments": {}},
                                                        {"id": "c2", "name": "b", "arguments": {"x": 1}}]}
        if change == "arguments":
            doc["tool_calls"][draw(st.sampled_from([0, 1]))]["arguments"] = draw(st.sampled_from(BAD_ARGUMENTS))
        else:
            doc["tool_calls"][1]["id"] = doc["tool_calls"][0]["id"]
    elif change == "image role":  # an image where the role allows none
        doc = {"role": draw(st.sampled_from(["system", "assistant"])),
               "content": [{"type": "text", "text": "See"}, {"type": "image", "source": draw(sources)}]}
    elif change in ("url", "media", "base64", "image key"):
        images = [get(doc, at) for at in objects(doc) if "source" in get(doc, at)]
        if not images:  # the change needs an image part: a user message with one, then
            doc = {"role": "user", "content": [{"type": "image", "source": {}}]}
            if draw(st.booleans()):
                doc.update(role="tool", tool_call_id="c1")
            images = [doc["content"][0]]
        image = draw(st.sampled_from(images))
        source = image["source"]
        if change == "image key":  # a key of another source's type, or none's
            if not source:
                source.update(type="url", url="https://example.com/a.png")
            draw(st.sampled_from([image, source]))[draw(st.sampled_from(["url", "data", "media_type", "path", "x"]))] = "a"
            return change, doc
        source.clear()
        if change == "url":
            source.update(type="url", url=draw(st.sampled_from(BAD_URLS)))
        elif change == "media":
            source.update(type="base64", data=PNG, media_type=draw(st.sampled_from(["image/bmp", "png", "", None])))
        else:
            source.update(type="base64", media_type="image/png", data=draw(st.sampled_from(
                ["", "abc", "data:image/png;base64," + PNG, PNG + "=", "not base64!"])))
    elif change == "surrogate" and key is not None and isinstance(target[key], str):
        target[key] += "\udc80"
    elif change == "null" and key is not None:
        target[key] = None
    return change, doc


# The valid forms the check-only path leaves to the constructors (it proves the plain ones only).
def unproven(doc: Any) -> bool:
    """Tell that ``doc`` is outside the plain forms: an inexact role, a null or false for an absent key..."""
    if not isinstance(doc, dict) or doc.get("role") not in ("system", "user", "assistant", "tool"):
        return True
    allowed = {"system": {"role", "content"}, "user": {"role", "content"},
               "assistant": {"role", "content", "tool_calls"},
               "tool": {"role", "content", "tool_call_id", "is_error"}}[doc["role"]]
    calls = doc.get("tool_calls")
    return not allowed.issuperset(doc) or big(calls if isinstance(calls, list) else ())


def big(value: Any) -> bool:
    """Tell that a JSON value holds an integer outside 64 bits (left to freezing, not proven here)."""
    if isinstance(value, dict):
        return any(big(item) for item in value.values())
    if isinstance(value, list):
        return any(big(item) for item in value)
    return type(value) is int and not -(2**63) < value < 2**63


@settings(max_examples=600, deadline=None)
@given(plain)
def test_every_plain_document_is_proven_valid(doc: dict[str, Any]) -> None:
    assert constructors_accept(doc) and (chat_message(doc) or big(doc.get("tool_calls")))


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_the_check_only_verdict_is_the_constructors_on_mutated_documents(case: tuple[str, dict[str, Any]]) -> None:
    change, doc = case
    proven, accepted = chat_message(doc), constructors_accept(doc)
    assert not proven or accepted, change  # never proves what the constructors refuse
    if not unproven(doc):
        assert proven == accepted, change


def image(source: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "image", "source": source, **extra}


URL = {"type": "url", "url": "https://example.com/a.png"}
B64 = {"type": "base64", "media_type": "image/png", "data": PNG}
CALL = {"id": "c1", "name": "now", "arguments": {}}
# One document per rule the check-only path applies, each refused by the constructors or by the
# check for unknown keys: the generated cases above find these too, the table finds them every run.
REFUSED = {
    "image in a system message": {"role": "system", "content": [image(URL)]},
    "image in an assistant message": {"role": "assistant", "content": [image(URL)]},
    "unknown key of a url source": {"role": "user", "content": [image({**URL, "media_type": "image/png"})]},
    "unknown key of a base64 source": {"role": "user", "content": [image({**B64, "url": "https://a.b/c"})]},
    "unknown key of an image part": {"role": "user", "content": [image(URL, text="a")]},
    "unknown key of a text part": {"role": "user", "content": [{"type": "text", "text": "a", "cache": True}]},
    "unknown key of a call": {"role": "assistant", "tool_calls": [{**CALL, "type": "function"}]},
    "unknown key of a message": {"role": "user", "content": "a", "contnet": "a"},
    "unknown key of an assistant message without content": {"role": "assistant", "tool_calls": [CALL], "x": 1},
    "unknown key of a tool message": {"role": "tool", "tool_call_id": "c1", "content": "ok", "x": 1},
    "unknown key of a tool message with is_error": {"role": "tool", "tool_call_id": "c1", "content": "ok",
                                                    "is_error": True, "x": 1},
    "bad image url": {"role": "user", "content": [image({"type": "url", "url": "ftp://a.b/c.png"})]},
    "bad media type": {"role": "user", "content": [image({**B64, "media_type": "image/bmp"})]},
    "bad base64": {"role": "tool", "tool_call_id": "c1", "content": [image({**B64, "data": "abc"})]},
    "unknown source type": {"role": "user", "content": [image({"type": "ftp", "url": "ftp://a.b/c"})]},
    "text part without text": {"role": "user", "content": [{"type": "text"}]},
    "empty content list": {"role": "user", "content": []},
    "repeated call ids": {"role": "assistant", "tool_calls": [CALL, {**CALL, "name": "later"}]},
    "bad tool name": {"role": "assistant", "tool_calls": [{**CALL, "name": "no spaces"}]},
    "empty call id": {"role": "assistant", "tool_calls": [{**CALL, "id": ""}]},
    "arguments not an object": {"role": "assistant", "tool_calls": [{**CALL, "arguments": []}]},
    "a lone surrogate in the arguments": {"role": "assistant", "tool_calls": [{**CALL, "arguments": {"a": ["\ud800"]}}]},
    "a lone surrogate in a key": {"role": "assistant", "tool_calls": [{**CALL, "arguments": {"\udfff": 1}}]},
    "an infinite number": {"role": "assistant", "tool_calls": [{**CALL, "arguments": {"a": {"b": float("inf")}}}]},
    "an assistant with nothing": {"role": "assistant", "tool_calls": []},
    "a user without content": {"role": "user"},
    "a tool message without its call id": {"role": "tool", "content": "ok"},
    "a tool message with a bad is_error": {"role": "tool", "tool_call_id": "c1", "content": "ok", "is_error": "no"},
    "a lone surrogate in the content": {"role": "user", "content": "a\udc80"},
    "an unknown role": {"role": "robot", "content": "a"},
}


@pytest.mark.parametrize("doc", REFUSED.values(), ids=REFUSED.keys())
def test_each_rule_refuses_what_the_constructors_refuse(doc: dict[str, Any]) -> None:
    assert not constructors_accept(doc) and not chat_message(doc)


@pytest.mark.parametrize("doc", [
    {"role": "User", "content": "Hi"},  # from_dict reads any case
    {"role": "user", "content": "Hi", "is_error": False},  # is_error at its default
    {"role": "user", "content": "Hi", "tool_calls": None},  # null is absent
    {"role": "assistant", "content": "Hi", "reasoning": [{"type": "reasoning", "text": "Think."}]},
    {"role": "user", "content": [{"type": "image", "source": {"type": "file", "path": "a.png"}}]},
    {"role": "assistant", "tool_calls": [{"id": "c1", "name": "now", "arguments": {"n": 10**30}}]},
])
def test_valid_forms_outside_the_plain_ones_are_left_to_the_constructors(doc: dict[str, Any]) -> None:
    assert constructors_accept(doc) and not chat_message(doc)


def test_a_document_that_is_not_an_object_is_not_proven() -> None:
    assert [chat_message(doc) for doc in ([{"role": "user", "content": "Hi"}], "user", None, 3)] == [False] * 4


def test_arguments_nested_past_the_stack_are_not_proven() -> None:
    deep: Any = 1
    for _ in range(100_000):
        deep = [deep]
    assert not chat_message({"role": "assistant", "tool_calls": [{"id": "c", "name": "n", "arguments": {"x": deep}}]})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(plain, mutated().map(lambda case: case[1])), min_size=1, max_size=12))
def test_the_report_is_the_same_text_with_and_without_the_check_only_path(
    tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    docs: list[dict[str, Any]],
) -> None:
    path = tmp_path_factory.mktemp("log") / "log.jsonl"
    path.write_text("".join(json.dumps(doc) + "\n" for doc in docs), encoding="utf-8")
    reports = []
    for enabled in (True, False):
        with monkeypatch.context() as patch:
            if not enabled:
                patch.setattr(_json_lines, "check_only", lambda kind: None)
            for options in ([], ["--strict"], ["--format", "json"]):
                status = main([*options, "--jsonl", str(path)])
                reports.append((status, capsys.readouterr().out))
    assert reports[:3] == reports[3:]


def test_the_check_only_path_serves_the_chat_message_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentmsg.validate import _check_only

    proven: list[bool] = []

    def spy(doc: Any) -> bool:
        proven.append(chat_message(doc))
        return proven[-1]

    monkeypatch.setattr(_check_only, "chat_message", spy)
    path = tmp_path / "log.jsonl"
    path.write_text('{"role": "user", "content": "Hi"}\n{"role": "assistant", "tool_calls": [{"id": "c1", "name": '
                    '"now", "arguments": {"tz": "UTC"}}]}\n{"role": "tool", "tool_call_id": "c1", "content": "12:00"}\n',
                    encoding="utf-8")
    assert main(["--quiet", "--jsonl", str(path)]) == 0
    assert proven == [True, True, True]


def test_the_key_sets_are_within_the_field_table() -> None:
    from agentmsg.validate import _check_only

    table = FIELDS["chat_message"]
    for role, keys in _check_only._ROLE_KEYS.items():
        variant = table[3][role]
        assert variant[0] is not None and keys <= variant[0]
    # the keys the check-only path counts in place of comparing sets: each its kind's
    for keys, counted in ((_check_only._TEXT_KEYS, {"type", "text"}), (_check_only._IMAGE_KEYS, {"type", "source"}),
                          (_check_only._URL_KEYS, {"type", "url"}),
                          (_check_only._BASE64_KEYS, {"type", "media_type", "data"}),
                          (_check_only._CALL_KEYS, {"id", "name", "arguments"})):
        assert counted <= keys
