"""MCP JSON-RPC messages: requests, results, errors and notifications, checked by the spec's rules.

>>> [str(e) for e in check_request({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {}})]
['params.uri: is required (MCP resources/read reads one URI)']
>>> check_result({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "now", "inputSchema": {"type": "object"}}]}})
[]
>>> [str(e) for e in check_resource_contents({"uri": "file:///a.png", "blob": "not base64!"})]
['blob: must be base64 (MCP)']

Each checker returns the list of problems (``ValidationError`` with path and code). The
methods the spec's examples and agentmsg's MCP client use (``initialize``,
``resources/list|read``, ``tools/list|call``) have their params and results checked field by
field; any other method is checked as JSON-RPC 2.0 only. A result does not name its method:
its shape says which (``resources``, ``contents``, ``tools``, ``content``, ``protocolVersion``).
Params (or a result) that are not an object are one problem: the method's fields inside them
are not looked for. Resource contents (``{uri, mimeType, text or blob}``, what
``resources/read`` returns and a resource embeds) are also checked on their own.
"""

from __future__ import annotations

from typing import Any

from ._rules import Findings, absent, array_at, err, is_base64, join, object_at, string_at, wrong_type

__all__ = ["check_request", "check_notification", "check_result", "check_error", "check_resource_contents"]


def _items(data: dict[str, Any], key: str, path: str, out: Findings) -> list[tuple[str, dict[str, Any]]]:
    """Return the objects of the array ``data[key]`` with their paths; note what is not one."""
    found = []
    for i, item in enumerate(array_at(data, key, path, out)):
        where = f"{path}.{key}[{i}]"
        if type(item) is not dict:
            out.append(wrong_type(where, "an object", item))
        else:
            found.append((where, item))
    return found


def _info(data: dict[str, Any], key: str, path: str, out: Findings) -> None:
    """Check an implementation's name and version (``clientInfo``, ``serverInfo``) beside the protocol version."""
    string_at(data, "protocolVersion", path, out)
    object_at(data, "capabilities", path, out)
    info = object_at(data, key, path, out)
    if info:
        string_at(info, "name", f"{path}.{key}", out)
        string_at(info, "version", f"{path}.{key}", out)


def _envelope(doc: dict[str, Any], out: Findings, id_required: bool, null_id: bool = False) -> None:
    if doc.get("jsonrpc") != "2.0":
        out.append(err("jsonrpc", 'must be "2.0" (JSON-RPC 2.0)') if "jsonrpc" in doc else absent("jsonrpc"))
    if id_required:
        ident = doc.get("id")
        if ident is None:
            if not (null_id and "id" in doc):
                out.append(absent("id", "a string or an integer"))
        elif type(ident) is not str and type(ident) is not int:
            out.append(wrong_type("id", "a string or an integer (MCP: never null in a request)", ident))


def check_request(doc: dict[str, Any]) -> Findings:
    """Return the problems of a JSON-RPC request ``{jsonrpc, id, method, params?}``."""
    out: Findings = []
    _envelope(doc, out, id_required=True)
    string_at(doc, "method", "", out)
    params = object_at(doc, "params", "", out, required=False)
    if params is None:
        if "params" in doc and doc["params"] is not None:
            return out  # params of the wrong type: reported once, its fields not looked for
        params = {}
    method = doc.get("method")
    if method == "initialize":
        if "params" not in doc:
            out.append(absent("params", "MCP initialize sends protocolVersion, capabilities, clientInfo"))
        else:
            _info(params, "clientInfo", "params", out)
    elif method in ("resources/list", "tools/list", "prompts/list", "resources/templates/list"):
        string_at(params, "cursor", "params", out, required=False)
    elif method == "resources/read":
        string_at(params, "uri", "params", out, "MCP resources/read reads one URI")
    elif method == "tools/call":
        string_at(params, "name", "params", out, "MCP tools/call names the tool")
        object_at(params, "arguments", "params", out, required=False)
    return out


def check_notification(doc: dict[str, Any]) -> Findings:
    """Return the problems of a JSON-RPC notification ``{jsonrpc, method, params?}`` (no id)."""
    out: Findings = []
    _envelope(doc, out, id_required=False)
    string_at(doc, "method", "", out)
    params = object_at(doc, "params", "", out, required=False)
    if params is None and doc.get("params") is not None:
        return out  # params of the wrong type: reported once, its fields not looked for
    if doc.get("method") == "notifications/cancelled" and "requestId" not in (params or {}):
        out.append(absent("params.requestId", "MCP: the id of the request to cancel"))
    return out


def check_result(doc: dict[str, Any]) -> Findings:
    """Return the problems of a JSON-RPC result ``{jsonrpc, id, result}``."""
    out: Findings = []
    _envelope(doc, out, id_required=True)
    if "error" in doc:
        out.append(err("error", "a response holds a result or an error, not both (JSON-RPC 2.0)", "unexpected"))
    result = object_at(doc, "result", "", out) or {}
    if "resources" in result:
        for path, item in _items(result, "resources", "result", out):
            string_at(item, "uri", path, out)
            string_at(item, "name", path, out)
            string_at(item, "mimeType", path, out, required=False)
        string_at(result, "nextCursor", "result", out, required=False)
    elif "contents" in result:
        for path, item in _items(result, "contents", "result", out):
            _contents(item, path, out)
    elif "tools" in result:
        for path, item in _items(result, "tools", "result", out):
            string_at(item, "name", path, out)
            schema = object_at(item, "inputSchema", path, out, "MCP: every tool has an input schema")
            if schema and schema.get("type") != "object":
                out.append(err(f"{path}.inputSchema.type", 'must be "object" (MCP)'))
        string_at(result, "nextCursor", "result", out, required=False)
    elif "content" in result:
        for path, item in _items(result, "content", "result", out):
            _content(item, path, out)
        if "isError" in result and type(result["isError"]) is not bool:
            out.append(wrong_type("result.isError", "a boolean", result["isError"]))
    elif "protocolVersion" in result:
        _info(result, "serverInfo", "result", out)
    return out


def _contents(item: dict[str, Any], path: str, out: Findings) -> None:
    string_at(item, "uri", path, out)
    string_at(item, "mimeType", path, out, required=False)
    has_text, has_blob = "text" in item, "blob" in item
    if has_text == has_blob:
        out.append(err(path, "resource contents hold text or blob, exactly one (MCP)", "missing" if not has_text else "unexpected"))
    elif has_text:
        string_at(item, "text", path, out)
    else:
        _base64(item, "blob", path, out)


def check_resource_contents(doc: dict[str, Any]) -> Findings:
    """Return the problems of resource contents ``{uri, mimeType?, text or blob}`` on their own."""
    out: Findings = []
    _contents(doc, "", out)
    return out


def _content(item: dict[str, Any], path: str, out: Findings) -> None:
    kind = item.get("type")
    if kind == "text":
        string_at(item, "text", path, out)
    elif kind in ("image", "audio"):
        _base64(item, "data", path, out)
        string_at(item, "mimeType", path, out)
    elif kind == "resource":
        resource = object_at(item, "resource", path, out)
        if resource:
            _contents(resource, f"{path}.resource", out)
    elif kind == "resource_link":
        string_at(item, "uri", path, out)
        string_at(item, "name", path, out)
    elif kind is None:
        out.append(absent(f"{path}.type"))
    else:
        out.append(err(f"{path}.type", "must be text, image, audio, resource or resource_link (MCP)"))


def _base64(item: dict[str, Any], key: str, path: str, out: Findings) -> None:
    value = string_at(item, key, path, out)
    if value and not is_base64(value):  # "" is the base64 of no bytes
        out.append(err(join(path, key), "must be base64 (MCP)", "pattern"))


def check_error(doc: dict[str, Any]) -> Findings:
    """Return the problems of a JSON-RPC error response ``{jsonrpc, id, error: {code, message, data?}}``."""
    out: Findings = []
    _envelope(doc, out, id_required=True, null_id=True)
    if "result" in doc:
        out.append(err("result", "a response holds a result or an error, not both (JSON-RPC 2.0)", "unexpected"))
    error = object_at(doc, "error", "", out)
    if error:
        code = error.get("code")
        if code is None:
            out.append(absent("error.code"))
        elif type(code) is not int:
            out.append(wrong_type("error.code", "an integer", code))
        string_at(error, "message", "error", out)
    return out
