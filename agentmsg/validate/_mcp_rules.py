"""MCP JSON-RPC messages: requests, results, errors and notifications, checked by the spec's rules.

>>> [str(e) for e in check_request({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {}})]
['params.uri: is required (MCP resources/read reads one URI)']
>>> check_result({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "now", "inputSchema": {"type": "object"}}]}})
[]

Each checker returns the list of problems (``ValidationError`` with path and code). The
methods the spec's examples and agentmsg's MCP client use (``initialize``,
``resources/list|read``, ``tools/list|call``) have their params and results checked field by
field; any other method is checked as JSON-RPC 2.0 only. A result does not name its method:
its shape says which (``resources``, ``contents``, ``tools``, ``content``, ``protocolVersion``).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from .._checks import type_name
from ..errors import ValidationError

__all__ = ["check_request", "check_notification", "check_result", "check_error"]

Problems = list[ValidationError]


def _err(path: str, message: str, code: str = "value") -> ValidationError:
    return ValidationError(message, path, code)


def _type(path: str, what: str, value: object) -> ValidationError:
    return ValidationError(f"expected {what}, got {type_name(value)}", path, "type")


def _missing(path: str, rule: str = "") -> ValidationError:
    return ValidationError("is required" + (f" ({rule})" if rule else ""), path, "missing")


def _str(obj: dict[str, Any], key: str, path: str, out: Problems, rule: str = "", required: bool = True) -> None:
    value = obj.get(key)
    where = f"{path}.{key}" if path else key
    if value is None:
        if required:
            out.append(_missing(where, rule))
    elif type(value) is not str:
        out.append(_type(where, "a string", value))


def _object(obj: dict[str, Any], key: str, path: str, out: Problems, rule: str = "", required: bool = True) -> dict[str, Any]:
    value = obj.get(key)
    where = f"{path}.{key}" if path else key
    if value is None:
        if required:
            out.append(_missing(where, rule))
        return {}
    if type(value) is not dict:
        out.append(_type(where, "an object", value))
        return {}
    return value


def _items(obj: dict[str, Any], key: str, path: str, out: Problems) -> list[tuple[str, dict[str, Any]]]:
    value = obj.get(key)
    where = f"{path}.{key}"
    if type(value) is not list:
        out.append(_missing(where) if value is None else _type(where, "an array", value))
        return []
    found = []
    for i, item in enumerate(value):
        if type(item) is not dict:
            out.append(_type(f"{where}[{i}]", "an object", item))
        else:
            found.append((f"{where}[{i}]", item))
    return found


def _envelope(doc: dict[str, Any], out: Problems, id_required: bool, null_id: bool = False) -> None:
    if doc.get("jsonrpc") != "2.0":
        out.append(_err("jsonrpc", 'must be "2.0" (JSON-RPC 2.0)') if "jsonrpc" in doc else _missing("jsonrpc"))
    if id_required:
        ident = doc.get("id")
        if ident is None:
            if not (null_id and "id" in doc):
                out.append(_missing("id", "a string or an integer"))
        elif type(ident) is not str and type(ident) is not int:
            out.append(_type("id", "a string or an integer (MCP: never null in a request)", ident))


def check_request(doc: dict[str, Any]) -> Problems:
    """Return the problems of a JSON-RPC request ``{jsonrpc, id, method, params?}``."""
    out: Problems = []
    _envelope(doc, out, id_required=True)
    _str(doc, "method", "", out)
    params = _object(doc, "params", "", out, required=False)
    method = doc.get("method")
    if method == "initialize":
        if "params" not in doc:
            out.append(_missing("params", "MCP initialize sends protocolVersion, capabilities, clientInfo"))
        else:
            _str(params, "protocolVersion", "params", out)
            _object(params, "capabilities", "params", out)
            info = _object(params, "clientInfo", "params", out)
            if info:
                _str(info, "name", "params.clientInfo", out)
                _str(info, "version", "params.clientInfo", out)
    elif method in ("resources/list", "tools/list", "prompts/list", "resources/templates/list"):
        _str(params, "cursor", "params", out, required=False)
    elif method == "resources/read":
        _str(params, "uri", "params", out, "MCP resources/read reads one URI")
    elif method == "tools/call":
        _str(params, "name", "params", out, "MCP tools/call names the tool")
        _object(params, "arguments", "params", out, required=False)
    return out


def check_notification(doc: dict[str, Any]) -> Problems:
    """Return the problems of a JSON-RPC notification ``{jsonrpc, method, params?}`` (no id)."""
    out: Problems = []
    _envelope(doc, out, id_required=False)
    _str(doc, "method", "", out)
    params = _object(doc, "params", "", out, required=False)
    if doc.get("method") == "notifications/cancelled" and "requestId" not in params:
        out.append(_missing("params.requestId", "MCP: the id of the request to cancel"))
    return out


def check_result(doc: dict[str, Any]) -> Problems:
    """Return the problems of a JSON-RPC result ``{jsonrpc, id, result}``."""
    out: Problems = []
    _envelope(doc, out, id_required=True)
    if "error" in doc:
        out.append(_err("error", "a response holds a result or an error, not both (JSON-RPC 2.0)", "unexpected"))
    result = _object(doc, "result", "", out)
    if "resources" in result:
        for path, item in _items(result, "resources", "result", out):
            _str(item, "uri", path, out)
            _str(item, "name", path, out)
            _str(item, "mimeType", path, out, required=False)
        _str(result, "nextCursor", "result", out, required=False)
    elif "contents" in result:
        for path, item in _items(result, "contents", "result", out):
            _contents(item, path, out)
    elif "tools" in result:
        for path, item in _items(result, "tools", "result", out):
            _str(item, "name", path, out)
            schema = _object(item, "inputSchema", path, out, "MCP: every tool has an input schema")
            if schema and schema.get("type") != "object":
                out.append(_err(f"{path}.inputSchema.type", 'must be "object" (MCP)'))
        _str(result, "nextCursor", "result", out, required=False)
    elif "content" in result:
        for path, item in _items(result, "content", "result", out):
            _content(item, path, out)
        if "isError" in result and type(result["isError"]) is not bool:
            out.append(_type("result.isError", "a boolean", result["isError"]))
    elif "protocolVersion" in result:
        _str(result, "protocolVersion", "result", out)
        _object(result, "capabilities", "result", out)
        info = _object(result, "serverInfo", "result", out)
        if info:
            _str(info, "name", "result.serverInfo", out)
            _str(info, "version", "result.serverInfo", out)
    return out


def _contents(item: dict[str, Any], path: str, out: Problems) -> None:
    _str(item, "uri", path, out)
    _str(item, "mimeType", path, out, required=False)
    has_text, has_blob = "text" in item, "blob" in item
    if has_text == has_blob:
        out.append(_err(path, "resource contents hold text or blob, exactly one (MCP)", "missing" if not has_text else "unexpected"))
    elif has_text:
        _str(item, "text", path, out)
    else:
        _base64(item, "blob", path, out)


def _content(item: dict[str, Any], path: str, out: Problems) -> None:
    kind = item.get("type")
    if kind == "text":
        _str(item, "text", path, out)
    elif kind in ("image", "audio"):
        _base64(item, "data", path, out)
        _str(item, "mimeType", path, out)
    elif kind == "resource":
        resource = _object(item, "resource", path, out)
        if resource:
            _contents(resource, f"{path}.resource", out)
    elif kind == "resource_link":
        _str(item, "uri", path, out)
        _str(item, "name", path, out)
    elif kind is None:
        out.append(_missing(f"{path}.type"))
    else:
        out.append(_err(f"{path}.type", "must be text, image, audio, resource or resource_link (MCP)"))


def _base64(item: dict[str, Any], key: str, path: str, out: Problems) -> None:
    value = item.get(key)
    _str(item, key, path, out)
    if type(value) is str:
        try:
            base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            out.append(_err(f"{path}.{key}", "must be base64 (MCP)", "pattern"))


def check_error(doc: dict[str, Any]) -> Problems:
    """Return the problems of a JSON-RPC error response ``{jsonrpc, id, error: {code, message, data?}}``."""
    out: Problems = []
    _envelope(doc, out, id_required=True, null_id=True)
    if "result" in doc:
        out.append(_err("result", "a response holds a result or an error, not both (JSON-RPC 2.0)", "unexpected"))
    error = _object(doc, "error", "", out)
    if error:
        code = error.get("code")
        if code is None:
            out.append(_missing("error.code"))
        elif type(code) is not int:
            out.append(_type("error.code", "an integer", code))
        _str(error, "message", "error", out)
    return out
