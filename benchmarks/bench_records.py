"""Benchmark records (encode, decode, migrate) and context rendering against pydantic v2 and msgspec.

The peers model the same envelope ({"type", "version", "id", "data"}) as a tagged union with the
same field rules where they can say them (enums, min lengths, ranges, aware timestamps); they have
no migration step and no rendering, so those rows have only the agentmsg column.

Run: python benchmarks/bench_records.py   (pip install -e '.[bench]' for the peer columns)
"""

import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal, Optional, Union

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import ns_per_op, table  # noqa: E402

from agentmsg import ToolCall  # noqa: E402
from agentmsg.context import ConversationContext, _tokens, estimate_tokens  # noqa: E402
from agentmsg.records import (  # noqa: E402
    FileReference,
    McpResource,
    TextRecord,
    ToolRequest,
    ToolResultRecord,
    decode,
)

WHEN = datetime(2026, 11, 25, 10, 0, 3, 250000, tzinfo=timezone.utc)
CONTENT = "def main():\n    import tomllib\n    return 0\n"
ARGS = {"paths": ["tests/"], "options": {"verbose": True, "workers": 4}}


def samples() -> dict[str, Any]:
    return {
        "file_reference": lambda: FileReference(id="f1", path="src/app/main.py", start_line=10, end_line=12).resolve(CONTENT),
        "tool_request": lambda: ToolRequest.of(
            [ToolCall("call_a", "run_tests", ARGS), ToolCall("call_b", "read_file", {"path": "a.py"})], id="q1"
        ).approve("call_a"),
        "tool_result": lambda: ToolResultRecord.success(
            "call_a", {"passed": 41, "failed": 1}, id="r1", duration_seconds=3.25, finished_at=WHEN
        ),
    }


def pydantic_adapter() -> Any:
    try:
        import pydantic  # noqa: F401
    except ImportError:
        return None
    from typing import Annotated

    from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, TypeAdapter

    class Strict(BaseModel):
        model_config = ConfigDict(frozen=True, extra="forbid")

    class FileData(Strict):
        path: str = Field(min_length=1)
        start_line: Optional[int] = Field(default=None, ge=1)
        end_line: Optional[int] = Field(default=None, ge=1)
        status: Literal["pending", "resolved", "failed"]
        content: Optional[str] = None
        error: Optional[str] = None

    class Call(Strict):
        id: str = Field(min_length=1)
        name: str = Field(pattern=r"^[A-Za-z0-9_]{1,64}$")
        arguments: dict[str, Any]
        approval: Literal["pending", "approved", "denied"]

    class RequestData(Strict):
        calls: list[Call] = Field(min_length=1)

    class ResultData(Strict):
        tool_call_id: str = Field(min_length=1)
        status: Literal["success", "error"]
        output: Any = None
        error: Optional[str] = None
        stack_trace: Optional[str] = None
        recoverable: bool = False
        duration_seconds: Optional[float] = Field(default=None, ge=0)
        finished_at: Optional[AwareDatetime] = None

    class PFile(Strict):
        type: Literal["file_reference"]
        version: Literal[2]
        id: str = Field(min_length=1)
        data: FileData

    class PRequest(Strict):
        type: Literal["tool_request"]
        version: Literal[1]
        id: str = Field(min_length=1)
        data: RequestData

    class PResult(Strict):
        type: Literal["tool_result"]
        version: Literal[1]
        id: str = Field(min_length=1)
        data: ResultData

    return TypeAdapter(Annotated[Union[PFile, PRequest, PResult], Field(discriminator="type")])


def msgspec_types() -> Any:
    try:
        import msgspec
    except ImportError:
        return None
    from typing import Annotated

    NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
    Line = Annotated[int, msgspec.Meta(ge=1)]

    class FileData(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
        path: NonEmpty
        status: Literal["pending", "resolved", "failed"]
        start_line: Optional[Line] = None
        end_line: Optional[Line] = None
        content: Optional[str] = None
        error: Optional[str] = None

    class Call(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
        id: NonEmpty
        name: Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_]{1,64}$")]
        arguments: dict[str, Any]
        approval: Literal["pending", "approved", "denied"]

    class RequestData(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
        calls: Annotated[tuple[Call, ...], msgspec.Meta(min_length=1)]

    class ResultData(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
        tool_call_id: NonEmpty
        status: Literal["success", "error"]
        output: Any = None
        error: Optional[str] = None
        stack_trace: Optional[str] = None
        recoverable: bool = False
        duration_seconds: Optional[Annotated[float, msgspec.Meta(ge=0)]] = None
        finished_at: Optional[Annotated[datetime, msgspec.Meta(tz=True)]] = None

    class MFile(msgspec.Struct, frozen=True, tag="file_reference", tag_field="type"):
        version: Literal[2]
        id: NonEmpty
        data: FileData

    class MRequest(msgspec.Struct, frozen=True, tag="tool_request", tag_field="type"):
        version: Literal[1]
        id: NonEmpty
        data: RequestData

    class MResult(msgspec.Struct, frozen=True, tag="tool_result", tag_field="type"):
        version: Literal[1]
        id: NonEmpty
        data: ResultData

    return msgspec, Union[MFile, MRequest, MResult]


def conversation(n: int) -> ConversationContext:
    ctx = ConversationContext(plan_prompt="Plan.", act_prompt="Act.")
    for i in range(n):
        ctx.add(TextRecord.of("user", f"Question {i}: what does main.py do?", id=f"u{i}"))
        ctx.add(FileReference(id=f"f{i}", path="src/main.py", start_line=1).resolve(CONTENT))
        ctx.add(ToolRequest.of([ToolCall(f"c{i}", "run_tests", ARGS)], id=f"q{i}"))
        ctx.approve(f"c{i}")
        ctx.add(ToolResultRecord.success(f"c{i}", {"passed": i}, id=f"r{i}"))
        ctx.add(TextRecord.of("assistant", "It imports tomllib and returns 0.", id=f"a{i}"))
        if i % 10 == 0:
            ctx.add(McpResource(id=f"m{i}", server="docs", uri=f"docs://page/{i}").retrieve(text="x" * 2000, retrieved_at=WHEN))
    return ctx


def main() -> None:
    pyd = pydantic_adapter()
    msp = msgspec_types()
    for name, mod in (("pydantic v2", pyd), ("msgspec", msp)):
        if mod is None:
            print(f"note: {name} is not installed; its column is skipped (pip install -e '.[bench]')")
    peers = [name for name, mod in (("pydantic", pyd), ("msgspec", msp)) if mod is not None]
    print(f"Python {sys.version.split()[0]}")
    rows: list[tuple[str, float, dict[str, Optional[float]]]] = []
    for name, make in samples().items():
        record = make()
        document = record.to_dict()
        enc: dict[str, Optional[float]] = {}
        dec: dict[str, Optional[float]] = {}
        if pyd is not None:
            model = pyd.validate_python(document)
            enc["pydantic"] = ns_per_op(lambda: pyd.dump_python(model, mode="json", exclude_none=True))
            dec["pydantic"] = ns_per_op(lambda: pyd.validate_python(document))
        if msp is not None:
            msgspec, union = msp
            value = msgspec.convert(document, union)
            enc["msgspec"] = ns_per_op(lambda: msgspec.to_builtins(value))
            dec["msgspec"] = ns_per_op(lambda: msgspec.convert(document, union))
        rows.append((f"{name}: build + validate", ns_per_op(make), {}))
        rows.append((f"{name}: to_dict", ns_per_op(record.to_dict), enc))
        rows.append((f"{name}: decode", ns_per_op(lambda: decode(document)), dec))
    old = {"type": "file_reference", "version": 1, "id": "f0", "data": {"path": "src/app/main.py", "lines": "10-12", "resolved": True, "content": CONTENT}}
    rows.append(("file_reference v1: decode with migration", ns_per_op(lambda: decode(old)), {}))
    table("records (one document)", rows, peers)

    ctx = conversation(100)
    budget = _tokens(ctx.to_chat_messages(), estimate_tokens)  # each resource is about 510 tokens
    render_rows: list[tuple[str, float, dict[str, Optional[float]]]] = [
        (f"render {len(ctx.records)} records", ns_per_op(ctx.to_chat_messages, repeat=3), {}),
        ("render with a budget (drops 5 resources)", ns_per_op(lambda: ctx.to_chat_messages(max_tokens=budget - 2400), repeat=3), {}),
    ]
    table("context rendering (agentmsg only: no peer renders records)", render_rows, [])


if __name__ == "__main__":
    import logging

    logging.getLogger("agentmsg.context").setLevel(logging.WARNING)
    main()
