"""The approvals this process made: the only ``approved`` marks an executor trusts by default.

An ``approved`` mark on a ``ToolRequest`` is data, and data can come from anywhere (storage, a
client). ``ToolRequest.with_approval`` (and so ``approve``, ``deny`` and ``Context.approve``)
notes here the exact call it approved: request id, call id, name and arguments. The executor
runs an ``approved`` call only if it is noted here (or its policy says ``auto``, or the caller
passes ``trust_approvals=True``), and an approval is used once. The table is bounded: when full,
the oldest approvals are forgotten, and a forgotten approval goes back to ``pending`` (it asks
again, it never runs unasked).

>>> from types import SimpleNamespace as Call  # a ToolCall: id, name, arguments
>>> call = Call(id="c1", name="ls", arguments=())
>>> note("q", call, "approved"); is_noted("q", call), is_noted("q", Call(id="c1", name="ls", arguments=(1,)))
(True, False)
>>> consume("q", call); is_noted("q", call)
False
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

__all__ = ["note", "is_noted", "consume"]

_MAX = 65_536
_lock = threading.Lock()
_noted: OrderedDict[tuple[str, str, str, Any], None] = OrderedDict()


def _key(request_id: str, call: Any) -> tuple[str, str, str, Any]:
    return (request_id, call.id, call.name, call.arguments)


def note(request_id: str, call: Any, approval: str) -> None:
    """Record that this process set ``call``'s approval (only ``approved`` is kept)."""
    key = _key(request_id, call)
    with _lock:
        if approval == "approved":
            _noted[key] = None
            _noted.move_to_end(key)
            while len(_noted) > _MAX:
                _noted.popitem(last=False)
        else:
            _noted.pop(key, None)


def is_noted(request_id: str, call: Any) -> bool:
    """Return True if this process approved exactly this call and has not used the approval."""
    with _lock:
        return _key(request_id, call) in _noted


def consume(request_id: str, call: Any) -> None:
    """Forget the approval of ``call``: it is being run."""
    with _lock:
        _noted.pop(_key(request_id, call), None)
