"""``python -m agentmsg.validate``: run the command-line checker."""

from __future__ import annotations

from ._cli import main

if __name__ == "__main__":
    raise SystemExit(main())
