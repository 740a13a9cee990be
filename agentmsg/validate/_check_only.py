"""The check-only path: a chat message's rules applied to the parsed dict, no object built.

>>> chat_message({"role": "assistant", "tool_calls": [{"id": "c1", "name": "now", "arguments": {}}]})
True
>>> chat_message({"role": "user", "content": "Hi", "contnet": "Hi"})  # a typo: the careful path reports it
False
>>> chat_message({"role": "user", "content": []})  # invalid: from_dict says why
False

Theory of operation. The validate CLI needs a verdict, not a ``ChatMessage``: building one
deep-freezes the arguments of every tool call and makes a frozen object per part, call and
source, all thrown away. ``chat_message(doc)`` answers True only when ``ChatMessage.from_dict``
accepts ``doc`` and ``doc`` holds no key the field table (``_fields.FIELDS``) does not know: the
two questions the fast path asked of every line, in one pass over the dicts. False means "not
proven", never "invalid": the line then takes the path it took before (``from_dict``, then the
careful path on a failure), so the verdict and the report text of every other line are theirs.

It proves the shapes a chat log is made of: system and user text or parts, assistant text and
tool calls, tool results; each holding only its role's keys, each value of its plain form (an
exact role name, content as a string or a non-empty list of parts, a call's arguments as a
JSON object). Anything else (reasoning, a null where a key may be left out, a role in capitals,
a file image source) is not proven and costs what it cost before. The rules of a value are the
core's own checkers, called here (``check_text``, ``check_id``, ``check_name``, ``check_url``,
``check_media_type``, ``check_base64``): an error they raise means "not proven". The keys of a
part, a source and a call are the field table's; a role's keys are the rules of ``from_dict``
(``tests/test_validate_check_only.py`` proves the two equal on generated and mutated documents).
Keys are counted before they are compared: an object that holds no more keys than the ones just
read from it (each one its kind takes) holds no other, and ``issuperset``, which builds an
iterator and looks each key up, is left to an object with more.
"""

from __future__ import annotations

from .._checks import _KNOWN_NAMES, check_id, check_name, check_text
from .._images import check_base64, check_media_type, check_url
from ..errors import ValidationError
from ..roles import ROLE_NAMES
from ._fields import FIELDS, Node

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up): type checkers read it as true
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

__all__ = ["chat_message"]

_SYSTEM, _USER, _ASSISTANT, _TOOL = ROLE_NAMES
# The keys each role's plain form may hold (every other key: not proven).
_ROLE_KEYS = {
    _SYSTEM: frozenset({"role", "content"}),
    _USER: frozenset({"role", "content"}),
    _ASSISTANT: frozenset({"role", "content", "tool_calls"}),
    _TOOL: frozenset({"role", "content", "tool_call_id", "is_error"}),
}


def _keys(node: Node) -> frozenset[str]:
    """Return the keys an object of ``node`` may hold (every node used here lists them)."""
    keys = node[0]
    if keys is None:
        raise TypeError("the field table must list the keys of a part, a source and a call")
    return keys


# The keys of a part, a source and a call: the field table's (a tagged node's variants).
_PART = FIELDS["chat_message"][1]["content"][3]
_TEXT_KEYS, _IMAGE_KEYS = _keys(_PART["text"]), _keys(_PART["image"])
_SOURCE = _PART["image"][1]["source"][3]
_URL_KEYS, _BASE64_KEYS = _keys(_SOURCE["url"]), _keys(_SOURCE["base64"])
_CALL_KEYS = _keys(FIELDS["tool_call"])
# An integer within 64 bits is always a JSON number agentmsg keeps; a bigger one is left to freezing.
_INT_LIMIT = 1 << 63


def chat_message(doc: Any) -> bool:
    """Tell that ``ChatMessage.from_dict`` accepts ``doc`` and that it holds no unknown key (False: not proven)."""
    try:
        if type(doc) is not dict:
            return False
        role = doc.get("role")
        keys = _ROLE_KEYS.get(role) if type(role) is str else None
        if keys is None:
            return False
        content = doc.get("content")
        if type(content) is str:
            if not content.isascii():
                check_text(content, "content")
        elif type(content) is list:
            if not content or not _parts(content, role == _USER or role == _TOOL):
                return False
        elif content is not None or role != _ASSISTANT:
            return False
        found = 1 if content is None else 2  # the role's keys seen holding a value
        if role == _ASSISTANT:
            calls = doc.get("tool_calls")
            if calls is not None:
                if type(calls) is not list or calls and not _calls(calls):
                    return False
                found += 1
            if not calls and content is None:
                return False
        elif role == _TOOL:
            is_error = doc.get("is_error")
            if is_error is not None:
                if is_error is not True and is_error is not False:
                    return False
                found += 1
            id = doc.get("tool_call_id")
            if type(id) is not str or not id.isascii() or not id:
                check_id(id, "tool_call_id")
            found += 1
        return len(doc) == found or keys.issuperset(doc)
    except (ValidationError, RecursionError):
        return False


def _parts(parts: list[Any], images: bool) -> bool:
    """Tell that each item is a text part, or an image part where ``images`` allows."""
    for part in parts:
        if type(part) is not dict:
            return False
        kind = part.get("type")
        if kind == "text":
            text = part.get("text")
            if type(text) is not str or len(part) != 2 and not _TEXT_KEYS.issuperset(part):
                return False
            if not text.isascii():
                check_text(text, "text")
        elif kind == "image" and images:
            source = part.get("source")
            if type(source) is not dict or len(part) != 2 and not _IMAGE_KEYS.issuperset(part):
                return False
            kind = source.get("type")
            if kind == "url":
                check_url(source.get("url"))
                if len(source) != 2 and not _URL_KEYS.issuperset(source):
                    return False
            elif kind == "base64":
                check_media_type(source.get("media_type"), "media_type")
                check_base64(source.get("data"), "data")
                if len(source) != 3 and not _BASE64_KEYS.issuperset(source):
                    return False
            else:
                return False
        else:
            return False
    return True


def _calls(calls: list[Any]) -> bool:
    """Tell that each item is a tool call and that their ids differ."""
    ids = set()
    for call in calls:
        if type(call) is not dict:
            return False
        id = call.get("id")
        if type(id) is not str or not id.isascii() or not id:
            check_id(id, "id")
        name = call.get("name")
        if type(name) is not str or name not in _KNOWN_NAMES:
            check_name(name)
        arguments = call.get("arguments")
        if type(arguments) is not dict or len(call) != 3 and not _CALL_KEYS.issuperset(call):
            return False
        if not _json_object(arguments):
            return False
        ids.add(id)
    return len(ids) == len(calls)


def _json_object(value: dict[str, Any]) -> bool:
    """Tell that a parsed JSON object holds only keys and values freezing keeps as they are (False: not proven)."""
    for key in value:
        if not key.isascii():
            check_text(key, "")
    return _json_values(value.values())


def _json_values(items: Iterable[Any]) -> bool:
    """Tell that each parsed JSON value is one freezing keeps as it is (False: not proven)."""
    for item in items:
        t = type(item)
        if t is str:
            if not item.isascii():
                check_text(item, "")
        elif t is int:
            if not -_INT_LIMIT < item < _INT_LIMIT:
                return False
        elif t is dict:
            if not _json_object(item):
                return False
        elif t is list:
            if not _json_values(item):
                return False
        elif t is float:
            if item - item != 0.0:
                return False
        elif item is not None and t is not bool:
            return False
    return True
