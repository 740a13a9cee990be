"""A conversation's chat messages kept in SQLite (embedded) or PostgreSQL (shared by several processes).

The module lives in ``agentmsg.io.store`` with the other modules that do I/O; this path keeps
working.
"""

from __future__ import annotations

from .io.store import *  # noqa: F403
from .io.store import __all__ as __all__
