"""MCP tools: the tools a server lists, what a call returns (``McpToolResult``), a tool's function.

>>> McpToolResult.from_dict({"content": [{"type": "text", "text": "3 recipes"}], "isError": False}).text
'3 recipes'
>>> tools, skipped = listed_tools([{"name": "db.query", "inputSchema": {"type": "object"},
...                                  "annotations": {"readOnlyHint": True}}])
>>> tools["db_query"]
ListedTool(server_name='db.query', name='db_query', read_only=True)
>>> server_name(tools, "db_query"), server_name(tools, "db.query")
('db.query', 'db.query')

A server names its tools as it likes (``list-recipes``, ``db.query``); each listed tool becomes a
non-strict ``ToolDefinition`` under a name every provider takes (``tool_names``), and its
``ListedTool`` keeps the server's own name, which ``tools/call`` sends. A call's
``CallToolResult`` becomes ``McpToolResult``: its content blocks turned into the parts the model
sees. ``McpToolFunction`` is an MCP tool's function in a ``ToolRegistry``. The parsers raise
``McpError(code="protocol")``; the client names its server in the message.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ..._checks import type_name
from ..._frozen import FrozenDict, freeze_json, thaw_json
from ...content import ImagePart, ImageSource, TextPart
from ...errors import ValidationError
from ...messages import ChatMessage, ToolResult
from ...tools import ToolDefinition, to_canonical_name, to_wire_name
from .protocol import Cancellation, McpError, ProgressCallback

__all__ = ["McpToolResult", "SkippedTool", "tool_names"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, repr=False)
class McpToolResult:
    """What an MCP tool call returned: content for the model, resources, structured content, isError.

    >>> result = McpToolResult.from_dict({"content": [
    ...     {"type": "text", "text": "Pancakes"}, {"type": "text", "text": "Omelette"},
    ...     {"type": "resource_link", "uri": "recipes://2", "name": "omelette"}],
    ...     "structuredContent": {"count": 2}})
    >>> result.text, result.is_error, [r["type"] for r in result.resources], dict(result.structured)
    ('Pancakes\\nOmelette\\n[resource link: recipes://2]', False, ['resource_link'], {'count': 2})
    >>> result.to_message("toolu_1").to_dict()["content"]
    'Pancakes\\nOmelette\\n[resource link: recipes://2]'

    ``blocks`` keeps the server's content blocks as sent. ``content`` is what the model sees,
    in block order: text blocks as text, images as image parts (a type the providers do not
    take becomes a short note), an embedded resource as its text with a ``[resource <uri>]``
    header (an image blob as an image, another blob as a note), a resource link as a
    ``[resource link: <uri>]`` line, audio as a note. ``text`` joins the text parts with
    newlines; when a server sends only structured content, ``text`` is its JSON.
    ``resources`` keeps the embedded resources and resource links; ``structured`` the
    ``structuredContent``; ``is_error`` the ``isError`` flag (the tool reports a failure the
    model should see).
    """

    blocks: tuple[FrozenDict, ...]
    content: tuple[TextPart | ImagePart, ...]
    resources: tuple[FrozenDict, ...] = ()
    structured: FrozenDict | None = None
    is_error: bool = False

    @property
    def text(self) -> str:
        """Return the text parts joined with newlines."""
        return "\n".join(part.text for part in self.content if type(part) is TextPart)

    def to_result(self, tool_call_id: str) -> ToolResult:
        """Return the text-only ``ToolResult`` for the call ``tool_call_id``."""
        return ToolResult(tool_call_id, self.text, self.is_error)

    def to_message(self, tool_call_id: str) -> ChatMessage:
        """Return the tool message for the call ``tool_call_id`` (images as image parts)."""
        if all(type(part) is TextPart for part in self.content):
            return ChatMessage.tool(tool_call_id, self.text, self.is_error)
        return ChatMessage.tool(tool_call_id, self.content, self.is_error)

    def to_dict(self) -> dict[str, Any]:
        """Return MCP's ``CallToolResult`` shape (``content``, ``structuredContent``?, ``isError``?)."""
        out: dict[str, Any] = {"content": [thaw_json(block) for block in self.blocks]}
        if self.structured is not None:
            out["structuredContent"] = thaw_json(self.structured)
        if self.is_error:
            out["isError"] = True
        return out

    @classmethod
    def from_dict(cls, data: Any, /) -> McpToolResult:
        """Parse a ``CallToolResult``; a malformed one raises ``McpError(code="protocol")``."""
        if not isinstance(data, Mapping):
            raise McpError(f"malformed reply to tools/call: expected an object, got {type_name(data)}", "protocol")
        raw = data.get("content", [])
        if not isinstance(raw, (list, tuple)):
            raise McpError("malformed reply to tools/call: content must be an array", "protocol")
        blocks: list[FrozenDict] = []
        parts: list[TextPart | ImagePart] = []
        resources: list[FrozenDict] = []
        for index, block in enumerate(raw):
            try:
                frozen = freeze_json(block, f"content[{index}]")
                if type(frozen) is not FrozenDict:
                    raise ValidationError("expected an object", f"content[{index}]", "type")
                part, kept = _content_part(frozen, index)
            except ValidationError as exc:
                raise McpError(f"malformed reply to tools/call: {exc}", "protocol") from None
            blocks.append(frozen)
            if part is not None:
                parts.append(part)
            if kept:
                resources.append(frozen)
        structured = data.get("structuredContent")
        if structured is not None:
            if not isinstance(structured, Mapping):
                raise McpError("malformed reply to tools/call: structuredContent must be an object", "protocol")
            try:
                structured = freeze_json(dict(structured), "structuredContent")
            except ValidationError as exc:
                raise McpError(f"malformed reply to tools/call: {exc}", "protocol") from None
            if not parts:
                parts.append(TextPart(json.dumps(thaw_json(structured), ensure_ascii=False)))
        is_error = data.get("isError", False)
        if is_error is None:
            is_error = False
        if type(is_error) is not bool:
            raise McpError("malformed reply to tools/call: isError must be a boolean", "protocol")
        return cls(tuple(blocks), tuple(parts), tuple(resources), structured, is_error)

    def __repr__(self) -> str:
        return (
            f"McpToolResult(blocks={len(self.blocks)}, resources={len(self.resources)}, "
            f"structured={self.structured is not None}, is_error={self.is_error})"
        )


def _note(text: str) -> TextPart:
    return TextPart(text)


def _image(data: Any, mime: Any, path: str) -> TextPart | ImagePart:
    if not isinstance(data, str) or not isinstance(mime, str):
        raise ValidationError("an image needs data and mimeType (strings)", path, "type")
    try:
        return ImagePart(ImageSource.from_base64(data, mime))
    except ValidationError:
        return _note(f"[image omitted: {mime[:60]} is not an image type the model takes]")


def _content_part(block: FrozenDict, index: int) -> tuple[TextPart | ImagePart | None, bool]:
    """Return the part the model sees for one content block and whether it is a resource."""
    path = f"content[{index}]"
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        if not isinstance(text, str):
            raise ValidationError("a text block needs a text string", path, "type")
        return TextPart(text), False
    if kind == "image":
        return _image(block.get("data"), block.get("mimeType"), path), False
    if kind == "audio":
        mime = block.get("mimeType")
        return _note(f"[audio omitted: {str(mime)[:60]}]"), False
    if kind == "resource_link":
        uri = block.get("uri")
        if not isinstance(uri, str):
            raise ValidationError("a resource link needs a uri", path, "type")
        return _note(f"[resource link: {uri[:500]}]"), True
    if kind == "resource":
        resource = block.get("resource")
        if type(resource) is not FrozenDict or not isinstance(resource.get("uri"), str):
            raise ValidationError("an embedded resource needs a resource with a uri", path, "type")
        uri, mime = resource["uri"][:500], resource.get("mimeType")
        text, blob = resource.get("text"), resource.get("blob")
        if isinstance(text, str):
            return TextPart(f"[resource {uri}]\n{text}"), True
        if isinstance(blob, str) and isinstance(mime, str) and mime.startswith("image/"):
            return _image(blob, mime, path), True
        return _note(f"[resource {uri}: {str(mime)[:60]} content omitted]"), True
    log.debug("MCP tool result: content block type %s skipped", str(kind)[:40])
    return None, False


# --- the tools a server lists, and the names they are offered under ----------------------------
#
# Theory of operation. MCP lets a server name a tool with 1-128 characters (``get-sum``,
# ``db.query``, ``github.repos.list-for-authenticated-user``; older servers send more), while
# the providers take ``^[a-zA-Z0-9_-]{1,64}$`` (Gemini: a letter or ``_`` first) and a
# ``ToolDefinition`` holds a canonical name (``agentmsg.tools``: ``-`` costs 5 characters there).
# ``tool_names`` gives each listed tool one name every provider takes, in three tries: the
# server's own name when it already is such a name (``get-sum`` goes out as ``get-sum``); else
# each other character made ``_`` (``db.query`` -> ``db_query``); else, when that is too long or
# taken, its first characters and 8 hex digits of the SHA-256 of the server's name. The client
# keeps the table both ways, so a call reaches the server under its own name exactly. A name
# that is no name at all (empty, not a string, control characters) skips that one tool.

_PROVIDER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}", re.ASCII)
_NOT_WORD = re.compile(r"[^A-Za-z0-9_]", re.ASCII)


def tool_names(names: Iterable[str]) -> dict[str, str]:
    """Return the canonical name each server tool name is offered under, all distinct and provider-legal.

    >>> names = tool_names(["list-recipes", "db.query", "db_query", "a.b.c.d.e.f.g.h.i.j.k.l.m.n", "x" * 76])
    >>> names["list-recipes"], names["db_query"], names["a.b.c.d.e.f.g.h.i.j.k.l.m.n"]
    ('list_x2d_recipes', 'db_query', 'a_b_c_d_e_f_g_h_i_j_k_l_m_n')
    >>> names["db.query"], names["x" * 76]
    ('db_query_82223c7d', 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx_1203d6f5')

    A server name that already fits every provider keeps it (``list-recipes`` is sent as it is;
    its canonical name holds the ``-`` escaped). Such names are given first, so an alias never
    takes one; the others get their aliases in the order listed.
    """
    out: dict[str, str] = {}
    taken: set[str] = set()
    rest = []
    for name in names:
        own = _canonical(name)
        if own is None:
            rest.append(name)
        else:
            out[name] = own
            taken.add(own)
    for name in rest:
        out[name] = alias = _alias(name, taken)
        taken.add(alias)
    return out


def _canonical(wire: str) -> str | None:
    """Return the canonical name of ``wire`` if every provider takes ``wire`` and it fits 64 characters."""
    if _PROVIDER_NAME.fullmatch(wire) is None:
        return None
    try:
        return to_canonical_name(wire)
    except ValidationError:  # its escapes pass 64 characters
        return None


def _alias(name: str, taken: set[str]) -> str:
    """Return a free canonical name for the server name ``name``: readable, shortened with a hash if need be."""
    word = _NOT_WORD.sub("_", name)
    if word[:1].isdigit():  # Gemini wants a letter or "_" first
        word = "_" + word
    alias = _canonical(word)
    if alias is not None and alias not in taken:
        return alias
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    for n in range(1, 1000):
        suffix = f"_{digest}" if n == 1 else f"_{digest}_{n}"
        head = word[: 64 - len(suffix)]
        while (alias := _canonical(head + suffix)) is None:  # the head holds an escape's text
            head = head[:-1]
        if alias not in taken:
            return alias
    raise AssertionError("unreachable: 1000 tools cannot share one hash")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class ListedTool:
    """One tool of a ``tools/list`` reply: the server's name for it, its definition, its read-only hint."""

    server_name: str
    definition: ToolDefinition
    read_only: bool

    def __repr__(self) -> str:
        return f"ListedTool(server_name={self.server_name!r}, name={self.definition.name!r}, read_only={self.read_only})"


@dataclass(frozen=True, slots=True)
class SkippedTool:
    """A tool of a ``tools/list`` reply that is left out, and why (``McpClient.skipped_tools``).

    >>> listed, skipped = listed_tools([{"name": "ok", "inputSchema": {"type": "object"}}, {"name": "bad\\x1b[2J"}])
    >>> list(listed), skipped
    (['ok'], (SkippedTool(index=1, reason='its name holds control characters'),))

    ``index`` is the tool's place in the listing (pages counted together); ``name`` the server's
    name for it, as sent (a string, or None): read it as data, it is not shown in the repr.
    """

    index: int
    name: str | None
    reason: str

    def __repr__(self) -> str:
        return f"SkippedTool(index={self.index}, reason={self.reason!r})"


def listed_tools(items: Iterable[object]) -> tuple[dict[str, ListedTool], tuple[SkippedTool, ...]]:
    """Return the tools of a ``tools/list`` reply by the name they are offered under, and those skipped.

    A malformed entry (not an object, no name, a name with control characters, a repeated name,
    an ``inputSchema`` that is not a JSON object schema) is skipped; the others are kept.
    """
    read: list[tuple[int, str, dict[str, Any]]] = []
    skipped: list[SkippedTool] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        name = item.get("name") if isinstance(item, dict) else None
        reason = _unusable(item, name, seen)
        if reason is None:
            assert isinstance(name, str) and isinstance(item, dict)
            read.append((index, name, item))
            seen.add(name)
        else:
            skipped.append(SkippedTool(index, name if isinstance(name, str) else None, reason))
    names = tool_names(name for _, name, _ in read)
    tools = {}
    for index, name, item in read:
        description = next(
            (v for v in (item.get("description"), item.get("title")) if isinstance(v, str) and v.strip()), name
        )
        annotations = item.get("annotations")
        try:
            definition = ToolDefinition(names[name], description, item["inputSchema"], strict=False)
        except ValidationError as exc:
            skipped.append(SkippedTool(index, name, f"{exc}"))
            continue
        read_only = isinstance(annotations, dict) and annotations.get("readOnlyHint") is True
        tools[definition.name] = ListedTool(name, definition, read_only)
    return tools, tuple(sorted(skipped, key=lambda tool: tool.index))


def _unusable(item: object, name: object, seen: set[str]) -> str | None:
    """Return why a ``tools/list`` entry cannot be used, or None."""
    if not isinstance(item, dict):
        return "it is not an object"
    if not isinstance(name, str) or not name:
        return "it has no name"
    if not name.isprintable():
        return "its name holds control characters"
    if name in seen:
        return "its name repeats an earlier tool's"
    if not isinstance(item.get("inputSchema"), dict):
        return "its inputSchema is not an object"
    return None


def server_name(tools: Mapping[str, ListedTool] | None, name: str) -> str:
    """Return the server's own name for the tool ``name`` (a canonical name, or the server's name itself)."""
    if tools is not None:
        tool = tools.get(name)
        if tool is not None:
            return tool.server_name
        if any(t.server_name == name for t in tools.values()):
            return name
    try:
        return to_wire_name(name)
    except ValidationError:
        return name


class ToolCaller(Protocol):
    """What ``McpToolFunction`` needs of a client (``McpClient`` is one): a name and ``call_tool``."""

    name: str

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: Cancellation | None = None,
    ) -> McpToolResult: ...


class McpToolFunction:
    """An MCP tool's function in a ``ToolRegistry``: keyword arguments in, ``CallToolResult`` dict out.

    ``progress()``, when given, returns the ``on_progress`` callback for the call about to be
    made (or None); it runs on the thread that makes the call. ``cancel`` (a ``Cancellation``)
    ends every call of this function that runs when it fires, and every later one.
    """

    __slots__ = ("client", "name", "progress", "cancel")

    def __init__(
        self,
        client: ToolCaller,
        name: str,
        progress: Callable[[], ProgressCallback | None] | None = None,
        cancel: Cancellation | None = None,
    ) -> None:
        self.client = client
        self.name = name
        self.progress = progress
        self.cancel = cancel

    def __call__(self, **arguments: Any) -> dict[str, Any]:
        on_progress = self.progress() if self.progress is not None else None
        return self.client.call_tool(self.name, arguments, on_progress=on_progress, cancel=self.cancel).to_dict()

    def __repr__(self) -> str:
        return f"<MCP tool {self.name!r} of {self.client.name!r}>"
