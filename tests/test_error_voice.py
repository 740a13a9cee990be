"""One error voice: every code the package can raise is in the table, one wording per rule."""

from __future__ import annotations

import ast
import functools
import os
import pickle
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

import agentmsg
from agentmsg.errors import CODES, ORDER_CODES, ValidationError

PACKAGE = Path(__file__).resolve().parent.parent / "agentmsg"

_ERRORS = {"ValidationError": 2, "InvalidArgumentsError": 2}  # class name -> position of ``code``
_DEFAULTS = {"ValidationError": "value", "InvalidArgumentsError": "json"}


@functools.cache  # the package's sources, parsed once per run: the tests only read the trees
def _modules() -> dict[str, ast.Module]:
    return {str(p.relative_to(PACKAGE)): ast.parse(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))}


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _argument(node: ast.Call, position: int, keyword: str) -> ast.expr | None:
    for kw in node.keywords:
        if kw.arg == keyword:
            return kw.value
    return node.args[position] if len(node.args) > position else None


class _Scan:
    """Every code each raise site can pass, resolved through constants and helper parameters."""

    def __init__(self) -> None:
        self.modules = _modules()
        self.constants: dict[str, set[str]] = {}  # module-level NAME = "text", by name
        self.functions: dict[str, list[ast.FunctionDef]] = {}
        self.calls: dict[str, list[ast.Call]] = {}
        self.parents: dict[ast.AST, ast.AST] = {}
        for tree in self.modules.values():
            for stmt in tree.body:
                if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                    for target in stmt.targets:
                        if isinstance(target, ast.Name):
                            self.constants.setdefault(target.id, set()).add(stmt.value.value)
            for node in ast.walk(tree):
                for child in ast.iter_child_nodes(node):
                    self.parents[child] = node
                if isinstance(node, ast.FunctionDef):
                    self.functions.setdefault(node.name, []).append(node)
                elif isinstance(node, ast.Call) and (name := _call_name(node)):
                    self.calls.setdefault(name, []).append(node)

    def enclosing(self, node: ast.AST) -> ast.FunctionDef | None:
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, ast.FunctionDef):
                return node
        return None

    def resolve(self, expr: ast.expr | None, default: str, site: ast.AST, depth: int = 0) -> set[str]:
        if expr is None:
            return {default}
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return {expr.value}
        if isinstance(expr, ast.Attribute) and expr.attr == "code":
            return set()  # re-raising the code of an error already raised (and checked) elsewhere
        if isinstance(expr, ast.IfExp):
            return self.resolve(expr.body, default, site, depth) | self.resolve(expr.orelse, default, site, depth)
        if isinstance(expr, ast.Name):
            function = self.enclosing(site)
            params = [a.arg for a in function.args.posonlyargs + function.args.args] if function else []
            kwonly = [a.arg for a in function.args.kwonlyargs] if function else []
            if function and depth < 3 and (expr.id in params or expr.id in kwonly):
                return self.parameter(function, expr.id, depth + 1)
            if expr.id in self.constants:
                return self.constants[expr.id]
        raise AssertionError(f"cannot tell which code {ast.unparse(expr)!r} is (line {expr.lineno})")

    def parameter(self, function: ast.FunctionDef, name: str, depth: int) -> set[str]:
        args = function.args
        positional = [a.arg for a in args.posonlyargs + args.args]
        offset = 1 if positional and positional[0] in ("self", "cls") else 0
        codes: set[str] = set()
        if name in positional:
            defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults))
            if name in defaults:
                codes |= self.resolve(defaults[name], "", function, depth)
            position = positional.index(name) - offset
        else:
            position = 10**6
            kw_defaults = dict(zip([a.arg for a in args.kwonlyargs], args.kw_defaults))
            if kw_defaults.get(name) is not None:
                codes |= self.resolve(kw_defaults[name], "", function, depth)
        for call in self.calls.get(function.name, []):
            arg = _argument(call, position, name)
            if arg is not None:
                codes |= self.resolve(arg, "", call, depth)
        return codes

    def sites(self) -> list[tuple[str, int, set[str]]]:
        found = []
        for rel, tree in self.modules.items():
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and (name := _call_name(node)) in _ERRORS:
                    arg = _argument(node, _ERRORS[name], "code")
                    found.append((rel, node.lineno, self.resolve(arg, _DEFAULTS[name], node)))
        return found


@functools.cache
def _scan() -> _Scan:
    return _Scan()


def test_every_validation_error_code_is_in_the_table():
    sites = _scan().sites()
    assert len(sites) > 150  # the scan sees the raise sites (about 250 today)
    strays = [f"{rel}:{line}: {code}" for rel, line, codes in sites for code in sorted(codes) if code not in CODES]
    assert not strays, strays


def test_the_scan_resolves_helpers_and_constants():
    codes = {code for _, _, found in _scan().sites() for code in found}
    # "unsupported" reaches ValidationError only through providers._common.UNSUPPORTED, and
    # "pending" only through context._not_ready's parameter: the scan must follow both
    assert {"unsupported", "pending", "missing", "type"} <= codes


def test_every_order_code_is_in_the_table():
    scan = _scan()
    codes = set()
    for call in scan.calls.get("ConversationOrderError", []):
        codes |= scan.resolve(_argument(call, 2, "code"), "order", call)
    assert codes and codes <= set(ORDER_CODES), codes - set(ORDER_CODES)


def test_the_table_documents_each_code_in_one_line():
    for table in (CODES, ORDER_CODES):
        for code, meaning in table.items():
            assert code.isidentifier() and code.islower() and meaning
            assert "\n" not in meaning and "|" not in meaning and "`" not in meaning  # one cell of any table


# -- the tables of codes in errors.py's docstring, README and docs/errors.md --------------------

ROOT = PACKAGE.parent
_TABLES = {  # the tables of codes each file holds, in order (errors.py: in its module docstring)
    "agentmsg/errors.py": ("rst", ["CODES", "ORDER_CODES"]),
    "README.md": ("md", ["CODES"]),
    "docs/errors.md": ("md", ["CODES", "ORDER_CODES"]),
}
_HEADINGS = {"CODES": "meaning", "ORDER_CODES": "the rule"}
_RST_RULE = re.compile(r"=+  =+")


def _render(style: str, name: str) -> list[str]:
    """Write the table ``name`` of ``agentmsg.errors`` as Markdown or as a reStructuredText table."""
    table = {"CODES": CODES, "ORDER_CODES": ORDER_CODES}[name]
    if style == "md":
        return [f"| code | {_HEADINGS[name]} |", "|---|---|", *(f"| `{c}` | {t} |" for c, t in table.items())]
    width = max(map(len, table)) + 4
    rule = "=" * width + "  " + "=" * max(map(len, table.values()))
    return [rule, *(f"``{c}``".ljust(width) + "  " + t for c, t in table.items()), rule]


def _spans(style: str, lines: list[str]) -> list[tuple[int, int]]:
    """Return where each table of codes is in ``lines``: Markdown ones open with ``| code |``."""
    spans, i = [], 0
    while i < len(lines):
        j = i + 1
        if style == "md" and lines[i].startswith("| code |"):
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            spans.append((i, j))
        elif style == "rst" and _RST_RULE.fullmatch(lines[i]):
            while j < len(lines) and not _RST_RULE.fullmatch(lines[j]):
                j += 1
            j += 1
            spans.append((i, j))
        i = j
    return spans


def test_the_tables_of_codes_are_written_from_the_code():
    # AGENTMSG_REGENERATE=1 rewrites the tables instead of failing: run it once after changing CODES
    regenerate = os.environ.get("AGENTMSG_REGENERATE") == "1"
    stale = []
    for rel, (style, names) in _TABLES.items():
        path = ROOT / rel
        text = path.read_text(encoding="utf-8")
        cut = text.index('"""', 3) if style == "rst" else len(text)  # errors.py: its docstring only
        lines = text[:cut].split("\n")
        spans = _spans(style, lines)
        assert len(spans) == len(names), f"{rel} should hold {len(names)} tables of codes, found {len(spans)}"
        changed = False
        for (start, end), name in reversed(list(zip(spans, names))):
            if lines[start:end] != _render(style, name):
                stale.append(f"{rel}: {name}")
                lines[start:end], changed = _render(style, name), True
        if regenerate and changed:
            path.write_text("\n".join(lines) + text[cut:], encoding="utf-8")
    assert regenerate or not stale, f"{stale} differ from agentmsg.errors: AGENTMSG_REGENERATE=1 rewrites them"


@pytest.mark.parametrize("code", sorted(CODES))
def test_codes_survive_pickling(code):
    err = pickle.loads(pickle.dumps(ValidationError("must be something", "a.b", code)))
    assert (err.code, err.path, str(err)) == (code, "a.b", "a.b: must be something")


# -- one wording, JSON type names, TypeError for misuse -----------------------------------------


def _error_messages() -> list[tuple[str, int, ast.expr]]:
    """The message argument of every ValidationError(...) in the package."""
    found = []
    for rel, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _call_name(node) in _ERRORS and node.args:
                found.append((rel, node.lineno, node.args[0]))
    return found


def test_messages_name_json_types_never_python_types():
    messages = _error_messages()
    assert len(messages) > 150
    # a value's type is named by _checks.type_name; an exception's class may be named (schema/_build)
    python_names = [
        f"{rel}:{line}" for rel, line, arg in messages
        if "__name__" in ast.unparse(arg) and "type(error).__name__" not in ast.unparse(arg)
    ]
    assert not python_names, python_names


@pytest.mark.parametrize(
    ("call", "path", "code", "message"),
    [
        (lambda: agentmsg.ChatMessage.from_dict({"role": "user", "content": 5}), "content", "type",
         "expected a string or a list of parts, got number"),
        (lambda: agentmsg.ChatMessage.assistant(tool_calls=[{"id": "c"}]), "tool_calls[0]", "type",
         "expected a ToolCall, got object"),
        (lambda: agentmsg.ImagePart("a.png"), "source", "type", "expected an ImageSource, got string"),
        (lambda: agentmsg.ToolCall("c1", "f", [1]), "arguments", "type", "expected an object, got array"),
        (lambda: agentmsg.ToolCall("c1", "f", {"x": float("nan")}), "arguments.x", "value", "must be a finite number"),
        (lambda: agentmsg.ImageSource.from_dict({"type": "blob"}), "type", "value", "must be one of url, base64, file"),
        (lambda: agentmsg.ConversationHistory.from_list([{"role": "user", "content": "a"}, {"role": "user"}], require_system=False),
         "[1].content", "missing", "is required for user messages (the empty string is valid)"),
    ],
)
def test_one_voice_for_bad_data(call, path, code, message):
    with pytest.raises(ValidationError) as info:
        call()
    assert (info.value.path, info.value.code, info.value.message) == (path, code, message)


@dataclass(frozen=True)
class _Args:
    pass


@dataclass(frozen=True)
class _Call:
    id: str
    name: str
    type: Literal["url", "base64", "file"]
    arguments: _Args


@dataclass(frozen=True)
class _Ids:
    id: tuple[str]


def _arguments_as(cls: type, **changes: Any) -> Any:
    arguments = {"id": "c1", "name": "f", "type": "url", "arguments": {}} if cls is _Call else {"id": ["a"]}
    return agentmsg.ToolCall("c1", "f", {**arguments, **changes}).arguments_as(cls)


def _validate(name: str, schema: dict[str, Any], value: Any) -> None:
    from agentmsg.schema import validate_arguments

    validate_arguments({"type": "object", "properties": {name: schema}, "required": [name]}, value)


# one rule broken three ways: through a core type, validate_arguments, and arguments_as
_SAME_RULE = {
    "missing": (("id", "missing", "is required"), [
        lambda: agentmsg.ToolCall.from_dict({"name": "f", "arguments": {}}),
        lambda: _validate("id", {"type": "string"}, {}),
        lambda: agentmsg.ToolCall("c1", "f", {}).arguments_as(_Call),
    ]),
    "type (a)": (("name", "type", "expected a string, got number"), [
        lambda: agentmsg.ToolCall.from_dict({"id": "c1", "name": 3, "arguments": {}}),
        lambda: _validate("name", {"type": "string"}, {"name": 3}),
        lambda: _arguments_as(_Call, name=3),
    ]),
    "type (an)": (("arguments", "type", "expected an object, got array"), [
        lambda: agentmsg.ToolCall.from_dict({"id": "c1", "name": "f", "arguments": [1]}),
        lambda: _validate("arguments", {"type": "object"}, {"arguments": [1]}),
        lambda: _arguments_as(_Call, arguments=[1]),
    ]),
    "empty": (("id", "value", "must not be empty"), [
        lambda: agentmsg.ToolCall.from_dict({"id": "", "name": "f", "arguments": {}}),
        lambda: _validate("id", {"type": "string", "minLength": 1}, {"id": ""}),
        lambda: _validate("id", {"type": "array", "minItems": 1}, {"id": []}),
        lambda: _arguments_as(_Ids, id=[]),
    ]),
    "not a choice": (("type", "value", "must be one of url, base64, file"), [
        lambda: agentmsg.ImageSource.from_dict({"type": "blob"}),
        lambda: _validate("type", {"enum": ["url", "base64", "file"]}, {"type": "blob"}),
        lambda: _arguments_as(_Call, type="blob"),
    ]),
}


@pytest.mark.parametrize("rule", sorted(_SAME_RULE))
def test_one_rule_reads_the_same_in_the_core_the_validator_and_arguments_as(rule):
    expected, calls = _SAME_RULE[rule]
    for call in calls:
        with pytest.raises(ValidationError) as info:
            call()
        assert (info.value.path, info.value.code, info.value.message) == expected


def test_the_validator_names_types_with_their_articles():
    from agentmsg.schema import validate_arguments

    for schema, value, message in (
        ({"type": "integer"}, "7", "expected an integer, got string"),
        ({"type": ["integer", "null"]}, "7", "expected an integer or null, got string"),
        ({"anyOf": [{"type": "array"}, {"type": "boolean"}]}, 1, "expected an array or a boolean, got number"),
        ({"anyOf": [{"type": ["string", "null"]}, {"type": "null"}]}, 1, "expected a string or null, got number"),
    ):
        with pytest.raises(ValidationError) as info:
            validate_arguments(schema, value)
        assert (info.value.code, info.value.message) == ("type", message)


def test_nan_reads_the_same_in_arguments_and_in_number_fields():
    from agentmsg._checks import check_float

    with pytest.raises(ValidationError) as field:
        check_float(float("inf"), "x", minimum=0.0)
    with pytest.raises(ValidationError) as argument:
        agentmsg.ToolCall("c1", "f", {"x": float("inf")})
    assert field.value.message == argument.value.message == "must be a finite number"


def test_programmer_misuse_is_a_type_error_that_names_the_fix(tmp_path):
    from agentmsg.io.store import MessageStore
    from agentmsg.providers import anthropic, ollama, openai

    for codec in (openai, anthropic, ollama):
        with pytest.raises(TypeError, match=r"from_messages\)$"):
            codec.to_messages([{"role": "user", "content": "Hi"}])
        with pytest.raises(TypeError, match=r"from_tools\)$"):
            codec.to_tools([{"name": "now"}])
    with pytest.raises(TypeError, match="database must be a path, a postgresql:// URL or a connection factory, got number"):
        MessageStore(5)  # type: ignore[arg-type]
    # the same dict as data is decoded, and bad data stays a ValidationError
    assert openai.from_messages([{"role": "user", "content": "Hi"}])[0].content == "Hi"
    with pytest.raises(ValidationError):
        openai.from_messages([{"role": "user", "content": 5}])


# -- one helper for the enumerate/try/prefix loop -----------------------------------------------


def test_map_items_prefixes_the_index_and_the_path():
    from agentmsg._checks import check_str, map_items

    assert map_items(str.upper, ("a", "b")) == ["A", "B"]
    for path, expected in (("", "[2].name"), ("tools", "tools[2].name"), ("data.calls", "data.calls[2].name")):
        with pytest.raises(ValidationError) as info:
            map_items(lambda item: check_str(item.get("name"), "name"), [{"name": "a"}, {"name": "b"}, {"name": 3}], path)
        assert (info.value.path, info.value.code) == (expected, "type")
    with pytest.raises(KeyError):  # only ValidationError gains a path; anything else passes through
        map_items(lambda item: item["x"], [{}])


def test_decoders_report_the_index_through_map_items():
    from agentmsg.providers import anthropic, openai

    with pytest.raises(ValidationError) as info:
        openai.from_messages([{"role": "user", "content": "a"}, {"role": "user", "content": [{"type": "text", "text": 1}]}])
    assert info.value.path == "[1].content[0].text"
    with pytest.raises(ValidationError) as info:
        anthropic.from_tools([{"name": "a", "input_schema": {"type": "object"}}, {"name": "b"}])
    assert (info.value.path, info.value.code) == ("[1].input_schema", "missing")


# -- one copy of each shared table and helper ---------------------------------------------------


@functools.cache
def _sources() -> dict[str, str]:
    return {str(p.relative_to(PACKAGE)): p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))}


@pytest.mark.parametrize(
    ("needle", "home"),
    [
        ('b"\\x89PNG', "_images.py"),  # image magic bytes
        ('b"GIF89a"', "_images.py"),
        ("def split_data_url", "_images.py"),
        ('("system", "user", "assistant", "tool")', "roles.py"),  # the role names
        ('int: "integer", float: "number"', "schema/_types.py"),  # the JSON Schema type table
        ("def type_name(", "_checks.py"),
        ("def map_items(", "_checks.py"),
    ],
)
def test_one_copy_of_each_shared_piece(needle, home):
    holders = [rel for rel, text in _sources().items() if needle in text]
    assert holders == [home], holders


def test_the_image_helpers_agree_with_their_callers():
    from agentmsg._images import decode_base64, is_base64, sniff, split_data_url

    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    assert sniff(decode_base64(png)) == "image/png" and is_base64(png)
    assert split_data_url(f"data:image/png;base64,{png}") == ("image/png", png)
    assert split_data_url("https://example.com/a.png") is None and not is_base64("abc")
    assert sniff(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp" and sniff(b"plain text") is None
    source = agentmsg.ImageSource.from_url(f"data:image/png;base64,{png}")
    from agentmsg.io.recognition import image_bytes
    from agentmsg.providers._common import sniff_media_type

    assert image_bytes(source) == decode_base64(png) and sniff_media_type(png, "images[0]") == "image/png"


def test_every_error_class_is_in_one_family():
    # One base a caller can catch: every exception class the package defines descends from
    # AgentmsgError (private ones that never leave their module excepted: they are caught inside).
    import importlib

    from agentmsg.errors import AgentmsgError

    found = []
    for name, tree in _modules().items():
        module = "agentmsg." + name.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                cls = getattr(importlib.import_module(module), node.name, None)
                if isinstance(cls, type) and issubclass(cls, BaseException):
                    found.append(cls)
    assert len(found) >= 8
    # raised and caught inside schema/ and validate/ (Unsupported leaves as the TypeError of a
    # programmer's misuse); ToolRunInterrupted is Ctrl-C itself, a KeyboardInterrupt on purpose
    internal = {"PatternError", "Unsupported", "GiveUp", "Problems", "ToolRunInterrupted"}
    strays = [cls.__qualname__ for cls in found if not issubclass(cls, AgentmsgError) and cls.__name__ not in internal]
    assert strays == []
    assert agentmsg.AgentmsgError is AgentmsgError
