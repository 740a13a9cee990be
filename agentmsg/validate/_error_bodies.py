"""The error bodies providers answer with (a 400, 404, 429...), checked as each API documents them.

>>> check_openai_error({"error": {"message": "Invalid 'temperature'.", "type": "invalid_request_error",
...                               "param": "temperature", "code": None}})
[]
>>> [str(e) for e in check_anthropic_error({"type": "error", "error": {"type": "not_found_error"}})]
['error.message: is required']
>>> [str(e) for e in check_gemini_error({"error": {"code": "404", "message": "Not found.", "status": "NOT_FOUND"}})]
['error.code: expected an integer, got string (Gemini: the HTTP status, 404)']

Logs of agent runs hold these beside the requests and responses. Each checker returns the list
of problems (``ValidationError`` with path and code):

- OpenAI (Chat Completions and Responses, any status): ``{"error": {message, type, param,
  code}}``, ``param`` and ``code`` a string or null (the OpenAPI ``ErrorResponse``; compatible
  servers such as vLLM put the HTTP status, an integer, in ``code``);
- Anthropic: ``{"type": "error", "error": {type, message}, "request_id"}``;
- Gemini (``google.rpc.Status``): ``{"error": {code, message, status, details}}``, ``code``
  the HTTP status.
"""

from __future__ import annotations

from typing import Any

from ._rules import Findings, absent, array_at, err, object_at, string_at, wrong_type

__all__ = ["check_openai_error", "check_anthropic_error", "check_gemini_error", "openai_like", "gemini_like"]


def _nullable(data: dict[str, Any], key: str, path: str, out: Findings, integer: bool = False) -> None:
    value = data.get(key)
    if value is not None and type(value) is not str and not (integer and type(value) is int):
        what = "a string, an integer or null" if integer else "a string or null"
        out.append(wrong_type(f"{path}.{key}", what, value))


def check_openai_error(doc: dict[str, Any]) -> Findings:
    """Return the problems of an OpenAI error body ``{"error": {message, type, param, code}}``."""
    out: Findings = []
    error = object_at(doc, "error", "", out)
    if error is not None:
        string_at(error, "message", "error", out)
        string_at(error, "type", "error", out, "OpenAI: the kind of error, such as invalid_request_error")
        _nullable(error, "param", "error", out)
        _nullable(error, "code", "error", out, integer=True)
    return out


def check_anthropic_error(doc: dict[str, Any]) -> Findings:
    """Return the problems of an Anthropic error body ``{"type": "error", "error": {type, message}}``."""
    out: Findings = []
    if doc.get("type") != "error":
        out.append(err("type", 'must be "error" (Anthropic)'))
    error = object_at(doc, "error", "", out)
    if error is not None:
        string_at(error, "type", "error", out, "Anthropic: the kind of error, such as not_found_error")
        string_at(error, "message", "error", out)
    string_at(doc, "request_id", "", out, required=False)
    return out


def check_gemini_error(doc: dict[str, Any]) -> Findings:
    """Return the problems of a Gemini error body ``{"error": {code, message, status, details}}``."""
    out: Findings = []
    error = object_at(doc, "error", "", out)
    if error is not None:
        code = error.get("code")
        if code is None:
            out.append(absent("error.code", "Gemini: the HTTP status, 404"))
        elif type(code) is not int:
            out.append(wrong_type("error.code", "an integer", code, "Gemini: the HTTP status, 404"))
        string_at(error, "message", "error", out)
        string_at(error, "status", "error", out, "Gemini: the status name, such as NOT_FOUND")
        array_at(error, "details", "error", out, required=False)
    return out


def openai_like(doc: Any) -> bool:
    """Tell whether an error body names the kind of error (``type``), as OpenAI's do."""
    error = doc.get("error") if type(doc) is dict else None
    return type(error) is dict and "type" in error


def gemini_like(doc: Any) -> bool:
    """Tell whether an error body names a status, as Gemini's (``google.rpc.Status``) do."""
    error = doc.get("error") if type(doc) is dict else None
    return type(error) is dict and "status" in error
