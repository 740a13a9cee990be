"""Benchmark ``python -m agentmsg.validate`` on JSON Lines against merely parsing them.

Run: python benchmarks/bench_validate.py          (pip install -e '.[bench]' for the peer rows)
     python benchmarks/bench_validate.py --big    (also streams a ~1 GB file; takes a few minutes)

A 100,000-line file of realistic chat messages (mixed roles, tool calls with arguments, tool
results, images as URLs) is timed four ways in the same run: ``json.loads`` alone on every line,
the full validate run (in-process, report to a null sink), and msgspec's and pydantic's
decode+validate of each line into equivalent models.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal, Optional, Union

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import msgspec_models, pydantic_models  # noqa: E402  (the same equivalent models)

from agentmsg.validate import main as validate  # noqa: E402
from agentmsg import ChatMessage  # noqa: E402

LINES = 100_000
WORDS = ("the file config agent model tool result error please check run write read build test "
         "deploy weather city search query table user data python script output line value").split()
TOOLS = {
    "get_weather": lambda r: {"city": r.choice(["Paris", "Lagos", "Osaka", "Lima"]), "unit": "celsius"},
    "write_file": lambda r: {"path": f"src/mod_{r.randrange(100)}.py", "content": _text(r, 30), "mode": "w"},
    "run_command": lambda r: {"command": ["pytest", "-q", f"tests/test_{r.randrange(50)}.py"], "timeout": 60},
    "search_docs": lambda r: {"query": _text(r, 6), "limit": r.randrange(1, 20), "filters": {"lang": "en"}},
}


def _text(r: random.Random, words: int) -> str:
    return " ".join(r.choice(WORDS) for _ in range(words)).capitalize() + "."


def realistic_lines(count: int = LINES, seed: int = 7) -> list[str]:
    """Return ``count`` JSON lines: conversations of user, assistant (with tool calls), tool messages."""
    r = random.Random(seed)
    lines: list[str] = []
    n = 0
    while len(lines) < count:
        if r.random() < 0.1:
            lines.append(json.dumps({"role": "system", "content": _text(r, r.randrange(10, 60))}))
        if r.random() < 0.3:
            user: dict[str, Any] = {"role": "user", "content": [
                {"type": "text", "text": _text(r, r.randrange(5, 40))},
                {"type": "image", "source": {"type": "url", "url": f"https://cdn.example.com/img/{r.randrange(10**6)}.png"}},
            ]}
        else:
            user = {"role": "user", "content": _text(r, r.randrange(3, 80))}
        lines.append(json.dumps(user))
        if r.random() < 0.5:
            calls = []
            for _ in range(r.choice((1, 1, 1, 2, 3))):
                n += 1
                name = r.choice(sorted(TOOLS))
                calls.append({"id": f"call_{n:08x}", "name": name, "arguments": TOOLS[name](r)})
            assistant: dict[str, Any] = {"role": "assistant", "tool_calls": calls}
            if r.random() < 0.5:
                assistant["content"] = _text(r, r.randrange(5, 30))
            lines.append(json.dumps(assistant))
            for call in calls:
                tool: dict[str, Any] = {"role": "tool", "tool_call_id": call["id"], "content": _text(r, r.randrange(5, 100))}
                if r.random() < 0.1:
                    tool["is_error"] = True
                lines.append(json.dumps(tool))
        lines.append(json.dumps({"role": "assistant", "content": _text(r, r.randrange(10, 120))}))
    return lines[:count]


def _best(fn: Any, runs: int) -> float:
    """Return the best wall time of ``runs`` calls of ``fn`` (seconds)."""
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _validate_file(path: str) -> None:
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        status = validate([path, "--quiet"])
    assert status == 0, "the benchmark file should be valid"


def main() -> None:
    runs = 5
    lines = realistic_lines()
    texts = lines
    raw = [line.encode() for line in lines]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "messages.jsonl")
        with open(path, "wb") as f:
            f.write(b"\n".join(raw) + b"\n")
        size = os.path.getsize(path)
        pyd, msp = pydantic_models(), msgspec_models()
        print(f"Python {sys.version.split()[0]}; {len(lines):,} lines, {size / 1e6:.1f} MB "
              f"({size / len(lines):.0f} bytes a line); best of {runs} runs")
        for name, mod in (("pydantic v2", pyd), ("msgspec", msp)):
            if mod is None:
                print(f"note: {name} is not installed; its row is skipped (pip install -e '.[bench]')")

        def loads_only() -> None:
            loads = json.loads
            for text in texts:
                loads(text)

        def read_and_loads() -> None:
            loads = json.loads
            with open(path, "rb") as f:
                for line in f:
                    loads(line)

        def loads_from_dict() -> None:
            loads, from_dict = json.loads, ChatMessage.from_dict
            for text in texts:
                from_dict(loads(text))

        cases: list[tuple[str, Any]] = [
            ("json.loads alone (lines in memory)", loads_only),
            ("read the file + json.loads", read_and_loads),
            ("json.loads + ChatMessage.from_dict (in memory)", loads_from_dict),
            ("agentmsg validate: full run (reads the file)", lambda: _validate_file(path)),
        ]
        if msp is not None:
            msgspec, MMessage, _ = msp
            decoder = msgspec.json.Decoder(MMessage)

            def msgspec_decode() -> None:
                decode = decoder.decode
                with open(path, "rb") as f:
                    for line in f:
                        decode(line)

            cases.append(("msgspec decode + validate (reads the file)", msgspec_decode))
        if pyd is not None:
            from pydantic import TypeAdapter

            adapter = TypeAdapter(pyd[1])

            def pydantic_validate() -> None:
                validate_json = adapter.validate_json
                with open(path, "rb") as f:
                    for line in f:
                        validate_json(line)

            def pydantic_in_memory() -> None:
                validate_json = adapter.validate_json
                for line in raw:
                    validate_json(line)

            cases.append(("pydantic v2 validate_json (reads the file)", pydantic_validate))
            cases.append(("pydantic v2 validate_json (lines in memory)", pydantic_in_memory))
        # Interleave the runs so that a busy machine slows every row alike.
        best = {name: float("inf") for name, _ in cases}
        for _ in range(runs):
            for name, fn in cases:
                best[name] = min(best[name], _best(fn, 1))
        base = best[cases[0][0]]
        print(f"\n## Validating JSON Lines (ns per line)\n{'operation':<50} {'ns/line':>9} {'x json.loads':>13}")
        print("-" * 74)
        for name, _ in cases:
            print(f"{name:<50} {best[name] / len(lines) * 1e9:>9,.0f} {best[name] / base:>12.2f}x")
        ours = best["agentmsg validate: full run (reads the file)"]
        print(f"\ntarget: validate <= 3x json.loads alone -> {ours / base:.2f}x")
        peer = best.get("pydantic v2 validate_json (reads the file)")
        if peer is not None:
            print(f"        ahead of pydantic -> validate / pydantic = {ours / peer:.2f}x")
    if "--big" in sys.argv[1:]:
        big_file()


def big_file(target: int = 1 << 30) -> None:
    """Stream a ~1 GB JSON Lines file through the real command; report time and peak memory."""
    import resource

    block = ("\n".join(realistic_lines(20_000, seed=11)) + "\n").encode()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "big.jsonl")
        with open(path, "wb") as f:
            for _ in range(target // len(block) + 1):
                f.write(block)
        size = os.path.getsize(path)
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "agentmsg.validate", "--quiet", path], cwd=ROOT,
                                capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        elapsed = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        scale = 1 if sys.platform == "darwin" else 1024
        print(f"\n## A {size / 2**30:.2f} GiB JSON Lines file through `python -m agentmsg.validate`")
        print(f"{result.stdout.strip()} (exit {result.returncode}) in {elapsed:.1f} s, "
              f"{size / 2**20 / elapsed:.0f} MiB/s; peak memory {max(peak, before) * scale / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
