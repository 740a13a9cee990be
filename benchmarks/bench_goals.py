"""The goal table: every workload beside its peer, as a ratio agentmsg / peer.

Run: python benchmarks/bench_goals.py [--full]   (peers: python -m pip install -e ".[bench]")

Every time is **CPU time** (``time.thread_time``; children's rusage for subprocesses), not wall
time: on a shared, loaded machine wall time mostly measures the wait for a core. An in-process
ratio is of the least cost over many short interleaved runs (see ``interleaved``); a subprocess
row is the median of interleaved runs; below 1 means agentmsg is faster. By default the validate-CLI log is a generated
~10 MB JSON Lines file and the peak-memory document ~20 MB; ``--full`` uses a 100 MB log
and 60 MB document.
"""

from __future__ import annotations

import base64
import contextlib
import enum
import gc
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Optional, Union

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_providers import anthropic_stream, openai_stream  # noqa: E402
from bench_validate import realistic_lines  # noqa: E402

from agentmsg import ChatMessage, ToolCall, from_json, to_json  # noqa: E402

ROUNDS = 5  # subprocess rows: median of interleaved rounds
SHORT_ROUNDS = 150  # in-process rows: least of interleaved ~2 ms runs
ARGS_A = {"path": "hello.py", "content": "print('hello, world')\n", "mode": "w"}
ARGS_B = {"command": ["python", "hello.py"], "timeout": 30, "env": {"PYTHONUNBUFFERED": "1"}}
TEXT = "I'll write the file and run it."


def cpu_ns(fn: Callable[[], Any], repeat: int = 3, min_time: float = 0.05) -> float:
    """Best CPU ns per call of ``fn`` over ``repeat`` runs of at least ``min_time`` s."""
    timer = timeit.Timer(fn, timer=time.process_time)
    number = 1
    while timer.timeit(number) < min_time / 4:
        number *= 2
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e9


def interleaved(ours: Callable[[], Any], theirs: Callable[[], Any], rounds: int = SHORT_ROUNDS) -> tuple[float, float]:
    """The least CPU cost per call of ``ours`` and of ``theirs`` over many short interleaved runs.

    On a shared machine a long run is always interrupted and its CPU time carries the
    neighbours' cache misses; the least of many ~2 ms runs (taken in turn, so both sides see the
    same load) is the cost of the code itself, the figure ``timeit`` recommends. Medians of
    long runs moved by a factor of two between two runs here; these minima by a few percent.
    """
    timers = [timeit.Timer(fn, timer=time.thread_time) for fn in (ours, theirs)]
    numbers = []
    spent = 0.0
    for timer in timers:
        number = 1
        while (took := timer.timeit(number)) < 0.002:
            number *= 2
        numbers.append(number)
        spent += took
    rounds = max(5, min(rounds, int(3.0 / spent)))  # a slow peer (the SDK streams): fewer rounds
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for i, timer in enumerate(timers):
            best[i] = min(best[i], timer.timeit(numbers[i]) / numbers[i])
    return best[0] * 1e9, best[1] * 1e9


def pydantic_models() -> Any:
    """The message model of bench_core with ``dict[str, JsonValue]`` arguments (checked JSON values)."""
    from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, model_validator

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
        arguments: dict[str, JsonValue] = {}

    class PMessage(BaseModel):
        model_config = ConfigDict(frozen=True)
        role: Literal["system", "user", "assistant", "tool"]
        content: Union[str, list[Union[PTextPart, PImagePart]], None] = None
        tool_calls: list[PToolCall] = []
        tool_call_id: Optional[str] = None
        is_error: bool = False

        @model_validator(mode="after")
        def _rules(self) -> PMessage:
            if self.tool_calls and self.role != "assistant":
                raise ValueError("only assistant messages carry tool calls")
            if self.role == "tool" and not self.tool_call_id:
                raise ValueError("tool messages need tool_call_id")
            if self.content is None and not (self.role == "assistant" and self.tool_calls):
                raise ValueError("content is required")
            return self

    for model in (PTextPart, PImageSource, PImagePart, PToolCall, PMessage):
        model.model_rebuild(_types_namespace={"PMessage": PMessage, "JsonValue": JsonValue, **locals()})
    return PMessage, PToolCall, TypeAdapter(PMessage), TypeAdapter(list[PMessage])


class Mode(enum.Enum):
    READ = "read"
    WRITE = "write"


@dataclass(frozen=True)
class LineRange:
    start: int
    end: int


@dataclass(frozen=True)
class EditFile:
    path: str
    mode: Mode
    lines: LineRange
    tags: list[str]
    dry_run: bool = False
    note: Optional[str] = None


EDIT_ARGS = {"path": "src/app.py", "mode": "write", "lines": {"start": 10, "end": 42},
             "tags": ["refactor", "small"], "dry_run": True, "note": None}


def conversation() -> list[dict[str, Any]]:
    """1,000 messages: the system prompt, then user / assistant with two tool calls / two tool results, repeated."""
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


def agent_log(path: str, size: int) -> int:
    """Write a JSON Lines agent log of about ``size`` bytes, ~30% of user turns with a data-URL image."""
    r = random.Random(11)
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(r.randrange(256) for _ in range(3000))).decode()
    written = 0
    seed = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < size:
            for line in realistic_lines(20_000, seed):
                if '"type": "image"' in line:
                    doc = json.loads(line)
                    doc["content"][1]["source"] = {"type": "url", "url": "data:image/png;base64," + png}
                    line = json.dumps(doc)
                f.write(line + "\n")
                written += len(line) + 1
                if written >= size:
                    break
            seed += 1
    return written


def child_cpu(argv: list[str], env: dict[str, str] | None = None) -> float:
    """CPU ns (user + system) of a child process running ``argv``; it must exit 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e9


PYDANTIC_CLI = """
import sys
sys.path.insert(0, {bench!r})
from bench_goals import pydantic_models
adapter = pydantic_models()[2]
bad = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        try:
            adapter.validate_json(line)
        except ValueError:
            bad += 1
print(bad)
"""

LOADS_LOOP = """
import json, sys
with open(sys.argv[1], "rb") as f:
    for line in f:
        json.loads(line)
"""


def import_ms_median(statement: str = "import agentmsg", runs: int = 10) -> float:
    """Median CPU ms of ``statement`` in fresh interpreters, with bytecode cached as installed.

    ``PYTHONDONTWRITEBYTECODE`` would make every run compile the package from source (three times
    the cost an installed package pays), so the runs get a bytecode cache of their own, filled by
    a first run of the same statement (``import agentmsg`` alone loads no submodule: a cache it
    filled would leave the modules a name loads to be compiled in the timed runs).
    """
    code = f"import time; t = time.process_time(); {statement}; print(time.process_time() - t)"
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPYCACHEPREFIX=cache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run([sys.executable, "-c", statement], cwd=ROOT, env=env, check=True)
        return statistics.median(
            float(subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                                 capture_output=True, text=True).stdout) * 1000
            for _ in range(runs))


# (workload, peer, goal, test of the goal (None: a row for information only), measured value)
Row = tuple[str, str, str, Callable[[float], bool] | None, float | None]


def main() -> int:
    full = "--full" in sys.argv[1:]
    rows: list[Row] = []
    pyd = pydantic_models()
    PMessage, PToolCall, one, many = pyd

    def add(name: str, peer: str, goal: str, ok: Callable[[float], bool], value: float | None) -> None:
        rows.append((name, peer, goal, ok, value))
        shown = "-" if value is None else f"{value:.2f}"
        print(f"  measured {name}: {shown}", file=sys.stderr, flush=True)

    print(f"Python {sys.version.split()[0]}; CPU time: in-process rows the least of {SHORT_ROUNDS} interleaved "
          f"~2 ms runs (thread_time), subprocess rows the median of 3 interleaved runs (children's rusage); "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "agent.jsonl")
        size = agent_log(log, (100 if full else 10) << 20)
        mb = f"{size / (1 << 20):.0f} MB"
        cli = [sys.executable, "-m", "agentmsg.validate", "--quiet", "--jsonl", log]
        peer_cli = [sys.executable, "-c", PYDANTIC_CLI.format(bench=str(ROOT / "benchmarks")), log]
        loads = [sys.executable, "-c", LOADS_LOOP, log]
        rounds = 3
        ours_t, peer_t, loads_t = [], [], []
        # bytecode cached as in an installed package (PYTHONDONTWRITEBYTECODE would make every
        # run compile the CLI from source), warmed by a first run of each
        cache = os.path.join(tmp, "pycache")
        env = dict(os.environ, PYTHONPYCACHEPREFIX=cache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for argv in (cli, peer_cli, loads):
            subprocess.run([*argv[:-1], os.devnull], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                           env=env)
        for _ in range(rounds):
            ours_t.append(child_cpu(cli, env))
            peer_t.append(child_cpu(peer_cli, env))
            loads_t.append(child_cpu(loads, env))
        ours = statistics.median(ours_t)
        add(f"validate CLI, {mb} JSON Lines log", "pydantic validate_json per line", "<= 0.8x",
            lambda v: v <= 0.8, ours / statistics.median(peer_t))
        add(f"validate CLI, {mb} JSON Lines log", "bare json.loads loop", "<= 2x",
            lambda v: v <= 2, ours / statistics.median(loads_t))

    conv = conversation()
    text = json.dumps(conv)
    from agentmsg._json import loads_strict
    a, b = interleaved(lambda: [ChatMessage.from_dict(d) for d in loads_strict(text)], lambda: many.validate_json(text))
    add("1,000-message conversation from JSON", "TypeAdapter(list[Model]).validate_json", "<= 0.8x",
        lambda v: v <= 0.8, a / b)

    def am_make() -> Any:
        return ChatMessage.assistant(TEXT, [ToolCall("call_1", "write_file", ARGS_A), ToolCall("call_2", "run_command", ARGS_B)])

    def pm_make() -> Any:
        return PMessage(role="assistant", content=TEXT, tool_calls=[
            PToolCall(id="call_1", name="write_file", arguments=ARGS_A),
            PToolCall(id="call_2", name="run_command", arguments=ARGS_B)])

    am, pm = am_make(), pm_make()
    doc = am.to_dict()
    a, b = interleaved(am_make, pm_make)
    add("assistant + 2 tool calls: construct", "pydantic, JsonValue arguments", "<= 0.8x", lambda v: v <= 0.8, a / b)
    a, b = interleaved(lambda: ChatMessage.from_dict(doc), lambda: PMessage.model_validate(doc))
    add("assistant + 2 tool calls: from_dict", "pydantic, JsonValue arguments", "<= 0.8x", lambda v: v <= 0.8, a / b)
    a, b = interleaved(am.to_dict, lambda: pm.model_dump(exclude_defaults=True))
    add("assistant + 2 tool calls: to_dict", "pydantic, JsonValue arguments", "<= 0.33x (3x faster)",
        lambda v: v <= 1 / 3, a / b)

    from pydantic import TypeAdapter
    call = ToolCall("call_1", "edit_file", EDIT_ARGS)
    call.arguments_as(EditFile)  # the compiled validator is cached, as a user's second call sees it
    edit = TypeAdapter(EditFile)
    a, b = interleaved(lambda: call.arguments_as(EditFile), lambda: edit.validate_python(EDIT_ARGS))
    add("arguments_as, 6-field dataclass (nested + enum)", "TypeAdapter(cls).validate_python", "<= 0.8x",
        lambda v: v <= 0.8, a / b)

    from agentmsg.providers import anthropic as am_anthropic, openai as am_openai
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import RawMessageStreamEvent
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk
    import anthropic._models
    import openai._models

    oa_chunks = openai_stream()
    an_events = anthropic_stream()

    def parse(module: Any, chunks: list[Any]) -> Any:
        parser = module.StreamParser()
        for c in chunks:
            parser.feed(c)
        return parser.finish()

    def openai_sdk() -> Any:
        # what the SDK does per chunk: build the typed chunk from the decoded JSON, then accumulate
        state = ChatCompletionStreamState()
        for c in oa_chunks:
            state.handle_chunk(openai._models.construct_type(type_=ChatCompletionChunk, value=c))
        return state.get_final_completion()

    def anthropic_sdk() -> Any:
        snapshot = None
        bufs: dict[int, bytes] = {}
        for e in an_events:
            event = anthropic._models.construct_type(type_=RawMessageStreamEvent, value=e)
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=bufs)
        return snapshot

    a, b = interleaved(lambda: parse(am_openai, oa_chunks), openai_sdk)
    add("OpenAI stream, 2,000 chunks, StreamParser", "openai ChatCompletionStreamState", "<= 0.5x",
        lambda v: v <= 0.5, a / b)
    a, b = interleaved(lambda: parse(am_anthropic, an_events), anthropic_sdk)
    add("Anthropic stream, 2,000 events, StreamParser", "anthropic accumulate_event", "<= 0.5x",
        lambda v: v <= 0.5, a / b)

    import_ms = import_ms_median()
    rows.append(("import agentmsg (fresh interpreter, ms CPU)", "-", "<= 20 ms", lambda v: v <= 20, import_ms))
    # The names load on first use (PEP 562): this row keeps the cost moved there in sight.
    first_use_ms = import_ms_median("from agentmsg import ChatMessage, ToolCall")
    rows.append(("from agentmsg import ChatMessage, ToolCall (first use)", "-", "—", None, first_use_ms))

    with tempfile.TemporaryDirectory() as tmp:
        big = os.path.join(tmp, "conversation.json")
        target = (60 if full else 20) << 20
        chunk = conversation()[1:-3]  # whole turns, repeated after one system prompt
        docs: list[Any] = conversation()[:1]
        per = len(json.dumps(chunk))
        for _ in range(max(1, target // per)):
            docs += chunk
        with open(big, "w", encoding="utf-8") as f:
            json.dump(docs, f)
        size = os.path.getsize(big)
        del docs
        # The peak of the child's own memory: Linux's VmHWM (reset by exec), not ru_maxrss, which
        # a child keeps from the parent it was forked from (this process, holding the document).
        script = ("import resource, sys; from agentmsg.validate import main; "
                  "status = main(['--quiet', sys.argv[1]]); "
                  "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')] "
                  "if sys.platform == 'linux' else []; "
                  "print(int(hwm[0].split()[1]) if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
        out = subprocess.run([sys.executable, "-c", script, big], capture_output=True, text=True, cwd=ROOT, check=True)
        peak = int(out.stdout.split()[-1]) * 1024  # KiB, both VmHWM and ru_maxrss on Linux
        rows.append((f"peak memory validating one {size / (1 << 20):.0f} MB JSON document (RSS / size)", "its size",
                     "<= 4x", lambda v: v <= 4, peak / size))

    print(f"\n{'workload':<62} {'peer':<42} {'goal':<22} {'measured':>9}  ")
    print("-" * 142)
    for name, peer, goal, ok, value in rows:
        in_ms = "ms" in goal or name.startswith(("import ", "from "))  # the import rows
        shown = "-" if value is None else (f"{value:.1f} ms" if in_ms else f"{value:.2f}x")
        status = "" if ok is None else "met" if value is not None and ok(value) else "MISSED"
        print(f"{name:<62} {peer:<42} {goal:<22} {shown:>9}  {status}")
    print("(ratio = agentmsg CPU time / peer CPU time in the same run; below 1 means agentmsg is faster; "
          "peak memory includes the interpreter's own ~20 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
