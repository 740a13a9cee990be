"""The JSON Schemas (Draft 2020-12) of agentmsg's own JSON documents, shipped beside this file."""

from __future__ import annotations

from ._files import SCHEMA_FILES, json_schema

__all__ = ["SCHEMA_FILES", "json_schema"]
