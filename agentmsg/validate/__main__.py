"""``python -m agentmsg.validate``: run the command-line checker."""

from . import main

if __name__ == "__main__":
    raise SystemExit(main())
