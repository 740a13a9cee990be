"""The goal table: every workload beside its peer, as a ratio agentmsg / peer.

Run: python benchmarks/bench_goals.py [--full]   (peers: python -m pip install -e ".[bench]")

Every time is **CPU time** (``time.thread_time``; children's rusage for subprocesses), not wall
time: on a shared, loaded machine wall time mostly measures the wait for a core. An in-process
ratio is of the least cost over many short interleaved runs (see ``interleaved``); a subprocess
row is the least of 5 interleaved runs (on a shared host one run in two may get half a core's
speed: the least is the run nothing slowed, as for the in-process rows); below 1 means agentmsg is faster. The validate CLI runs on two
generated JSON Lines logs, text-heavy (messages and tool calls, images as short URLs) and
image-heavy (~30% of user turns with a 4 kB data-URL image), against ``pydantic_peer.py`` (a
script that imports only pydantic) and a bare ``json.loads`` loop. Instruction counts (callgrind,
when valgrind is installed) stand beside the CPU ratios, the in-process rows' from
``callgrind_core.py``; a ratio's goal is met when both measures meet it. By default the logs are ~10 MB
and the peak-memory document ~20 MB; ``--full`` uses 100 MB logs and a 60 MB document.
"""

from __future__ import annotations

import base64
import contextlib
import gc
import json
import os
import random
import resource
import shutil
import statistics
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_providers import anthropic_stream, openai_stream  # noqa: E402
from bench_validate import realistic_lines  # noqa: E402
from edit_file import EDIT_ARGS, EditFile  # noqa: E402
from pydantic_peer import pydantic_models  # noqa: E402

from agentmsg import ChatMessage, ToolCall, from_json, to_json  # noqa: E402

ROUNDS = 5  # subprocess rows: the least of interleaved rounds
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


def text_log(path: str, size: int) -> int:
    """Write a text-heavy JSON Lines chat log of about ``size`` bytes (images only as short URLs)."""
    written = 0
    seed = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < size:
            for line in realistic_lines(20_000, seed):
                f.write(line + "\n")
                written += len(line) + 1
                if written >= size:
                    break
            seed += 1
    return written


def instructions(argv: list[str], env: dict[str, str]) -> int | None:
    """Instructions run by the process ``argv`` under callgrind (None without valgrind), whatever its exit status."""
    if shutil.which("valgrind") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
        with open(out, encoding="utf-8") as f:
            for line in f:
                if line.startswith("summary:"):
                    return int(line.split()[1])
    return None


def child_wall(argv: list[str], env: dict[str, str]) -> float:
    """Wall seconds of a child process running ``argv``; it must exit 0."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT, env=env)
    return time.perf_counter() - start


def child_cpu(argv: list[str], env: dict[str, str] | None = None) -> float:
    """CPU ns (user + system) of a child process running ``argv``; it must exit 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e9


LOADS_LOOP = """
import json, sys
with open(sys.argv[1], "rb") as f:
    for line in f:
        json.loads(line)
"""


def core_instructions() -> dict[str, float]:
    """Instructions per operation of the in-process core rows and their pydantic peers (empty without valgrind).

    Each is ``callgrind_core.py``'s steady-state count (runs of N and 2N operations in fresh
    interpreters, subtracted, less the empty loop), by workload name; the peer of ``NAME`` is
    ``pydantic NAME``. The runs are independent processes, so they share the cores.
    """
    if shutil.which("valgrind") is None:
        return {}
    from concurrent.futures import ThreadPoolExecutor

    import callgrind_core

    table = callgrind_core.workloads()
    names = ["empty", *CORE_ROWS.values()]
    names += [f"pydantic {name}" for name in CORE_ROWS.values()]
    names = [name for name in names if name in table]
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        counts = dict(zip(names, pool.map(lambda name: callgrind_core.per_op(name, table[name][0]), names)))
    empty = counts.pop("empty")
    return {name: count - empty for name, count in counts.items()}


# The in-process rows with instruction counts: row key -> callgrind_core.py's workload (its peer: "pydantic " + it)
CORE_ROWS = {
    "conversation": "conversation from JSON (1,000)",
    "construct": "construct assistant + 2 calls",
    "from_dict": "from_dict assistant",
    "to_dict": "to_dict assistant",
    "arguments_as": "arguments_as EditFile",
}


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


JOBS_LOG = 100 << 20  # the --jobs row's log, whatever the other rows' size: smaller files start no workers


def jobs_rows(tmp: str, cli: list[str], env: dict[str, str], add: Callable[..., None]) -> None:
    """``--jobs 2`` against one process on a 100 MiB text-heavy log: wall time, the least of interleaved rounds."""
    log = os.path.join(tmp, "jobs.jsonl")
    mb = f"{text_log(log, JOBS_LOG) / (1 << 20):.0f} MB"
    one: list[float] = []
    two: list[float] = []
    for _ in range(ROUNDS):
        one.append(child_wall([*cli, log], env))
        two.append(child_wall([*cli, "--jobs", "2", log], env))
    add(f"validate CLI --jobs 2, {mb} text-heavy log (wall time, speed-up)", "one process", ">= 1.6x",
        lambda v: v >= 1.6, min(one) / min(two))
    os.remove(log)


def cli_rows(tmp: str, size: int, add: Callable[..., None], rows: list[Row]) -> None:
    """The validate CLI on a text-heavy and an image-heavy log, against the lean pydantic script and a bare loop.

    CPU time is the least of ``ROUNDS`` interleaved runs of each child; instruction counts (callgrind,
    stable on a loaded machine) are of the same commands on a 5 MB slice of each log, beside them.
    """
    # bytecode cached as in an installed package (PYTHONDONTWRITEBYTECODE would make every run
    # compile the CLI from source), warmed by a first run of each command
    cache = os.path.join(tmp, "pycache")
    env = dict(os.environ, PYTHONPYCACHEPREFIX=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    peer_script = str(ROOT / "benchmarks" / "pydantic_peer.py")

    def commands(log: str) -> tuple[list[str], list[str], list[str]]:
        return ([sys.executable, "-m", "agentmsg.validate", "--quiet", "--jsonl", log],
                [sys.executable, peer_script, log], [sys.executable, "-c", LOADS_LOOP, log])

    for kind, write in (("text-heavy", text_log), ("image-heavy", agent_log)):
        log = os.path.join(tmp, f"{kind}.jsonl")
        mb = f"{write(log, size) / (1 << 20):.0f} MB"
        cli, peer, loads = commands(log)
        for argv in (cli, peer, loads):
            subprocess.run([*argv[:-1], os.devnull], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                           env=env)
        times: list[list[float]] = [[], [], []]
        for _ in range(ROUNDS):
            for spent, argv in zip(times, (cli, peer, loads)):
                spent.append(child_cpu(argv, env))
        ours, theirs, bare = (min(t) for t in times)
        small = os.path.join(tmp, f"{kind}-5mb.jsonl")
        write(small, min(size, 5 << 20))
        ir = [instructions(argv, env) for argv in commands(small)]
        add(f"validate CLI, {mb} {kind} log", "lean pydantic script", "<= 0.8x", lambda v: v <= 0.8, ours / theirs,
            None if ir[0] is None or ir[1] is None else ir[0] / ir[1])
        add(f"validate CLI, {mb} {kind} log", "bare json.loads loop", "<= 1.3x", lambda v: v <= 1.3, ours / bare,
            None if ir[0] is None or ir[2] is None else ir[0] / ir[2])
        if kind == "text-heavy":
            jobs_rows(tmp, cli[:-1], env, add)

    empty = os.path.join(tmp, "empty.jsonl")
    open(empty, "w").close()
    start = instructions(commands(empty)[0], env)
    rows.append(("validate CLI start-up, empty file (M instructions)", "-", "<= 100 M", lambda v: v <= 100,
                 None if start is None else start / 1e6, None))


# (workload, peer, goal, test of the goal (None: a row for information only), measured value,
# instructions ratio (None: not measured))
Row = tuple[str, str, str, Callable[[float], bool] | None, float | None, float | None]


def main() -> int:
    full = "--full" in sys.argv[1:]
    rows: list[Row] = []
    pyd = pydantic_models()
    PMessage, PToolCall, one, many = pyd

    def add(name: str, peer: str, goal: str, ok: Callable[[float], bool], value: float | None,
            ir: float | None = None) -> None:
        rows.append((name, peer, goal, ok, value, ir))
        shown = "-" if value is None else f"{value:.2f}"
        print(f"  measured {name}: {shown}", file=sys.stderr, flush=True)

    print(f"Python {sys.version.split()[0]}; CPU time: in-process rows the least of {SHORT_ROUNDS} interleaved "
          f"~2 ms runs (thread_time), subprocess rows the least of {ROUNDS} interleaved runs (children's rusage); "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        cli_rows(tmp, (100 if full else 10) << 20, add, rows)

    counts = core_instructions()

    def ir(key: str) -> float | None:
        name = CORE_ROWS[key]
        if name not in counts or f"pydantic {name}" not in counts:
            return None
        return counts[name] / counts[f"pydantic {name}"]

    conv = conversation()
    text = json.dumps(conv)
    from agentmsg import ConversationHistory
    a, b = interleaved(lambda: from_json(text, ConversationHistory), lambda: many.validate_json(text))
    add("1,000-message conversation from JSON to a checked ConversationHistory", "TypeAdapter(list[Model]).validate_json", "<= 0.8x",
        lambda v: v <= 0.8, a / b, ir("conversation"))

    def am_make() -> Any:
        return ChatMessage.assistant(TEXT, [ToolCall("call_1", "write_file", ARGS_A), ToolCall("call_2", "run_command", ARGS_B)])

    def pm_make() -> Any:
        return PMessage(role="assistant", content=TEXT, tool_calls=[
            PToolCall(id="call_1", name="write_file", arguments=ARGS_A),
            PToolCall(id="call_2", name="run_command", arguments=ARGS_B)])

    am, pm = am_make(), pm_make()
    doc = am.to_dict()
    a, b = interleaved(am_make, pm_make)
    add("assistant + 2 tool calls: construct", "pydantic, JsonValue arguments", "<= 0.8x", lambda v: v <= 0.8, a / b,
        ir("construct"))
    a, b = interleaved(lambda: ChatMessage.from_dict(doc), lambda: PMessage.model_validate(doc))
    add("assistant + 2 tool calls: from_dict", "pydantic, JsonValue arguments", "<= 0.7x", lambda v: v <= 0.7, a / b,
        ir("from_dict"))
    a, b = interleaved(am.to_dict, lambda: pm.model_dump(exclude_defaults=True))
    add("assistant + 2 tool calls: to_dict", "pydantic, JsonValue arguments", "<= 0.33x (3x faster)",
        lambda v: v <= 1 / 3, a / b, ir("to_dict"))

    from pydantic import TypeAdapter
    call = ToolCall("call_1", "edit_file", EDIT_ARGS)
    call.arguments_as(EditFile)  # the compiled validator is cached, as a user's second call sees it
    edit = TypeAdapter(EditFile)
    a, b = interleaved(lambda: call.arguments_as(EditFile), lambda: edit.validate_python(EDIT_ARGS))
    add("arguments_as, 6-field dataclass (nested + enum)", "TypeAdapter(cls).validate_python", "<= 0.7x",
        lambda v: v <= 0.7, a / b, ir("arguments_as"))

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
    rows.append(("import agentmsg (fresh interpreter, ms CPU)", "-", "<= 20 ms", lambda v: v <= 20, import_ms, None))
    # The names load on first use (PEP 562): this row keeps the cost moved there in sight.
    first_use_ms = import_ms_median("from agentmsg import ChatMessage, ToolCall")
    rows.append(("from agentmsg import ChatMessage, ToolCall (first use)", "-", "—", None, first_use_ms, None))

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
                     "<= 4x", lambda v: v <= 4, peak / size, None))

    print(f"\n{'workload':<68} {'peer':<40} {'goal':<22} {'CPU':>9} {'instr.':>7}  ")
    print("-" * 156)
    for name, peer, goal, ok, value, ir in rows:
        in_ms = "ms" in goal or name.startswith(("import ", "from "))  # the import rows
        in_m = goal.endswith(" M")  # instruction counts
        shown = "-" if value is None else (f"{value:.1f} ms" if in_ms else f"{value:.0f} M" if in_m else f"{value:.2f}x")
        # a ratio's goal holds by both measures: CPU time and, where counted, instructions
        status = "" if ok is None else "met" if value is not None and ok(value) and (ir is None or ok(ir)) else "MISSED"
        print(f"{name:<68} {peer:<40} {goal:<22} {shown:>9} {'' if ir is None else f'{ir:.2f}x':>7}  {status}")
    print("(CPU = agentmsg CPU time / peer CPU time in the same run; instr. = the same ratio of instructions, by "
          "callgrind: of the CLI on a 5 MB slice, of an in-process row per operation (callgrind_core.py); a goal "
          "is met when both ratios meet it; below 1 means agentmsg is faster; peak memory includes the interpreter's own ~20 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
