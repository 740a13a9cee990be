"""The fields of agentmsg's own documents, to report a key no reader knows (a typo, most often).

>>> unknown_fields(FIELDS["chat_message"], {"role": "user", "contnet": "Hi", "content": [
...     {"type": "text", "text": "Hi", "cache": True}]})
['contnet', 'content[0].cache']
>>> unknown_fields(FIELDS["tool_call"], {"id": "c1", "name": "now", "arguments": {"anything": 1}})
[]

The decoders ignore a key they do not read (the documents stay readable by older versions), so
``"contnet"`` passes and the content is silently missing; the validator reports it as a warning
(an error with ``--strict``). A ``Node`` is ``(keys, children, tag, variants)``: the keys an
object may hold (None: any), the node of each key whose value is an object or an array of them
(an array is looked through: its objects are checked against the same node), and, for objects
told apart by a tag (a part's ``type``, an event's name), the key and the node of each value
(an unknown value: the node itself, the union of them all).

The table is written from the shipped JSON Schemas (``agentmsg/formats``), where a key's
properties are listed, by ``tests/test_validate_fields.py``: ``AGENTMSG_REGENERATE=1`` rewrites
it after a schema changes. The values the schemas leave open (a tool's ``parameters``, a call's
``arguments``, ``extras``, an artifact) are not looked into. Records need no table: their
decoders refuse an unknown key.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up): type checkers read it as true
if TYPE_CHECKING:
    from typing import Any


__all__ = ["Node", "FIELDS", "unknown_fields", "has_unknown_fields", "unknown_check"]

Node = tuple["frozenset[str] | None", "dict[str, Node]", str, "dict[str, Node]"]

_SHOWN = 40  # the most characters of an unknown key a path shows


def unknown_fields(node: Node, value: Any, path: str = "", out: list[str] | None = None) -> list[str]:
    """Return the paths of the keys in ``value`` that ``node`` does not know (an object's own, then its values')."""
    found: list[str] = [] if out is None else out
    if has_unknown_fields(node, value):  # most documents have none: no path is built for them
        _walk(node, value, path, found)
    return found


def has_unknown_fields(node: Node, value: Any) -> bool:
    """Tell whether ``value`` holds a key ``node`` does not know (the fast path's question, for every line).

    >>> has_unknown_fields(FIELDS["tool_call"], [{"id": "c1", "name": "now"}, {"id": "c2", "type": "function"}])
    True
    """
    return unknown_check(node)(value)


_CHECKS: dict[int, tuple[Node, Callable[[Any], bool]]] = {}  # id(node) -> (node, its check); holds the node


def unknown_check(node: Node) -> Callable[[Any], bool]:
    """Return the function answering ``has_unknown_fields(node, value)``, written for ``node`` on first use.

    The fast path asks it of every line, and most lines hold only known keys; so the function is
    the table written out as straight code (as ``dataclasses`` writes ``__init__``), one subset
    test of a dict's keys view per object, no walk over the table at run time.
    """
    found = _CHECKS.get(id(node))
    if found is None:
        found = _CHECKS[id(node)] = (node, _generate(node))
    return found[1]


def _generate(node: Node) -> Callable[[Any], bool]:
    """Write and compile the check of ``node``: one function, the nodes under it written inline.

    For an object: with a tag, the variant the tag names decides (an ``if``/``elif`` on its
    value); then one subset test of the object's keys; then each key whose value has a node:
    that value (an object, or the objects of an array) tested in turn, in the same function (a
    call costs more than most tests). A node several objects or variants hold (a provider's content
    block, in every message type) is its own function, called: written inline, each copy would be
    written again under every tag, and a provider's table would grow to tens of thousands of lines.
    """
    namespace: dict[str, Any] = {}
    lines: list[str] = []
    count = [0]

    def fresh(prefix: str) -> str:
        count[0] += 1
        return f"{prefix}{count[0]}"

    def constant(value: object) -> str:
        name = fresh("K")
        namespace[name] = value
        return name

    shared = _shared(node)

    def block(one: Node, var: str, indent: str, tagged: bool) -> None:
        """Write the lines that return True when the object ``var`` holds a key ``one`` does not know."""
        start = len(lines)
        keys, children, tag, variants = one
        if tagged and tag and variants:
            chosen = fresh("t")
            lines.append(f"{indent}{chosen} = {var}.get({tag!r})")
            word = "if"
            for value, variant in variants.items():
                lines.append(f"{indent}{word} {chosen} == {value!r}:")
                block(variant, var, indent + "    ", False)
                word = "elif"
            lines.append(f"{indent}else:")
            block(one, var, indent + "    ", False)
            return
        if keys is not None:
            lines.extend((f"{indent}if not {constant(keys)}.issuperset({var}):", f"{indent}    return True"))
        for field, child in children.items():
            if child[0] is None and not child[1] and not child[2]:
                continue  # any key is known there
            inner, item = fresh("x"), fresh("y")
            if id(child) in shared:  # written once, as its own function: inlined, a shared node multiplies the code
                lines.extend((f"{indent}{inner} = {var}.get({field!r})",
                              f"{indent}if {inner} is not None and {constant(unknown_check(child))}({inner}):",
                              f"{indent}    return True"))
                continue
            lines.extend((f"{indent}{inner} = {var}.get({field!r})", f"{indent}if {inner} is not None:",
                          f"{indent}    if type({inner}) is dict:", f"{indent}        {inner} = ({inner},)",
                          f"{indent}    elif type({inner}) is not list:", f"{indent}        {inner} = ()",
                          f"{indent}    for {item} in {inner}:", f"{indent}        if type({item}) is dict:"))
            block(child, item, indent + "            ", True)  # an absent key (most of them) costs a get and a test
        if len(lines) == start:
            lines.append(f"{indent}pass")

    lines += ["def check(v):", "    if type(v) is list:", "        for item in v:",
              "            if type(item) is dict and check(item):", "                return True",
              "        return False", "    if type(v) is not dict:", "        return False"]
    block(node, "v", "    ", True)
    lines.append("    return False")
    exec("\n".join(lines), namespace)
    check: Callable[[Any], bool] = namespace["check"]
    return check


def _shared(node: Node) -> set[int]:
    """Return the ids of the nodes under ``node`` that more than one object or variant holds."""
    seen: dict[int, int] = {}
    todo = [node]
    while todo:
        one = todo.pop()
        _, children, _, variants = one
        for child in (*children.values(), *variants.values(), *((one,) if variants else ())):
            seen[id(child)] = seen.get(id(child), 0) + 1
            if seen[id(child)] == 1 and child is not one:
                todo.append(child)
    return {key for key, times in seen.items() if times > 1 and key != id(node)}


def _walk(node: Node, value: Any, path: str, out: list[str]) -> None:
    """Note in ``out`` the path of each unknown key in ``value``."""
    if type(value) is list:  # looked through once: an array of arrays is no document's shape
        for i, item in enumerate(value):
            if type(item) is dict:
                _walk(node, item, f"{path}[{i}]", out)
        return
    if type(value) is not dict:
        return
    keys, children, tag, variants = node
    if tag:
        chosen = value.get(tag)
        if type(chosen) is str and chosen in variants:
            keys, children, _, _ = variants[chosen]
    if keys is not None and not keys.issuperset(value):
        out.extend(f"{path}.{key[:_SHOWN]}" if path else key[:_SHOWN] for key in value if key not in keys)
    for key, child in children.items():
        inner = value.get(key)
        if type(inner) is dict or type(inner) is list:
            _walk(child, inner, f"{path}.{key}" if path else key, out)


# -- written from the shipped schemas by tests/test_validate_fields.py (AGENTMSG_REGENERATE=1) --
_N0: Node = (frozenset({"data", "media_type", "type"}), {}, "", {})
_N1: Node = (frozenset({"path", "type"}), {}, "", {})
_N2: Node = (frozenset({"type", "url"}), {}, "", {})
_N3: Node = (frozenset({"data", "media_type", "path", "type", "url"}), {}, "type", {"base64": _N0, "file": _N1, "url": _N2})
_N4: Node = (frozenset({"source", "type"}), {"source": _N3}, "", {})
_N5: Node = (frozenset({"text", "type"}), {}, "", {})
_N6: Node = (frozenset({"source", "text", "type"}), {"source": _N3}, "type", {"image": _N4, "text": _N5})
_N7: Node = (frozenset({"anchor", "id", "provider", "redacted", "signature", "text", "type"}), {}, "", {})
_N8: Node = (frozenset({"arguments", "id", "name"}), {}, "", {})
_N9: Node = (frozenset({"content", "is_error", "reasoning", "role", "tool_call_id", "tool_calls"}), {"content": _N5, "reasoning": _N7, "tool_calls": _N8}, "", {})
_N10: Node = (frozenset({"content", "is_error", "reasoning", "role", "tool_call_id", "tool_calls"}), {"content": _N5}, "", {})
_N11: Node = (frozenset({"content", "is_error", "reasoning", "role", "tool_call_id", "tool_calls"}), {"content": _N6}, "", {})
_N12: Node = (frozenset({"content", "is_error", "reasoning", "role", "tool_call_id", "tool_calls"}), {"content": _N6, "reasoning": _N7, "tool_calls": _N8}, "role", {"assistant": _N9, "system": _N10, "tool": _N11, "user": _N11})
_N13: Node = (frozenset({"is_error", "result", "tool_call_id"}), {}, "", {})
_N14: Node = (frozenset({"description", "extras", "name", "parameters", "strict"}), {}, "", {})
_N15: Node = (frozenset({"arguments_delta", "id", "index", "name"}), {}, "", {})
_N16: Node = (frozenset({"data", "media_type"}), {}, "", {})
_N17: Node = (frozenset({"code", "error", "success", "turnId"}), {}, "", {})
_N18: Node = (frozenset({"arguments", "artifactIds", "completedAt", "content", "error", "id", "kind", "progressText", "role", "status", "timestamp", "title", "toolCallId", "toolName"}), {}, "", {})
_N19: Node = (frozenset({"completion", "content", "id", "image", "role", "timestamp"}), {"completion": _N17}, "", {})
_N20: Node = (frozenset({"arguments", "artifactIds", "completedAt", "completion", "content", "error", "id", "image", "kind", "progressText", "role", "status", "timestamp", "title", "toolCallId", "toolName"}), {"completion": _N17}, "role", {"assistant": _N18, "user": _N19})
_N21: Node = (frozenset({"approved", "arguments", "artifact", "artifactId", "artifacts", "cancelled", "chunk", "code", "content", "conversation_id", "error", "finalArtifactId", "id", "image", "kind", "message", "messageId", "messages", "patch", "progress", "progressText", "reason", "result", "role", "sessionId", "showInCanvas", "status", "success", "timestamp", "title", "toolCallId", "toolName", "turnId"}), {"image": _N16, "messages": _N20}, "", {})
_N22: Node = (frozenset({"sessionId", "turnId"}), {}, "", {})
_N23: Node = (frozenset({"event", "payload"}), {"payload": _N22}, "", {})
_N24: Node = (frozenset({"artifacts", "messages", "sessionId", "status"}), {"messages": _N20}, "", {})
_N25: Node = (frozenset({"event", "payload"}), {"payload": _N24}, "", {})
_N26: Node = (frozenset({"conversation_id", "id", "image", "message", "timestamp"}), {"image": _N16}, "", {})
_N27: Node = (frozenset({"event", "payload"}), {"payload": _N26}, "", {})
_N28: Node = (frozenset({"cancelled", "code", "error", "finalArtifactId", "result", "success", "turnId"}), {}, "", {})
_N29: Node = (frozenset({"event", "payload"}), {"payload": _N28}, "", {})
_N30: Node = (frozenset({"chunk", "id"}), {}, "", {})
_N31: Node = (frozenset({"event", "payload"}), {"payload": _N30}, "", {})
_N32: Node = (frozenset({"id"}), {}, "", {})
_N33: Node = (frozenset({"event", "payload"}), {"payload": _N32}, "", {})
_N34: Node = (frozenset({"content", "id", "role", "timestamp"}), {}, "", {})
_N35: Node = (frozenset({"event", "payload"}), {"payload": _N34}, "", {})
_N36: Node = (frozenset({"artifactId", "message", "progress", "status"}), {}, "", {})
_N37: Node = (frozenset({"event", "payload"}), {"payload": _N36}, "", {})
_N38: Node = (frozenset({"arguments", "id", "toolName", "turnId"}), {}, "", {})
_N39: Node = (frozenset({"event", "payload"}), {"payload": _N38}, "", {})
_N40: Node = (frozenset({"approved", "id", "reason", "sessionId"}), {}, "", {})
_N41: Node = (frozenset({"event", "payload"}), {"payload": _N40}, "", {})
_N42: Node = (frozenset({"artifact", "messageId", "showInCanvas"}), {}, "", {})
_N43: Node = (frozenset({"event", "payload"}), {"payload": _N42}, "", {})
_N44: Node = (frozenset({"error", "id", "status", "timestamp"}), {}, "", {})
_N45: Node = (frozenset({"event", "payload"}), {"payload": _N44}, "", {})
_N46: Node = (frozenset({"arguments", "content", "id", "kind", "progressText", "role", "status", "timestamp", "title", "toolCallId", "toolName"}), {}, "", {})
_N47: Node = (frozenset({"event", "payload"}), {"payload": _N46}, "", {})
_N48: Node = (frozenset({"id", "patch"}), {}, "", {})
_N49: Node = (frozenset({"event", "payload"}), {"payload": _N48}, "", {})
_N50: Node = (frozenset({"event", "payload"}), {"payload": _N21}, "event", {"chat:cancel": _N23, "chat:init": _N25, "chat:send": _N27, "completion": _N29, "message:chunk": _N31, "message:end": _N33, "message:start": _N35, "progress": _N37, "reasoning:chunk": _N31, "reasoning:end": _N33, "reasoning:start": _N33, "tool:approval:request": _N39, "tool:approval:response": _N41, "tool:artifact": _N43, "tool:message:args": _N31, "tool:message:complete": _N45, "tool:message:start": _N47, "tool:message:update": _N49, "turn:start": _N23})
FIELDS: dict[str, Node] = {
    "chat_message": _N12,
    "conversation": _N12,
    "tool_call": _N8,
    "tool_result": _N13,
    "tool_definition": _N14,
    "tool_definitions": _N14,
    "tool_call_delta": _N15,
    "reasoning_part": _N7,
    "event": _N50,
}
# -- end of the written table --
