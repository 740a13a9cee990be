"""The Draft 2020-12 vocabulary of real tool schemas: codes and paths, ECMA-262 patterns, caching."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentmsg import ToolDefinition, ValidationError
from agentmsg._frozen import freeze_json
from agentmsg.schema import validate_arguments
from agentmsg.schema._generate import _check_for
from agentmsg.schema._regex import PatternError, compile_pattern, translate

# pydantic's Field(ge=1, le=100), constr(pattern=...), zod's .min(1), as they reach a tool schema
FETCH = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "format": "uri", "minLength": 1, "title": "Url"},
        "size": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 1000000, "default": 5000},
        "start_index": {"type": "integer", "minimum": 0, "default": 0},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1, "multipleOf": 0.25},
        "key": {"type": "string", "pattern": "^[A-Z][A-Z0-9]+-[0-9]+$"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": True,
                 "contains": {"const": "main"}},
        "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": False},
        "labels": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": False,
                   "propertyNames": {"maxLength": 10}, "minProperties": 1, "maxProperties": 2},
        "card": {"type": "object", "dependentRequired": {"number": ["cvc"]}},
        "shape": {"oneOf": [{"$ref": "#/$defs/circle"}, {"$ref": "#/$defs/square"}]},
        "mode": {"allOf": [{"type": "string"}, {"not": {"const": "off"}}]},
        "unit": {"if": {"const": "metric"}, "then": {"const": "metric"}, "else": {"enum": ["imperial", "us"]}},
        "tree": {"$ref": "#/$defs/node"},
    },
    "required": ["url"],
    "$defs": {
        "circle": {"type": "object", "properties": {"r": {"type": "number", "exclusiveMinimum": 0}}, "required": ["r"]},
        "square": {"type": "object", "properties": {"side": {"type": "number"}}, "required": ["side"]},
        "node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                                                  "name": {"type": "string", "maxLength": 5}}},
    },
}

VALID = {"url": "https://example.com", "size": 10, "start_index": 0, "ratio": 0.75, "key": "AB-12",
         "tags": ["main", "x"], "point": [1, 2.5], "labels": {"x-a": "b"}, "card": {"number": 1, "cvc": 2},
         "shape": {"r": 1}, "mode": "on", "unit": "us", "tree": {"children": [{"children": [], "name": "leaf"}]}}


@pytest.mark.parametrize(
    ("change", "path", "code"),
    [
        ({"url": ""}, "url", "value"),
        ({"size": 0}, "size", "value"),
        ({"size": 1000000}, "size", "value"),
        ({"start_index": -1}, "start_index", "value"),
        ({"ratio": 2}, "ratio", "value"),
        ({"ratio": 0.3}, "ratio", "value"),
        ({"key": "ab-12"}, "key", "pattern"),
        ({"key": "AB-12\n"}, "key", "pattern"),  # ECMA-262 $ does not match before a final newline
        ({"tags": []}, "tags", "value"),
        ({"tags": ["a", "b", "c", "d"]}, "tags", "size"),
        ({"tags": ["main", "main"]}, "tags", "unique"),
        ({"tags": ["x"]}, "tags", "value"),
        ({"point": [1, 2, 3]}, "point[2]", "unexpected"),
        ({"point": [1, "2"]}, "point[1]", "type"),
        ({"labels": {"x-a": 1}}, "labels.x-a", "type"),
        ({"labels": {"y": "b"}}, "labels.y", "unexpected"),
        ({"labels": {"x-aaaaaaaaaaa": "b"}}, "labels.x-aaaaaaaaaaa", "unexpected"),
        ({"labels": {}}, "labels", "value"),
        ({"labels": {"x-a": "1", "x-b": "2", "x-c": "3"}}, "labels", "size"),
        ({"card": {"number": 1}}, "card.cvc", "missing"),
        ({"shape": {"r": 0}}, "shape", "value"),
        ({"mode": "off"}, "mode", "value"),
        ({"unit": "metres"}, "unit", "value"),
        ({"tree": {"children": [{"children": [{"name": "toolong"}]}]}}, "tree.children[0].children[0].name", "size"),
    ],
)
def test_each_keyword_reports_its_code_and_path(change: dict[str, Any], path: str, code: str) -> None:
    value = {**VALID, **change}
    validate_arguments(FETCH, VALID)
    for schema, arguments in ((FETCH, value), (freeze_json(FETCH), freeze_json(value))):
        with pytest.raises(ValidationError) as info:
            validate_arguments(schema, arguments)
        assert (info.value.path, info.value.code) == (path, code), str(info.value)


def test_format_is_an_annotation_unless_asked() -> None:
    validate_arguments(FETCH, {**VALID, "url": "not a uri"})
    with pytest.raises(ValidationError) as info:
        validate_arguments(FETCH, {**VALID, "url": "not a uri"}, formats=True)
    assert (info.value.path, info.value.code) == ("url", "pattern")


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        (r"^\d+$", "123", True),
        (r"^\d+$", "১২৩", False),  # \d is ASCII in ECMA-262
        (r"^\w+$", "école", False),
        (r"\s", "\ufeff", True),  # ECMA-262 whitespace includes the BOM; Python's \s does not
        (r"^abc$", "abc\n", False),
        (r"^a.c$", "a\rc", False),  # . does not match line terminators
        (r"^a.c$", "a\u2028c", False),
        (r"^\cJ$", "\n", True),
        (r"^[^]$", "\n", True),
        (r"[]", "anything", False),
        (r"^(?<y>\d{2})-\k<y>$", "12-12", True),
        (r"^\u{1F600}$", "\U0001F600", True),
        (r"^[\w-]+$", "a-b_c", True),
        (r"a{,2}", "a{,2}", True),  # not a quantifier in ECMA-262
        (r"^[a-z]+(-[a-z]+)*$", "get-tiny-image", True),
    ],
)
def test_patterns_match_as_ecma_262(pattern: str, text: str, matches: bool) -> None:
    assert (compile_pattern(pattern).search(text) is not None) is matches
    try:
        validate_arguments({"pattern": pattern}, text)
        verdict = True
    except ValidationError:
        verdict = False
    assert verdict is matches


@pytest.mark.parametrize(
    "pattern",
    ["(a+)+$", "(a*)*b", "^(\\w+\\s?)*$", "(x{2,20})+", "((ab)*c)+", "(a|aa)+(b+)+", "^([a-z0-9]+(-[a-z0-9]+)*\\.)+[a-z]{2,}$"],
)
def test_patterns_that_could_backtrack_catastrophically_are_refused_before_they_run(pattern: str) -> None:
    with pytest.raises(ValidationError) as info:
        validate_arguments({"type": "string", "pattern": pattern}, "a" * 40 + "!")
    assert (info.value.code, info.value.path) == ("schema", "pattern")
    assert "catastrophic" in info.value.message


@given(st.text(alphabet="ab-.(|)*+?[]{}\\^$,0123dwsx", max_size=12))
def test_any_pattern_text_translates_or_is_refused(pattern: str) -> None:
    try:
        compiled = compile_pattern(pattern)
    except PatternError:
        return
    assert isinstance(compiled, re.Pattern)
    assert "(?P" not in pattern


def test_ecma_escapes_python_reads_differently_are_refused() -> None:
    for pattern, words in ((r"\Aabc", "not an ECMA-262 escape"), (r"\p{L}", "Unicode property"), ("(?i)x", "inline flags"),
                           ("a++", "cannot follow a quantifier")):
        with pytest.raises(PatternError, match=re.escape(words)):
            translate(pattern)


def test_a_compiled_schema_is_cached() -> None:
    plain = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}
    assert _check_for(plain) is _check_for({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}})
    tool = ToolDefinition("t", "T.", plain, strict=False)
    assert _check_for(tool.parameters) is _check_for(tool.parameters)
    assert _check_for(plain, True) is not _check_for(plain, False)
