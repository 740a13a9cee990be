"""What a turn does, told to its ``on_event`` callback as the socket events of ``agentmsg.events``.

The turn decides; the ``Reporter`` only says so, in the order the chat client expects:
``turn:start`` before the first event, per model answer ``reasoning:*`` and ``message:*`` (an
``AnswerReport`` opens and closes each part once), per tool call ``tool:message:start`` /
``update`` / ``complete`` with ``tool:artifact`` and ``tool:approval:request`` between, a
``progress`` per tool step, and one ``completion``. It makes the ids of the messages it reports.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
    ToolMessageArgs,
    ToolMessageComplete,
    ToolMessageStart,
    ToolMessageUpdate,
    TurnStart,
    encode,
)
from ..events.journal import JOURNAL_EVENTS
from ..io.mcp import McpToolResult
from ..messages import ChatMessage
from ..records import RequestedToolCall
from ..streaming import ToolCallDelta


class Reporter:
    """Emit one turn's socket events to ``on_event`` (nothing when it is None).

    ``tool_ids`` maps each tool call's id to the id of its tool message in the events. With
    ``journal``, the events that change a history (``JOURNAL_EVENTS``) are also kept, as wire
    pairs, until ``take_journal``: the turn saves them beside its messages.
    """

    def __init__(
        self,
        on_event: Callable[[Event], None] | None,
        turn_id: str,
        session_id: str | None,
        new_id: Callable[[], str],
        clock: Callable[[], str],
        journal: bool = False,
    ) -> None:
        self.on_event = on_event
        self.turn_id = turn_id
        self.session_id = session_id
        self.new_id = new_id
        self.clock = clock
        self.tool_ids: dict[str, str] = {}
        self.streamed: list[tuple[str, str]] = []  # (tool message id, name) of the calls the last answer streamed
        self._running: set[str] = set()
        self._announced = False
        self._journaling = journal
        self._journal: list[list[Any]] = []
        self._journal_lock = threading.Lock()  # MCP progress is reported from the threads that run the calls
        self._held: list[Event] | None = None

    def emit(self, event: Event) -> None:
        """Pass ``event`` on, after ``turn:start`` if it is the turn's first (kept back while ``held``)."""
        if self._journaling and event.EVENT in JOURNAL_EVENTS:
            with self._journal_lock:
                self._journal.append(list(encode(event)))
        if self._held is not None:
            self._held.append(event)
        else:
            self._deliver(event)

    def _deliver(self, event: Event) -> None:
        if self.on_event is not None:
            if not self._announced:
                self._announced = True
                self.on_event(TurnStart(turn_id=self.turn_id, session_id=self.session_id))
            self.on_event(event)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Keep the events emitted in the block back until it ends (their journal is saved first)."""
        self._held = []
        try:
            yield
        finally:
            held, self._held = self._held, None
            for event in held:
                self._deliver(event)

    def take_journal(self, *, text: bool) -> list[list[Any]]:
        """Return the events kept since the last call; ``text=False`` leaves the chunks out (a message holds them)."""
        with self._journal_lock:
            taken, self._journal = self._journal, []
        return _joined(taken, text)

    def peek_journal(self) -> list[list[Any]]:
        """Return the events kept since the last ``take_journal`` (chunks joined), and keep them."""
        with self._journal_lock:
            return _joined(list(self._journal), True)

    def answer(self) -> AnswerReport:
        """Return the reporter of one model answer."""
        self.streamed = []
        return AnswerReport(self)

    # --- tool calls --------------------------------------------------------------------------

    def tool_pending(self, item: RequestedToolCall) -> None:
        """Announce a call the model asked for, under a new tool message (or the one its stream started)."""
        if self.streamed and self.streamed[0][1] == item.name:  # the answer streamed this call: its message exists
            self.tool_ids[item.id] = self.streamed.pop(0)[0]
            return
        tool_id = self.tool_ids[item.id] = self.new_id()
        self.emit(ToolMessageStart(id=tool_id, tool_name=item.name, title=f"Calling {item.name}", status="pending",
                                   timestamp=self.clock(), arguments=thaw_json(item.call.arguments), tool_call_id=item.id))

    def tools_announced(self, error: str = "the model's answer did not keep this call") -> None:
        """End the tool messages a stream started for calls its answer does not have (none, normally)."""
        for tool_id, _ in self.streamed:
            self.emit(ToolMessageComplete(id=tool_id, status="error", timestamp=self.clock(), error=error))
        self.streamed = []

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

    __slots__ = ("_report", "_message_id", "_reasoning_id", "_reasoning_index", "_calls", "said")

    def __init__(self, report: Reporter) -> None:
        self._report = report
        self._message_id: str | None = None
        self._reasoning_id: str | None = None
        self._reasoning_index = 0
        self._calls: dict[int, _StreamedCall] = {}  # by the stream's index
        self.said: list[str] = []

    def tool_call(self, delta: ToolCallDelta) -> None:
        """Report a piece of a streamed tool call: its tool message starts once its name is known.

        The arguments follow as ``tool:message:args``; what is open (reasoning, text) ends first.
        """
        call = self._calls.get(delta.index)
        if call is None:
            call = self._calls[delta.index] = _StreamedCall()
        call.call_id = call.call_id or delta.id
        call.name = call.name or delta.name
        if delta.arguments_delta:
            call.pieces.append(delta.arguments_delta)
        if call.tool_id is None:
            if call.name is None:
                return  # the pieces wait for the name
            self.end()
            call.tool_id = self._report.new_id()
            self._report.streamed.append((call.tool_id, call.name))
            self._report.emit(ToolMessageStart(id=call.tool_id, tool_name=call.name, title=f"Calling {call.name}",
                                               status="pending", timestamp=self._report.clock(), tool_call_id=call.call_id))
        if call.pieces:
            self._report.emit(ToolMessageArgs(id=call.tool_id, chunk="".join(call.pieces)))
            call.pieces = []

    def text(self, piece: str) -> None:
        """Report a piece of the answer's text."""
        self._end_reasoning()
        if self._message_id is None:
            self._message_id = self._report.new_id()
            self._report.emit(MessageStart(id=self._message_id, timestamp=self._report.clock()))
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


class _StreamedCall:
    """A tool call as its answer streams: its tool message (once its name is known) and pieces not yet sent."""

    __slots__ = ("tool_id", "call_id", "name", "pieces")

    def __init__(self) -> None:
        self.tool_id: str | None = None
        self.call_id: str | None = None
        self.name: str | None = None
        self.pieces: list[str] = []


def _short(text: str, limit: int = 500) -> str:
    """Return ``text`` cut to ``limit`` characters for an event's ``error`` (a note for the user, no stack)."""
    text = text.strip() or "failed"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _joined(events: list[list[Any]], text: bool) -> list[list[Any]]:
    """Return journal events with each run of one message's chunks joined into one (or, without ``text``, left out).

    A tool message's streamed arguments are joined the same way and always kept: no stored message
    holds them in the form the events gave them.
    """
    out: list[list[Any]] = []
    for name, payload in events:
        if name == "message:chunk" or name == "tool:message:args":
            if not text and name == "message:chunk":
                continue
            if out and out[-1][0] == name and out[-1][1]["id"] == payload["id"]:
                out[-1] = [name, {**out[-1][1], "chunk": out[-1][1]["chunk"] + payload["chunk"]}]
                continue
        out.append([name, payload])
    return out
