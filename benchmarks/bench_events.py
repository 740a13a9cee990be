"""Benchmark the socket events, the session reducer and the message store against peers.

Events: decode (wire payload -> validated event), encode (event -> payload) and build (the
constructor's checks) of ``tool:message:start`` and ``message:chunk``, against pydantic v2 and msgspec models with the same
fields, camelCase aliases and rules. Reducer: ns per applied chunk. Store: ns per message for
save_many and load of 100-message batches, against plain sqlite3 + json of the same rows (the
floor: no validation, no types).

Run: python benchmarks/bench_events.py   (pip install pydantic msgspec for the peer columns)
"""

import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Literal

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import ns_per_op, table  # noqa: E402

from agentmsg import ChatMessage, ToolCall  # noqa: E402
from agentmsg import _time  # noqa: E402
from agentmsg import events as ev  # noqa: E402
from agentmsg.io.store import MessageStore  # noqa: E402

TS_PATTERN = _time._DATE_TIME  # the pattern events are checked against (upper-case T and Z)
START = {
    "id": "call_weather_1", "role": "assistant", "kind": "tool", "status": "running",
    "toolName": "get_weather", "title": "Checking the weather in Paris", "content": "",
    "progressText": "Calling the weather service", "timestamp": "2024-05-01T12:00:01.000Z",
}
CHUNK = {"id": "msg_1", "chunk": "the weather "}


def peers_for_events() -> dict[str, dict[str, Callable[[], Any]]]:
    """Return {peer: {operation: thunk}} for the peers that are installed."""
    out: dict[str, dict[str, Callable[[], Any]]] = {}
    try:
        import pydantic
        from pydantic import BaseModel, ConfigDict, Field
        from pydantic.alias_generators import to_camel

        class PStart(BaseModel):
            model_config = ConfigDict(frozen=True, alias_generator=to_camel, populate_by_name=True)
            id: str = Field(min_length=1)
            role: Literal["assistant"]
            kind: Literal["tool"]
            status: Literal["pending", "running"]
            tool_name: str = Field(min_length=1)
            title: str
            content: str
            progress_text: str
            timestamp: str = Field(pattern=TS_PATTERN)

        class PChunk(BaseModel):
            model_config = ConfigDict(frozen=True)
            id: str = Field(min_length=1)
            chunk: str

        p_start, p_chunk = PStart.model_validate(START), PChunk.model_validate(CHUNK)
        out[f"pydantic {pydantic.VERSION}"] = {
            "decode tool:message:start": lambda: PStart.model_validate(START),
            "encode tool:message:start": lambda: p_start.model_dump(by_alias=True),
            "decode message:chunk": lambda: PChunk.model_validate(CHUNK),
            "encode message:chunk": lambda: p_chunk.model_dump(),
        }
    except ImportError:
        print("note: pydantic is not installed; its column is skipped")
    try:
        from typing import Annotated

        import msgspec

        NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]

        class MStart(msgspec.Struct, frozen=True, rename="camel"):
            id: NonEmpty
            role: Literal["assistant"]
            kind: Literal["tool"]
            status: Literal["pending", "running"]
            tool_name: NonEmpty
            title: str
            content: str
            progress_text: str
            timestamp: Annotated[str, msgspec.Meta(pattern=TS_PATTERN)]

        class MChunk(msgspec.Struct, frozen=True):
            id: NonEmpty
            chunk: str

        m_start, m_chunk = msgspec.convert(START, MStart), msgspec.convert(CHUNK, MChunk)
        out[f"msgspec {msgspec.__version__}"] = {
            "decode tool:message:start": lambda: msgspec.convert(START, MStart),
            "encode tool:message:start": lambda: msgspec.to_builtins(m_start),
            "decode message:chunk": lambda: msgspec.convert(CHUNK, MChunk),
            "encode message:chunk": lambda: msgspec.to_builtins(m_chunk),
        }
    except ImportError:
        print("note: msgspec is not installed; its column is skipped")
    return out


def bench_events() -> None:
    start, chunk = ev.decode("tool:message:start", START), ev.decode("message:chunk", CHUNK)
    kwargs = {
        "id": START["id"], "status": START["status"], "tool_name": START["toolName"], "title": START["title"],
        "content": START["content"], "progress_text": START["progressText"], "timestamp": START["timestamp"],
    }
    ours = {
        "decode tool:message:start": lambda: ev.decode("tool:message:start", START),
        "encode tool:message:start": lambda: ev.encode(start),
        "build tool:message:start (checks)": lambda: ev.ToolMessageStart(**kwargs),
        "decode message:chunk": lambda: ev.decode("message:chunk", CHUNK),
        "encode message:chunk": lambda: ev.encode(chunk),
        "build message:chunk (checks)": lambda: ev.MessageChunk(id="msg_1", chunk="the weather "),
    }
    peers = peers_for_events()
    rows = [
        (name, ns_per_op(fn), {peer: ns_per_op(ops[name]) if name in ops else None for peer, ops in peers.items()})
        for name, fn in ours.items()
    ]
    table("socket events (per event)", rows, list(peers))

    session = ev.SessionReducer(clock=lambda: "2024-05-01T12:00:00Z")
    session.apply(ev.MessageStart(id="msg_1"))
    events = [ev.MessageChunk(id="msg_1", chunk="tok ") for _ in range(10_000)]

    def stream() -> None:
        for event in events:
            session.apply(event)

    per_chunk = ns_per_op(stream, repeat=3, min_time=0.1) / len(events)
    received = ns_per_op(lambda: session.receive("message:chunk", CHUNK))
    table("session reducer", [
        ("apply(message:chunk)", per_chunk, {}),
        ("receive('message:chunk', payload)", received, {}),
    ], [])


def bench_store() -> None:
    call = ToolCall("call_1", "get_weather", {"city": "Paris", "days": [1, 2]})
    batch = [
        ChatMessage.user("What's the weather in Paris this week?"),
        ChatMessage.assistant("Let me check.", [call]),
        ChatMessage.tool("call_1", '{"temperature": 18, "sky": "sunny"}'),
        ChatMessage.assistant("18 C and sunny all week."),
    ] * 25
    dicts = [m.to_dict() for m in batch]
    with tempfile.TemporaryDirectory() as tmp:
        store = MessageStore(os.path.join(tmp, "bench.db"))
        raw = sqlite3.connect(os.path.join(tmp, "raw.db"), isolation_level=None)
        raw.execute("PRAGMA journal_mode=WAL")
        raw.execute("CREATE TABLE m (c TEXT, seq INTEGER, role TEXT, body TEXT, PRIMARY KEY (c, seq)) WITHOUT ROWID")
        counter = iter(range(10**9))

        def raw_save() -> None:
            c = f"c{next(counter)}"
            raw.execute("BEGIN IMMEDIATE")
            raw.executemany("INSERT INTO m VALUES (?, ?, ?, ?)", [
                (c, i, d["role"], json.dumps(d, ensure_ascii=False, separators=(",", ":"))) for i, d in enumerate(dicts)
            ])
            raw.execute("COMMIT")

        ids = iter(range(10**9))
        ours_save = ns_per_op(lambda: store.save_many(f"c{next(ids)}", batch), repeat=3) / len(batch)
        raw_save_ns = ns_per_op(raw_save, repeat=3) / len(batch)
        store.save_many("load", batch)
        raw.execute("BEGIN")
        raw.executemany("INSERT INTO m VALUES ('load', ?, ?, ?)", [(i, d["role"], json.dumps(d)) for i, d in enumerate(dicts)])
        raw.execute("COMMIT")
        ours_load = ns_per_op(lambda: store.load("load"), repeat=3) / len(batch)
        raw_load = ns_per_op(lambda: [json.loads(b) for (b,) in raw.execute(
            "SELECT body FROM m WHERE c = 'load' ORDER BY seq")], repeat=3) / len(batch)
        store.close()
        raw.close()
    table("message store (per message, batches of 100, file DB in WAL mode)", [
        ("save_many", ours_save, {"sqlite3+json": raw_save_ns}),
        ("load", ours_load, {"sqlite3+json": raw_load}),
    ], ["sqlite3+json"])


def main() -> None:
    """Print the tables."""
    print(f"Python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}")
    bench_events()
    bench_store()


if __name__ == "__main__":
    main()
