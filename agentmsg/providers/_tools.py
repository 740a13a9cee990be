"""Private helpers for tool definitions in the codecs: one declaration shape, both ways.

Theory of operation: every provider declares a function tool as a name, a description, a JSON
Schema and (for some) a ``strict`` flag; only the key of the schema (``parameters``,
``input_schema``, ``parametersJsonSchema``), the wrapper around the declaration and the
provider's rules differ. ``declaration`` writes that shape and ``function_from`` reads it,
so each codec's ``to_tools`` and ``from_tools`` state only what its provider does otherwise.
Fields a provider sends that agentmsg does not model travel in ``ToolDefinition.extras``
under the codec's key and go back to the same provider unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._checks import expect_object, get_bool, get_object, get_optional_str, get_str, map_items, type_name
from .._frozen import FrozenDict, thaw_json
from ..errors import ValidationError
from ..tools import ToolDefinition, check_strict
from ._common import UNSUPPORTED, NameRule, as_list, canonical_name, expect_items, rename, wire_name

__all__ = [
    "checked_tools",
    "extras_of",
    "emit_extras",
    "declaration",
    "function_from",
    "function_tools_from",
    "function_tools_to",
]


def checked_tools(definitions: Iterable[ToolDefinition]) -> list[ToolDefinition]:
    """Return the definitions as a list, refusing anything that is not a ToolDefinition."""
    items = as_list(definitions, "ToolDefinition")
    for i, definition in enumerate(items):
        if type(definition) is not ToolDefinition:
            raise TypeError(f"tools[{i}]: expected a ToolDefinition, got {type_name(definition)} (decode data with from_tools)")
    return items


def extras_of(item: dict[str, Any], modeled: frozenset[str] | set[str]) -> dict[str, Any]:
    """Return the fields of ``item`` that agentmsg does not model (carried in ``extras``)."""
    return {key: value for key, value in item.items() if key not in modeled}


def emit_extras(out: dict[str, Any], fields: Any, path: str) -> None:
    """Add a provider's carried ``fields`` to ``out``; a field agentmsg writes itself is refused."""
    for key, value in fields.items():
        if key in out:
            raise ValidationError(
                f"extras field {key[:40]!r} clashes with a field agentmsg writes", path, "unexpected"
            )
        out[key] = thaw_json(value)


def declaration(
    definition: ToolDefinition, name: str, schema_key: str, strict: bool | None, carried: Any, out: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Return ``{..out, "name", "description"?, schema_key, "strict"?}`` and the ``carried`` extras.

    >>> tool = ToolDefinition("now", "Current time.", {"type": "object"})
    >>> declaration(tool, "now", "input_schema", None, None)
    {'name': 'now', 'description': 'Current time.', 'input_schema': {'type': 'object'}}

    ``name`` is the wire name. A description equal to it is left out (that is how a tool
    without description reads back, see ``function_from``); ``strict`` is left out when None.
    ``out`` holds the keys a provider writes first (``{"type": "function"}``).
    """
    if out is None:
        out = {}
    out["name"] = name
    if definition.description != name:
        out["description"] = definition.description
    out[schema_key] = thaw_json(definition.parameters)
    if strict is not None:
        out["strict"] = strict
    if carried:
        emit_extras(out, carried, "extras")
    return out


_FUNCTION_KEYS = frozenset({"name", "description", "parameters", "strict"})


def function_from(
    fn: dict[str, Any], rule: NameRule | None, strict_rule: bool = True, extras: dict[str, Any] | None = None
) -> ToolDefinition:
    """Build a ToolDefinition from ``{name, description?, parameters?, strict?}``.

    The name is mapped to its canonical form (``to_canonical_name``) after the provider's
    ``rule``. No ``strict`` means false (the providers' default); a missing or blank description
    becomes the tool's wire name, since agentmsg requires one (``declaration`` leaves such a
    description out); missing ``parameters`` mean an empty object schema.
    """
    wire = get_str(fn, "name")
    name = canonical_name(wire, "name", rule)
    description = get_optional_str(fn, "description")
    if description is None or not description.strip():
        description = wire
    parameters = fn.get("parameters")
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    strict = get_bool(fn, "strict", False)
    carried = FrozenDict() if extras is None else extras
    definition = ToolDefinition(name, description, parameters, strict and strict_rule, carried)  # type: ignore[arg-type]  # checked by ToolDefinition
    if strict and not strict_rule:
        object.__setattr__(definition, "strict", True)
    return definition


def function_tools_to(
    definitions: Iterable[ToolDefinition], rule: NameRule | None, strict_rule: bool = True, provider: str = ""
) -> list[dict[str, Any]]:
    """Return an OpenAI-shape ``tools`` list (``{"type": "function", "function"}``).

    ``strict`` is sent only when true, and with ``strict_rule`` a strict tool must keep OpenAI's
    rule. The ``extras`` of ``provider`` are sent again: its ``function`` entry inside the
    function object, its other fields beside ``type`` and ``function``.
    """
    return map_items(
        lambda definition: _function_tool_to(definition, rule, strict_rule, provider), checked_tools(definitions)
    )


def _function_tool_to(
    definition: ToolDefinition, rule: NameRule | None, strict_rule: bool, provider: str
) -> dict[str, Any]:
    carried = definition.extras.get(provider) or FrozenDict()
    try:
        name = wire_name(definition.name, "name", rule)
        if definition.strict and strict_rule:
            check_strict(definition.parameters)
        fn = declaration(definition, name, "parameters", definition.strict or None, carried.get("function"))
    except ValidationError as exc:
        raise exc.prefixed("function") from None
    tool: dict[str, Any] = {"type": "function", "function": fn}
    emit_extras(tool, {k: v for k, v in carried.items() if k != "function"}, "extras")
    return tool


_FUNCTION_FIELDS = {
    "name": "function.name",
    "description": "function.description",
    "parameters": "function.parameters",
    "strict": "function.strict",
}


def function_tools_from(
    items: Any, rule: NameRule | None, strict_rule: bool = True, provider: str = ""
) -> tuple[ToolDefinition, ...]:
    """Return the definitions of an OpenAI-shape ``tools`` list (``{"type": "function", "function"}``).

    Fields agentmsg does not model (OpenRouter's ``cache_control``, a function's ``response``)
    are kept in ``extras[provider]``, the function's own under ``function``.
    """
    return tuple(
        map_items(lambda item: _function_tool_from(item, rule, strict_rule, provider), expect_items(items, "tools"))
    )


def _function_tool_from(item: Any, rule: NameRule | None, strict_rule: bool, provider: str) -> ToolDefinition:
    item = expect_object(item)
    kind = item.get("type")
    if kind is not None and kind != "function":
        raise ValidationError("only function tools are supported", "type", UNSUPPORTED)
    fn = get_object(item, "function")
    carried = extras_of(item, {"type", "function"})
    inner = extras_of(fn, _FUNCTION_KEYS)
    if inner:
        carried["function"] = inner
    try:
        return function_from(fn, rule, strict_rule, {provider: carried} if carried else None)
    except ValidationError as exc:
        raise rename(exc, _FUNCTION_FIELDS) from None
