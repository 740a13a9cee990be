"""What a turn does, told to its ``on_event`` callback as the socket events of ``agentmsg.events``.

The turn decides; the ``Reporter`` only says so, in the order the chat client expects:
``turn:start`` before the first event, per model answer ``reasoning:*`` and ``message:*`` (an
``AnswerReport`` opens and closes each part once), per tool call ``tool:message:start`` /
``update`` / ``complete`` with ``tool:artifact`` and ``tool:approval:request`` between, a
``progress`` per tool step, and one ``completion``. It makes the ids of the messages it reports.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._frozen import FrozenDict, thaw_json
from ..events import (
    Completion,
    Event,
    MessageChunk,
    MessageEnd,
    MessageStart,
    Progress,
    ReasoningChunk,
    ReasoningEnd,
    ReasoningStart,
    ToolApprovalRequest,
    ToolArtifact,
    ToolMessageComplete,
    ToolMessageStart,
    ToolMessageUpdate,
    TurnStart,
)
from ..io.mcp import McpToolResult
from ..messages import ChatMessage
from ..records import RequestedToolCall


class Reporter:
    """Emit one turn's socket events to ``on_event`` (nothing when it is None).

    ``tool_ids`` maps each tool call's id to the id of its tool message in the events.
    """

    def __init__(
        self,
        on_event: Callable[[Event], None] | None,
        turn_id: str,
        session_id: str | None,
        new_id: Callable[[], str],
        clock: Callable[[], str],
    ) -> None:
        self.on_event = on_event
        self.turn_id = turn_id
        self.session_id = session_id
        self.new_id = new_id
        self.clock = clock
        self.tool_ids: dict[str, str] = {}
        self._running: set[str] = set()
        self._announced = False

    def emit(self, event: Event) -> None:
        """Pass ``event`` on, after ``turn:start`` if it is the turn's first."""
        if self.on_event is not None:
            if not self._announced:
                self._announced = True
                self.on_event(TurnStart(turn_id=self.turn_id, session_id=self.session_id))
            self.on_event(event)

    def answer(self) -> AnswerReport:
        """Return the reporter of one model answer."""
        return AnswerReport(self)

    # --- tool calls --------------------------------------------------------------------------

    def tool_pending(self, item: RequestedToolCall) -> None:
        """Announce a call the model asked for, under a new tool message."""
        tool_id = self.tool_ids[item.id] = self.new_id()
        self.emit(ToolMessageStart(id=tool_id, tool_name=item.name, title=f"Calling {item.name}", status="pending",
                                   timestamp=self.clock(), arguments=thaw_json(item.call.arguments), tool_call_id=item.id))

    def tool_running(self, item: RequestedToolCall) -> None:
        """Mark a call as running (once)."""
        if item.id not in self._running:
            self._running.add(item.id)
            self.emit(ToolMessageUpdate(id=self.tool_ids[item.id], patch=FrozenDict({"status": "running"})))

    def tool_progress(self, call_id: str, done: float, total: float | None, note: str | None) -> None:
        """Pass on an MCP server's progress for the tool call ``call_id`` (any thread)."""
        tool_id = self.tool_ids.get(call_id)
        if tool_id is None:
            return
        text = f"{done:g}/{total:g}" if total is not None else f"{done:g}"
        self.emit(ToolMessageUpdate(id=tool_id, patch=FrozenDict({"progressText": f"{text} {note}" if note else text})))

    def tools_step(self, steps: int, max_steps: int, calls: int) -> None:
        """Report the overall progress: step ``steps`` of at most ``max_steps`` runs ``calls`` calls."""
        done = min(99, round(100 * steps / max_steps))
        self.emit(Progress(status="running", progress=done, message=f"Step {steps}: Running {calls} tool call(s)"))

    def approval_requested(self, item: RequestedToolCall) -> None:
        """Ask the client for a person's decision on a call."""
        self.emit(ToolApprovalRequest(id=self.tool_ids[item.id], turn_id=self.turn_id, tool_name=item.name,
                                      arguments=thaw_json(item.call.arguments)))

    def tool_answered(self, item: RequestedToolCall, message: ChatMessage, mcp: McpToolResult | None = None,
                      shown: str | None = None) -> None:
        """Report a call's tool message (a result, or a denial): its content, MCP artifacts, and end.

        ``shown`` replaces the text of a failed call's message for the client (the model reads
        the message; people see ``error_summary``).
        """
        tool_id = self.tool_ids[item.id]
        text = message.text if shown is None else shown
        self.emit(ToolMessageUpdate(id=tool_id, patch=FrozenDict({"content": text})))
        if mcp is not None:
            for index, resource in enumerate(mcp.resources):
                artifact = {"id": f"{item.id}:resource:{index}", "type": "mcp_resource", "content": thaw_json(resource)}
                self.emit(ToolArtifact(message_id=tool_id, artifact=artifact))  # type: ignore[arg-type]  # ToolArtifact freezes the dict
            if mcp.structured is not None:
                artifact = {"id": f"{item.id}:structured", "type": "json", "content": thaw_json(mcp.structured)}
                self.emit(ToolArtifact(message_id=tool_id, artifact=artifact))  # type: ignore[arg-type]  # ToolArtifact freezes the dict
        if message.is_error:
            self.tool_failed(item, text or "the tool failed")
        else:
            self.emit(ToolMessageComplete(id=tool_id, status="completed", timestamp=self.clock()))

    def tool_failed(self, item: RequestedToolCall, error: str) -> None:
        """End a call's tool message with status ``error`` and a short ``error`` text."""
        self.emit(ToolMessageComplete(id=self.tool_ids[item.id], status="error", timestamp=self.clock(),
                                      error=_short(error)))

    # --- the end -----------------------------------------------------------------------------

    def completed(self, steps: int, message: ChatMessage | None) -> None:
        """Send the ``completion`` of a turn that ended well."""
        result: dict[str, Any] = {"steps": steps, "text": message.text if message is not None else ""}
        self.emit(Completion.ok(result, turn_id=self.turn_id))

    def failed(self, error: str, code: str | None, cancelled: bool) -> None:
        """Send the ``completion`` of a turn that failed or was cancelled."""
        self.emit(Completion.failed(error, code=code, turn_id=self.turn_id, cancelled=cancelled))


class AnswerReport:
    """The events of one model answer as it arrives: its readable reasoning and its text.

    Each reasoning part and the text open once and end (``end``) before what follows; ``said``
    keeps the text so far.
    """

    __slots__ = ("_report", "_message_id", "_reasoning_id", "_reasoning_index", "said")

    def __init__(self, report: Reporter) -> None:
        self._report = report
        self._message_id: str | None = None
        self._reasoning_id: str | None = None
        self._reasoning_index = 0
        self.said: list[str] = []

    def text(self, piece: str) -> None:
        """Report a piece of the answer's text."""
        self._end_reasoning()
        if self._message_id is None:
            self._message_id = self._report.new_id()
            self._report.emit(MessageStart(id=self._message_id))
        self.said.append(piece)
        self._report.emit(MessageChunk(id=self._message_id, chunk=piece))

    def reasoning(self, piece: str, index: int) -> None:
        """Report a piece of reasoning part ``index``."""
        if self._reasoning_id is not None and self._reasoning_index != index:
            self._end_reasoning()
        if self._reasoning_id is None:
            self._reasoning_id, self._reasoning_index = self._report.new_id(), index
            self._report.emit(ReasoningStart(id=self._reasoning_id))
        self._report.emit(ReasoningChunk(id=self._reasoning_id, chunk=piece))

    def end(self) -> None:
        """End what is open: the reasoning, then the text."""
        self._end_reasoning()
        if self._message_id is not None:
            self._report.emit(MessageEnd(id=self._message_id))
            self._message_id = None

    def _end_reasoning(self) -> None:
        if self._reasoning_id is not None:
            self._report.emit(ReasoningEnd(id=self._reasoning_id))
            self._reasoning_id = None


def _short(text: str, limit: int = 500) -> str:
    """Return ``text`` cut to ``limit`` characters for an event's ``error`` (a note for the user, no stack)."""
    text = text.strip() or "failed"
    return text if len(text) <= limit else text[: limit - 1] + "…"
