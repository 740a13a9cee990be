"""Benchmark the core types against pydantic v2 and msgspec models of the same shape and rules.

Run: python benchmarks/bench_core.py   (pip install -e '.[bench]' for the peer columns)
"""


import gc
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any, Literal, Optional, Union

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import ns_per_op, table  # noqa: E402

from agentmsg import (  # noqa: E402
    ChatMessage,
    ConversationHistory,
    ToolCall,
    ToolCallAccumulator,
    ToolCallDelta,
    from_json,
    to_json,
)

USER_TEXT = "Please write a hello world program in Python and save it."
ARGS_A = {"path": "hello.py", "content": "print('hello, world')\n", "mode": "w"}
ARGS_B = {"command": ["python", "hello.py"], "timeout": 30, "env": {"PYTHONUNBUFFERED": "1"}}
RESULT_TEXT = "File written: 22 bytes"


def agentmsg_ops() -> dict[str, Any]:
    user = lambda: ChatMessage.user(USER_TEXT)  # noqa: E731
    assistant = lambda: ChatMessage.assistant(  # noqa: E731
        "I'll write the file and run it.",
        [ToolCall("call_001", "write_file", ARGS_A), ToolCall("call_002", "run_command", ARGS_B)],
    )
    tool = lambda: ChatMessage.tool("call_001", RESULT_TEXT)  # noqa: E731
    return {
        "user": (user, ChatMessage.from_dict, to_json, lambda t: from_json(t, ChatMessage)),
        "assistant": (assistant, ChatMessage.from_dict, to_json, lambda t: from_json(t, ChatMessage)),
        "tool": (tool, ChatMessage.from_dict, to_json, lambda t: from_json(t, ChatMessage)),
    }


def pydantic_models() -> Any:
    try:
        import pydantic
    except ImportError:
        return None
    from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

    class PTextPart(BaseModel):
        model_config = ConfigDict(frozen=True)
        type: Literal["text"]
        text: str

    class PImageSource(BaseModel):
        model_config = ConfigDict(frozen=True)
        type: Literal["url", "base64", "file"]
        url: Optional[str] = None
        media_type: Optional[str] = None
        data: Optional[str] = None
        path: Optional[str] = None

    class PImagePart(BaseModel):
        model_config = ConfigDict(frozen=True)
        type: Literal["image"]
        source: PImageSource

    class PToolCall(BaseModel):
        model_config = ConfigDict(frozen=True)
        id: str = Field(min_length=1)
        name: str = Field(pattern=r"^[A-Za-z0-9_]{1,64}$")
        arguments: dict[str, Any] = {}

    class PMessage(BaseModel):
        model_config = ConfigDict(frozen=True)
        role: Literal["system", "user", "assistant", "tool"]
        content: Union[str, list[Union[PTextPart, PImagePart]], None] = None
        tool_calls: list[PToolCall] = []
        tool_call_id: Optional[str] = None
        is_error: bool = False

        @model_validator(mode="after")
        def _rules(self) -> "PMessage":
            if self.tool_calls and self.role != "assistant":
                raise ValueError("only assistant messages carry tool calls")
            if self.role == "tool" and not self.tool_call_id:
                raise ValueError("tool messages need tool_call_id")
            if self.content is None and not (self.role == "assistant" and self.tool_calls):
                raise ValueError("content is required")
            return self

    return pydantic, PMessage, PToolCall, TypeAdapter(list[PMessage])


def msgspec_models() -> Any:
    try:
        import msgspec
    except ImportError:
        return None
    from typing import Annotated

    class MTextPart(msgspec.Struct, frozen=True, tag="text", tag_field="type"):
        text: str

    class MImageSource(msgspec.Struct, frozen=True, omit_defaults=True):
        type: str
        url: Optional[str] = None
        media_type: Optional[str] = None
        data: Optional[str] = None
        path: Optional[str] = None

    class MImagePart(msgspec.Struct, frozen=True, tag="image", tag_field="type"):
        source: MImageSource

    Name = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_]{1,64}$")]

    class MToolCall(msgspec.Struct, frozen=True):
        id: Annotated[str, msgspec.Meta(min_length=1)]
        name: Name
        arguments: dict[str, Any] = {}

    class MMessage(msgspec.Struct, frozen=True, omit_defaults=True):
        role: Literal["system", "user", "assistant", "tool"]
        content: Union[str, list[Union[MTextPart, MImagePart]], None] = None
        tool_calls: tuple[MToolCall, ...] = ()
        tool_call_id: Optional[str] = None
        is_error: bool = False

    return msgspec, MMessage, MToolCall


def main() -> None:
    ours = agentmsg_ops()
    pyd = pydantic_models()
    msp = msgspec_models()
    peers = [name for name, mod in (("pydantic", pyd), ("msgspec", msp)) if mod is not None]
    for name, mod in (("pydantic v2", pyd), ("msgspec", msp)):
        if mod is None:
            print(f"note: {name} is not installed; its column is skipped (pip install -e '.[bench]')")
    print(f"Python {sys.version.split()[0]}")
    rows: list[tuple[str, float, dict[str, float | None]]] = []
    messages = {name: ops[0]() for name, ops in ours.items()}
    docs = {name: msg.to_dict() for name, msg in messages.items()}
    texts = {name: to_json(msg) for name, msg in messages.items()}
    for name, (make, parse, dump_json, load_json) in ours.items():
        message, doc, text = messages[name], docs[name], texts[name]
        p: dict[str, dict[str, float | None]] = {"construct": {}, "to_dict": {}, "from_dict": {}, "json": {}}
        if pyd is not None:
            _, PMessage, PToolCall, _ = pyd
            pm = PMessage.model_validate(doc)
            if name == "assistant":
                pmake = lambda: PMessage(role="assistant", content="I'll write the file and run it.", tool_calls=[  # noqa: E731
                    PToolCall(id="call_001", name="write_file", arguments=ARGS_A),
                    PToolCall(id="call_002", name="run_command", arguments=ARGS_B)])
            elif name == "user":
                pmake = lambda: PMessage(role="user", content=USER_TEXT)  # noqa: E731
            else:
                pmake = lambda: PMessage(role="tool", tool_call_id="call_001", content=RESULT_TEXT)  # noqa: E731
            p["construct"]["pydantic"] = ns_per_op(pmake)
            p["to_dict"]["pydantic"] = ns_per_op(lambda: pm.model_dump(exclude_defaults=True))
            p["from_dict"]["pydantic"] = ns_per_op(lambda: PMessage.model_validate(doc))
            p["json"]["pydantic"] = ns_per_op(lambda: PMessage.model_validate_json(pm.model_dump_json(exclude_defaults=True)))
        if msp is not None:
            msgspec, MMessage, MToolCall = msp
            mm = msgspec.convert(doc, MMessage)
            if name == "assistant":
                mmake = lambda: msgspec.convert({"role": "assistant", "content": "I'll write the file and run it.", "tool_calls": [  # noqa: E731
                    {"id": "call_001", "name": "write_file", "arguments": ARGS_A},
                    {"id": "call_002", "name": "run_command", "arguments": ARGS_B}]}, MMessage)
            else:
                mmake = lambda: msgspec.convert(doc, MMessage)  # noqa: E731
            p["construct"]["msgspec"] = ns_per_op(mmake)
            p["to_dict"]["msgspec"] = ns_per_op(lambda: msgspec.to_builtins(mm))
            p["from_dict"]["msgspec"] = ns_per_op(lambda: msgspec.convert(doc, MMessage))
            enc, dec = msgspec.json.Encoder(), msgspec.json.Decoder(MMessage)
            p["json"]["msgspec"] = ns_per_op(lambda: dec.decode(enc.encode(mm)))
        rows.append((f"{name}: construct + validate (factory)", ns_per_op(make), p["construct"]))
        rows.append((f"{name}: to_dict", ns_per_op(message.to_dict), p["to_dict"]))
        rows.append((f"{name}: from_dict", ns_per_op(lambda: parse(doc)), p["from_dict"]))
        rows.append((f"{name}: JSON round trip", ns_per_op(lambda: load_json(dump_json(message))), p["json"]))

    # A 1,000-message conversation: the system prompt, then user / assistant-with-tools / tool /
    # assistant, repeated (ConversationHistory requires the system message first).
    conversation: list[dict[str, Any]] = [{"role": "system", "content": "You write files."}]
    for i in range(250):
        conversation.append({"role": "user", "content": f"{USER_TEXT} ({i})"})
        conversation.append({"role": "assistant", "tool_calls": [{"id": f"c{i}", "name": "write_file", "arguments": ARGS_A}]})
        conversation.append({"role": "tool", "tool_call_id": f"c{i}", "content": RESULT_TEXT})
        conversation.append({"role": "assistant", "content": "Done."})
    del conversation[1000:]  # ends on a tool message: complete
    conv_peers: dict[str, float | None] = {}
    if pyd is not None:
        conv_peers["pydantic"] = ns_per_op(lambda: pyd[3].validate_python(conversation), repeat=3)
    if msp is not None:
        conv_peers["msgspec"] = ns_per_op(lambda: msp[0].convert(conversation, list[msp[1]]), repeat=3)
    rows.append(("1,000 messages: from_dict each", ns_per_op(lambda: [ChatMessage.from_dict(d) for d in conversation], repeat=3), conv_peers))
    rows.append(("1,000 messages: ConversationHistory.from_list", ns_per_op(lambda: ConversationHistory.from_list(conversation), repeat=3), conv_peers))
    table("Core types (ns per operation)", rows, peers)

    parsed = [ChatMessage.from_dict(d) for d in conversation]

    def add_all() -> None:
        history = ConversationHistory()
        add = history.add
        for message in parsed:
            add(message)

    deltas = [ToolCallDelta(0, "call_1", "write_file", None)] + [ToolCallDelta(0, arguments_delta=piece) for piece in
                                                                  ['{"path": "hello.py", ', '"content": "print(1)', '\\n", ', '"mode": "w"}']]

    def accumulate() -> None:
        acc = ToolCallAccumulator()
        for delta in deltas:
            acc.add(delta)
        acc.finish()

    print("\n## History and streaming (ns per operation)")
    print(f"ConversationHistory.add (per message)       {ns_per_op(add_all, repeat=3) / len(parsed):>8,.0f} ns")
    print(f"ToolCallAccumulator (per delta, incl. finish) {ns_per_op(accumulate) / len(deltas):>6,.0f} ns")

    print("\n## Memory")
    empty_user = ChatMessage.user("")
    print(f"user message object without its text: {sys.getsizeof(empty_user)} bytes (pydantic model instance: "
          + (f"{sys.getsizeof(pyd[1](role='user', content='')) + sys.getsizeof(pyd[1](role='user', content='').__dict__)} bytes incl. __dict__)" if pyd else "n/a)"))
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    kept = [ChatMessage.from_dict(d) for d in conversation]
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    total = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    text_bytes = sum(sys.getsizeof(m.content) for m in kept if type(m.content) is str)
    print(f"1,000 parsed messages: {total / len(kept):,.0f} bytes per message in all, "
          f"{(total - text_bytes) / len(kept):,.0f} bytes excluding content strings")

    print("\n## Import time (fresh interpreter, best of 5)")
    code = "import time; t = time.perf_counter(); import {mod}; print(time.perf_counter() - t)"
    root = str(Path(__file__).resolve().parent.parent)
    for mod in ("agentmsg",) + (("pydantic",) if pyd else ()):
        best = min(float(subprocess.run([sys.executable, "-c", code.format(mod=mod)], capture_output=True, text=True,
                                        cwd=root, check=True).stdout) for _ in range(5))
        print(f"import {mod:<10} {best * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
