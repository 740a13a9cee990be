"""The generated fast path of the builder (``_build._FAST``) decides exactly what the full path decides.

Each shape is built from the same inputs by the builder with its fast paths and by the one
without (``compile_builder(..., fast=False)``): the same value (types included, all the way
down) or the same error (path, code, message), for valid inputs, their small changes (a wrong
type, a null, a missing or extra key at every position) and random JSON, plain and frozen.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import sys
from datetime import date, datetime
from typing import Annotated, Any, Literal, Optional, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_schema_differential import every_small_change, instances, valid

from agentmsg import ToolCall, ValidationError
from agentmsg._frozen import FrozenDict, freeze_json
from agentmsg.schema import build
from agentmsg.schema._generate import _arguments_builder
from agentmsg.schema._build import compile_builder
from benchmarks.edit_file import EDIT_ARGS, EditFile, LineRange, Mode  # the benchmarked shape itself


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass(frozen=True, slots=True)
class Span:
    start: float
    end: float = 0.0


@dataclasses.dataclass(frozen=True, slots=True)
class Slotted:
    name: Annotated[str, "the name"]
    level: Level
    span: Optional[Span] = None
    kind: Literal["a", "b", 1, True] = "a"
    counts: tuple[int, ...] = ()
    flags: list[Optional[bool]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Checked:
    """Changes a field in ``__post_init__`` (once: "!" each run) and refuses a bad value with a ValueError."""

    low: int
    high: int = 10
    label: str = "x"
    seen: tuple[str, ...] = dataclasses.field(init=False, default=("seen",))
    made: list[int] = dataclasses.field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low above high")
        object.__setattr__(self, "label", self.label + "!")


@dataclasses.dataclass(frozen=True)
class Outer:
    checked: Checked
    when: datetime
    day: Optional[date] = None
    pair: tuple[int, str] = (0, "")
    table: dict[str, int] = dataclasses.field(default_factory=dict)
    either: Union[int, str] = 0
    ratio: Union[int, float] = 1
    tags: frozenset[str] = frozenset()


class Own:
    """A class with its own ``__init__``: the fast path calls it."""

    def __init__(self, a: int, b: str = "b") -> None:
        if a < 0:
            raise ValueError("negative")
        self.a, self.b = a, b

    def __eq__(self, other: object) -> bool:
        return type(other) is Own and (self.a, self.b) == (other.a, other.b)

    def __repr__(self) -> str:
        return f"Own({self.a!r}, {self.b!r})"


OwnData = dataclasses.make_dataclass("OwnData", [("a", int), ("b", str, dataclasses.field(default="b"))])
OwnData.__init__ = Own.__init__  # type: ignore[misc]  # a dataclass whose __init__ is not the generated one
OwnData.__eq__ = Own.__eq__  # type: ignore[method-assign]  # compared by fields, whatever the class


@dataclasses.dataclass
class Deep:
    level1: Optional[Deep2]
    edit: EditFile
    own: OwnData
    many: list[LineRange] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Deep2:
    level2: Deep3
    modes: list[Mode] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True, slots=True)
class Deep3:
    leaf: Slotted
    text: str = ""


@dataclasses.dataclass
class Tree:
    name: str
    children: list[Tree] = dataclasses.field(default_factory=list)
    note: Optional[str] = None


@dataclasses.dataclass(frozen=True)
class Empty:
    pass


@dataclasses.dataclass(frozen=True, slots=True)
class Holder:
    empty: Empty
    nothing: Optional[Empty] = None


SHAPES = [EditFile, LineRange, Slotted, Checked, Outer, Deep, Tree, Optional[EditFile], list[Slotted], Holder]
MODES = {"arguments": (False, True), "strict": (True, False), "loose": (False, False)}


def _same(a: Any, b: Any) -> bool:
    """Return whether ``a`` and ``b`` are equal with the same types all the way down."""
    if type(a) is not type(b):
        return False
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a) if hasattr(a, f.name))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (set, frozenset)):
        return a == b and sorted(map(repr, a)) == sorted(map(repr, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b) and repr(a) == repr(b)


def _outcome(builder: Any, value: Any) -> tuple[str, Any]:
    try:
        return "value", builder(value)
    except ValidationError as e:
        return "error", (e.path, e.code, e.message)
    except Exception as e:  # noqa: BLE001  # whatever it is, both paths must raise the same
        return "raised", (type(e), str(e))


@functools.lru_cache(maxsize=None)
def builders(tp: Any, mode: str) -> tuple[Any, Any]:
    """Return the builder with its fast paths and the one without, for ``tp`` in ``mode``."""
    strict, lenient = MODES[mode]
    return compile_builder(tp, strict, lenient), compile_builder(tp, strict, lenient, fast=False)


def check_same(tp: Any, mode: str, value: Any) -> None:
    fast, slow = builders(tp, mode)
    for arguments in (value, freeze_json(value)):
        got, want = _outcome(fast, arguments), _outcome(slow, arguments)
        assert got[0] == want[0], (arguments, got, want)
        if got[0] == "value":
            assert _same(got[1], want[1]), (arguments, got[1], want[1])
        else:
            assert got == want, arguments


def _values(tp: Any, strict: bool) -> st.SearchStrategy[Any]:
    return st.one_of(valid(tp, strict), instances(tp, strict))


@pytest.mark.parametrize("tp", SHAPES, ids=lambda tp: getattr(tp, "__name__", repr(tp)))
@pytest.mark.parametrize("mode", list(MODES))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_fast_path_decides_as_the_full_path(tp: Any, mode: str, data: st.DataObject) -> None:
    """Each example checks a drawn value and every small change of it."""
    strict = MODES[mode][0]
    value = data.draw(_values(tp, strict), label="arguments")
    check_same(tp, mode, value)
    for changed in every_small_change(value):
        check_same(tp, mode, changed)




def _counting_slow(builder: Any) -> list[object]:
    """Count the calls of the full path behind ``builder``'s fast path (its ``slow`` global)."""
    calls: list[object] = []
    slow = builder.__globals__["slow"]

    def counted(v: object) -> Any:
        calls.append(v)
        return slow(v)

    builder.__globals__["slow"] = counted
    return calls


def test_the_common_shape_takes_the_fast_path() -> None:
    """Every key present with an exact type: the full path is not called, nested objects included."""
    builder = compile_builder(EditFile, False, lenient=True)
    calls = _counting_slow(builder)
    for arguments in (EDIT_ARGS, freeze_json(EDIT_ARGS), {**EDIT_ARGS, "dry_run": None, "note": "n"}):
        edit = builder(arguments)
        assert edit == EditFile("src/app.py", Mode.WRITE, LineRange(10, 42), ["refactor", "small"],
                                arguments["dry_run"] is True, arguments["note"])
        assert type(edit.tags) is list and vars(edit) == {f.name: getattr(edit, f.name) for f in dataclasses.fields(edit)}
    assert calls == []
    surprises = [({**EDIT_ARGS, "tags": ["a", 1]}, "tags[1]"), ({**EDIT_ARGS, "mode": "append"}, "mode"),
                 ({**EDIT_ARGS, "extra": 1}, "extra"), ({**EDIT_ARGS, "lines": {"start": 1}}, "lines.end")]
    surprises += [({**EDIT_ARGS, "mode": other}, "mode") for other in (1, True, None, ["write"], {"write": 1}, 1.5)]
    slow = compile_builder(EditFile, False, lenient=True, fast=False)
    for surprise, path in surprises:
        for arguments in (surprise, freeze_json(surprise)):
            calls.clear()
            with pytest.raises(ValidationError) as caught:
                builder(arguments)
            assert caught.value.path == path
            assert _outcome(slow, arguments) == ("error", (path, caught.value.code, caught.value.message))
            assert len(calls) == 1, "a surprise goes to the full path, which names the error"
    calls.clear()
    short = {k: v for k, v in EDIT_ARGS.items() if k != "note"}
    assert builder(short) == EditFile("src/app.py", Mode.WRITE, LineRange(10, 42), ["refactor", "small"], True)
    assert len(calls) == 1, "a key left out is the full path's case"


def test_post_init_runs_once_and_its_value_error_is_refused_with_the_path() -> None:
    builder = compile_builder(Outer, False, lenient=True)
    calls = _counting_slow(builder)
    outer = builder({"checked": {"low": 1, "high": None, "label": "ok"}, "when": "2024-01-01T00:00:00Z",
                     "day": None, "pair": [1, "a"], "table": {"x": 1}, "either": "s", "ratio": 2.5, "tags": ["t"]})
    assert calls == []
    assert outer.checked == Checked(1, 10, "ok") and outer.checked.label == "ok!" and outer.checked.made == []
    assert outer.checked.seen == ("seen",) and outer.tags == frozenset({"t"}) and outer.pair == (1, "a")
    with pytest.raises(ValidationError) as caught:
        builder({"checked": {"low": 11, "high": 10, "label": "x"}, "when": "2024-01-01T00:00:00Z", "day": None,
                 "pair": [1, "a"], "table": {}, "either": 1, "ratio": 1, "tags": []})
    assert (caught.value.path, caught.value.code, caught.value.message) == ("checked", "value", "refused by Checked (ValueError)")
    top = compile_builder(Checked, False, lenient=True)
    with pytest.raises(ValidationError) as caught:
        top({"low": 3, "high": 2, "label": "x"})
    assert (caught.value.path, caught.value.code, caught.value.message) == ("", "value", "refused by Checked (ValueError)")


def test_classes_with_their_own_init_are_called() -> None:
    builder = compile_builder(Deep, False, lenient=True)
    calls = _counting_slow(builder)
    deep = builder({"level1": None, "edit": EDIT_ARGS, "own": {"a": 1, "b": None}, "many": []})
    assert calls == [] and type(deep.own) is OwnData and (deep.own.a, deep.own.b) == (1, "b")
    leaf = {"name": "n", "level": 2, "span": {"start": 1.5, "end": None}, "kind": True, "counts": [1, 2],
            "flags": [True, None]}
    deep = builder({"level1": {"level2": {"leaf": leaf, "text": "t"}, "modes": ["read"]}, "edit": EDIT_ARGS,
                    "own": {"a": 1, "b": "c"}, "many": [{"start": 1, "end": 2}]})
    assert calls == [], "nested slotted dataclasses, enums, literals and lists take the fast path too"
    assert deep.level1 == Deep2(Deep3(Slotted("n", Level.HIGH, Span(1.5), True, (1, 2), [True, None]), "t"), [Mode.READ])
    assert type(deep.level1.level2.leaf.level) is Level and deep.many == [LineRange(1, 2)]
    with pytest.raises(ValidationError) as caught:
        builder({"level1": None, "edit": EDIT_ARGS, "own": {"a": -1, "b": "b"}, "many": []})
    assert (caught.value.path, caught.value.message) == ("own", "refused by OwnData (ValueError)")


@settings(max_examples=40, deadline=None)
@given(value=instances(EditFile, False))
def test_arguments_as_matches_the_full_path(value: Any) -> None:
    """What users call: ``ToolCall.arguments_as`` (frozen arguments, the decoder's cache)."""
    if not isinstance(value, dict):
        return
    slow = compile_builder(EditFile, False, lenient=True, fast=False)
    call = ToolCall("c", "edit_file", value)
    got, want = _outcome(call.arguments_as, EditFile), _outcome(slow, call.arguments)
    assert got[0] == want[0] and (_same(got[1], want[1]) if got[0] == "value" else got == want)
    assert _arguments_builder(EditFile) is _arguments_builder(EditFile)
    assert type(call.arguments) is FrozenDict


def test_arguments_as_too_deep_is_a_validation_error() -> None:
    """Arguments that freeze but nest deeper than the builder can recurse: code ``depth``, cached or not."""
    from agentmsg.schema._generate import _ARGUMENT_BUILDERS

    deepest = None
    for depth in range(100, 2000, 100):
        value: dict[str, Any] = {"name": "leaf"}
        for _ in range(depth):
            value = {"name": "n", "children": [value]}
        try:
            call = ToolCall("c", "tree", value)
        except ValidationError as e:  # too deep to freeze: the builder is never reached
            assert e.code == "depth"
            break
        for cached in (False, True):
            if not cached:
                _ARGUMENT_BUILDERS.pop(Tree, None)
            try:
                call.arguments_as(Tree)
            except ValidationError as e:
                assert (e.code, e.path) == ("depth", "")
                deepest = depth
    assert deepest is not None, "some depth freezes and is still too deep to build"


def test_dataclasses_without_fields() -> None:
    assert ToolCall("c", "e", {}).arguments_as(Empty) == Empty()
    assert build(Holder, {"empty": {}, "nothing": {}}) == Holder(Empty(), Empty())
    with pytest.raises(ValidationError) as caught:
        build(Holder, {"empty": {"x": 1}, "nothing": None})
    assert (caught.value.path, caught.value.code) == ("empty.x", "unexpected")


_WEAKREF_SLOT: dict[str, Any] = {"weakref_slot": True} if sys.version_info >= (3, 11) else {}  # 3.11+


@dataclasses.dataclass(frozen=True, slots=True, **_WEAKREF_SLOT)
class Weak:
    name: str
    size: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class WeakChild(Weak):  # slots inherited from a base: another layout than a twin's
    extra: bool = False


@dataclasses.dataclass(frozen=True)
class Finalized:
    name: str

    def __del__(self) -> None:  # a finalizer: no throwaway instance may be made
        pass


def test_objects_built_through_a_twin_are_the_real_class() -> None:
    """Type, equality, hash, pickling, copies, ``replace``, weak references and frozenness, as ``__init__`` makes them."""
    import copy
    import pickle
    import weakref

    from agentmsg.schema._build import _recipe

    assert all(_recipe(cls).twin is not None for cls in (EditFile, LineRange, Slotted, Span, Checked))
    # CPython refuses __class__ assignment for inherited slots; a finalizer forbids a throwaway instance
    assert all(_recipe(cls).twin is None for cls in (WeakChild, Finalized))
    # beside a __weakref__ slot CPython 3.11 refuses the assignment too, 3.12 and later allow it (3.10: no such slot)
    assert (_recipe(Weak).twin is None) == (sys.version_info[:2] == (3, 11))
    edit = ToolCall("c", "edit_file", EDIT_ARGS).arguments_as(EditFile)
    leaf = {"name": "n", "level": 2, "span": {"start": 1.5, "end": 2.0}, "kind": "b", "counts": [1], "flags": [None]}
    pairs = [
        (edit, EditFile("src/app.py", Mode.WRITE, LineRange(10, 42), ["refactor", "small"], True, None)),
        (edit.lines, LineRange(10, 42)),
        (build(Slotted, leaf), Slotted("n", Level.HIGH, Span(1.5, 2.0), "b", (1,), [None])),
        (build(Weak, {"name": "w", "size": 3}), Weak("w", 3)),
        (build(WeakChild, {"name": "w", "size": 3, "extra": True}), WeakChild("w", 3, True)),
        (build(Finalized, {"name": "f"}), Finalized("f")),
        (build(Checked, {"low": 1, "high": 2, "label": "x"}), Checked(1, 2, "x")),
    ]
    for made, reference in pairs:
        assert type(made) is type(reference) and made == reference and repr(made) == repr(reference)
        assert _same(made, reference) and _outcome(hash, made) == _outcome(hash, reference)  # a list field: unhashable
        assert hasattr(made, "__dict__") == hasattr(reference, "__dict__")
        if hasattr(made, "__dict__"):
            assert vars(made) == vars(reference) and list(vars(made)) == list(vars(reference))
        assert pickle.loads(pickle.dumps(made)) == made and copy.copy(made) == made and copy.deepcopy(made) == made
        assert dataclasses.replace(made) == dataclasses.replace(reference)  # Checked changes a field each run
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, dataclasses.fields(made)[0].name, "other")
    weak = pairs[3][0]
    if _WEAKREF_SLOT:
        assert weakref.ref(weak)() is weak
    slow = compile_builder(Checked, False, lenient=True, fast=False)({"low": 1, "high": 2, "label": "x"})
    assert vars(slow) == vars(Checked(1, 2, "x")), "an init=False field with a plain default stays a class attribute"
