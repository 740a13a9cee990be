"""The schema generator: type hints to JSON Schema, strict and non-strict, and tool definitions."""

import dataclasses
import enum
import sys
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Annotated, Any, Dict, List, Literal, Optional, Tuple, Union

import pytest
from jsonschema import Draft202012Validator

from agentmsg import ToolDefinition, ValidationError
from agentmsg.schema import schema_for

from schema_future_models import Issue, Label


class Mode(enum.Enum):
    READ = "r"
    WRITE = "w"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclass
class Point:
    x: float
    y: float


@dataclass
class Node:
    name: str
    children: "list[Node]"
    owner: "Optional[Owner]" = None


@dataclass
class Owner:
    node: Node


def prop(tp: Any, strict: bool = True, default: Any = dataclasses.MISSING) -> dict[str, Any]:
    """Return the schema of a one-field dataclass's field ``v: tp`` (and its $defs)."""
    cls = dataclasses.make_dataclass("Wrap", [("v", tp, field(default=default))])
    schema = schema_for(cls, strict)
    Draft202012Validator.check_schema(schema)
    out: dict[str, Any] = schema["properties"]["v"]
    return out


SCALARS = [
    (str, {"type": "string"}),
    (int, {"type": "integer"}),
    (float, {"type": "number"}),
    (bool, {"type": "boolean"}),
    (None, {"type": "null"}),
    (type(None), {"type": "null"}),
    (datetime, {"type": "string", "format": "date-time"}),
    (date, {"type": "string", "format": "date"}),
    (Optional[int], {"type": ["integer", "null"]}),
    (Union[int, None], {"type": ["integer", "null"]}),
    (Union[int, str], {"type": ["integer", "string"]}),
    (Union[int, str, None], {"type": ["integer", "string", "null"]}),
    (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
    (Literal[1, True, "x"], {"type": ["integer", "boolean", "string"], "enum": [1, True, "x"]}),
    (Literal["a", None], {"type": ["string", "null"], "enum": ["a", None]}),
    (Mode, {"type": "string", "enum": ["r", "w"]}),
    (Level, {"type": "integer", "enum": [1, 2]}),
    (list[int], {"type": "array", "items": {"type": "integer"}}),
    (List[str], {"type": "array", "items": {"type": "string"}}),
    (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
    (tuple[int, int], {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}),
    (set[str], {"type": "array", "items": {"type": "string"}}),
    (Optional[Mode], {"anyOf": [{"type": "string", "enum": ["r", "w"]}, {"type": "null"}]}),
    (Optional[datetime], {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]}),
    (Point, {"$ref": "#/$defs/Point"}),
    (Optional[Point], {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}]}),
    (Annotated[int, "how many"], {"type": "integer", "description": "how many"}),
    (Optional[Annotated[int, "how many"]], {"type": ["integer", "null"], "description": "how many"}),
    (Annotated[int, 5, "skip non-str metadata"], {"type": "integer", "description": "skip non-str metadata"}),
]


@pytest.mark.parametrize(("tp", "expected"), SCALARS, ids=[repr(tp) for tp, _ in SCALARS])
def test_strict_field_schemas(tp: Any, expected: dict[str, Any]) -> None:
    assert prop(tp) == expected


NON_STRICT = [
    (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
    (frozenset[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
    (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
    (Dict[str, Point], {"type": "object", "additionalProperties": {"$ref": "#/$defs/Point"}}),
    (tuple[int, str], {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
                       "items": False, "minItems": 2}),
    (Tuple[int, str, bool], {"type": "array", "items": False, "minItems": 3, "prefixItems": [
        {"type": "integer"}, {"type": "string"}, {"type": "boolean"}]}),
    (Annotated[Point, "where"], {"$ref": "#/$defs/Point", "description": "where"}),
]


@pytest.mark.parametrize(("tp", "expected"), NON_STRICT, ids=[repr(tp) for tp, _ in NON_STRICT])
def test_non_strict_field_schemas(tp: Any, expected: dict[str, Any]) -> None:
    assert prop(tp, strict=False) == expected


def test_strict_drops_siblings_of_ref() -> None:
    assert prop(Annotated[Point, "where"]) == {"$ref": "#/$defs/Point"}
    assert prop(Annotated[Point, "where"], default=None) == {
        "anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}], "description": "where"}


@pytest.mark.parametrize(
    ("tp", "fragment"),
    [
        (dict[str, int], "dict[str, X] cannot be expressed in strict mode"),
        (tuple[int, str], "mixed item types needs prefixItems"),
        (list[dict[str, int]], "pass strict=False"),
    ],
)
def test_strict_refuses_what_openai_cannot_take(tp: Any, fragment: str) -> None:
    cls = dataclasses.make_dataclass("Tool", [("v", tp)])
    with pytest.raises(TypeError, match=r"Tool\.v: .*") as info:
        schema_for(cls)
    assert fragment in str(info.value)
    schema_for(cls, strict=False)  # fine without strict mode


def test_strict_root_must_be_a_dataclass() -> None:
    for tp in (int, list[int], Optional[Point], Annotated[Point, "x"]):
        with pytest.raises(TypeError, match="root must be a dataclass"):
            schema_for(tp)
    assert schema_for(list[int], strict=False) == {"type": "array", "items": {"type": "integer"}}
    assert schema_for(Optional[Point], strict=False)["$defs"]["Point"]["required"] == ["x", "y"]


@dataclass
class Defaults:
    name: str
    odd: complex = 0j


@dataclass(frozen=True)
class Spot:
    x: float
    y: float


@dataclass
class Plain:
    name: str
    count: int = 3
    mode: Mode = Mode.WRITE
    note: Optional[str] = None
    tags: list[str] = field(default_factory=list)
    when: date = date(2024, 5, 1)
    pair: tuple[int, ...] = (1, 2)
    inf: float = float("inf")
    spot: Spot = Spot(1.0, 2.5)


def test_defaults_strict_and_non_strict() -> None:
    strict = schema_for(Plain)
    assert strict["required"] == ["name", "count", "mode", "note", "tags", "when", "pair", "inf", "spot"]
    assert strict["properties"]["count"] == {"type": ["integer", "null"]}
    assert strict["properties"]["note"] == {"type": ["string", "null"]}
    assert strict["properties"]["mode"] == {"anyOf": [{"type": "string", "enum": ["r", "w"]}, {"type": "null"}]}
    assert "default" not in str(strict)
    loose = schema_for(Plain, strict=False)
    assert loose["required"] == ["name"]
    props = loose["properties"]
    assert props["count"] == {"type": "integer", "default": 3}
    assert props["mode"]["default"] == "w"
    assert props["note"] == {"type": ["string", "null"], "default": None}
    assert "default" not in props["tags"]  # a factory has no single default
    assert props["when"]["default"] == "2024-05-01"
    assert props["pair"]["default"] == [1, 2]
    assert "default" not in props["inf"]  # not JSON
    assert props["spot"] == {"$ref": "#/$defs/Spot", "default": {"x": 1.0, "y": 2.5}}
    Draft202012Validator.check_schema(loose)


def test_unsupported_types_name_the_field_and_type() -> None:
    with pytest.raises(TypeError, match=r"Defaults\.odd: unsupported type complex; supported: str, int"):
        schema_for(Defaults, strict=False)
    cases = [
        (list, r"W\.v: list needs its item types"),
        (dict[int, str], r"W\.v: dict keys must be str"),
        (Literal[1.5], r"W\.v: Literal values must be str, int, bool or None, not float"),
        (Any, r"W\.v: unsupported type Any"),
        (list[bytes], r"W\.v: unsupported type bytes"),
    ]
    for tp, pattern in cases:
        cls = dataclasses.make_dataclass("W", [("v", tp)])
        with pytest.raises(TypeError, match=pattern):
            schema_for(cls, strict=False)

    class Mixed(enum.Enum):
        A = (1, 2)

    with pytest.raises(TypeError, match="enum .*Mixed needs members whose values are str, int or float"):
        schema_for(dataclasses.make_dataclass("W", [("v", Mixed)]))


def test_nested_classes_defined_once_and_recursion() -> None:
    @dataclass
    class Route:
        start: Point
        stops: list[Point]
        end: Optional[Point] = None

    schema = schema_for(Route)
    assert list(schema["$defs"]) == ["Point"]
    assert schema["properties"]["stops"] == {"type": "array", "items": {"$ref": "#/$defs/Point"}}
    tree = schema_for(Node)
    assert tree["properties"]["children"] == {"type": "array", "items": {"$ref": "#"}}
    assert tree["$defs"]["Owner"]["properties"]["node"] == {"$ref": "#"}
    wrapped = schema_for(list[Node], strict=False)
    assert wrapped["items"] == {"$ref": "#/$defs/Node"}
    assert wrapped["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    for s in (schema, tree, wrapped):
        Draft202012Validator.check_schema(s)


def test_same_class_names_get_distinct_defs() -> None:
    def make() -> type:
        @dataclass
        class Item:
            n: int

        return Item

    a, b = make(), make()
    cls = dataclasses.make_dataclass("Pair", [("a", a), ("b", b)])
    assert schema_for(cls)["properties"] == {"a": {"$ref": "#/$defs/Item"}, "b": {"$ref": "#/$defs/Item_2"}}


def test_field_order_follows_the_class_and_init_false_is_left_out() -> None:
    @dataclass
    class Ordered:
        zeta: int
        alpha: int
        computed: int = field(init=False, default=0)
        mid: int = 0

    assert list(schema_for(Ordered)["properties"]) == ["zeta", "alpha", "mid"]


def test_postponed_annotations() -> None:
    schema = schema_for(Issue)
    assert list(schema["properties"]) == ["title", "labels", "due", "parent", "watchers"]
    assert schema["properties"]["title"] == {"type": "string", "description": "one line"}
    assert schema["properties"]["parent"] == {"anyOf": [{"$ref": "#"}, {"type": "null"}]}
    assert schema["properties"]["watchers"] == {
        "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]}
    assert schema["$defs"]["Label"]["properties"]["color"]["anyOf"][0]["enum"] == ["red", "green"]
    assert schema_for(Label, strict=False)["properties"]["color"]["default"] == "red"


def test_unresolvable_postponed_hint_is_a_clear_type_error() -> None:
    namespace: dict[str, Any] = {}
    exec(  # noqa: S102 - a class whose hint names a local type, as in a function body
        "from __future__ import annotations\n"
        "from dataclasses import dataclass\n"
        "def make():\n"
        "    class Local: pass\n"
        "    @dataclass\n"
        "    class Holder:\n"
        "        x: Local\n"
        "    return Holder\n",
        namespace,
    )
    with pytest.raises(TypeError, match="cannot resolve the type hints of .*Holder .*NameError"):
        schema_for(namespace["make"]())


def test_cached_but_each_caller_gets_a_fresh_dict() -> None:
    first = schema_for(Plain)
    first["properties"]["name"]["type"] = "integer"
    first["required"].clear()
    second = schema_for(Plain)
    assert second["properties"]["name"] == {"type": "string"}
    assert second is not first and second == schema_for(Plain)


def test_unhashable_type_hint_still_works() -> None:
    tp = Annotated[int, {"unhashable": "metadata"}]
    assert schema_for(tp, strict=False) == {"type": "integer"}


def test_strict_flag_must_be_bool() -> None:
    with pytest.raises(TypeError, match="strict must be a bool"):
        schema_for(Point, strict=1)  # type: ignore[arg-type]


# ---- tool definitions -------------------------------------------------------------------------


@dataclass(frozen=True)
class GetHTTPResponse:
    """Fetch a URL and return the body.

    Follows redirects.
    """

    url: str
    timeout: float = 10.0


def test_from_dataclass_defaults() -> None:
    tool = ToolDefinition.from_dataclass(GetHTTPResponse)
    assert tool.name == "get_http_response"
    assert tool.description == "Fetch a URL and return the body."
    assert tool.strict is True
    assert tool.to_dict()["parameters"] == schema_for(GetHTTPResponse)
    loose = ToolDefinition.from_dataclass(GetHTTPResponse, name="fetch", description="Fetch.", strict=False)
    assert (loose.name, loose.description, loose.strict) == ("fetch", "Fetch.", False)
    assert loose.to_dict()["parameters"]["required"] == ["url"]


def test_from_dataclass_validates_as_usual() -> None:
    @dataclass
    class NoDocs:
        x: int

    with pytest.raises(ValidationError) as info:
        ToolDefinition.from_dataclass(NoDocs)
    assert (info.value.path, info.value.code) == ("description", "value")
    assert ToolDefinition.from_dataclass(NoDocs, description="Do x.").name == "no_docs"
    with pytest.raises(ValidationError) as info:
        ToolDefinition.from_dataclass(NoDocs, name="bad name", description="Do x.")
    assert info.value.path == "name"
    with pytest.raises(TypeError, match="expected a dataclass, got class int"):
        ToolDefinition.from_dataclass(int)
    with pytest.raises(TypeError, match="expected a dataclass, got function"):
        ToolDefinition.from_dataclass(search)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="dict\\[str, X\\] cannot be expressed in strict mode"):
        ToolDefinition.from_dataclass(dataclasses.make_dataclass("M", [("m", dict[str, int])]), description="d")


def search(query: Annotated[str, "what to look for"], limit: int = 10, *, exact: bool = False) -> list[str]:
    """Search the notes.

    Returns matching titles.
    """
    return []


def test_from_function() -> None:
    tool = ToolDefinition.from_function(search)
    assert (tool.name, tool.description) == ("search", "Search the notes.")
    params = tool.to_dict()["parameters"]
    assert params == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "what to look for"},
            "limit": {"type": ["integer", "null"]},
            "exact": {"type": ["boolean", "null"]},
        },
        "required": ["query", "limit", "exact"],
        "additionalProperties": False,
    }
    loose = ToolDefinition.from_function(search, strict=False).to_dict()["parameters"]
    assert loose["required"] == ["query"] and loose["properties"]["limit"]["default"] == 10

    class Notes:
        def find(self, text: str) -> None:
            """Find text."""

    assert ToolDefinition.from_function(Notes().find).to_dict()["parameters"]["required"] == ["text"]


def test_from_function_refuses_what_cannot_be_a_tool() -> None:
    def star(*args: int) -> None: ...
    def stars(**kwargs: int) -> None: ...
    def positional(a: int, /) -> None: ...
    def untyped(a) -> None: ...  # type: ignore[no-untyped-def]
    def method(self, a: int) -> None: ...  # type: ignore[no-untyped-def]
    def bad(a: complex) -> None: ...

    cases = [
        (star, r"star: \*args cannot be a tool parameter"),
        (stars, r"stars: \*\*kwargs cannot be a tool parameter"),
        (positional, "positional-only"),
        (untyped, r"untyped\.a: parameter has no type hint"),
        (method, "takes 'self'; pass a bound method"),
        (bad, r"bad\.a: unsupported type complex"),
    ]
    for fn, pattern in cases:
        with pytest.raises(TypeError, match=pattern):
            ToolDefinition.from_function(fn, description="d")
    with pytest.raises(TypeError, match="expected a function, got int"):
        ToolDefinition.from_function(42)
    with pytest.raises(TypeError, match="pass a dataclass to from_dataclass"):
        ToolDefinition.from_function(GetHTTPResponse)


@pytest.mark.skipif(sys.version_info < (3, 10), reason="X | Y syntax")
def test_pep604_unions_match_typing_unions() -> None:
    assert prop(int | None) == prop(Optional[int])
    assert prop(int | str | None) == prop(Union[int, str, None])
    assert prop(Point | None) == prop(Optional[Point])
