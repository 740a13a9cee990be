"""The conversation context: records on named branches, a plan/act mode, and rendering for a model.

>>> ctx = ConversationContext(plan_prompt="Plan only.", act_prompt="Do it.", mode="plan")
>>> _ = ctx.add(TextRecord.of("user", "Rename foo to bar.", id="t1"))
>>> ctx.set_mode("act", record_id="s1")
SystemControl(id='s1', kind='mode_change', old='plan', new='act')
>>> [m.to_dict() for m in ctx.to_chat_messages()]
[{'role': 'system', 'content': 'Do it.'}, {'role': 'user', 'content': 'Rename foo to bar.'}]
>>> sorted(ctx.dirty)
['s1', 't1']

Theory of operation. Each branch is a list of records; records are immutable, so an update
(an approval, a resolved file) replaces the record with the same id on every branch holding it
and marks the id dirty until ``mark_clean``. A record id names one record across the context.
Rendering walks the active branch once: user-side records (user text, file references, images)
gather into one user message, assistant text and tool requests into one assistant message (with
the parts of the turn's reasoning records as its ``reasoning``), and
each tool request is followed at once by one tool message per call, taken from the matching
``ToolResultRecord`` wherever it sits later in the branch (a denied call without a result gets a
short error result). System text and MCP resources join the system prompt in the single leading
system message; system controls and unknown records are never sent. The result is checked
against the core ``ConversationHistory`` order rules before it is returned.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable

from ._checks import check_branch_name, check_choice, check_int, check_str, type_name
from ._lines import split_lines
from .content import ImagePart, ReasoningPart, TextPart
from .errors import ValidationError
from .history import ConversationHistory
from .messages import ChatMessage
from .records import (
    MODES,
    FileReference,
    ImageRecord,
    McpResource,
    Mode,
    ReasoningRecord,
    Record,
    SystemControl,
    TextRecord,
    ToolRequest,
    ToolResultRecord,
    UnknownRecord,
)
from .roles import MessageRole
from .tools import ToolCall

__all__ = ["ConversationContext", "estimate_tokens", "DENIED_RESULT"]

_log = logging.getLogger(__name__)

_RECORD_CLASSES = (
    TextRecord,
    ReasoningRecord,
    ImageRecord,
    FileReference,
    ToolRequest,
    ToolResultRecord,
    SystemControl,
    McpResource,
    UnknownRecord,
)

DENIED_RESULT = "The user denied this tool call."
"""The tool message content sent for a denied call that has no result record."""

MESSAGE_OVERHEAD = 4
"""Tokens the default budget adds per message (role and separators)."""

IMAGE_TOKENS = 765
"""Tokens the default budget counts per image part (a rough figure for a mid-sized image)."""

Estimator = Callable[[str], int]
_Part = TextPart | ImagePart


def estimate_tokens(text: str) -> int:
    """Estimate tokens without a tokenizer: about four characters per token, rounded up.

    >>> estimate_tokens(""), estimate_tokens("abcd"), estimate_tokens("abcde")
    (0, 1, 2)
    """
    return (len(text) + 3) // 4


def _attr(value: str) -> str:
    """Quote a value for a marker tag (JSON string syntax, so quotes and newlines are escaped)."""
    return json.dumps(value, ensure_ascii=False)


def _render_file(ref: FileReference) -> str:
    if ref.status == "failed":
        return f"<file path={_attr(ref.path)} status=\"failed\">\n{ref.error}\n</file>"
    lines = split_lines(ref.content or "")  # the resolver's definition of a line, so numbers match
    first = 1 if ref.start_line is None else ref.start_line
    last = first + len(lines) - 1
    width = len(str(max(last, first)))
    body = "".join(f"{number:>{width}} | {line}\n" for number, line in enumerate(lines, first))
    span = f" lines=\"{first}-{last}\"" if lines else ""
    return f"<file path={_attr(ref.path)}{span}>\n{body}</file>"


def _render_image(image: ImageRecord) -> _Part:
    if image.state == "failed":
        return TextPart(f"<image status=\"failed\">\n{image.error}\n</image>")
    if image.recognized_by == "vision":
        return ImagePart(image.source)
    return TextPart(f"<image_text>\n{image.text}\n</image_text>")


def _render_resource(res: McpResource) -> str:
    head = f"<resource server={_attr(res.server)} uri={_attr(res.uri)}"
    if res.mime_type is not None:
        head += f" mime_type={_attr(res.mime_type)}"
    if res.status == "failed":
        return f"{head} status=\"failed\">\n{res.error}\n</resource>"
    if res.blob is not None:
        size = len(res.blob) * 3 // 4 - res.blob[-2:].count("=")
        return f"{head}>\n[binary content, {size} bytes, not shown]\n</resource>"
    return f"{head}>\n{res.text}\n</resource>"


def _tokens(messages: Iterable[ChatMessage], estimator: Estimator) -> int:
    total = 0
    for message in messages:
        total += MESSAGE_OVERHEAD
        if isinstance(message.content, str):
            total += _estimate(estimator, message.content)
        elif message.content is not None:
            for part in message.content:
                if isinstance(part, TextPart):
                    total += _estimate(estimator, part.text)
                else:
                    total += IMAGE_TOKENS
        for call in message.tool_calls:
            total += _estimate(estimator, call.name + json.dumps(call.arguments, ensure_ascii=False))
        for thought in message.reasoning:  # sent back to the provider that made it: it counts
            total += _estimate(estimator, thought.text)
    return total


def _estimate(estimator: Estimator, text: str) -> int:
    count = estimator(text)
    if type(count) is not int or count < 0:
        raise TypeError("the token estimator must return a non-negative int for each string")
    return count


class ConversationContext:
    """Hold records on named branches (one active), a plan/act mode, and a dirty set for persistence.

    >>> ctx = ConversationContext(plan_prompt="Plan.", act_prompt="Act.")
    >>> ctx.mode, ctx.branch, ctx.branches, ctx.system_prompt
    ('act', 'main', ('main',), 'Act.')

    Thread-safe: every method holds the context's lock. Methods refuse misuse with
    ``ValidationError`` (codes ``unknown``, ``duplicate``, ``type``, ``value``).
    """

    def __init__(
        self,
        *,
        plan_prompt: str,
        act_prompt: str,
        mode: Mode = "act",
        branch: str = "main",
    ) -> None:
        self._prompts: dict[str, str] = {
            "plan": check_str(plan_prompt, "plan_prompt"),
            "act": check_str(act_prompt, "act_prompt"),
        }
        self._mode: Mode = check_choice(mode, "mode", MODES)
        self._branch = check_branch_name(branch)
        self._branches: dict[str, list[Record]] = {self._branch: []}
        self._dirty: set[str] = set()
        self._references: dict[str, int] = {}
        self._clock = 0
        self._lock = threading.RLock()

    # --- state ---------------------------------------------------------------------------

    @property
    def mode(self) -> Mode:
        """Return the current mode, ``plan`` or ``act``."""
        return self._mode

    @property
    def system_prompt(self) -> str:
        """Return the system prompt of the current mode (what the model sees first)."""
        return self._prompts[self._mode]

    @property
    def branch(self) -> str:
        """Return the active branch's name."""
        return self._branch

    @property
    def branches(self) -> tuple[str, ...]:
        """Return the branch names in creation order."""
        with self._lock:
            return tuple(self._branches)

    @property
    def records(self) -> tuple[Record, ...]:
        """Return the active branch's records in order."""
        with self._lock:
            return tuple(self._branches[self._branch])

    def records_on(self, branch: str) -> tuple[Record, ...]:
        """Return the records of ``branch`` in order.

        >>> try:
        ...     ConversationContext(plan_prompt="", act_prompt="").records_on("nope")
        ... except ValidationError as exc:
        ...     print(exc)
        branch: no branch with this name
        """
        with self._lock:
            return tuple(self._get_branch(branch))

    @property
    def dirty(self) -> frozenset[str]:
        """Return the ids of records added or replaced since the last ``mark_clean``."""
        with self._lock:
            return frozenset(self._dirty)

    def mark_clean(self, record_ids: Iterable[str] | None = None) -> None:
        """Forget dirty ids after persisting: all of them, or only ``record_ids``.

        >>> ctx = ConversationContext(plan_prompt="", act_prompt="")
        >>> _ = ctx.add(TextRecord.of("user", "hi", id="t1"))
        >>> ctx.mark_clean(); ctx.dirty
        frozenset()
        """
        with self._lock:
            if record_ids is None:
                self._dirty.clear()
            else:
                self._dirty.difference_update(record_ids)

    # --- records -------------------------------------------------------------------------

    def add(self, record: Record) -> Record:
        """Append ``record`` to the active branch, mark it dirty, and return it.

        >>> ctx = ConversationContext(plan_prompt="", act_prompt="")
        >>> _ = ctx.add(TextRecord.of("user", "hi", id="t1"))
        >>> try:
        ...     ctx.add(TextRecord.of("user", "again", id="t1"))
        ... except ValidationError as exc:
        ...     print(exc)
        id: a record with this id is already in the context
        """
        if not isinstance(record, _RECORD_CLASSES):
            raise ValidationError(f"expected a record, got {type_name(record)}", "", "type")
        if record.id is None:  # an unknown record kept without an id: the context files records by id
            raise ValidationError("a record without an id cannot join a context", "id", "missing")
        with self._lock:
            if self._find(record.id):
                raise ValidationError("a record with this id is already in the context", "id", "unique")
            self._branches[self._branch].append(record)
            self._dirty.add(record.id)
            return record

    def get(self, record_id: str) -> Record:
        """Return the record with this id on the active branch.

        >>> try:
        ...     ConversationContext(plan_prompt="", act_prompt="").get("x")
        ... except ValidationError as exc:
        ...     print(exc)
        id: no record with this id on the active branch
        """
        with self._lock:
            for record in self._branches[self._branch]:
                if record.id == record_id:
                    return record
        raise ValidationError("no record with this id on the active branch", "id", "unknown")

    def replace(self, record: Record) -> None:
        """Put ``record`` in place of the record with the same id (on every branch) and mark it dirty.

        Processors use this after ``resolve``/``fail``; the new record must be of the same kind.

        >>> ctx = ConversationContext(plan_prompt="", act_prompt="")
        >>> ref = ctx.add(FileReference(id="f1", path="a.txt"))
        >>> ctx.replace(ref.resolve("hello"))
        >>> ctx.get("f1").status
        'resolved'
        """
        if record.id is None:
            raise ValidationError("no record with this id in the context", "id", "unknown")
        with self._lock:
            places = self._find(record.id)
            if not places:
                raise ValidationError("no record with this id in the context", "id", "unknown")
            name, index = places[0]
            if type(self._branches[name][index]) is not type(record):
                raise ValidationError("must replace a record of the same kind", "type", "type")
            for name, index in places:
                self._branches[name][index] = record
            self._dirty.add(record.id)

    def approve(self, call_id: str) -> ToolRequest:
        """Approve the tool call ``call_id`` on the active branch; return the updated request.

        >>> ctx = ConversationContext(plan_prompt="", act_prompt="")
        >>> _ = ctx.add(ToolRequest.of([ToolCall("c1", "ls", {})], id="q1"))
        >>> ctx.approve("c1").approvals
        ('approved',)
        """
        return self._decide(call_id, "approved")

    def deny(self, call_id: str) -> ToolRequest:
        """Deny the tool call ``call_id`` on the active branch; return the updated request.

        >>> ctx = ConversationContext(plan_prompt="", act_prompt="")
        >>> _ = ctx.add(ToolRequest.of([ToolCall("c1", "rm", {})], id="q1"))
        >>> ctx.deny("c1").approvals, sorted(ctx.dirty)
        (('denied',), ['q1'])
        """
        return self._decide(call_id, "denied")

    def _decide(self, call_id: str, approval: str) -> ToolRequest:
        with self._lock:
            for record in self._branches[self._branch]:
                if isinstance(record, ToolRequest) and any(item.call.id == call_id for item in record.calls):
                    updated = record.approve(call_id) if approval == "approved" else record.deny(call_id)
                    self.replace(updated)
                    return updated
        raise ValidationError("no tool call with this id on the active branch", "call_id", "unknown")

    def mark_referenced(self, record_id: str) -> None:
        """Note that a record (typically an MCP resource) was used now, for the budget's LRU order.

        >>> try:
        ...     ConversationContext(plan_prompt="", act_prompt="").mark_referenced("m9")
        ... except ValidationError as exc:
        ...     print(exc)
        id: no record with this id in the context
        """
        with self._lock:
            if not self._find(record_id):
                raise ValidationError("no record with this id in the context", "id", "unknown")
            self._clock += 1
            self._references[record_id] = self._clock

    # --- mode and branches ---------------------------------------------------------------

    def set_mode(self, mode: Mode, *, record_id: str | None = None) -> SystemControl | None:
        """Switch to ``mode`` and log it with a ``SystemControl`` record; ``None`` if already there.

        >>> ctx = ConversationContext(plan_prompt="Plan.", act_prompt="Act.")
        >>> ctx.set_mode("act") is None
        True
        >>> ctx.set_mode("plan", record_id="s1"), ctx.system_prompt
        (SystemControl(id='s1', kind='mode_change', old='act', new='plan'), 'Plan.')
        """
        check_choice(mode, "mode", MODES)
        with self._lock:
            if mode == self._mode:
                return None
            control = SystemControl.mode_change(self._mode, mode, id=record_id)
            self.add(control)
            self._mode = mode
            return control

    def create_branch(self, name: str, *, source: str | None = None, at: str | None = None) -> None:
        """Create branch ``name`` from ``source`` (default: the active branch), up to record ``at``.

        The new branch shares the source's records (through ``at`` inclusive, or all of them);
        it does not become active.

        >>> ctx = ConversationContext(plan_prompt="", act_prompt="")
        >>> _ = ctx.add(TextRecord.of("user", "one", id="t1"))
        >>> _ = ctx.add(TextRecord.of("user", "two", id="t2"))
        >>> ctx.create_branch("retry", at="t1")
        >>> [r.id for r in ctx.records_on("retry")]
        ['t1']
        """
        check_branch_name(name)
        with self._lock:
            if name in self._branches:
                raise ValidationError("a branch with this name already exists", "branch", "unique")
            records = self._get_branch(self._branch if source is None else source)
            if at is not None:
                ids = [record.id for record in records]
                if at not in ids:
                    raise ValidationError("no record with this id on the source branch", "at", "unknown")
                records = records[: ids.index(at) + 1]
            self._branches[name] = list(records)

    def switch_branch(self, name: str, *, record_id: str | None = None) -> SystemControl | None:
        """Make ``name`` the active branch, logging a ``SystemControl`` on it; ``None`` if already active.

        >>> ctx = ConversationContext(plan_prompt="", act_prompt="")
        >>> ctx.create_branch("b")
        >>> ctx.switch_branch("b", record_id="s1")
        SystemControl(id='s1', kind='branch_switch', old='main', new='b')
        >>> ctx.branch, [r.id for r in ctx.records]
        ('b', ['s1'])
        """
        with self._lock:
            self._get_branch(name)
            if name == self._branch:
                return None
            control = SystemControl.branch_switch(self._branch, name, id=record_id)
            if self._find(control.id):
                raise ValidationError("a record with this id is already in the context", "id", "unique")
            self._branch = name
            self.add(control)
            return control

    # --- rendering -----------------------------------------------------------------------

    def to_chat_messages(
        self, *, max_tokens: int | None = None, estimator: Estimator = estimate_tokens
    ) -> tuple[ChatMessage, ...]:
        """Render the active branch as the chat messages a model should see.

        With ``max_tokens``, MCP resources are left out until the estimate fits: never-referenced
        ones first (oldest first), then the least recently referenced; each drop is logged to
        ``agentmsg.context``. If it cannot fit without them, ``ValidationError`` (code ``budget``).
        Records that are not ready raise ``ValidationError`` with path ``records[i]``: a pending
        file, image or resource (code ``unresolved``), a tool call without a result that is not
        denied (``pending``), a result without an earlier request (``orphan``) or a second
        result for one call (``duplicate``). Order problems raise ``ConversationOrderError``.

        >>> ctx = ConversationContext(plan_prompt="", act_prompt="")
        >>> _ = ctx.add(FileReference(id="f1", path="a.py", start_line=7).resolve("x = 1\\ny = 2\\n"))
        >>> print(ctx.to_chat_messages()[0].content)
        <file path="a.py" lines="7-8">
        7 | x = 1
        8 | y = 2
        </file>
        """
        if max_tokens is not None:
            check_int(max_tokens, "max_tokens", minimum=1)
        with self._lock:
            records = tuple(self._branches[self._branch])
            prompt = self.system_prompt
            references = dict(self._references)
        system, body = _render(records, prompt)
        dropped: set[str] = set()
        if max_tokens is not None:
            order = _drop_order(records, references)
            fixed = _tokens(body, estimator) + MESSAGE_OVERHEAD
            total = fixed + _estimate(estimator, _system_text(system, dropped))
            while total > max_tokens:
                if not order:
                    raise ValidationError("the conversation does not fit the token budget", "max_tokens", "size")
                victim = order.pop(0)
                dropped.add(victim)
                before, total = total, fixed + _estimate(estimator, _system_text(system, dropped))
                _log.info("dropped resource record %s (about %d tokens) to fit the token budget", victim, before - total)
        text = _system_text(system, dropped)
        messages = ([ChatMessage.system(text)] if text else []) + body
        ConversationHistory(messages, require_system=False)  # raises ConversationOrderError if out of order
        return tuple(messages)

    # --- internals -----------------------------------------------------------------------

    def _get_branch(self, name: str) -> list[Record]:
        branch = self._branches.get(name) if isinstance(name, str) else None
        if branch is None:
            raise ValidationError("no branch with this name", "branch", "unknown")
        return branch

    def _find(self, record_id: str) -> list[tuple[str, int]]:
        return [
            (name, index)
            for name, records in self._branches.items()
            for index, record in enumerate(records)
            if record.id == record_id
        ]

    def __repr__(self) -> str:
        with self._lock:
            return (
                f"ConversationContext(mode={self._mode!r}, branch={self._branch!r}, "
                f"branches={len(self._branches)}, records={len(self._branches[self._branch])}, "
                f"dirty={len(self._dirty)})"
            )


def _drop_order(records: tuple[Record, ...], references: dict[str, int]) -> list[str]:
    resources = [(index, r.id) for index, r in enumerate(records) if isinstance(r, McpResource)]
    never = [rid for _, rid in resources if rid not in references]
    used = sorted((references[rid], rid) for _, rid in resources if rid in references)
    return never + [rid for _, rid in used]


def _not_ready(index: int, message: str, code: str) -> ValidationError:
    return ValidationError(message, f"records[{index}]", code)


def _system_text(system: list[tuple[str | None, str]], dropped: set[str]) -> str:
    return "\n\n".join(text for rid, text in system if rid is None or rid not in dropped)


def _render(records: tuple[Record, ...], prompt: str) -> tuple[list[tuple[str | None, str]], list[ChatMessage]]:
    """Return the system message's pieces (resource id or None, text) and the other messages."""
    results: dict[str, ToolResultRecord] = {}
    for index, record in enumerate(records):
        if isinstance(record, ToolResultRecord):
            if record.tool_call_id in results:
                raise _not_ready(index, "a second result for the same tool call", "unique")
            results[record.tool_call_id] = record

    system: list[tuple[str | None, str]] = [(None, prompt)] if prompt else []
    out: list[ChatMessage] = []
    user: list[_Part] = []
    said: list[str] = []
    thought: list[ReasoningPart] = []
    requested: set[str] = set()

    def flush_user() -> None:
        if user:
            first = user[0]
            if len(user) == 1 and isinstance(first, TextPart):
                out.append(ChatMessage.user(first.text))
            else:
                out.append(ChatMessage.user(tuple(user)))
            user.clear()

    def flush_assistant(calls: tuple[ToolCall, ...] = ()) -> None:
        if said or calls:
            out.append(ChatMessage.assistant("\n\n".join(said) if said else None, calls, reasoning=tuple(thought)))
            said.clear()
        thought.clear()  # reasoning with no answer in its turn has no message to go on

    for index, record in enumerate(records):
        if isinstance(record, (SystemControl, UnknownRecord)):
            continue
        if isinstance(record, TextRecord):
            if record.role is MessageRole.SYSTEM:
                system.append((None, record.text))
            elif record.role is MessageRole.USER:
                flush_assistant()
                user.extend(record.parts)
            else:
                flush_user()
                said.append(record.text)
        elif isinstance(record, ReasoningRecord):
            thought.extend(record.parts)  # for the assistant message this turn renders
        elif isinstance(record, FileReference):
            if record.status == "pending":
                raise _not_ready(index, "file reference is not resolved yet", "pending")
            flush_assistant()
            user.append(TextPart(_render_file(record)))
        elif isinstance(record, ImageRecord):
            if record.state == "pending":
                raise _not_ready(index, "image is not recognized yet", "pending")
            flush_assistant()
            user.append(_render_image(record))
        elif isinstance(record, McpResource):
            if record.status == "pending":
                raise _not_ready(index, "MCP resource is not retrieved yet", "pending")
            system.append((record.id, _render_resource(record)))
        elif isinstance(record, ToolRequest):
            replies = []
            for position, item in enumerate(record.calls):
                result = results.get(item.call.id)
                if result is not None:
                    replies.append(_tool_message(result))
                elif item.approval == "denied":
                    replies.append(ChatMessage.tool(item.call.id, DENIED_RESULT, is_error=True))
                else:
                    rule = "awaits approval" if item.approval == "pending" else "has no result yet"
                    raise ValidationError(f"tool call {rule}", f"records[{index}].calls[{position}]", "pending")
                requested.add(item.call.id)
            flush_user()
            flush_assistant(record.tool_calls)
            out.extend(replies)
        elif isinstance(record, ToolResultRecord):
            if record.tool_call_id not in requested:
                raise _not_ready(index, "tool result has no earlier tool request", "unknown")
    flush_user()
    flush_assistant()
    return system, out


def _tool_message(result: ToolResultRecord) -> ChatMessage:
    if result.status == "error":
        return ChatMessage.tool(result.tool_call_id, result.error or "", is_error=True)
    output = result.output
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    return ChatMessage.tool(result.tool_call_id, text)
