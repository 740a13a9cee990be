"""Instructions per operation of the core types, counted by callgrind (stable on a loaded machine).

Run: python benchmarks/callgrind_core.py [workload ...]   (needs valgrind on PATH)

Each workload runs in a fresh interpreter under ``valgrind --tool=callgrind`` twice, ``N`` and
``2N`` times; the difference, divided by ``N``, is the steady-state cost of one loop turn (start-up,
imports and first-use work cancel out). The same is done for an empty workload (the loop and the
call of a no-op), which is subtracted. Figures are instructions per operation. The workloads
named ``pydantic ...`` are the peers of the goal table's core rows (they need the bench extra).

``python benchmarks/callgrind_core.py --run NAME COUNT`` is what runs under valgrind;
``--cpu [workload ...]`` prints CPU time per operation instead (the least of many short runs).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

USER_TEXT = "Please write a hello world program in Python and save it."
TEXT = "I'll write the file and run it."
ARGS_A = {"path": "hello.py", "content": "print('hello, world')\n", "mode": "w"}
ARGS_B = {"command": ["python", "hello.py"], "timeout": 30, "env": {"PYTHONUNBUFFERED": "1"}}
RESULT_TEXT = "File written: 22 bytes"


def conversation() -> list[dict[str, Any]]:
    """The 1,000 messages of bench_goals.py: system, then user / assistant + 2 calls / 2 tool results."""
    out: list[dict[str, Any]] = [{"role": "system", "content": "You write files and run them."}]
    i = 0
    while len(out) < 1000:
        a, b = f"call_{i}_a", f"call_{i}_b"
        out += [{"role": "user", "content": f"Step {i}: write the file and run it."},
                {"role": "assistant", "content": TEXT, "tool_calls": [
                    {"id": a, "name": "write_file", "arguments": ARGS_A},
                    {"id": b, "name": "run_command", "arguments": ARGS_B}]},
                {"role": "tool", "tool_call_id": a, "content": "File written: 22 bytes"},
                {"role": "tool", "tool_call_id": b, "content": "hello, world"}]
        i += 1
    return out[:1000]


def workloads() -> dict[str, tuple[int, Callable[[], Callable[[], Any]]]]:
    """Name -> (loop count N, the set-up that returns one operation)."""
    from agentmsg import (
        ChatMessage, ConversationHistory, ImagePart, ImageSource, ReasoningPart, TextPart, ToolCall, ToolResult, from_json,
    )

    def user() -> Any:
        return ChatMessage.user(USER_TEXT)

    def assistant() -> Any:
        return ChatMessage.assistant(TEXT, [ToolCall("call_001", "write_file", ARGS_A),
                                            ToolCall("call_002", "run_command", ARGS_B)])

    def tool() -> Any:
        return ChatMessage.tool("call_001", RESULT_TEXT)

    def reasoning() -> Any:
        thought = ReasoningPart("Check the units first.", signature="EqQBCkgIARABGAIiQL", provider="anthropic")
        return ChatMessage.assistant(TEXT, reasoning=[thought])

    def parts() -> Any:
        return ChatMessage.user([TextPart("What is this?"), ImagePart(ImageSource.from_url("https://example.com/a.png"))])

    def conversation_from_json() -> Callable[[], Any]:
        text = json.dumps(conversation())
        return lambda: from_json(text, ConversationHistory)  # each message and the order checked

    def conversation_to_dict() -> Callable[[], Any]:
        loaded = [ChatMessage.from_dict(d) for d in conversation()]
        return lambda: [m.to_dict() for m in loaded]

    messages = {"user": user, "assistant": assistant, "tool": tool, "reasoning": reasoning, "parts": parts}
    out: dict[str, tuple[int, Callable[[], Callable[[], Any]]]] = {
        "empty": (5000, lambda: lambda: None),
        "construct user": (5000, lambda: user),
        "construct assistant + 2 calls": (1000, lambda: assistant),
        "pydantic construct assistant + 2 calls": (1000, _pydantic_construct),
        "construct tool": (5000, lambda: tool),
        "construct ToolCall": (2000, lambda: lambda: ToolCall("call_001", "write_file", ARGS_A)),
        "construct ReasoningPart": (5000, lambda: lambda: ReasoningPart("Why.", signature="c2ln", provider="anthropic")),
        "ImageSource.from_url": (5000, lambda: lambda: ImageSource.from_url("https://example.com/a.png")),
        "ToolCall.from_dict": (2000, lambda: lambda doc=assistant().tool_calls[0].to_dict(): ToolCall.from_dict(doc)),
        "ToolCall.to_dict": (5000, lambda: assistant().tool_calls[0].to_dict),
        "ToolResult.to_dict": (5000, lambda: ToolResult.error("call_001", "timeout").to_dict),
        "conversation from JSON (1,000)": (4, conversation_from_json),
        "conversation to_dict (1,000)": (4, conversation_to_dict),
        "pydantic conversation from JSON (1,000)": (4, _pydantic_from_json),
        "arguments_as EditFile": (5000, _arguments_as),
        "pydantic arguments_as EditFile": (5000, _pydantic_arguments_as),
    }
    for name, make in messages.items():
        count = 1000 if name == "assistant" else 5000
        if name == "assistant":
            out["pydantic from_dict assistant"] = (count, lambda: _pydantic_from_dict(assistant().to_dict()))
            out["pydantic to_dict assistant"] = (count, lambda: _pydantic_to_dict(assistant().to_dict()))
        out[f"from_dict {name}"] = (count, lambda make=make: lambda doc=make().to_dict(): ChatMessage.from_dict(doc))
        out[f"to_dict {name}"] = (count, lambda make=make: make().to_dict)
        out[f"repr {name}"] = (5000, lambda make=make: make().__repr__)
    return out


def _pydantic_from_dict(doc: dict[str, Any]) -> Callable[[], Any]:
    """The peer of ``from_dict assistant``: ``PMessage.model_validate`` (needs the bench extra)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from pydantic_peer import pydantic_models

    model = pydantic_models()[0]
    return lambda: model.model_validate(doc)


def _pydantic_construct() -> Callable[[], Any]:
    """The peer of ``construct assistant + 2 calls``: the models built by keyword, as a user writes them."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from pydantic_peer import pydantic_models

    message, call = pydantic_models()[:2]
    return lambda: message(role="assistant", content=TEXT, tool_calls=[
        call(id="call_001", name="write_file", arguments=ARGS_A), call(id="call_002", name="run_command", arguments=ARGS_B)])


def _pydantic_to_dict(doc: dict[str, Any]) -> Callable[[], Any]:
    """The peer of ``to_dict assistant``: ``model_dump(exclude_defaults=True)``."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from pydantic_peer import pydantic_models

    model = pydantic_models()[0].model_validate(doc)
    return lambda: model.model_dump(exclude_defaults=True)


def _pydantic_from_json() -> Callable[[], Any]:
    """The peer of ``conversation from JSON``: ``TypeAdapter(list[PMessage]).validate_json``."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from pydantic_peer import pydantic_models

    text = json.dumps(conversation())
    many = pydantic_models()[3]
    return lambda: many.validate_json(text)


def _arguments_as() -> Callable[[], Any]:
    """``call.arguments_as(EditFile)`` (a 6-field dataclass: nested, enum, list, optional), the builder cached."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from edit_file import EDIT_ARGS, EditFile

    from agentmsg import ToolCall

    call = ToolCall("call_1", "edit_file", EDIT_ARGS)
    call.arguments_as(EditFile)
    return lambda: call.arguments_as(EditFile)


def _pydantic_arguments_as() -> Callable[[], Any]:
    """The peer of ``arguments_as EditFile``: ``TypeAdapter(EditFile).validate_python`` (needs the bench extra)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from edit_file import EDIT_ARGS, EditFile
    from pydantic import TypeAdapter

    adapter = TypeAdapter(EditFile)
    return lambda: adapter.validate_python(EDIT_ARGS)


def run(name: str, count: int) -> None:
    fn = workloads()[name][1]()
    for _ in range(count):
        fn()


def instructions(name: str, count: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                        sys.executable, __file__, "--run", name, str(count)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env={**os.environ, "PYTHONHASHSEED": "0"})  # a fixed seed: the same run twice, to ~1,000 instructions
        with open(out, encoding="utf-8") as f:
            found = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.MULTILINE)
        assert found, "no totals line in the callgrind output"
        return int(found.group(1))


def per_op(name: str, count: int) -> float:
    return (instructions(name, 2 * count) - instructions(name, count)) / count


def cpu_ns(fn: Callable[[], Any], rounds: int = 200) -> float:
    """The least CPU ns per call over many ~2 ms runs (noisy on a shared machine; for a second look)."""
    timer = timeit.Timer(fn, timer=time.thread_time)
    number = 1
    while timer.timeit(number) < 0.002:
        number *= 2
    return min(timer.timeit(number) / number for _ in range(rounds)) * 1e9


def main(argv: list[str]) -> int:
    if argv[:1] == ["--run"]:
        run(argv[1], int(argv[2]))
        return 0
    if argv[:1] == ["--cpu"]:
        table = workloads()
        for name in argv[1:] or [n for n in table if n != "empty"]:
            print(f"{name:40} {cpu_ns(table[name][1]()):>12.0f} ns", flush=True)
        return 0
    table = workloads()
    names = argv or [n for n in table if n != "empty"]
    empty = per_op("empty", table["empty"][0])
    print(f"{'workload':40} instructions/op   (loop overhead {empty:.0f} subtracted)")
    for name in names:
        count = table[name][0]
        print(f"{name:40} {per_op(name, count) - empty:>12.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
