"""File references: read the files (or lines) a conversation points at, within a workspace.

The module lives in ``agentmsg.io.files`` with the other modules that do I/O; this path keeps
working.
"""

from __future__ import annotations

from .io.files import *  # noqa: F403
from .io.files import __all__ as __all__
