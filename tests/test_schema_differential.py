"""Differential tests: agentmsg's validator and builder against jsonschema, over the type matrix.

For every supported type (as a tool field, strict and non-strict, and as a bare root type when
non-strict) the generated schema must pass ``Draft202012Validator.check_schema``; then, for
generated valid instances and mutations of them, ``validate_arguments`` must give jsonschema's
verdict (on plain JSON and on the core's frozen form) and ``build`` must succeed exactly when
the value is valid, failing with the same path and code as ``validate_arguments``.
"""

import copy
import dataclasses
import enum
import typing
from datetime import date, datetime, timedelta, timezone
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from agentmsg import ValidationError
from agentmsg._frozen import freeze_json
from agentmsg.schema._keyword_checks import json_key
from agentmsg.schema import build, schema_for, validate_arguments


class Mode(enum.Enum):
    READ = "r"
    WRITE = "w"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Ratio(enum.Enum):
    HALF = 0.5
    ONE = 1


@dataclasses.dataclass(frozen=True)
class Point:
    x: float
    y: float


@dataclasses.dataclass(frozen=True, slots=True)
class Labelled:
    name: Annotated[str, "label"]
    mode: Mode = Mode.READ
    where: Optional[Point] = None


@dataclasses.dataclass
class Tree:
    name: str
    children: "list[Tree]"
    note: Optional[str] = None


MATRIX: list[Any] = [
    str, int, float, bool, type(None), datetime, date,
    Optional[int], Union[int, str], Union[int, float], Union[float, int], Union[bool, int, None],
    Union[str, date], Literal["a", "b"], Literal[1, True, "x", None], Mode, Level, Ratio, Optional[Mode],
    list[int], list[list[str]], tuple[int, ...], tuple[float, float], tuple[int, str], set[str],
    frozenset[int], dict[str, int], dict[str, list[Point]], Point, Optional[Point], list[Point],
    Labelled, Tree, Optional[datetime], Annotated[int, "count"], Annotated[Optional[Point], "where"],
    Union[Point, Labelled], Union[list[int], dict[str, str]],
]
IDS = [repr(tp).replace("typing.", "").replace("test_schema_differential.", "") for tp in MATRIX]
FORMATS = Draft202012Validator.FORMAT_CHECKER


def wrap(tp: Any) -> type:
    """Return a tool dataclass with a required and a defaulted field of type ``tp``."""
    return dataclasses.make_dataclass(
        "Tool", [("value", tp), ("maybe", tp, dataclasses.field(default=None))], frozen=True
    )


WRAPPED = {repr(tp): wrap(tp) for tp in MATRIX}


def strict_ok(tp: Any) -> bool:
    try:
        schema_for(WRAPPED[repr(tp)])
    except TypeError:
        return False
    return True


def test_the_matrix_covers_strict_refusals() -> None:
    refused = [tp for tp in MATRIX if not strict_ok(tp)]
    assert refused == [tuple[int, str], dict[str, int], dict[str, list[Point]], Union[list[int], dict[str, str]]]
    assert "date-time" in FORMATS.checkers, "jsonschema needs rfc3339-validator to check date-time"


# ---- strategies ---------------------------------------------------------------------------------

ZONES = st.sampled_from([timezone.utc, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))])


def _rfc3339(dt: datetime) -> str:
    text = dt.isoformat()
    return text.replace("+00:00", "Z") if dt.microsecond % 2 else text


def valid(tp: Any, strict: bool, depth: int = 0) -> st.SearchStrategy[Any]:
    """Return a strategy of JSON values valid for ``tp`` (as ``schema_for`` describes it)."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is None or tp is type(None):
        return st.none()
    if tp is bool:
        return st.booleans()
    if tp is int:
        return st.integers() | st.integers(-(2**53), 2**53).map(float)
    if tp is float:
        return st.floats(allow_nan=False, allow_infinity=False) | st.integers()
    if tp is str:
        return st.text(max_size=5)
    if tp is datetime:
        return st.datetimes(timezones=ZONES).map(_rfc3339)
    if tp is date:
        return st.dates().map(date.isoformat)
    if origin is Annotated:
        return valid(args[0], strict, depth)
    if origin is Union:
        return st.one_of([valid(a, strict, depth) for a in args])
    if origin is Literal:
        return st.sampled_from(args)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return st.sampled_from([m.value for m in tp])
    if origin in (list, set, frozenset) or (origin is tuple and args[-1] is Ellipsis):
        if depth > 2:
            return st.just([])
        unique = origin in (set, frozenset) and not strict
        return st.lists(valid(args[0], strict, depth + 1), max_size=3, unique_by=json_key if unique else None)
    if origin is tuple:
        return st.tuples(*(valid(a, strict, depth + 1) for a in args)).map(list)
    if origin is dict:
        return st.dictionaries(st.text(max_size=3), valid(args[1], strict, depth + 1), max_size=3)
    hints = typing.get_type_hints(tp, include_extras=True)
    required, optional = {}, {}
    for f in dataclasses.fields(tp):
        inner = valid(hints[f.name], strict, depth + 1)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required[f.name] = inner
        elif strict:
            required[f.name] = inner | st.none()
        else:
            optional[f.name] = inner
    return st.fixed_dictionaries(required, optional=optional)


SPECIAL = st.sampled_from([
    None, True, False, 0, 1, 1.0, 2.5, -1, 10**20, "", "x", "r", "a", "2024-01-01", "2024-13-01",
    "2024-01-01T00:00:00Z", "2024-01-01T00:00:00", [], {}, [1], {"x": 1}, {"x": 1.0, "y": 2},
])
JSON = st.recursive(
    SPECIAL | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("xyz") | st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)
DATE_CHARS = "0123456789-:TZtz.+ "


def _locations(value: Any, found: list[tuple[Any, Any]]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            found.append((value, key))
            _locations(item, found)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.append((value, i))
            _locations(item, found)


@st.composite
def mutated(draw: st.DrawFn, base: Any) -> Any:
    """Return ``base`` with one random change somewhere inside it."""
    root = [copy.deepcopy(base)]
    found: list[tuple[Any, Any]] = [(root, 0)]
    _locations(root[0], found)
    parent, key = draw(st.sampled_from(found))
    target = parent[key]
    ops = ["replace"]
    if isinstance(target, dict):
        ops += ["add_key", "drop_key"] if target else ["add_key"]
    if isinstance(target, list):
        ops += ["append", "drop_item", "duplicate"] if target else ["append"]
    if isinstance(target, str) and target:
        ops += ["edit_text"]
    op = draw(st.sampled_from(ops))
    if op == "replace":
        parent[key] = draw(JSON)
    elif op == "add_key":
        target[draw(st.sampled_from(["x", "extra", "name", "value", "maybe"]))] = draw(JSON)
    elif op == "drop_key":
        del target[draw(st.sampled_from(sorted(target)))]
    elif op == "append":
        target.append(draw(JSON))
    elif op == "drop_item":
        del target[draw(st.integers(0, len(target) - 1))]
    elif op == "duplicate":
        target.append(copy.deepcopy(target[draw(st.integers(0, len(target) - 1))]))
    else:
        i = draw(st.integers(0, len(target) - 1))
        parent[key] = target[:i] + draw(st.sampled_from(DATE_CHARS)) + target[i + 1 :]
    return root[0]


def instances(tp: Any, strict: bool) -> st.SearchStrategy[Any]:
    base = valid(tp, strict)
    return st.one_of(base, base.flatmap(mutated), base.flatmap(mutated).flatmap(mutated), JSON)


EDGES = [None, True, 1, 1.0, 2.5, "", "r", "2024-01-01", "2024-01-01T00:00:00Z", [], {}]


def every_small_change(base: Any) -> list[Any]:
    """Return ``base`` changed in each simple way at each place (the exhaustive neighbours)."""
    out = []
    root = [base]
    found: list[tuple[Any, Any]] = [(root, 0)]
    _locations(base, found)
    for index in range(len(found)):
        for change in range(len(EDGES) + 4):
            copy_root = copy.deepcopy(root)
            spots: list[tuple[Any, Any]] = [(copy_root, 0)]
            _locations(copy_root[0], spots)
            parent, key = spots[index]
            target = parent[key]
            op = change - len(EDGES)
            if op < 0:
                parent[key] = EDGES[change]
            elif isinstance(target, list) and target:
                if op == 0:
                    target.append(copy.deepcopy(target[0]))  # a duplicate
                elif op == 1:
                    target.pop(0)
                elif op == 2:
                    target.append(1)
                else:
                    target.clear()
            elif isinstance(target, dict) and target:
                first = next(iter(target))
                if op == 0:
                    del target[first]
                elif op == 1:
                    target["extra"] = 1
                elif op == 2:
                    target[first] = None
                else:
                    target.clear()
            else:
                continue
            out.append(copy_root[0])
    return out


# ---- the comparison -----------------------------------------------------------------------------


def _ours(schema: dict[str, Any], value: Any) -> ValidationError | None:
    try:
        validate_arguments(schema, value, formats=True)
    except ValidationError as e:
        return e
    return None


def compare(tp: Any, schema: dict[str, Any], value: Any, strict: bool, jsonschema: Any) -> None:
    theirs = jsonschema.is_valid(value)
    error = _ours(schema, value)
    assert (error is None) is theirs, (value, error)
    frozen_error = _ours(schema, freeze_json(value))
    assert (frozen_error is None) is theirs
    for arguments in (value, freeze_json(value)):
        try:
            build(tp, arguments, strict=strict)
        except ValidationError as e:
            assert error is not None, (value, e)
            assert (e.path, e.code, e.message) == (error.path, error.code, error.message), (value, str(e), str(error))
        else:
            assert error is None, (value, error)


def check_all(tp: Any, value: Any, strict: bool) -> None:
    schema = schema_for(tp, strict)
    jsonschema = Draft202012Validator(schema, format_checker=FORMATS)
    for candidate in [value, *every_small_change(value)]:
        compare(tp, schema, candidate, strict, jsonschema)


@pytest.mark.parametrize("tp", MATRIX, ids=IDS)
@pytest.mark.parametrize("strict", [True, False], ids=["strict", "loose"])
def test_generated_schemas_are_valid_draft_2020_12(tp: Any, strict: bool) -> None:
    tool = WRAPPED[repr(tp)]
    if strict and not strict_ok(tp):
        with pytest.raises(TypeError, match="strict"):
            schema_for(tool)
        return
    Draft202012Validator.check_schema(schema_for(tool, strict))
    if not strict:
        Draft202012Validator.check_schema(schema_for(tp, strict=False))


@pytest.mark.parametrize("tp", MATRIX, ids=IDS)
@pytest.mark.parametrize("strict", [True, False], ids=["strict", "loose"])
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_same_verdict_as_jsonschema(tp: Any, strict: bool, data: st.DataObject) -> None:
    """Each example checks a drawn instance and every small change of it (often dozens)."""
    if strict and not strict_ok(tp):
        return
    tool = WRAPPED[repr(tp)]
    check_all(tool, data.draw(instances(tool, strict), label="arguments"), strict)
    if not strict:
        check_all(tp, data.draw(instances(tp, strict), label="root value"), strict)


@settings(max_examples=60, deadline=None)
@given(value=valid(Labelled, strict=True))
def test_valid_instances_build_and_round_trip(value: Any) -> None:
    obj = build(Labelled, value)
    assert isinstance(obj.mode, Mode) and (obj.where is None or isinstance(obj.where, Point))
    assert obj.name == value["name"]
