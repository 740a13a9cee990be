"""``python -m agentmsg.validate --jobs N`` against one process on a 100 MB agent log.

Run: python benchmarks/bench_jobs.py [--size MB] [--jobs N] [--rounds R] [--text] [LOG]

On a shared machine wall time depends on the neighbours, so each run also reports CPU time: the
parent's own (it starts, reads the first line, checks pieces and writes the report), the part of
it spent checking pieces (the rest is its serial part: nothing else runs meanwhile but the fork
server starting), and its workers' (with the fork server's). The workers are children of a fork
server, which outlives the command: on Linux this script makes itself their reaper
(``PR_SET_CHILD_SUBREAPER``), so their CPU is counted. ``ideal`` is the wall time that CPU would
take on N otherwise idle cores: the parent's serial part, then an N-th of the rest.
``--text`` builds a text-heavy log instead of the image-heavy one.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

PROBE = """
import resource, sys, time
from agentmsg.validate import _jobs, main
pieces = 0.0  # the CPU the command spends checking pieces itself
work = _jobs._work
def timed(*args):
    global pieces
    began = time.process_time()
    try:
        return work(*args)
    finally:
        pieces += time.process_time() - began
_jobs._work = timed
status = main(sys.argv[1:])
me = resource.getrusage(resource.RUSAGE_SELF)
print(status, me.ru_utime + me.ru_stime, pieces, file=sys.stderr)
"""


def _reap_orphans() -> bool:
    """Adopt the processes our children leave behind (Linux); tell whether it worked."""
    try:
        import ctypes

        return bool(sys.platform.startswith("linux") and ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def once(log: str, jobs: int) -> tuple[float, float, float, float]:
    """Return (wall s, parent CPU s, workers' CPU s, the parent's CPU s on pieces) of one run."""
    before = _children_cpu()
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", PROBE, "--quiet", "--jsonl", "--jobs", str(jobs), log],
                            capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - start
    while True:  # the fork server, orphaned when the command ended, and so adopted by us
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    status, parent, pieces = result.stderr.split()[-3:]
    assert status == "0", result.stderr
    return wall, float(parent), _children_cpu() - before - float(parent), float(pieces)


def main() -> int:
    args = sys.argv[1:]
    size = int(args[args.index("--size") + 1]) if "--size" in args else 100
    jobs = int(args[args.index("--jobs") + 1]) if "--jobs" in args else 2
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 3
    valued = ("--size", "--jobs", "--rounds")
    given = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] not in valued)]
    with tempfile.TemporaryDirectory() as tmp:
        if given:
            log = given[0]
        else:
            from bench_goals import agent_log, text_log

            log = os.path.join(tmp, "agent.jsonl")
            (text_log if "--text" in args else agent_log)(log, size << 20)
        if not _reap_orphans():
            print("(the workers' CPU is not counted here: they are not this script's descendants)")
        print(f"{os.path.getsize(log) / (1 << 20):.0f} MiB JSON Lines log; {os.cpu_count()} cores; "
              f"{rounds} interleaved rounds of --jobs 1 and --jobs {jobs}")
        results: dict[int, list[tuple[float, float, float, float]]] = {1: [], jobs: []}
        for _ in range(rounds):
            for n in (1, jobs):
                load = os.getloadavg()[0]
                wall, parent, workers, pieces = once(log, n)
                results[n].append((wall, parent, workers, pieces))
                serial = f" (serial {parent - pieces:4.2f} s)" if n > 1 else ""
                print(f"  --jobs {n}: wall {wall:5.2f} s, CPU parent {parent:5.2f} s{serial} + workers {workers:5.2f} s "
                      f"(load average before: {load:.1f})", flush=True)
        serial_wall = statistics.median(r[0] for r in results[1])
        serial_cpu = statistics.median(r[1] + r[2] for r in results[1])
        wall = statistics.median(r[0] for r in results[jobs])
        cpu = statistics.median(r[1] + r[2] for r in results[jobs])
        serial_part = statistics.median(r[1] - r[3] for r in results[jobs])
        ideal = statistics.median(r[1] - r[3] + (r[2] + r[3]) / jobs for r in results[jobs])
        print(f"median wall: {serial_wall:.2f} s -> {wall:.2f} s ({serial_wall / wall:.2f}x, "
              f"load average now {os.getloadavg()[0]:.1f})")
        print(f"median CPU:  {serial_cpu:.2f} s -> {cpu:.2f} s (+{100 * (cpu / serial_cpu - 1):.0f}% for "
              f"starting workers, and two processes side by side each running slower); the parent's serial part "
              f"{serial_part:.2f} s")
        print(f"ideal wall on {jobs} idle cores: {serial_cpu:.2f} s -> {ideal:.2f} s ({serial_cpu / ideal:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
