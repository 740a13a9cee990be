"""``python -m agentmsg.validate --jobs N`` against one process on a 100 MB agent log.

Run: python benchmarks/bench_jobs.py [--size MB] [--jobs N] [--rounds R] [LOG]

On a shared machine wall time depends on the neighbours, so each run also reports CPU time: the
parent's own (it reads the first line, cuts the file and writes the report) and its workers'.
``ideal`` is the wall time that CPU would take on N otherwise idle cores (the parent's part,
then the workers' part spread over N cores); the load average is printed beside every run.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

PROBE = """
import resource, sys
from agentmsg.validate import main
status = main(sys.argv[1:])
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(status, me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime, file=sys.stderr)
"""


def once(log: str, jobs: int) -> tuple[float, float, float]:
    """Return (wall s, parent CPU s, workers' CPU s) of one run."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", PROBE, "--quiet", "--jsonl", "--jobs", str(jobs), log],
                            capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - start
    status, parent, workers = result.stderr.split()[-3:]
    assert status == "0", result.stderr
    return wall, float(parent), float(workers)


def main() -> int:
    args = sys.argv[1:]
    size = int(args[args.index("--size") + 1]) if "--size" in args else 100
    jobs = int(args[args.index("--jobs") + 1]) if "--jobs" in args else 2
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 3
    given = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or not args[i - 1].startswith("--"))]
    with tempfile.TemporaryDirectory() as tmp:
        if given:
            log = given[0]
        else:
            from bench_goals import agent_log

            log = os.path.join(tmp, "agent.jsonl")
            agent_log(log, size << 20)
        print(f"{os.path.getsize(log) / (1 << 20):.0f} MiB JSON Lines log; {os.cpu_count()} cores; "
              f"{rounds} interleaved rounds of --jobs 1 and --jobs {jobs}")
        results: dict[int, list[tuple[float, float, float]]] = {1: [], jobs: []}
        for _ in range(rounds):
            for n in (1, jobs):
                load = os.getloadavg()[0]
                wall, parent, workers = once(log, n)
                results[n].append((wall, parent, workers))
                print(f"  --jobs {n}: wall {wall:5.2f} s, CPU parent {parent:5.2f} s + workers {workers:5.2f} s "
                      f"(load average before: {load:.1f})", flush=True)
        serial_wall = statistics.median(r[0] for r in results[1])
        serial_cpu = statistics.median(r[1] + r[2] for r in results[1])
        wall = statistics.median(r[0] for r in results[jobs])
        cpu = statistics.median(r[1] + r[2] for r in results[jobs])
        ideal = statistics.median(r[1] + r[2] / jobs for r in results[jobs])
        print(f"median wall: {serial_wall:.2f} s -> {wall:.2f} s ({serial_wall / wall:.2f}x, on the loaded machine)")
        print(f"median CPU:  {serial_cpu:.2f} s -> {cpu:.2f} s (+{100 * (cpu / serial_cpu - 1):.0f}% for "
              f"starting workers and cutting the file)")
        print(f"ideal wall on {jobs} idle cores: {serial_cpu:.2f} s -> {ideal:.2f} s ({serial_cpu / ideal:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
