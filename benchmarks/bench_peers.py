"""agentmsg beside the message types people would use instead: the numbers README's comparison prints.

Run: python benchmarks/bench_peers.py   (peers: python -m pip install pydantic-ai-slim langchain-core openai anthropic)

For each library, with its own types: how many packages it installs (the transitive runtime
requirements in this environment), how much CPU time importing its message types takes (median of 10
fresh interpreters, interleaved, bytecode cached as an installed package has it) and how many modules that import loads, and the same assistant message with two tool calls built from Python
values, validated from a JSON-shaped dict, and dumped back to one (CPU time, median of 5 interleaved
rounds, each the best of 3 timed runs). A peer that is not installed gets no column.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _timing import fmt  # noqa: E402


def ns_per_op(fn: Callable[[], Any], repeat: int = 3, min_time: float = 0.05) -> float:
    """Best CPU ns per call of ``fn`` over ``repeat`` runs of at least ``min_time`` s."""
    timer = timeit.Timer(fn, timer=time.process_time)
    number = 1
    while timer.timeit(number) < min_time / 4:
        number *= 2
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e9

ARGS_A = {"path": "hello.py", "content": "print('hello, world')\n"}
ARGS_B = {"command": ["python", "hello.py"], "timeout": 30}
TEXT = "I'll write the file and run it."

# library -> (distribution, the import that loads its message types)
PEERS = {
    # ``import agentmsg`` alone loads no type (the names load on first use): import one
    "agentmsg": ("agentmsg", "from agentmsg import ChatMessage"),
    "pydantic-ai": ("pydantic-ai-slim", "import pydantic_ai.messages"),
    "langchain-core": ("langchain-core", "import langchain_core.messages"),
    "openai SDK": ("openai", "import openai.types.chat"),
    "anthropic SDK": ("anthropic", "import anthropic.types"),
}


def requirements(dist: str) -> list[str] | None:
    """The distributions ``dist`` pulls in at runtime, transitively (None: not installed)."""
    try:
        from packaging.requirements import Requirement
        from packaging.utils import canonicalize_name
    except ImportError:
        return None
    seen: set[str] = set()
    todo = [dist]
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        try:
            reqs = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            if name == canonicalize_name(dist):
                return None
            continue
        seen.add(name)
        for text in reqs:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    seen.discard(canonicalize_name(dist))
    return sorted(seen)


def import_cost(statement: str, env: dict[str, str]) -> tuple[float, int]:
    """CPU ms of the import in a fresh interpreter, and how many modules it loaded.

    CPU time, because on a loaded machine wall time mostly measures the wait for a core.
    """
    code = ("import sys, time; before = len(sys.modules); t = time.process_time(); "
            f"{statement}; print(time.process_time() - t, len(sys.modules) - before)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True, env=env)
    seconds, modules = out.stdout.split()
    return float(seconds) * 1000, int(modules)


def cached_bytecode_env(cache: str) -> dict[str, str]:
    """The environment of an installed package: bytecode read from a cache (``cache``), not compiled.

    Under ``PYTHONDONTWRITEBYTECODE`` a source checkout is compiled on every import; every
    library's modules go to ``cache`` instead, written by a first untimed import of each.
    """
    env = dict(os.environ, PYTHONPYCACHEPREFIX=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def operations() -> dict[str, dict[str, Callable[[], Any]]]:
    """library -> {construct, from_dict, to_dict} for one assistant message with two tool calls."""
    ops: dict[str, dict[str, Callable[[], Any]]] = {}
    from agentmsg import ChatMessage, ToolCall

    def am_make() -> Any:
        return ChatMessage.assistant(TEXT, [ToolCall("call_1", "write_file", ARGS_A), ToolCall("call_2", "run", ARGS_B)])

    am = am_make()
    am_doc = am.to_dict()
    ops["agentmsg"] = {"construct": am_make, "from_dict": lambda: ChatMessage.from_dict(am_doc), "to_dict": am.to_dict}
    try:
        from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelResponse, TextPart, ToolCallPart
    except ImportError:
        pass
    else:
        def pa_make() -> Any:
            return ModelResponse(parts=[TextPart(TEXT), ToolCallPart("write_file", ARGS_A, "call_1"),
                                        ToolCallPart("run", ARGS_B, "call_2")])

        pa = [pa_make()]
        pa_doc = ModelMessagesTypeAdapter.dump_python(pa, mode="json")
        ops["pydantic-ai"] = {
            "construct": pa_make,  # dataclasses: nothing is checked here
            "from_dict": lambda: ModelMessagesTypeAdapter.validate_python(pa_doc),
            "to_dict": lambda: ModelMessagesTypeAdapter.dump_python(pa, mode="json"),
        }
    try:
        from langchain_core.messages import AIMessage
    except ImportError:
        pass
    else:
        def lc_make() -> Any:
            return AIMessage(content=TEXT, tool_calls=[{"name": "write_file", "args": ARGS_A, "id": "call_1"},
                                                       {"name": "run", "args": ARGS_B, "id": "call_2"}])

        lc = lc_make()
        lc_doc = lc.model_dump()
        ops["langchain-core"] = {"construct": lc_make, "from_dict": lambda: AIMessage.model_validate(lc_doc),
                                 "to_dict": lc.model_dump}
    try:
        from openai.types.chat import ChatCompletionMessage
    except ImportError:
        pass
    else:
        oa_doc = {"role": "assistant", "content": TEXT, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "write_file", "arguments": '{"path": "hello.py"}'}},
            {"id": "call_2", "type": "function", "function": {"name": "run", "arguments": '{"timeout": 30}'}}]}
        oa = ChatCompletionMessage.model_validate(oa_doc)
        ops["openai SDK"] = {"construct": lambda: ChatCompletionMessage(**oa_doc),
                             "from_dict": lambda: ChatCompletionMessage.model_validate(oa_doc),
                             "to_dict": lambda: oa.model_dump(exclude_unset=True)}
    return ops


def main() -> None:
    print(f"Python {sys.version.split()[0]}")
    print("\n## Installs and import CPU time (median of 10 fresh interpreters)")
    present = {}
    for lib, (dist, statement) in PEERS.items():
        reqs = requirements(dist) if lib != "agentmsg" else []
        if reqs is None:
            print(f"{lib}: not installed, skipped")
            continue
        version = metadata.version(dist) if lib != "agentmsg" else __import__("agentmsg").__version__
        present[lib] = (version, reqs, statement)
    times: dict[str, list[float]] = {lib: [] for lib in present}
    modules: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as cache:
        env = cached_bytecode_env(cache)
        for _, _, statement in present.values():
            import_cost(statement, env)  # fills the bytecode cache
        for _ in range(10):
            for lib, (_, _, statement) in present.items():
                ms, modules[lib] = import_cost(statement, env)
                times[lib].append(ms)
    for lib, (version, reqs, statement) in present.items():
        print(f"{lib:<15} {version:<12} {len(reqs):>3} packages installed with it  "
              f"{statistics.median(times[lib]):7.1f} ms CPU  {modules[lib]:>5} modules loaded  `{statement}`")

    print("\n## One assistant message with two tool calls (CPU time per operation, median of 5 interleaved rounds)")
    ops = operations()
    results: dict[tuple[str, str], list[float]] = {}
    for _ in range(5):
        for lib, table in ops.items():
            for op, fn in table.items():
                results.setdefault((lib, op), []).append(ns_per_op(fn))
    head = f"{'library':<15}" + "".join(f"{op:>12}" for op in ("construct", "from_dict", "to_dict"))
    print(head)
    print("-" * len(head))
    for lib in ops:
        print(f"{lib:<15}" + "".join(f"{fmt(statistics.median(results[(lib, op)])):>12}"
                                     for op in ("construct", "from_dict", "to_dict")))
    base = {op: statistics.median(results[("agentmsg", op)]) for op in ("construct", "from_dict", "to_dict")}
    print("\nagentmsg time / peer time (below 1: agentmsg is faster)")
    for lib in ops:
        if lib != "agentmsg":
            print(f"{lib:<15}" + "".join(f"{base[op] / statistics.median(results[(lib, op)]):>11.2f}×"
                                         for op in ("construct", "from_dict", "to_dict")))


if __name__ == "__main__":
    main()
