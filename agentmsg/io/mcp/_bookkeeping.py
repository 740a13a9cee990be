"""What an MCP client keeps track of: its requests waiting for a reply, and the resources it subscribed to."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

from .protocol import McpError, ProgressCallback


class Waiter:
    """One request's caller, waiting on ``event`` for ``reply`` or ``error``."""

    __slots__ = ("event", "reply", "error", "on_progress")

    def __init__(self, on_progress: ProgressCallback | None) -> None:
        self.event = threading.Event()
        self.reply: dict[str, Any] | None = None
        self.error: McpError | None = None
        self.on_progress = on_progress

    def fail(self, error: McpError) -> None:
        """Wake the caller with ``error``."""
        self.error = error
        self.event.set()


class PendingRequests:
    """Number requests and hold each one's ``Waiter`` until its reply, an error or a cancellation."""

    __slots__ = ("_lock", "_waiting", "_next_id")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[int, Waiter] = {}
        self._next_id = 1

    def add(self, on_progress: ProgressCallback | None) -> tuple[int, Waiter]:
        """Return a new request id and the ``Waiter`` its reply will wake."""
        waiter = Waiter(on_progress)
        with self._lock:
            request_id = self._next_id
            self._next_id += 1
            self._waiting[request_id] = waiter
        return request_id, waiter

    def get(self, request_id: object) -> Waiter | None:
        """Return the waiter of ``request_id`` (any JSON value), or None when nobody waits for it."""
        with self._lock:
            return self._waiting.get(request_id) if isinstance(request_id, int) else None

    def take(self, request_id: object) -> Waiter | None:
        """Remove and return the waiter of ``request_id``, or None when nobody waits for it any more."""
        with self._lock:
            return self._waiting.pop(request_id, None) if isinstance(request_id, int) else None

    def fail_all(self, error: McpError) -> bool:
        """Fail every waiting request with ``error``; return whether one waited."""
        with self._lock:
            waiting, self._waiting = self._waiting, {}
        for waiter in waiting.values():
            waiter.fail(error)
        return bool(waiting)


class Subscriptions:
    """The subscribed resources' URIs, each with a version that every update notification bumps."""

    __slots__ = ("_lock", "_versions")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._versions: dict[str, int] = {}

    def add(self, uri: str) -> bool:
        """Start counting updates of ``uri``; return whether it was not counted yet."""
        with self._lock:
            fresh = uri not in self._versions
            self._versions.setdefault(uri, 0)
        return fresh

    def drop(self, uri: str) -> None:
        with self._lock:
            self._versions.pop(uri, None)

    def updated(self, uri: object) -> None:
        """Count an update of ``uri`` (any JSON value) if it is subscribed."""
        with self._lock:
            if isinstance(uri, str) and uri in self._versions:
                self._versions[uri] += 1

    def all_updated(self) -> list[str]:
        """Count an update of every subscribed resource (a new session may have missed one); return their URIs."""
        with self._lock:
            for uri in self._versions:
                self._versions[uri] += 1
            return list(self._versions)

    def version(self, uri: str) -> int:
        with self._lock:
            return self._versions.get(uri, 0)


def weak_callback(method: Callable[..., None]) -> Callable[..., None]:
    """Return a callback that calls ``method`` while its object lives (threads must not keep it)."""
    ref = weakref.WeakMethod(method)

    def call(*args: Any) -> None:
        target = ref()
        if target is not None:
            target(*args)

    return call
