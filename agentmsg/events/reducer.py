"""The session reducer: a session's event stream applied to its stored history.

``SessionReducer`` is the server's memory of a session: it checks that events arrive in an order
the protocol allows and keeps the ``chat:init`` structure (history and artifacts) up to date.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

from .._checks import expected
from .._frozen import FrozenDict, check_json_object
from .._json import loads_strict
from .._time import check_wire_timestamp, now_wire_timestamp
from ..errors import ValidationError
from .history import FINAL_STATUSES, ChatEntry, ChatInit, HistoryEntry, ToolEntry, UserEntry
from .protocol import Event, decode
from .requests import ChatCancel, ChatInitRequest, ChatRequest, ToolApprovalResponse
from .stream import (
    Completion,
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
)

__all__ = ["SessionReducer", "MAX_ARGUMENTS"]

MAX_ARGUMENTS = 1 << 20
"""The bound of one tool message's streamed arguments (``tool:message:args``), in characters."""


class SessionReducer:
    """Apply a session's event stream to its stored history (the ``chat:init`` structure).

    >>> stamps = iter(["2024-05-01T12:00:00Z", "2024-05-01T12:00:01Z"])
    >>> session = SessionReducer(clock=lambda: next(stamps))
    >>> for event in [ChatRequest(message="Hi"), MessageStart(id="m1"),
    ...               MessageChunk(id="m1", chunk="Hello"), MessageChunk(id="m1", chunk="!"),
    ...               Completion.ok({})]:
    ...     session.apply(event)
    >>> session.history()
    [{'role': 'user', 'content': 'Hi', 'timestamp': '2024-05-01T12:00:00Z'}, {'id': 'm1', 'role': 'assistant', 'kind': 'chat', 'content': 'Hello!', 'timestamp': '2024-05-01T12:00:01Z'}]
    >>> try:
    ...     session.apply(MessageChunk(id="m9", chunk="?"))
    ... except ValidationError as exc:
    ...     print(exc)
    id: message:chunk for a message that was never started

    Rules (each refusal is a ``ValidationError`` with a stable code, and changes nothing): an
    id starts once (``unique``); chunks, updates, completions and artifacts need a started
    message (``unknown``) of the right kind (``protocol``: chunks go to chat messages, the rest
    to tool messages); a tool message completes once and takes no update after
    (``protocol``); a ``completion`` needs an open turn (``protocol``, also when sent twice), a
    ``finalArtifactId`` that names a known artifact (``unknown``), and an artifact stays bound to
    its first message (``unique``). ``clock`` stamps the user and
    chat messages whose events carry no timestamp (default: UTC now); ``new_id``, when given,
    gives each user entry an id that its ``chat:send`` does not carry (default: none, as
    before). A ``chat:send`` with an ``id`` and ``timestamp`` (the server's echo) makes the user
    entry with them, and its image becomes the entry's ``image`` (a ``data:`` URL); a failed
    ``completion`` is kept on the user entry of its turn (``completion``). Thread-safe.

    The turn, message, reasoning and approval events have rules of their own: ``turn:start``
    names the turn ``chat:send`` opened (or opens one), and ``completion``,
    ``tool:approval:request`` and ``chat:cancel`` must name that turn when both have an id; a
    chunk goes to a message not yet ended (``message:end`` once per message); once a
    ``message:end`` was seen, every message must end before ``completion`` (a server that never
    sends one is read as before); reasoning ids share the messages' namespace, one reasoning is
    open at a time, and no message or tool message starts while it is; ``tool:approval:request``
    needs a ``pending`` tool message and ``tool:approval:response`` an outstanding request. See
    docs/events.md for the table of rules and codes.
    """

    def __init__(self, init: ChatInit | None = None, *, clock: Callable[[], str] = now_wire_timestamp,
                 new_id: Callable[[], str] | None = None) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._new_entry_id = new_id
        self._turn_id: str | None = None  # the open (or last) turn's id, when it has one
        self._open_messages: set[str] = set()  # chat messages started and not yet ended
        self._ended: set[str] = set()  # chat messages ended by message:end
        self._ends_messages = False  # a message:end was seen: every message must end before completion
        self._reasoning: dict[str, bool] = {}  # reasoning id -> still open
        self._asked: set[str] = set()  # tool messages with an outstanding approval request
        self._entries: list[HistoryEntry] = []
        self._index: dict[str, int] = {}
        self._chunks: dict[str, list[str]] = {}  # chat message id -> text not yet folded in
        self._args: dict[str, list[str]] = {}  # tool message id -> its streamed arguments (tool:message:args)
        self._args_size: dict[str, int] = {}
        self._artifacts: dict[str, FrozenDict] = {}
        self._owner: dict[str, str] = {}  # artifact id -> tool message id
        self._turn: Literal["none", "open", "completed"] = "none"
        self._turn_entry: int | None = None  # the index of the user entry that opened the turn
        self._progress: Progress | None = None
        self._completion: Completion | None = None
        if init is not None:
            self._load(init)

    def _load(self, init: ChatInit) -> None:
        if type(init) is not ChatInit:
            raise expected("a ChatInit", init, "init")
        self._entries = list(init.messages)
        self._index = {e.id: i for i, e in enumerate(init.messages) if e.id is not None}
        self._turn_id = None
        self._open_messages = set()
        self._ended = set()
        self._reasoning = {}
        self._asked = set()
        self._chunks = {}
        self._args = {}
        self._args_size = {}
        self._artifacts = {a["id"]: a for a in init.artifacts}
        self._owner = {
            artifact_id: entry.id
            for entry in init.messages
            if type(entry) is ToolEntry
            for artifact_id in entry.artifact_ids
        }
        self._turn = "none"
        self._turn_entry = None
        self._progress = None
        self._completion = None

    # -- reading ---------------------------------------------------------------------------

    @property
    def messages(self) -> tuple[HistoryEntry, ...]:
        """Return the history entries, in order."""
        with self._lock:
            self._fold()
            return tuple(self._entries)

    @property
    def artifacts(self) -> tuple[FrozenDict, ...]:
        """Return the artifacts, in order of first arrival."""
        with self._lock:
            return tuple(self._artifacts.values())

    @property
    def progress(self) -> Progress | None:
        """Return the latest ``progress`` event of the session, if any."""
        return self._progress

    @property
    def completion(self) -> Completion | None:
        """Return the ``completion`` of the last finished turn, if any."""
        return self._completion

    @property
    def turn_open(self) -> bool:
        """Return whether a turn is running (a ``chat:send`` not yet answered by a ``completion``)."""
        return self._turn == "open"

    @property
    def turn_id(self) -> str | None:
        """Return the id of the running turn (or of the last one), if its events gave one."""
        return self._turn_id

    @property
    def awaiting_approval(self) -> tuple[str, ...]:
        """Return the ids of the tool messages whose approval was requested and not yet answered."""
        with self._lock:
            return tuple(sorted(self._asked, key=self._index.__getitem__))

    def history(self) -> list[dict[str, Any]]:
        """Return the history as the protocol's plain dicts."""
        return [entry.to_dict() for entry in self.messages]

    def to_init(self) -> ChatInit:
        """Return the ``chat:init`` reply for a client joining the session now."""
        with self._lock:
            self._fold()
            return ChatInit(messages=tuple(self._entries), artifacts=tuple(self._artifacts.values()))

    def _fold(self) -> None:
        for message_id, parts in self._chunks.items():
            if len(parts) > 1:
                i = self._index[message_id]
                entry = self._entries[i]
                text = "".join(parts)
                self._entries[i] = replace(entry, content=text)
                parts[:] = [text]
        for tool_id, pieces in self._args.items():
            text = "".join(pieces)
            pieces[:] = [text]
            try:
                arguments = check_json_object(loads_strict(text), "arguments")
            except ValidationError:  # not whole yet (or never): the entry keeps no arguments
                continue
            i = self._index[tool_id]
            entry = self._entries[i]
            assert type(entry) is ToolEntry  # _on_tool_args took only tool messages
            self._entries[i] = replace(entry, arguments=arguments)

    def knows(self, message_id: str) -> bool:
        """Return whether a message or reasoning of the session has the id ``message_id``.

        >>> SessionReducer().knows("u1")
        False
        """
        with self._lock:
            return message_id in self._index or message_id in self._reasoning

    # -- writing ---------------------------------------------------------------------------

    def receive(self, event_name: str, payload: Any, *, sender: str | None = None) -> Event:
        """Decode a wire pair, apply it, and return the event.

        >>> try:
        ...     SessionReducer().receive("progress", {"status": "running", "progress": 120, "message": ""})
        ... except ValidationError as exc:
        ...     print(exc)
        progress: must be between 0 and 100

        ``sender`` is as for ``decode``: a client's mirror of the session passes
        ``sender="server"`` to load the server's ``chat:init`` reply; a server never does, so a
        client's ``chat:init`` cannot replace the history.
        """
        event = decode(event_name, payload, sender=sender)
        self.apply(event)
        return event

    def apply(self, event: Event) -> None:
        """Apply one event; a refused event raises ``ValidationError`` and changes nothing."""
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise expected("an event", event, "event")
        with self._lock:
            handler(self, event)

    # Each handler checks everything first and only then mutates (plain stores that cannot fail).

    def _stamp(self) -> str:
        stamp = self._clock()
        try:
            return check_wire_timestamp(stamp, "timestamp")
        except ValidationError as exc:
            raise ValidationError("the clock " + exc.message, "clock", exc.code) from None

    def _started(self, message_id: str, path: str, name: str) -> int:
        i = self._index.get(message_id)
        if i is None:
            raise ValidationError(f"{name} for a message that was never started", path, "unknown")
        return i

    def _tool(self, message_id: str, path: str, name: str) -> tuple[int, ToolEntry]:
        i = self._started(message_id, path, name)
        entry = self._entries[i]
        if type(entry) is not ToolEntry:
            raise ValidationError(f"{name} needs a tool message, not a chat message", path, "protocol")
        return i, entry

    def _new_id(self, message_id: str) -> None:
        if message_id in self._index or message_id in self._reasoning:
            raise ValidationError("a message with this id was already started", "id", "unique")

    def _not_reasoning(self, name: str) -> None:
        if any(self._reasoning.values()):
            raise ValidationError(f"{name} while a reasoning is open; send reasoning:end first", "id", "protocol")

    def _same_turn(self, turn_id: str | None, name: str) -> None:
        if turn_id is not None and self._turn_id is not None and turn_id != self._turn_id:
            raise ValidationError(f"{name} names another turn than the running one", "turnId", "protocol")

    def _needs_turn(self, name: str) -> None:
        if self._turn != "open":
            raise ValidationError(f"{name} needs a running turn", "", "protocol")

    def _on_send(self, event: ChatRequest) -> None:
        entry_id = event.id
        if entry_id is not None:
            self._new_id(entry_id)
        elif self._new_entry_id is not None:
            entry_id = self._new_entry_id()
            if entry_id in self._index or entry_id in self._reasoning:
                raise ValidationError("new_id gave an id already used in the session", "id", "unique")
        image = event.image.data_url() if event.image is not None else None
        entry = UserEntry(id=entry_id, content=event.message, timestamp=event.timestamp or self._stamp(), image=image)
        if entry_id is not None:
            self._index[entry_id] = len(self._entries)
        self._turn_entry = len(self._entries)
        self._entries.append(entry)
        self._turn = "open"
        self._turn_id = None

    def _on_join(self, event: ChatInitRequest) -> None:
        pass  # joining a room changes no history

    def _on_init(self, event: ChatInit) -> None:
        self._load(event)

    def _on_cancel(self, event: ChatCancel) -> None:
        self._needs_turn("chat:cancel")
        self._same_turn(event.turn_id, "chat:cancel")  # the answer (a completion) changes the state

    def _on_turn_start(self, event: TurnStart) -> None:
        if self._turn == "open" and self._turn_id is not None:
            raise ValidationError("a turn is already running; it must complete first", "turnId", "protocol")
        if self._turn != "open":
            self._turn_entry = None  # a turn no chat:send opened: no user entry to mark
        self._turn = "open"
        self._turn_id = event.turn_id

    def _on_start(self, event: MessageStart) -> None:
        self._new_id(event.id)
        self._not_reasoning("message:start")
        entry = ChatEntry(id=event.id, content=event.content, timestamp=event.timestamp or self._stamp())
        self._index[event.id] = len(self._entries)
        self._entries.append(entry)
        self._chunks[event.id] = [event.content]
        self._open_messages.add(event.id)

    def _chat(self, message_id: str, name: str) -> ChatEntry:
        i = self._started(message_id, "id", name)
        entry = self._entries[i]
        if type(entry) is not ChatEntry:
            raise ValidationError(f"{name} needs a chat message, not a {'tool' if type(entry) is ToolEntry else 'user'} message", "id", "protocol")
        if message_id in self._ended:
            raise ValidationError(f"{name} for a message that already ended", "id", "protocol")
        return entry

    def _on_end(self, event: MessageEnd) -> None:
        self._chat(event.id, "message:end")
        self._open_messages.discard(event.id)
        self._ended.add(event.id)
        self._ends_messages = True

    def _on_chunk(self, event: MessageChunk) -> None:
        entry = self._chat(event.id, "message:chunk")
        self._not_reasoning("message:chunk")
        parts = self._chunks.get(event.id)
        if parts is None:  # a message loaded from chat:init
            self._chunks[event.id] = [entry.content, event.chunk]
        else:
            parts.append(event.chunk)

    def _on_reasoning_start(self, event: ReasoningStart) -> None:
        self._new_id(event.id)
        self._not_reasoning("reasoning:start")
        self._reasoning[event.id] = True

    def _open_reasoning(self, reasoning_id: str, name: str) -> None:
        state = self._reasoning.get(reasoning_id)
        if state is None:
            raise ValidationError(f"{name} for a reasoning that was never started", "id", "unknown")
        if not state:
            raise ValidationError(f"{name} for a reasoning that already ended", "id", "protocol")

    def _on_reasoning_chunk(self, event: ReasoningChunk) -> None:
        self._open_reasoning(event.id, "reasoning:chunk")

    def _on_reasoning_end(self, event: ReasoningEnd) -> None:
        self._open_reasoning(event.id, "reasoning:end")
        self._reasoning[event.id] = False

    def _on_tool_start(self, event: ToolMessageStart) -> None:
        self._new_id(event.id)
        self._not_reasoning("tool:message:start")
        entry = event.to_entry()
        self._index[event.id] = len(self._entries)
        self._entries.append(entry)

    def _on_tool_args(self, event: ToolMessageArgs) -> None:
        i, entry = self._tool(event.id, "id", "tool:message:args")
        pieces = self._args.get(event.id)
        if pieces is None:
            if entry.arguments is not None:
                raise ValidationError("the tool message's arguments came whole with tool:message:start", "id", "protocol")
            pieces = self._args[event.id] = []
        if entry.status != "pending":
            raise ValidationError(f"tool:message:args needs a pending tool message, not a {entry.status} one", "id",
                                  "protocol")
        size = self._args_size.get(event.id, 0) + len(event.chunk)
        if size > MAX_ARGUMENTS:
            raise ValidationError(f"the streamed arguments must be at most {MAX_ARGUMENTS} characters", "chunk", "size")
        pieces.append(event.chunk)
        self._args_size[event.id] = size

    def _on_tool_update(self, event: ToolMessageUpdate) -> None:
        i, entry = self._tool(event.id, "id", "tool:message:update")
        if entry.status in FINAL_STATUSES:
            raise ValidationError("tool message is already completed; updates must come before", "id", "protocol")
        patch = event.patch
        new = replace(
            entry,
            status=patch.get("status", entry.status),
            title=patch.get("title", entry.title),
            content=patch.get("content", entry.content),
            progress_text=patch.get("progressText", entry.progress_text),
        )
        self._entries[i] = new
        if new.status != "pending":
            self._asked.discard(event.id)

    def _on_tool_complete(self, event: ToolMessageComplete) -> None:
        i, entry = self._tool(event.id, "id", "tool:message:complete")
        if entry.status in FINAL_STATUSES:
            raise ValidationError("tool message was already completed", "id", "protocol")
        self._entries[i] = replace(entry, status=event.status, completed_at=event.timestamp, error=event.error)
        self._asked.discard(event.id)

    def _on_approval_request(self, event: ToolApprovalRequest) -> None:
        _, entry = self._tool(event.id, "id", "tool:approval:request")
        if entry.status != "pending":
            raise ValidationError(f"tool:approval:request needs a pending tool message, not a {entry.status} one", "id", "protocol")
        self._needs_turn("tool:approval:request")
        self._same_turn(event.turn_id, "tool:approval:request")
        self._asked.add(event.id)

    def _on_approval_response(self, event: ToolApprovalResponse) -> None:
        self._tool(event.id, "id", "tool:approval:response")
        if event.id not in self._asked:
            raise ValidationError("no approval is outstanding for this tool message", "id", "protocol")
        self._asked.discard(event.id)

    def _on_artifact(self, event: ToolArtifact) -> None:
        i, entry = self._tool(event.message_id, "messageId", "tool:artifact")
        artifact_id = event.artifact_id
        owner = self._owner.get(artifact_id)
        if owner is not None and owner != event.message_id:
            raise ValidationError("artifact is already bound to another message", "artifact.id", "unique")
        if owner is None:
            new = replace(entry, artifact_ids=entry.artifact_ids + (artifact_id,))
            self._entries[i] = new
            self._owner[artifact_id] = event.message_id
        self._artifacts[artifact_id] = event.artifact

    def _on_progress(self, event: Progress) -> None:
        self._progress = event

    def _on_completion(self, event: Completion) -> None:
        if self._turn != "open":
            if self._turn == "completed":
                raise ValidationError("the turn was already completed", "", "protocol")
            raise ValidationError("no turn is running (a turn starts with chat:send)", "", "protocol")
        self._same_turn(event.turn_id, "completion")
        final = event.final_artifact_id
        if final is not None and final not in self._artifacts:
            raise ValidationError("names no artifact of the session", "finalArtifactId", "unknown")
        if any(self._reasoning.values()):
            raise ValidationError("a reasoning is still open; send reasoning:end first", "", "protocol")
        if self._ends_messages and self._open_messages:
            raise ValidationError("a chat message is still open; send message:end first", "", "protocol")
        self._turn = "completed"
        if event.turn_id is not None:
            self._turn_id = event.turn_id
        self._completion = event
        opened = None if self._turn_entry is None else self._entries[self._turn_entry]
        if not event.success and type(opened) is UserEntry:
            self._entries[self._turn_entry] = replace(opened, completion=FrozenDict(event.to_dict()))  # type: ignore[index]  # set with opened
        self._turn_entry = None
        self._open_messages.clear()  # a server that never sends message:end: its messages close here
        self._asked.clear()

    def __repr__(self) -> str:
        return (
            f"SessionReducer(messages={len(self._entries)}, artifacts={len(self._artifacts)}, "
            f"turn={self._turn})"
        )


_HANDLERS: dict[type[Any], Callable[[SessionReducer, Any], None]] = {
    ChatRequest: SessionReducer._on_send,
    ChatInitRequest: SessionReducer._on_join,
    ChatInit: SessionReducer._on_init,
    ChatCancel: SessionReducer._on_cancel,
    ToolApprovalResponse: SessionReducer._on_approval_response,
    TurnStart: SessionReducer._on_turn_start,
    MessageStart: SessionReducer._on_start,
    MessageChunk: SessionReducer._on_chunk,
    MessageEnd: SessionReducer._on_end,
    ReasoningStart: SessionReducer._on_reasoning_start,
    ReasoningChunk: SessionReducer._on_reasoning_chunk,
    ReasoningEnd: SessionReducer._on_reasoning_end,
    ToolMessageStart: SessionReducer._on_tool_start,
    ToolMessageArgs: SessionReducer._on_tool_args,
    ToolMessageUpdate: SessionReducer._on_tool_update,
    ToolMessageComplete: SessionReducer._on_tool_complete,
    ToolApprovalRequest: SessionReducer._on_approval_request,
    ToolArtifact: SessionReducer._on_artifact,
    Progress: SessionReducer._on_progress,
    Completion: SessionReducer._on_completion,
}
