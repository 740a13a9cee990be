"""Elicitation: a server asks the user for input through the host (``elicitation/create``).

>>> request = ElicitationRequest.from_params("github", {"mode": "form",
...     "message": "Please provide your GitHub username",
...     "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}})
>>> request.to_dict()["fields"]
[{'name': 'name', 'type': 'string', 'required': True, 'schema': {'type': 'string'}}]

The host gives ``McpClient(elicitation=handler)``: ``handler(ElicitationRequest)`` shows the
request (a form built from ``fields``, or a URL to open) and returns the user's
``ElicitationResponse`` (``accept`` with the content, ``decline`` or ``cancel``; None declines).
A form is a flat object of string, number, integer, boolean and multiple-choice fields, as MCP
allows; a request with another schema, or a URL that is not ``http(s)``, is refused before the
handler sees it. The content of an ``accept`` is checked against the requested schema
(``agentmsg.schema.validate_arguments``) before it is sent.
"""

from __future__ import annotations

import threading
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from ..._checks import count, type_name
from ..._frozen import FrozenDict, freeze_json, thaw_json
from ...errors import ValidationError
from ...schema import validate_arguments
from .resources import _opt_str

__all__ = ["ElicitationField", "ElicitationRequest", "ElicitationResponse"]

_MAX_FIELDS = 100
_FIELD_TYPES = ("string", "number", "integer", "boolean", "array")


@dataclass(frozen=True, slots=True)
class ElicitationField:
    """One field of an elicitation form, ready for a UI: name, type, label, choices, default.

    ``type`` is ``string``, ``number``, ``integer``, ``boolean`` or ``array`` (several choices
    from ``options``). ``options`` holds ``(value, label)`` pairs for a choice. ``schema`` keeps
    the field's JSON Schema (``minLength``, ``maximum``, ``format``...).
    """

    name: str
    type: str
    title: str | None = None
    description: str | None = None
    required: bool = False
    default: Any = None
    options: tuple[tuple[str, str], ...] = ()
    schema: FrozenDict = field(default_factory=FrozenDict)

    def to_dict(self) -> dict[str, Any]:
        """Return the field as JSON for a UI."""
        out: dict[str, Any] = {"name": self.name, "type": self.type, "required": self.required}
        for key, value in (("title", self.title), ("description", self.description)):
            if value is not None:
                out[key] = value
        if self.default is not None:
            out["default"] = thaw_json(self.default)
        if self.options:
            out["options"] = [{"value": value, "label": label} for value, label in self.options]
        out["schema"] = thaw_json(self.schema)
        return out


def _options(schema: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    items = schema.get("items") if schema.get("type") == "array" else schema
    if not isinstance(items, Mapping):
        return ()
    if isinstance(items.get("enum"), (list, tuple)):
        names = schema.get("enumNames")
        values = [v for v in items["enum"] if isinstance(v, str)]
        labels = list(names) if isinstance(names, (list, tuple)) and len(names) == len(values) else values
        return tuple((v, str(label)) for v, label in zip(values, labels))
    choices = items.get("oneOf") or items.get("anyOf")
    if isinstance(choices, (list, tuple)):
        return tuple(
            (c["const"], c["title"] if isinstance(c.get("title"), str) else c["const"])
            for c in choices
            if isinstance(c, Mapping) and isinstance(c.get("const"), str)
        )
    return ()


def _form_fields(schema: FrozenDict) -> tuple[ElicitationField, ...]:
    """Return the fields of a form's ``requestedSchema``; one MCP does not allow raises ``ValidationError``."""
    if schema.get("type") != "object" or not isinstance(schema.get("properties"), FrozenDict):
        raise ValidationError("must be an object schema with properties", "requestedSchema", "schema")
    properties: FrozenDict = schema["properties"]
    if len(properties) > _MAX_FIELDS:
        raise ValidationError(f"must have at most {_MAX_FIELDS} properties", "requestedSchema.properties", "size")
    required = schema.get("required") or ()
    fields = []
    for name, prop in properties.items():
        path = f"requestedSchema.properties.{name[:80]}"
        if type(prop) is not FrozenDict or prop.get("type") not in _FIELD_TYPES:
            raise ValidationError("must be a string, number, integer, boolean or array property", path, "schema")
        options = _options(prop)
        if prop["type"] == "array" and not options:
            raise ValidationError("an array property must list its choices", path, "schema")
        fields.append(ElicitationField(
            name, prop["type"], _opt_str(prop, "title"), _opt_str(prop, "description"), name in required,
            prop.get("default"), options, prop,
        ))
    try:
        validate_arguments(schema, {}, formats=True)
    except ValidationError as exc:
        if exc.code == "schema":
            raise exc.prefixed("requestedSchema") from None
    return tuple(fields)


Action = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True, slots=True, repr=False)
class ElicitationResponse:
    """The user's answer to an elicitation: ``accept`` (with the form's ``content``), ``decline`` or ``cancel``.

    >>> ElicitationResponse("accept", {"name": "octocat"}).to_dict()
    {'action': 'accept', 'content': {'name': 'octocat'}}
    >>> ElicitationResponse("decline")
    ElicitationResponse(action='decline')
    """

    action: Action
    content: FrozenDict | None = None

    def __post_init__(self) -> None:
        if self.action not in ("accept", "decline", "cancel"):
            raise ValidationError('must be "accept", "decline" or "cancel"', "action", "value")
        if self.content is not None:
            if self.action != "accept":
                raise ValidationError("only an accepted elicitation has content", "content", "unexpected")
            if not isinstance(self.content, Mapping):
                raise ValidationError(f"expected an object, got {type_name(self.content)}", "content", "type")
            object.__setattr__(self, "content", freeze_json(dict(self.content), "content"))

    def __repr__(self) -> str:
        if self.content is None:
            return f"ElicitationResponse(action={self.action!r})"
        return f"ElicitationResponse(action={self.action!r}, content={count(len(self.content), 'key')})"

    def to_dict(self) -> dict[str, Any]:
        """Return MCP's ``ElicitResult`` shape."""
        if self.content is None:
            return {"action": self.action}
        return {"action": self.action, "content": thaw_json(self.content)}


@dataclass(frozen=True, slots=True, repr=False)
class ElicitationRequest:
    """A server's ``elicitation/create``: a message for the user and a form to fill, or a URL to open.

    >>> request = ElicitationRequest.from_params("github", {"mode": "form",
    ...     "message": "Please provide your GitHub username",
    ...     "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}})
    >>> request, [f.name for f in request.fields if f.required]
    (ElicitationRequest(server='github', mode='form', fields=('name',)), ['name'])
    >>> request.accept({"name": "octocat"})
    ElicitationResponse(action='accept', content=<1 key>)
    >>> try:
    ...     request.accept({"name": 7})
    ... except ValidationError as exc:
    ...     print(exc.path, exc.code)
    content.name type

    ``mode`` is ``form`` (``fields`` describe the form; ``requested_schema`` is its flat JSON
    Schema) or ``url`` (show ``url``'s host and ask before opening it; ``elicitation_id`` names
    it). ``message``, field titles and descriptions are the server's text: escape them in a UI.
    ``accept(content)`` checks the content against the schema; ``decline()`` and ``cancel()``
    answer without content. ``to_dict()`` is the request as JSON for a UI. ``cancelled`` is set
    when the server withdraws the request or its time is up.
    """

    server: str
    message: str
    mode: Literal["form", "url"] = "form"
    requested_schema: FrozenDict | None = None
    fields: tuple[ElicitationField, ...] = ()
    url: str | None = None
    elicitation_id: str | None = None
    cancelled: threading.Event = field(default_factory=threading.Event, compare=False)

    def __repr__(self) -> str:
        if self.mode == "url":
            return f"ElicitationRequest(server={self.server!r}, mode='url', host={urllib.parse.urlsplit(self.url or '').hostname!r})"
        return f"ElicitationRequest(server={self.server!r}, mode='form', fields={tuple(f.name for f in self.fields)!r})"

    @classmethod
    def from_params(cls, server: str, params: Mapping[str, Any]) -> ElicitationRequest:
        """Read an ``elicitation/create`` request's params; a bad one raises ``ValidationError``."""
        message = params.get("message")
        if not isinstance(message, str):
            raise ValidationError(f"expected a string, got {type_name(message)}", "message", "type")
        mode = params.get("mode", "form")
        if mode == "url":
            url, elicitation_id = params.get("url"), params.get("elicitationId")
            parts = urllib.parse.urlsplit(url) if isinstance(url, str) else None
            if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValidationError("must be an http:// or https:// URL", "url", "pattern")
            if not isinstance(elicitation_id, str) or not elicitation_id:
                raise ValidationError("expected a non-empty string", "elicitationId", "type")
            return cls(server, message, "url", url=url, elicitation_id=elicitation_id)
        if mode != "form":
            raise ValidationError('must be "form" or "url"', "mode", "value")
        schema = freeze_json(params.get("requestedSchema"), "requestedSchema")
        if type(schema) is not FrozenDict:
            raise ValidationError(f"expected an object, got {type_name(schema)}", "requestedSchema", "type")
        return cls(server, message, "form", schema, _form_fields(schema))

    def check(self, content: Mapping[str, Any]) -> FrozenDict:
        """Return ``content`` frozen if it fits the requested schema; else raise ``ValidationError``."""
        if not isinstance(content, Mapping):
            raise ValidationError(f"expected an object, got {type_name(content)}", "content", "type")
        frozen = freeze_json(dict(content), "content")
        if self.requested_schema is not None:
            try:
                validate_arguments(self.requested_schema, frozen, formats=True)
            except ValidationError as exc:
                raise exc.prefixed("content") from None
        return frozen  # type: ignore[no-any-return]  # a dict freezes to a FrozenDict

    def accept(self, content: Mapping[str, Any] | None = None) -> ElicitationResponse:
        """Return the ``accept`` answer; a form's ``content`` must fit the schema (``check``)."""
        if self.mode == "url":
            return ElicitationResponse("accept")
        return ElicitationResponse("accept", self.check(content if content is not None else {}))

    def decline(self) -> ElicitationResponse:
        """Return the ``decline`` answer (the user said no)."""
        return ElicitationResponse("decline")

    def cancel(self) -> ElicitationResponse:
        """Return the ``cancel`` answer (the user dismissed it without choosing)."""
        return ElicitationResponse("cancel")

    def to_dict(self) -> dict[str, Any]:
        """Return the request as JSON for a UI: server, message, mode, and the fields or the URL."""
        out: dict[str, Any] = {"server": self.server, "message": self.message, "mode": self.mode}
        if self.mode == "url":
            out["url"] = self.url
            out["host"] = urllib.parse.urlsplit(self.url or "").hostname
            out["elicitationId"] = self.elicitation_id
        else:
            out["fields"] = [f.to_dict() for f in self.fields]
        return out


Elicitor = Callable[[ElicitationRequest], Union[ElicitationResponse, None]]
