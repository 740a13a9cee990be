"""Benchmark the schema generator, validator and typed builder against pydantic v2 and msgspec.

The tool: six fields (an annotated string, an enum, a nested dataclass, a list of strings, a
defaulted bool and an optional string). Compared operations:

- ``schema_for`` on a class never seen before vs ``TypeAdapter(cls).json_schema()`` and
  ``msgspec.json.schema(cls)`` on fresh classes;
- ``schema_for`` again (cached) vs ``json_schema()`` on a kept ``TypeAdapter`` (pydantic does not
  cache it) and ``msgspec.json.schema``;
- ``validate_arguments`` (a tool's frozen parameters, and a plain-dict schema) and
  ``ToolCall.arguments_as`` vs ``TypeAdapter.validate_python`` and ``msgspec.convert``, which
  check and build the dataclass in one call.

Run: python benchmarks/bench_schema.py   (peers: pip install pydantic msgspec)
"""

import dataclasses
import enum
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import ns_per_op, table  # noqa: E402

from agentmsg import ToolCall, ToolDefinition  # noqa: E402
from agentmsg.schema import schema_for, validate_arguments  # noqa: E402

try:
    from pydantic import TypeAdapter
except ImportError:  # pragma: no cover - the column is skipped
    TypeAdapter = None  # type: ignore[assignment,misc]
try:
    import msgspec
except ImportError:  # pragma: no cover - the column is skipped
    msgspec = None  # type: ignore[assignment]

ARGUMENTS = {
    "path": "src/app.py",
    "mode": "write",
    "lines": {"start": 10, "end": 42},
    "tags": ["refactor", "small"],
    "dry_run": True,
    "note": None,
}


def make_tool() -> tuple[type, type]:
    """Return a fresh (EditFile, Mode) pair: new classes that no cache has seen."""

    class Mode(enum.Enum):
        READ = "read"
        WRITE = "write"

    @dataclasses.dataclass(frozen=True)
    class LineRange:
        start: int
        end: int

    @dataclasses.dataclass(frozen=True)
    class EditFile:
        """Edit a file in the workspace."""

        path: Annotated[str, "path relative to the workspace"]
        mode: Mode
        lines: LineRange
        tags: list[str]
        dry_run: bool = False
        note: Optional[str] = None

    # resolve the nested names the way a module-level class would
    EditFile.__annotations__.update(mode=Mode, lines=LineRange)
    return EditFile, Mode


def first_call_ns(run: Callable[[type], Any], count: int = 40) -> float:
    """Return the best ns of ``run(cls)`` on classes it has never seen."""
    classes = [make_tool()[0] for _ in range(count)]
    best = float("inf")
    for cls in classes:
        start = timeit.default_timer()
        run(cls)
        best = min(best, timeit.default_timer() - start)
    return best * 1e9


def main() -> None:
    EditFile, _ = make_tool()
    tool = ToolDefinition.from_dataclass(EditFile)
    call = ToolCall("call_1", "edit_file", ARGUMENTS)
    plain_schema = schema_for(EditFile)
    peers: list[str] = []
    rows: list[tuple[str, float, dict[str, float | None]]] = []
    adapter = TypeAdapter(EditFile) if TypeAdapter is not None else None
    if adapter is not None:
        peers.append("pydantic")
    if msgspec is not None:
        peers.append("msgspec")

    def peer_ns(pyd: Callable[[], Any] | None, ms: Callable[[], Any] | None) -> dict[str, float | None]:
        return {
            "pydantic": ns_per_op(pyd) if adapter is not None and pyd is not None else None,
            "msgspec": ns_per_op(ms) if msgspec is not None and ms is not None else None,
        }

    rows.append((
        "schema_for, first call (new class)",
        first_call_ns(schema_for),
        {
            "pydantic": first_call_ns(lambda c: TypeAdapter(c).json_schema()) if adapter is not None else None,
            "msgspec": first_call_ns(msgspec.json.schema) if msgspec is not None else None,
        },
    ))
    rows.append((
        "schema_for, cached",
        ns_per_op(lambda: schema_for(EditFile)),
        peer_ns(lambda: adapter.json_schema(), lambda: msgspec.json.schema(EditFile)),  # type: ignore[union-attr]
    ))
    checking = peer_ns(lambda: adapter.validate_python(ARGUMENTS), lambda: msgspec.convert(ARGUMENTS, EditFile))  # type: ignore[union-attr]
    rows.append(("validate_arguments(tool.parameters, args)", ns_per_op(lambda: validate_arguments(tool.parameters, call.arguments)), checking))
    rows.append(("validate_arguments(plain dict schema, args)", ns_per_op(lambda: validate_arguments(plain_schema, call.arguments)), checking))
    rows.append(("call.arguments_as(EditFile)", ns_per_op(lambda: call.arguments_as(EditFile)), checking))

    table("Schema generation, argument validation and typed arguments (6-field tool)", rows, peers)
    print("peers check and build the dataclass in one call; validate_arguments only checks")
    for missing in ("pydantic", "msgspec"):
        if missing not in peers:
            print(f"note: {missing} is not installed; its column is skipped")


if __name__ == "__main__":
    main()
