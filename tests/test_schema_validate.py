"""validate_arguments and the typed builder (build / ToolCall.arguments_as)."""

import dataclasses
import enum
import json
import pickle
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any, Literal, Optional

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentmsg import FrozenDict, ToolCall, ValidationError
from agentmsg._frozen import freeze_json
from agentmsg.schema import build, schema_for, validate_arguments

from schema_future_models import Color, Issue, Label

FILES = {
    "type": "object",
    "properties": {
        "files": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "mode": {"enum": ["r", "w"]}},
                "required": ["path", "mode"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["files"],
}

ERRORS = [
    (FILES, {"files": [{"path": "a", "mode": "r"}, {"path": "b", "mode": "r"}, {"path": "c", "mode": "x"}]},
     "files[2].mode", "value"),
    (FILES, {"files": [{"path": "a"}]}, "files[0].mode", "missing"),
    (FILES, {"files": [{"path": "a", "mode": "r", "extra": 1}]}, "files[0].extra", "unexpected"),
    (FILES, {}, "files", "missing"),
    (FILES, [], "", "type"),
    (FILES, {"files": [{"path": 1, "mode": "r"}]}, "files[0].path", "type"),
    ({"type": "integer"}, True, "", "type"),
    ({"type": "integer"}, 1.5, "", "type"),
    ({"type": "number"}, False, "", "type"),
    ({"type": ["string", "null"]}, 0, "", "type"),
    ({"const": 1}, True, "", "value"),
    ({"enum": [1, "a"]}, True, "", "value"),
    ({"type": "array", "uniqueItems": True}, [1, 1.0], "", "unique"),
    ({"type": "array", "uniqueItems": True}, [{"a": [1]}, {"a": [1.0]}], "", "unique"),
    ({"type": "array", "minItems": 2}, [1], "", "value"),
    ({"type": "array", "maxItems": 1}, [1, 2], "", "size"),
    ({"prefixItems": [{"type": "integer"}], "items": False}, [1, 2], "[1]", "unexpected"),
    ({"prefixItems": [{"type": "integer"}, {"type": "string"}]}, [1, 2], "[1]", "type"),
    ({"type": "string", "format": "date"}, "2024-02-30", "", "pattern"),
    ({"type": "string", "format": "date-time"}, "2024-01-01T10:00:00", "", "pattern"),
    ({"anyOf": [{"type": "integer"}, {"type": "string"}]}, None, "", "type"),
    ({"anyOf": [{"type": "integer", "enum": [1]}, {"type": "string", "enum": ["a"]}]}, 2, "", "value"),
    ({"anyOf": [{"enum": [1]}, {"enum": [2]}]}, 3, "", "value"),
    ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, 1, "", "value"),
    ({"properties": {"a": False}}, {"a": 1}, "a", "unexpected"),
    ({"$defs": {"p": {"type": "object", "properties": {"x": {"type": "integer"}}}},
      "anyOf": [{"$ref": "#/$defs/p"}, {"type": "null"}]}, {"x": "1"}, "x", "type"),
    ({"additionalProperties": {"type": "integer"}}, {"k": "v"}, "k", "type"),
]


@pytest.mark.parametrize(("schema", "value", "path", "code"), ERRORS)
def test_first_error_path_and_code(schema: Any, value: Any, path: str, code: str) -> None:
    for s, v in ((schema, value), (freeze_json(schema), freeze_json(value))):
        with pytest.raises(ValidationError) as info:
            validate_arguments(s, v, formats=True)
        assert (info.value.path, info.value.code) == (path, code)


def test_json_number_semantics() -> None:
    validate_arguments({"type": "integer"}, 1.0)
    validate_arguments({"type": "integer"}, 10**30)
    validate_arguments({"enum": [1]}, 1.0)
    validate_arguments({"const": {"a": [1, False]}}, FrozenDict(a=(1.0, False)))
    validate_arguments({"type": "array", "uniqueItems": True}, [1, True, "1", [1], {"1": 1}])


def test_type_errors_say_what_was_expected() -> None:
    with pytest.raises(ValidationError, match="expected an integer or null, got string"):
        validate_arguments({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "x")
    with pytest.raises(ValidationError, match="expected a string or null, got number"):
        validate_arguments({"type": ["string", "null"]}, 1.5)


def test_messages_never_show_values() -> None:
    secret = "SECRET-VALUE-123"
    bad = [
        ({"type": "integer"}, secret),
        ({"enum": ["a"]}, secret),
        ({"const": "a"}, secret),
        ({"type": "string", "format": "date"}, secret),
        ({"additionalProperties": False}, {"k": secret}),
        ({"pattern": "^[0-9]+$"}, secret),
        ({"maxLength": 3}, secret),
        ({"not": {"type": "string"}}, secret),
        ({"format": "email"}, secret),
        ({"minimum": 10**20}, 5),
    ]
    for schema, value in bad:
        with pytest.raises(ValidationError) as info:
            validate_arguments(schema, value, formats=True)
        assert secret not in str(info.value)


def test_non_string_keys_of_a_python_dict_are_validation_errors() -> None:
    with pytest.raises(ValidationError) as info:
        validate_arguments({"additionalProperties": False}, {1: "x"})
    assert (info.value.path, info.value.code) == ("1", "unexpected")
    with pytest.raises(ValidationError) as info:
        build(Range, {"start": 1, "end": 2, 3: 4})
    assert (info.value.path, info.value.code) == ("3", "unexpected")


def test_changing_a_plain_schema_is_seen() -> None:
    schema: dict[str, Any] = {"enum": [1]}
    validate_arguments(schema, 1)
    schema["enum"] = [True]
    with pytest.raises(ValidationError):
        validate_arguments(schema, 1)
    frozen = freeze_json({"type": "integer"})
    validate_arguments(frozen, 1)
    with pytest.raises(ValidationError):
        validate_arguments(freeze_json({"type": "string"}), 1)


def test_long_unknown_key_is_cut_short_in_the_path() -> None:
    with pytest.raises(ValidationError) as info:
        validate_arguments({"additionalProperties": False}, {"k" * 500: 1})
    assert info.value.path == "k" * 37 + "..."


@pytest.mark.parametrize(
    ("schema", "path", "match"),
    [
        ({"$ref": "other.json"}, "$ref", "only local JSON-pointer references"),
        ({"$ref": "#/$defs/missing"}, "$ref", "does not resolve"),
        ({"properties": {"a": {"$ref": "#/$defs/b"}}, "$defs": {"b": {"minimum": "1"}}}, "$defs.b.minimum", "must be a number"),
        ({"type": "text"}, "type", "unknown JSON type"),
        ({"required": "a"}, "required", "must be an array"),
        ({"minItems": -1}, "minItems", "non-negative integer"),
        ({"properties": {"a": {"maxLength": 1.5}}}, "properties.a.maxLength", "non-negative integer"),
        ({"type": "string", "default": float("nan")}, "", "must be JSON"),
        (["type"], "", "expected a schema (an object or a boolean), got "),
        ({"properties": {"a": {"exclusiveMinimum": True}}}, "properties.a.exclusiveMinimum", "Draft 4"),
        ({"items": [{"type": "string"}]}, "items", "prefixItems"),
        ({"dependencies": {"a": ["b"]}}, "dependencies", "dependentRequired"),
        ({"properties": {"a": {"unevaluatedProperties": False}}}, "properties.a.unevaluatedProperties", "not supported"),
        ({"$defs": {"a": {"$dynamicRef": "#x"}}, "$ref": "#/$defs/a"}, "$defs.a.$dynamicRef", "not supported"),
        ({"properties": {"a": {"$id": "http://x/a"}}}, "properties.a.$id", "at the root"),
        ({"multipleOf": 0}, "multipleOf", "above 0"),
        ({"anyOf": []}, "anyOf", "non-empty"),
        ({"allOf": [{"not": {"pattern": "(a*)*"}}]}, "allOf[0].not.pattern", "catastrophic"),
        ({"patternProperties": {"\\p{L}": {}}}, "patternProperties[" + json.dumps("\\p{L}") + "]", "Unicode property"),
        ({"pattern": "(?i)abc"}, "pattern", "inline flags"),
        ({"pattern": "[a-"}, "pattern", "unterminated"),
        ({"pattern": 5}, "pattern", "must be a string"),
        ({"propertyNames": 5}, "propertyNames", "expected a schema (an object or a boolean), got "),
        ({"dependentRequired": {"a": "b"}}, "dependentRequired", "arrays of strings"),
    ],
)
def test_unsupported_or_broken_schemas_are_schema_errors(schema: Any, path: str, match: str) -> None:
    with pytest.raises(ValidationError) as info:
        validate_arguments(schema, {"a": 1})
    assert (info.value.code, info.value.path) == ("schema", path), str(info.value)
    assert match in info.value.message


def test_a_deeply_nested_schema_is_a_schema_error() -> None:
    schema: Any = {"type": "string"}
    for _ in range(5000):
        schema = {"not": schema}
    with pytest.raises(ValidationError) as info:
        validate_arguments(schema, 1)
    assert info.value.code in ("schema", "depth")


def test_annotations_and_unknown_formats_are_ignored() -> None:
    validate_arguments({"title": "t", "description": "d", "default": 1, "examples": [], "$comment": "c",
                        "x-vendor": {"minimum": 5}, "format": "email", "type": "string"}, "not an email")


def test_dates_and_date_times() -> None:
    good = ["2024-02-29T23:59:59Z", "2024-01-01t00:00:00.123456789+05:30", "1999-12-31T00:00:00-23:59"]
    bad = ["2023-02-29T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:00:60Z", "2024-01-01 00:00:00Z",
           "2024-01-01T00:00:00+24:00", "0000-01-01T00:00:00Z", "2024-01-01T00:00:00Z\n", "２０２４-01-01T00:00:00Z"]
    for text in good:
        validate_arguments({"format": "date-time"}, text, formats=True)
    for text in bad:
        with pytest.raises(ValidationError):
            validate_arguments({"format": "date-time"}, text, formats=True)
        validate_arguments({"format": "date-time"}, text)  # an annotation unless asked
    validate_arguments({"format": "date"}, "2024-02-29", formats=True)
    for text in ("2023-02-29", "2024-1-01", "20240101", "0000-01-01"):
        with pytest.raises(ValidationError):
            validate_arguments({"format": "date"}, text, formats=True)
    validate_arguments({"format": "date"}, 5, formats=True)  # formats apply to strings only


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def test_too_deep_is_a_validation_error() -> None:
    schema = {"$defs": {"a": {"type": "array", "items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"}
    with pytest.raises(ValidationError) as info:
        validate_arguments(schema, _nested(100_000))
    assert info.value.code == "depth"
    with pytest.raises(ValidationError) as info:
        build(Tree, {"name": "x", "children": [], "kids": _nested(100_000)}, strict=False)
    assert info.value.code in ("depth", "unexpected")


def test_error_pickles() -> None:
    with pytest.raises(ValidationError) as info:
        validate_arguments(FILES, {"files": [{"path": "a", "mode": 3}]})
    again = pickle.loads(pickle.dumps(info.value))
    assert (again.path, again.code, str(again)) == (info.value.path, info.value.code, str(info.value))


# ---- building typed objects ---------------------------------------------------------------------


class Mode(enum.Enum):
    READ = "r"
    WRITE = "w"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclass(frozen=True)
class Range:
    start: int
    end: int


@dataclass(frozen=True)
class Everything:
    text: str
    count: int
    ratio: float
    flag: bool
    mode: Mode
    level: Level
    literal: Literal[1, "one", True]
    items: list[int]
    frozen_items: tuple[str, ...]
    pair: tuple[int, int]
    tags: set[str]
    frozen_tags: frozenset[int]
    when: datetime
    day: date
    span: Range
    spans: list[Range]
    maybe: Optional[Range]
    either: int | str


def everything_args() -> dict[str, Any]:
    return {
        "text": "hi", "count": 2.0, "ratio": 1, "flag": False, "mode": "w", "level": 2.0, "literal": 1.0,
        "items": [1, 2.0], "frozen_items": ["a"], "pair": [1, 2], "tags": ["a", "b", "a"],
        "frozen_tags": [3], "when": "2024-05-01T12:30:00.5-02:00", "day": "2024-05-01",
        "span": {"start": 1, "end": 2}, "spans": [{"start": 3, "end": 4}], "maybe": None, "either": "x",
    }


def test_build_restores_python_types() -> None:
    for args in (everything_args(), freeze_json(everything_args())):
        obj = build(Everything, args)
        assert obj == Everything(
            text="hi", count=2, ratio=1.0, flag=False, mode=Mode.WRITE, level=Level.HIGH, literal=1,
            items=[1, 2], frozen_items=("a",), pair=(1, 2), tags={"a", "b"}, frozen_tags=frozenset({3}),
            when=datetime(2024, 5, 1, 12, 30, 0, 500000, timezone(-timedelta(hours=2))),
            day=date(2024, 5, 1), span=Range(1, 2), spans=[Range(3, 4)], maybe=None, either="x",
        )
        assert type(obj.count) is int and type(obj.ratio) is float and type(obj.literal) is int
        assert type(obj.items) is list and type(obj.frozen_items) is tuple and type(obj.tags) is set
        assert type(obj.span) is Range and obj.level is Level.HIGH


def test_literal_keeps_declared_values() -> None:
    cls = dataclasses.make_dataclass("L", [("v", Literal[1, True])])
    assert build(cls, {"v": True}).v is True
    assert build(cls, {"v": 1.0}).v == 1 and type(build(cls, {"v": 1.0}).v) is int


@dataclass(frozen=True, slots=True)
class WithDefaults:
    name: str
    count: int = 3
    note: Optional[str] = "keep"
    tags: tuple[str, ...] = ()
    extra: list[str] = field(default_factory=lambda: ["x"])
    mode: Mode = Mode.READ
    computed: int = field(init=False, default=7)


def test_null_means_default_in_strict_mode() -> None:
    obj = build(WithDefaults, {"name": "a", "count": None, "note": None, "tags": None, "extra": None,
                               "mode": None})
    assert obj == WithDefaults("a", 3, None, (), ["x"], Mode.READ)
    assert obj.note is None  # null is a value of Optional[str]: kept, not replaced by the default
    assert obj.computed == 7
    with pytest.raises(ValidationError) as info:
        build(WithDefaults, {"name": "a"})
    assert (info.value.path, info.value.code) == ("count", "missing")


def test_non_strict_leaves_out_defaults() -> None:
    obj = build(WithDefaults, {"name": "a"}, strict=False)
    assert obj == WithDefaults("a") and obj.extra == ["x"] and obj.computed == 7
    assert build(WithDefaults, {"name": "a"}, strict=False).extra is not obj.extra  # a fresh factory value
    with pytest.raises(ValidationError) as info:
        build(WithDefaults, {"name": "a", "count": None}, strict=False)
    assert (info.value.path, info.value.code) == ("count", "type")


@dataclass
class Tree:
    name: str
    children: "list[Tree]"


def test_recursive_and_postponed_classes() -> None:
    tree = build(Tree, {"name": "a", "children": [{"name": "b", "children": []}]})
    assert tree == Tree("a", [Tree("b", [])])
    issue = build(Issue, {"title": "t", "labels": [{"text": "bug", "color": "green"}], "due": "2024-01-02",
                          "parent": {"title": "p", "labels": [], "due": None, "parent": None, "watchers": None},
                          "watchers": ["ann", "bob", "ann"]})
    assert issue.labels == (Label("bug", Color.GREEN),) and issue.due == date(2024, 1, 2)
    assert issue.parent == Issue("p") and issue.watchers == frozenset({"ann", "bob"})


@dataclass(frozen=True)
class Checked:
    low: int
    high: int

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low must not exceed high")
        if self.low < 0:
            raise ValidationError("must not be negative", "low", "value")


@dataclass(frozen=True)
class Outer:
    inner: list[Checked]


def test_class_checks_become_validation_errors() -> None:
    with pytest.raises(ValidationError) as info:
        build(Outer, {"inner": [{"low": 1, "high": 2}, {"low": 3, "high": 2}]})
    assert (info.value.path, info.value.code) == ("inner[1]", "value")
    assert "low must not exceed" not in str(info.value)
    with pytest.raises(ValidationError) as info:
        build(Checked, {"low": 3, "high": 2})
    assert info.value.path == "" and isinstance(info.value.__cause__, ValueError)
    with pytest.raises(ValidationError) as info:
        build(Outer, {"inner": [{"low": -1, "high": 2}]})
    assert (info.value.path, info.value.code) == ("inner[0].low", "value")


@dataclass
class Mutable:
    a: int
    b: list[int] = field(default_factory=list)


@dataclass(init=False)
class OwnInit:
    a: int

    def __init__(self, a: int) -> None:
        self.a = a * 10


@dataclass(frozen=True, kw_only=True)
class KwOnly:
    a: int
    b: str = "b"


class Base:
    __slots__ = ()


@dataclass(frozen=True)
class Sub(Checked):
    extra: str = ""


def test_every_kind_of_dataclass_is_built_like_its_constructor() -> None:
    assert build(Mutable, {"a": 1, "b": None}) == Mutable(1, [])
    assert build(OwnInit, {"a": 2}).a == 20  # its own __init__ is called
    assert build(KwOnly, {"a": 1, "b": None}) == KwOnly(a=1)
    assert build(Sub, {"low": 1, "high": 2, "extra": "x"}) == Sub(1, 2, "x")
    with pytest.raises(ValidationError):
        build(Sub, {"low": 3, "high": 2, "extra": "x"})
    assert dataclasses.asdict(build(WithDefaults, {"name": "a"}, strict=False)) == dataclasses.asdict(WithDefaults("a"))


def test_arguments_as() -> None:
    call = ToolCall("call_1", "everything", everything_args())
    assert call.arguments_as(Everything).span == Range(1, 2)
    with pytest.raises(ValidationError) as info:
        ToolCall("call_1", "t", {"span": {"start": 1}}).arguments_as(Everything)
    assert (info.value.path, info.value.code) == ("text", "missing")
    assert ToolCall("c", "t", {"name": "a"}).arguments_as(WithDefaults, strict=False) == WithDefaults("a")
    with pytest.raises(TypeError, match="cannot be expressed in strict mode"):
        ToolCall("c", "t", {}).arguments_as(dataclasses.make_dataclass("M", [("m", dict[str, int])]), strict=True)
    # decoding (the default) builds what strict schema generation cannot express
    assert ToolCall("c", "t", {"m": {"a": 1}}).arguments_as(dataclasses.make_dataclass("M", [("m", dict[str, int])])).m == {"a": 1}


def test_build_of_non_dataclass_types_needs_non_strict() -> None:
    assert build(list[Range], [{"start": 1, "end": 2}], strict=False) == [Range(1, 2)]
    assert build(dict[str, set[int]], {"a": [1, 2.0]}, strict=False) == {"a": {1, 2}}
    with pytest.raises(ValidationError) as info:
        build(dict[str, set[int]], {"a": [1], "b": [1, 2.0, 2]}, strict=False)
    assert (info.value.path, info.value.code) == ("b", "unique")
    with pytest.raises(TypeError, match="root must be a dataclass"):
        build(list[Range], [])


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from(list(everything_args()) + ["other"])
ARGS = st.dictionaries(KEYS, JSON, max_size=20) | st.builds(
    lambda base, key, value: {**base, key: value}, st.just(everything_args()), KEYS, JSON)


@settings(max_examples=100, deadline=None)
@given(ARGS)
@example({**everything_args(), "when": ""})  # found by hypothesis: a date-time format error
def test_any_json_gives_a_value_or_a_validation_error(value: Any) -> None:
    schema = schema_for(Everything)
    try:
        build(Everything, value)
        built = True
    except ValidationError as e:
        built = False
        with pytest.raises(ValidationError) as info:  # build checks formats (a datetime field, say): so does this
            validate_arguments(schema, value, formats=True)
        assert (info.value.path, info.value.code, info.value.message) == (e.path, e.code, e.message)
    if built:
        validate_arguments(schema, value, formats=True)
    json.dumps(schema)  # the schema itself stays JSON
