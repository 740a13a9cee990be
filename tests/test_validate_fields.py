"""The table of known fields (``agentmsg/validate/_fields.py``) is the shipped schemas' properties.

The validator warns of a key no reader knows (an error with ``--strict``). Which keys are known
is written, as data, from ``agentmsg/formats/*.json`` by the compiler below;
``AGENTMSG_REGENERATE=1`` rewrites the table after a schema changes, instead of failing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmsg import ChatMessage
from agentmsg.events import decode as decode_event
from agentmsg.events import encode as encode_event
from agentmsg.validate._fields import FIELDS, Node, _walk, has_unknown_fields, unknown_fields

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ROOT / "agentmsg" / "formats"
MODULE = ROOT / "agentmsg" / "validate" / "_fields.py"
DATA = Path(__file__).parent / "data"
BEGIN = "# -- written from the shipped schemas by tests/test_validate_fields.py (AGENTMSG_REGENERATE=1) --\n"
END = "# -- end of the written table --\n"

# The kinds with a table, and the definition of the shipped schema each is read from.
KINDS = {
    "chat_message": ("core.schema.json", "chat_message"), "conversation": ("core.schema.json", "conversation"),
    "tool_call": ("core.schema.json", "tool_call"), "tool_result": ("core.schema.json", "tool_result"),
    "tool_definition": ("core.schema.json", "tool_definition"),
    "tool_definitions": ("core.schema.json", "tool_definition"),
    "tool_call_delta": ("core.schema.json", "tool_call_delta"), "reasoning_part": ("core.schema.json", "reasoning_part"),
    "event": ("events.schema.json", "event"),
}
# Objects whose keys are anyone's: a JSON Schema (a tool's parameters), an artifact.
OPEN = {"core.schema.json": ["#/$defs/tool_definition/properties/parameters"], "events.schema.json": ["#/$defs/artifact"]}


class Compiler:
    """Read a schema's objects as nodes ``(keys, children, tag, variants)`` (see ``_fields``)."""

    def __init__(self, root: dict[str, Any], open_pointers: list[str]) -> None:
        self.root = root
        self.open = {id(self.pointer(p)) for p in open_pointers}

    def pointer(self, ref: str) -> Any:
        node: Any = self.root
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
        return node

    def visit(self, schema: Any, found: dict[str, Any], depth: int = 0) -> None:
        """Gather the keys ``schema`` names for an object: its own, its branches', its items'."""
        assert depth < 50
        if schema is True or id(schema) in self.open:
            found["open"] = True
        if not isinstance(schema, dict):
            return
        if "$ref" in schema:
            self.visit(self.pointer(schema["$ref"]), found, depth + 1)
        extra = schema.get("additionalProperties")
        if (extra is not None and extra is not False) or "patternProperties" in schema or "propertyNames" in schema:
            found["open"] = True
        for key, sub in schema.get("properties", {}).items():
            found["properties"].setdefault(key, []).append(sub)
        found["required"].update(schema.get("required", []))
        for key in ("allOf", "anyOf", "oneOf"):
            for sub in schema.get(key, []):
                self.visit(sub, found, depth + 1)
        for key in ("if", "then", "else", "items"):
            if key in schema:
                self.visit(schema[key], found, depth + 1)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                found["groups"].append((schema, key))

    def node(self, schemas: list[Any]) -> Node | None:
        found: dict[str, Any] = {"properties": {}, "required": set(), "open": False, "groups": []}
        for schema in schemas:
            self.visit(schema, found)
        names = set(found["properties"]) | found["required"]
        keys = None if found["open"] or not names else frozenset(names)
        children = {}
        for key in sorted(found["properties"]):
            child = self.node(found["properties"][key])
            if child is not None:
                children[key] = child
        tag, variants = "", {}
        for owner, group in found["groups"]:  # the first group of alternatives told apart by a constant
            alternatives = [self.resolve(a) for a in owner[group]]
            common: set[str] | None = None
            for alternative in alternatives:
                consts = {k for k, v in alternative.get("properties", {}).items()
                          if isinstance(v, dict) and isinstance(v.get("const"), str)}
                common = consts if common is None else common & consts
            if not common:
                continue
            tag = sorted(common)[0]
            rest = {k: v for k, v in owner.items() if k != group}
            for alternative in alternatives:
                variant = self.node([{**rest, "allOf": [*rest.get("allOf", []), alternative]}])
                variants[alternative["properties"][tag]["const"]] = variant or (None, {}, "", {})
            if all(variant[:2] == (keys, children) for variant in variants.values()):
                tag, variants = "", {}
            break
        if keys is None and not children and not tag:
            return None
        return keys, children, tag, variants

    def resolve(self, schema: Any) -> Any:
        while isinstance(schema, dict) and set(schema) == {"$ref"}:
            schema = self.pointer(schema["$ref"])
        return schema


def compiled() -> dict[str, Node]:
    table: dict[str, Node] = {}
    compilers: dict[str, Compiler] = {}
    for kind, (filename, definition) in KINDS.items():
        if filename not in compilers:
            compilers[filename] = Compiler(json.loads((FORMATS / filename).read_text(encoding="utf-8")), OPEN[filename])
        compiler = compilers[filename]
        node = compiler.node([compiler.root["$defs"][definition]])
        assert node is not None, kind
        table[kind] = node
    return table


def render(table: dict[str, Node]) -> str:
    """Write ``table`` as Python: each distinct node once, named ``_N0``, ``_N1``..., then ``FIELDS``."""
    names: dict[Any, str] = {}
    lines: list[str] = []

    def key(node: Node) -> Any:
        keys, children, tag, variants = node
        return (None if keys is None else tuple(sorted(keys)), tuple((k, key(v)) for k, v in sorted(children.items())),
                tag, tuple((k, key(v)) for k, v in sorted(variants.items())))

    def name(node: Node) -> str:
        if key(node) not in names:
            keys, children, tag, variants = node
            kids = {k: name(v) for k, v in children.items()}
            kinds = {k: name(v) for k, v in sorted(variants.items())}
            names[key(node)] = f"_N{len(names)}"
            keys_text = "None" if keys is None else "frozenset({" + ", ".join(json.dumps(k) for k in sorted(keys)) + "})"
            kids_text = "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in kids.items()) + "}"
            kinds_text = "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in kinds.items()) + "}"
            lines.append(f"{names[key(node)]}: Node = ({keys_text}, {kids_text}, {json.dumps(tag)}, {kinds_text})")
        return names[key(node)]

    entries = [f"    {json.dumps(kind)}: {name(node)}," for kind, node in table.items()]
    return "\n".join(lines) + "\nFIELDS: dict[str, Node] = {\n" + "\n".join(entries) + "\n}\n"


def test_the_table_is_written_from_the_shipped_schemas() -> None:
    text = MODULE.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    fresh = render(compiled())
    if os.environ.get("AGENTMSG_REGENERATE") == "1" and text[start:end] != fresh:
        MODULE.write_text(text[:start] + fresh + text[end:], encoding="utf-8")
        return
    assert text[start:end] == fresh, "stale: AGENTMSG_REGENERATE=1 rewrites it from agentmsg/formats"
    assert FIELDS == compiled()


def _documents(folder: str) -> list[tuple[str, Any]]:
    found = []
    for path in sorted((DATA / folder / "valid").glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        if folder == "core":
            found.append((f"{case['kind']}:{path.stem}", case["document"]))
        else:
            found.append((f"event:{path.stem}", case))
    assert len(found) > 10
    return found


@pytest.mark.parametrize("name, doc", _documents("core") + _documents("events"), ids=lambda value: value
                         if isinstance(value, str) else "")
def test_valid_documents_hold_only_known_fields_but_for_the_ones_that_show_unknown_keys(name: str, doc: Any) -> None:
    kind, stem = name.split(":")
    unknown = unknown_fields(FIELDS[kind], doc)
    assert has_unknown_fields(FIELDS[kind], doc) is bool(unknown)
    assert bool(unknown) is ("unknown_keys" in stem), unknown


# The chat messages and events are written here; the other kinds' keys are their schema's.
@pytest.mark.parametrize("name, doc", [(name, doc) for name, doc in _documents("core") + _documents("events")
                                       if name.split(":")[0] in ("chat_message", "event")],
                         ids=lambda value: value if isinstance(value, str) else "")
def test_what_agentmsg_writes_holds_only_known_fields(name: str, doc: Any) -> None:
    kind, _ = name.split(":")
    if kind == "chat_message":
        written = ChatMessage.from_dict(doc).to_dict()
    else:
        sender = "server" if doc["event"] == "chat:init" and "status" in doc["payload"] else None
        event, payload = encode_event(decode_event(doc["event"], doc["payload"], sender=sender))
        written = {"event": event, "payload": payload}
    assert unknown_fields(FIELDS[kind], written) == []


def test_each_unknown_key_is_named_where_it_is() -> None:
    doc = [{"role": "assistant", "contnet": "x", "tool_calls": [{"id": "c", "name": "f", "arguments": {"any": 1},
                                                                   "type": "function"}]},
           {"role": "user", "content": [{"type": "text", "text": "Hi", "cache_control": {}}, {"type": "image", "source": {
               "type": "url", "url": "https://a.example/b.png", "detail": "low", "data": "not here"}}]}]
    assert unknown_fields(FIELDS["conversation"], doc) == [
        "[0].contnet", "[0].tool_calls[0].type", "[1].content[0].cache_control", "[1].content[1].source.detail",
        "[1].content[1].source.data"]
    # the keys a value may hold depend on its role or type: a user's image part in an assistant message
    assert unknown_fields(FIELDS["conversation"], [{**doc[1], "role": "assistant"}]) == [
        "[0].content[0].cache_control", "[0].content[1].source"]
    assert unknown_fields(FIELDS["event"], {"event": "chat:send", "payload": {"message": "Hi", "status": "x"}}) == [
        "payload.status"]  # a key of another event's payload is unknown in this one
    assert unknown_fields(FIELDS["tool_definition"], {"name": "f", "parameters": {"anything": 1}, "extras": {"a": {}}}) == []
    assert unknown_fields(FIELDS["chat_message"], {"role": "user", "x" * 100: 1}) == ["x" * 40]


@pytest.mark.parametrize("kind, doc", [
    ("chat_message", {"role": "user", "content": "Hi", "contnet": "Hi"}),
    ("chat_message", {"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": {}, "type": "function"}]}),
    ("chat_message", {"role": "assistant", "content": "x", "reasoning": [{"type": "reasoning", "text": "t", "summary": []}]}),
    ("chat_message", {"role": "user", "content": [{"type": "text", "text": "Hi", "cache_control": {}}]}),
    ("chat_message", {"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "u", "detail": "low"}}]}),
    ("conversation", [{"role": "user", "content": "Hi"}, {"role": "tool", "tool_call_id": "c", "content": "ok", "name": "f"}]),
    ("event", {"event": "chat:send", "payload": {"message": "Hi", "image": {"data": "x", "media_type": "image/png", "n": 1}}}),
    ("tool_call", {"id": "c", "name": "f", "arguments": {}, "index": 0}),
])
def test_the_fast_question_finds_an_unknown_key_at_every_depth(kind: str, doc: Any) -> None:
    assert has_unknown_fields(FIELDS[kind], doc) and len(unknown_fields(FIELDS[kind], doc)) == 1


@st.composite
def shaped(draw: st.DrawFn, node: Node, depth: int = 0) -> dict[str, Any]:
    """An object shaped by ``node``: known keys, an unknown one now and then, nested values, any tag value."""
    keys, children, tag, variants = node
    pool = sorted(keys or {"free", "open"}) + ["unknown_key", "type", "role"]
    doc: dict[str, Any] = {}
    for key in draw(st.lists(st.sampled_from(pool), max_size=6, unique=True)):
        child = children.get(key)
        scalar = st.one_of(st.none(), st.integers(), st.text(max_size=2))
        if child is not None and depth < 4:
            doc[key] = draw(st.one_of(shaped(child, depth + 1), st.lists(st.one_of(shaped(child, depth + 1), scalar),
                                                                           max_size=3), scalar))
        else:
            doc[key] = draw(scalar)
    if tag and draw(st.booleans()):
        doc[tag] = draw(st.sampled_from([*sorted(variants), "other", 5]))
    return doc


@pytest.mark.parametrize("kind", sorted(FIELDS))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_written_check_answers_as_the_walk_over_the_table(kind: str, data: st.DataObject) -> None:
    # the fast path's generated question against the walk that names each unknown key, over
    # documents generated from the table (and arrays of them), known and unknown keys mixed
    node = FIELDS[kind]
    doc = data.draw(st.one_of(shaped(node), st.lists(shaped(node), max_size=3)))
    found: list[str] = []
    _walk(node, doc, "", found)
    assert has_unknown_fields(node, doc) is bool(found)
