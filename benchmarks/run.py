"""Run every benchmark in one go (agentmsg beside pydantic v2, msgspec, langchain-core and the SDKs).

The first part, ``goals``, prints the goal table: each workload's ratio agentmsg / peer.

Run: python benchmarks/run.py [--record] [goals core schema providers records events ui processors validate]
Install the peers first for their columns: python -m pip install -e ".[bench]"
Each part runs in its own fresh interpreter, so import caches and warm-up do not leak between them.
``--record`` also appends what the parts printed to ``benchmarks/results.md``, under a heading
that names the date, the commit, the Python and the machine's load: the benchmarks' history.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PARTS = ["goals", "core", "schema", "providers", "records", "events", "ui", "processors", "validate"]
RESULTS = HERE / "results.md"


def _heading() -> str:
    try:
        commit = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    load = "%.1f" % os.getloadavg()[0] if hasattr(os, "getloadavg") else "unknown"
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"## {when}, commit {commit}\n\nPython {platform.python_version()}, {os.cpu_count()} CPUs, "
            f"load average {load} at the start.\n")


def main(argv: list[str]) -> int:
    record = "--record" in argv
    chosen = [a for a in argv if a != "--record"] or PARTS
    unknown = [part for part in chosen if not (HERE / f"bench_{part}.py").exists()]
    if unknown:
        print(f"no benchmark called {unknown[0]!r}; choose from {', '.join(PARTS)}", file=sys.stderr)
        return 2
    status = 0
    printed = [_heading()] if record else []
    for part in chosen:
        print(f"\n# {part}", flush=True)
        script = HERE / f"bench_{part}.py"
        if not record:
            status |= subprocess.run([sys.executable, str(script)]).returncode
            continue
        done = subprocess.run([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
        sys.stdout.write(done.stdout)
        status |= done.returncode
        printed.append(f"\n### {part}\n\n```text\n{done.stdout.strip()}\n```\n")
    if record:
        with RESULTS.open("a", encoding="utf-8") as out:
            out.write("\n" + "".join(printed))
        print(f"\nrecorded in {RESULTS}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
