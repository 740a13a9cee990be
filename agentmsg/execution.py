"""Tool execution: a registry of tools, an approval policy, and an executor that fills in results.

The module lives in ``agentmsg.io.execution`` with the other modules that do I/O; this path keeps
working.
"""

from __future__ import annotations

from .io.execution import *  # noqa: F403
from .io.execution import __all__ as __all__
