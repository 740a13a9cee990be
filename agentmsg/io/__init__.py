"""The modules that do I/O: files, tool execution, OCR, MCP servers, and the message store.

Everything else in agentmsg is pure computation on values; these modules touch the file system,
threads and processes, sockets and databases, and each is built to be pushed around by an
adversary (confined paths, bounded waits and buffers, the library's own errors). Import each by
name (``agentmsg.io.files``, ``agentmsg.io.store``, ...); this package imports none of them.
"""

from __future__ import annotations
