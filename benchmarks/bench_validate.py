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

from agentmsg.validate import main as validate  # noqa: E402

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
