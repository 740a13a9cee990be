"""The one translator of a turn's events, which each front-end protocol speaks in its own words.

Theory of operation: ``Translator.translate`` keeps the state both protocols need (the run has
started or finished, the open text message, each tool message's live view, the calls waiting
for a person, whether the current model call's tool calls have been answered) and calls one
hook per thing that happened (``_on_text_start``, ``_on_tool_complete``, ``_on_success`` ...).
A protocol module subclasses it and implements the hooks, each returning that protocol's
events; the order rules live here, once.

A tool call's input is open from a ``tool:message:start`` without ``arguments`` until the next
event that is not a ``tool:message:args`` of it (each piece goes out as it comes); then the
pieces, parsed (at most ``MAX_ARGUMENTS`` characters), end the input.

A *step* is one model call and what its tool calls did: the step ends when a tool call of it
has been answered and the next model call starts talking (reasoning, text or a new tool call).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._frozen import thaw_json
from .._json import loads_strict
from ..context import DENIED_RESULT
from ..errors import ValidationError
from ..events import Event, decode
from ..events.reducer import MAX_ARGUMENTS

__all__ = ["Translator", "Out", "UNFINISHED"]

UNFINISHED = "the turn ended before the tool finished"
"""The error of a tool call still open when its run ends (a cancelled turn says its own reason)."""

Out = list[dict[str, Any]]


class Translator:
    """The state machine of one run; subclasses supply the protocol's words through the ``_on_*`` hooks."""

    __slots__ = ("started", "finished", "_text", "_tools", "_streaming", "_streamed_size", "_pending", "_asked", "_answered",
                 "_waiting", "_client")
    _UNIT = "run"  # what error messages call one translation ("run", "stream")

    def __init__(self) -> None:
        self.started = False
        self.finished = False
        self._text: str | None = None  # the open text message
        self._tools: dict[str, dict[str, Any]] = {}  # tool message id -> its live view
        self._streaming: tuple[str, list[str]] | None = None  # the tool call whose arguments stream, and them so far
        self._streamed_size = 0
        self._pending: list[Any] = []  # the tool:approval:request events of this run
        self._asked: set[str] = set()  # the tool messages whose approval an earlier run asked (and this one answers)
        self._answered = False  # a tool call of the current step has its result
        self._waiting: list[str] = []  # the tool calls this run leaves for the client to run (close)
        self._client: set[str] = set()  # the tool calls an earlier run left for the client (and this one answers)

    # -- what both protocols do -----------------------------------------------------------------

    def translate(self, event: Event) -> Out:
        """Return the protocol's events for one agentmsg event (none for events it has no use for)."""
        if self.finished:
            raise ValidationError(f"the {self._UNIT} has finished: no more events", "event", "protocol")
        out = [] if self.started else self._begin()
        e: Any = event  # one of the Event classes; which one its name says
        name = e.EVENT
        if self._streaming is not None and not (name == "tool:message:args" and e.id == self._streaming[0]):
            self._end_input(out)
        if name == "message:start":
            self._end_text(out)
            self._step(out)
            self._text = e.id
            out += self._on_text_start(e.id, e.content)
        elif name == "message:chunk":
            if e.id != self._text:
                raise ValidationError("no open text message has this id", "id", "protocol")
            if e.chunk:
                out += self._on_text_delta(e.id, e.chunk)
        elif name == "message:end":
            if e.id == self._text:
                self._end_text(out)
        elif name == "reasoning:start":
            self._step(out)
            out += self._on_reasoning_start(e.id)
        elif name == "reasoning:chunk":
            if e.chunk:
                out += self._on_reasoning_delta(e.id, e.chunk)
        elif name == "reasoning:end":
            out += self._on_reasoning_end(e.id)
        elif name == "tool:message:start":
            self._end_text(out)
            self._step(out)
            self._tools[e.id] = {"toolName": e.tool_name, "status": e.status, "title": e.title, "content": e.content,
                                 "progressText": e.progress_text}
            out += self._on_tool_start(e)
            arguments = getattr(e, "arguments", None)
            if arguments is None:  # the arguments may stream (tool:message:args) until the next other event
                self._streaming, self._streamed_size = (e.id, []), 0
            else:
                out += self._on_tool_input(e.id, thaw_json(arguments), False)
        elif name == "tool:message:args":
            if self._streaming is None:
                self._view(e.id)
                raise ValidationError("the tool call's arguments have ended: tool:message:args comes right after "
                                      "tool:message:start", "id", "protocol")
            self._streamed_size += len(e.chunk)
            if self._streamed_size > MAX_ARGUMENTS:
                raise ValidationError(f"the streamed arguments must be at most {MAX_ARGUMENTS} characters", "chunk",
                                      "size")
            self._streaming[1].append(e.chunk)
            if e.chunk:
                out += self._on_tool_args(e.id, e.chunk)
        elif name == "tool:message:update":
            view = self._view(e.id)
            view.update(e.patch)
            out += self._on_tool_update(e.id, view)
        elif name == "tool:message:complete":
            view = self._view(e.id)
            error = None
            if e.status == "error":
                error = getattr(e, "error", None) or view["content"] or "the tool failed"
            out += self._complete_tool(e.id, e.status, error)
        elif name == "tool:artifact":
            out += self._on_artifact(e)
        elif name == "progress":
            out += self._on_progress(e)
        elif name == "tool:approval:request":
            self._pending.append(e)
            out += self._on_approval(e)
        elif name == "completion":
            self._end_text(out)
            cancelled = not e.success and (getattr(e, "cancelled", None) or getattr(e, "code", None) == "cancelled")
            self._end_tools(out, e.error if cancelled else UNFINISHED)
            self.finished = True
            if e.success:
                out += self._on_success(e)
            else:
                out += self._on_cancelled(e) if cancelled else self._on_failure(e)
            self._pending = []
        return out  # turn:start, chat:* and unknown events add nothing beyond the start

    def translate_wire(self, name: str, payload: Any) -> Out:
        """Return the protocol's events for a wire pair ``(event_name, payload)`` (decoded and checked first)."""
        return self.translate(decode(name, payload, sender="server"))

    def close(self, waiting: Iterable[str] = ()) -> Out:
        """End a run whose events stopped: paused for approvals or for the client's tools, or gone without ``completion``.

        ``waiting`` names the tool messages whose calls the client runs (the turn waits for their results).
        """
        if self.finished:
            return []
        out = [] if self.started else self._begin()
        self._end_text(out)
        if self._streaming is not None:
            self._end_input(out)
        self._waiting = [tool_id for tool_id in waiting if self._view(tool_id)["status"] not in ("completed", "error")]
        if not self._pending and not self._waiting:
            self._end_tools(out, UNFINISHED)
        self.finished = True
        out += self._on_paused() if self._pending or self._waiting else self._on_incomplete()
        return out

    def _reopen(self, path: str) -> None:
        """Make ready the next run of one that paused for approvals or the client's tools (its tool calls stay known)."""
        if not self.finished or not (self._pending or self._waiting):
            raise ValidationError(f"only a {self._UNIT} that paused for an approval or the client's tools can be resumed",
                                  path, "protocol")
        self.finished = False
        self.started = False
        self._asked.update(e.id for e in self._pending)
        self._client.update(self._waiting)
        self._pending, self._waiting = [], []

    def _begin(self) -> Out:
        self.started = True
        return self._on_begin()

    def _end_text(self, out: Out) -> None:
        if self._text is not None:
            out += self._on_text_end(self._text)
            self._text = None

    def _end_input(self, out: Out) -> None:
        assert self._streaming is not None
        tool_id, pieces = self._streaming
        self._streaming = None
        arguments: Any = None
        if pieces:
            try:
                arguments = loads_strict("".join(pieces))
            except ValidationError:  # cut off or not JSON: the call shows no arguments
                arguments = None
        out += self._on_tool_input(tool_id, arguments if isinstance(arguments, dict) else None, True)

    def _complete_tool(self, tool_id: str, status: str, error: str | None) -> Out:
        view = self._tools[tool_id]
        view["status"] = status
        self._answered = True
        return self._on_tool_complete(tool_id, view, error, view["content"].startswith(DENIED_RESULT))

    def _end_tools(self, out: Out, error: str) -> None:
        """End the tool calls still open when the run ends: each failed with ``error``."""
        for tool_id, view in self._tools.items():
            if view["status"] not in ("completed", "error"):
                out += self._complete_tool(tool_id, "error", error)

    def _step(self, out: Out) -> None:
        if self._answered:
            self._answered = False
            out += self._on_next_step()

    def _view(self, tool_id: str) -> dict[str, Any]:
        view = self._tools.get(tool_id)
        if view is None:
            raise ValidationError(f"names no tool message of this {self._UNIT}", "id", "unknown")
        return view

    # -- the protocol's words: each hook returns the events to send ------------------------------

    def _on_next_step(self) -> Out:
        return []

    def _on_begin(self) -> Out: raise NotImplementedError
    def _on_text_start(self, message_id: str, content: str) -> Out: raise NotImplementedError
    def _on_text_delta(self, message_id: str, delta: str) -> Out: raise NotImplementedError
    def _on_text_end(self, message_id: str) -> Out: raise NotImplementedError
    def _on_reasoning_start(self, reasoning_id: str) -> Out: raise NotImplementedError
    def _on_reasoning_delta(self, reasoning_id: str, delta: str) -> Out: raise NotImplementedError
    def _on_reasoning_end(self, reasoning_id: str) -> Out: raise NotImplementedError
    def _on_tool_start(self, event: Any) -> Out: raise NotImplementedError
    def _on_tool_args(self, tool_id: str, chunk: str) -> Out: raise NotImplementedError
    # arguments: the call's (None when unknown); streamed: they came as tool:message:args
    def _on_tool_input(self, tool_id: str, arguments: dict[str, Any] | None, streamed: bool) -> Out:
        raise NotImplementedError
    def _on_tool_update(self, tool_id: str, view: dict[str, Any]) -> Out: raise NotImplementedError
    # error: the failure's text (None when the call completed); denied: the content is a denial's
    def _on_tool_complete(self, tool_id: str, view: dict[str, Any], error: str | None, denied: bool) -> Out:
        raise NotImplementedError
    def _on_artifact(self, event: Any) -> Out: raise NotImplementedError
    def _on_progress(self, event: Any) -> Out: raise NotImplementedError
    def _on_approval(self, event: Any) -> Out: raise NotImplementedError
    def _on_success(self, event: Any) -> Out: raise NotImplementedError
    def _on_cancelled(self, event: Any) -> Out: raise NotImplementedError
    def _on_failure(self, event: Any) -> Out: raise NotImplementedError
    def _on_paused(self) -> Out: raise NotImplementedError
    def _on_incomplete(self) -> Out: raise NotImplementedError
