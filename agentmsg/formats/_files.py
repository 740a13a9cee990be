"""The table of shipped schema files and ``json_schema``, which reads one."""

from __future__ import annotations

from typing import Any

from ..errors import ValidationError

__all__ = ["SCHEMA_FILES", "json_schema"]

# name -> (file in this folder, JSON pointer of the definition inside it or "")
SCHEMA_FILES: dict[str, tuple[str, str]] = {
    "core": ("core.schema.json", ""),
    "chat_message": ("core.schema.json", "chat_message"),
    "conversation": ("core.schema.json", "conversation"),
    "content_part": ("core.schema.json", "content_part"),
    "reasoning_part": ("core.schema.json", "reasoning_part"),
    "image_source": ("core.schema.json", "image_source"),
    "tool_call": ("core.schema.json", "tool_call"),
    "tool_result": ("core.schema.json", "tool_result"),
    "tool_definition": ("core.schema.json", "tool_definition"),
    "tool_call_delta": ("core.schema.json", "tool_call_delta"),
    "event": ("events.schema.json", ""),
    "history_entry": ("events.schema.json", "history_entry"),
    # records (agentmsg.records): the envelope, then one schema per record type and version
    "record": ("record.json", ""),
    "record_text_v1": ("record_text_v1.json", ""),
    "record_reasoning_v1": ("record_reasoning_v1.json", ""),
    "record_image_v1": ("record_image_v1.json", ""),
    "record_file_reference_v1": ("record_file_reference_v1.json", ""),
    "record_file_reference_v2": ("record_file_reference_v2.json", ""),
    "record_tool_request_v1": ("record_tool_request_v1.json", ""),
    "record_tool_result_v1": ("record_tool_result_v1.json", ""),
    "record_system_control_v1": ("record_system_control_v1.json", ""),
    "record_mcp_resource_v1": ("record_mcp_resource_v1.json", ""),
}


def json_schema(name: str) -> dict[str, Any]:
    """Return the shipped JSON Schema (Draft 2020-12) called ``name``, as a fresh dict.

    >>> schema = json_schema("chat_message")
    >>> schema["$schema"], schema["$ref"]
    ('https://json-schema.org/draft/2020-12/schema', '#/$defs/chat_message')

    A named definition comes as the whole file with a root ``$ref`` to it, so its ``$defs`` resolve.
    """
    try:
        filename, pointer = SCHEMA_FILES[name]
    except (KeyError, TypeError):
        raise ValidationError(
            f"unknown schema; expected one of {', '.join(sorted(SCHEMA_FILES))}", "name", "value"
        ) from None
    import json  # loaded on first use, like importlib.resources: not at ``import agentmsg``
    from importlib import resources  # loaded on first use: it is slow to import

    text = resources.files(__package__).joinpath(filename).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    if pointer:
        schema = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf", "$ref", "title", "description")}
        schema["$ref"] = f"#/$defs/{pointer}"
    return schema
