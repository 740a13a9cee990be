"""Run every benchmark in one go (agentmsg beside pydantic v2, msgspec, langchain-core and the SDKs).

The first part, ``goals``, prints the goal table of issue 19 (agentmsg / peer CPU-time ratios).

Run: python benchmarks/run.py [core schema providers records events ui processors validate]
Install the peers first for their columns: python -m pip install -e ".[bench]"
Each part runs in its own fresh interpreter, so import caches and warm-up do not leak between them.
"""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PARTS = ["goals", "core", "schema", "providers", "records", "events", "ui", "processors", "validate"]


def main() -> int:
    chosen = sys.argv[1:] or PARTS
    status = 0
    for part in chosen:
        script = HERE / f"bench_{part}.py"
        if not script.exists():
            print(f"no benchmark called {part!r}; choose from {', '.join(PARTS)}", file=sys.stderr)
            return 2
        print(f"\n# {part}", flush=True)
        status |= subprocess.run([sys.executable, str(script)]).returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
