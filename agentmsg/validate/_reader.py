"""Reading the input: files and standard input, one JSON document or JSON Lines, ``--conversation``.

The checkers (``_diagnosis``, ``_json_lines`` and the kinds they load) are imported when the
first document is met, so a run over empty files, or ``--help``, never loads them.

Theory of operation: the first line decides the mode (it stands alone: JSON Lines; else one
document, read whole up to ``--max-bytes``). JSON Lines go to ``_json_lines`` (or, with
``--jobs``, to worker processes: ``_jobs``); one document to the careful path (``_diagnosis``),
except one big conversation array, which ``_big_document`` checks a message at a time when it
can. With ``--conversation`` each file is one conversation, a chat message per line.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Iterator

from ._report import PER_DOCUMENT, Problem, Run, printable

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up): type checkers read it as true
if TYPE_CHECKING:
    from typing import IO, Any

__all__ = ["check_file"]

_BOM = b"\xef\xbb\xbf"
_JSON_WS = b" \t\r\n"
_WS_ORDS = frozenset(_JSON_WS)
_JSONL_SUFFIXES = (".jsonl", ".ndjson")


def check_file(run: Run, name: str) -> None:
    """Check the file ``name`` (``-``: standard input); one that cannot be read is reported as such."""
    shown = "<stdin>" if name == "-" else printable(name)
    try:
        if name == "-":
            _check_input(run, shown, sys.stdin.buffer, None)
        else:
            with _open_input(name) as stream:
                _check_input(run, shown, stream, os.path.abspath(name))
    except BrokenPipeError:
        raise  # the report's reader went away: not this file's fault
    except OSError as exc:
        run.cannot_read(shown, exc)
    run.end_file(shown)


def _check_input(run: Run, name: str, stream: IO[bytes], path: str | None) -> None:
    if run.conversation:
        _check_conversation(run, name, stream)
    else:
        _check_stream(run, name, stream, path)


def _check_stream(run: Run, name: str, stream: IO[bytes], path: str | None = None) -> None:
    """Check one input: JSON Lines or a single JSON document (``path``: the file, for ``--jobs``)."""
    limit = run.max_bytes
    jsonl = run.jsonl or name.lower().endswith(_JSONL_SUFFIXES)
    if path is not None and not jsonl:
        from ._big_document import check_big_document  # loaded by the first document file, not by JSON Lines

        size = _regular_size(stream)
        if size is not None and check_big_document(run, name, stream, size):
            return
    readline = stream.readline
    raw = readline(limit + 1)
    if raw[:3] == _BOM:
        raw = raw[3:]
    lineno = 1
    while raw and len(raw) <= limit and _blank(raw):
        raw = readline(limit + 1)
        lineno += 1
    if not raw:
        run.documents += 1
        run.invalid += 1
        run.report(name, 1, None, ("", "json", "empty input: no JSON document"), None)
        return
    from ._diagnosis import bad_encoding, check, refuse  # the first document: the checkers load now

    too_long = len(raw) > limit and raw[-1:] != b"\n"
    if jsonl or (not too_long and _looks_like_lines(raw)):
        held = [raw]
        del raw  # the lines' check owns the first line: a one-line document is held once, as text
        _check_as_lines(run, name, stream, held, lineno, path)
        return
    data = None if too_long else _read_rest(stream.read, raw, limit)
    del raw  # hold one copy of the document at a time: bytes, then text
    if data is None:
        refuse(run, name, lineno, "document")
        return
    try:
        text = data.decode()
    except UnicodeDecodeError as exc:
        bad_encoding(run, name, data, lineno, exc)
        return
    del data
    check(run, name, text, lineno)


def _looks_like_lines(raw: bytes) -> bool:
    """Tell whether a first line stands alone: it parses, or it is an object or array on one line."""
    from ._diagnosis import decode

    try:
        decode(raw.decode())
    except (ValueError, RecursionError):
        stripped = raw.strip(_JSON_WS)
        return stripped[:1] in (b"{", b"[") and stripped[-1:] in (b"}", b"]") and len(stripped) > 1
    return True


def _blank(raw: bytes) -> bool:
    return raw[0] in _WS_ORDS and not raw.strip(_JSON_WS)


def _read_rest(read: Any, first: bytes, limit: int) -> bytes | None:
    """Return ``first`` and the rest of the input, read a chunk at a time; None beyond ``limit``.

    Nothing is allocated ahead of what arrives: ``--max-bytes 30G`` on a 50-byte file reads 50 bytes.
    """
    from ._json_lines import CHUNK

    chunks = [first]
    size = len(first)
    while True:
        chunk = read(min(CHUNK, limit + 1 - size))
        if not chunk:
            return b"".join(chunks) if len(chunks) > 1 else first
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            return None


def _check_as_lines(run: Run, name: str, stream: IO[bytes], held: list[bytes], lineno: int,
                    path: str | None = None) -> None:
    """Check JSON Lines; ``held`` holds the first non-blank line (line ``lineno``), read with ``readline``.

    It is taken out of ``held`` and dropped once decoded, so that a big one-line document is never
    held as bytes and as text at once.

    With ``--jobs N`` and a regular file at ``path``, the lines after the first are checked by
    worker processes (``_jobs``); otherwise here, a chunk at a time (``_json_lines``).
    """
    from ._json_lines import check_lines, line_blocks, skip_line

    limit = run.max_bytes
    raw = held.pop()
    read_first = len(raw)
    if len(raw) > limit and raw[-1:] != b"\n":
        skip_line(stream.readline)
        first: list[bytes | None] = [None]
    else:
        first = [raw[:-1] if raw[-1:] == b"\n" else raw]
    del raw
    total = _regular_size(stream)
    progress = run.progress
    if progress is not None:
        progress.start(name, total, max(0, stream.tell() - read_first) if total is not None else 0, run.documents)
    try:
        start = stream.tell() if total is not None else 0
        if run.jobs > 1 and path is not None and total is not None:
            from ._jobs import check_pieces, worth_workers  # loaded only with --jobs

            if worth_workers(total - start):
                check_lines(run, name, _first_then(first, ()), lineno)
                check_pieces(run, name, path, stream, start, total, lineno + 1)
                return
        check_lines(run, name, _first_then(first, line_blocks(stream.read, limit)), lineno)
    finally:
        if progress is not None:
            progress.clear()


def _first_then(first: list[bytes | None], rest: Iterable[bytes | None]) -> Iterator[bytes | None]:
    """Yield the block taken out of ``first``, then those of ``rest`` (no reference to it is kept)."""
    yield first.pop()
    yield from rest


def _regular_size(stream: IO[bytes]) -> int | None:
    """Return the size of ``stream`` if it is a regular file (None for a pipe, a terminal...)."""
    try:
        info = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def _open_input(name: str) -> IO[bytes]:
    """Open a file to check without ever blocking in ``open``: a FIFO with no writer reads as empty.

    The file is opened non-blocking (``open`` on a FIFO waits for a writer otherwise), then put
    back in blocking mode to be read; a FIFO whose writer never came gives end of file at once.
    """
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    nonblock = getattr(os, "O_NONBLOCK", 0)
    fd = os.open(name, flags | nonblock)
    try:
        if nonblock:
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _check_conversation(run: Run, name: str, stream: IO[bytes]) -> None:
    """Check every line as a chat message, then their order, by ``ConversationHistory``'s rules.

    Each problem is reported on its line: a line that is not a valid message is reported and
    leaves the order unknown until the next user or assistant message (``Order``), an order
    error names the line of the message that breaks the order (and the check goes on from
    there, so each broken rule is reported once), an unanswered tool call at the end is
    reported on the last line, and the fields a message may not hold are warnings. The
    conversation is one document: its first ``PER_DOCUMENT`` problems are written.
    """
    from ..errors import ValidationError
    from ..messages import ChatMessage
    from ._diagnosis import DEEP, UNKNOWN_FIELD, decode, json_problem, position, too_big
    from ._fields import unknown_fields
    from ._order import Order
    from ._registry import KINDS

    run.documents += 1
    order = Order()  # the rules alone: no message is kept
    fields = KINDS["chat_message"].fields
    held = _Held()
    last = 0
    for lineno, raw in enumerate(_line_blocks_of(stream, run), 1):
        if raw is None:
            held.add(lineno, None, too_big(run, "line"), "error")
            order.skip()
            continue
        text = raw.decode("utf-8", "surrogateescape").rstrip("\r")
        if lineno == 1:
            text = text.removeprefix("\ufeff")
        if not text.strip():
            continue
        last = lineno
        try:
            doc = decode(text)
        except (ValueError, RecursionError) as exc:
            order.skip()
            held.add(*json_problem(text, lineno, exc), "error")
            continue
        try:
            message = ChatMessage.from_dict(doc)
        except (ValidationError, RecursionError) as exc:
            order.skip()
            found = (exc.path, exc.code, exc.message) if isinstance(exc, ValidationError) else DEEP
            held.add(*position(text, lineno, found[0]), found, "error")
        else:
            problem = order.add(message, "")
            if problem is not None:
                held.add(lineno, 1, ("", problem.code, problem.message), "error")
        if fields is not None:
            for path in unknown_fields(fields, doc):
                if not held.inside(lineno, path):
                    held.add(*position(text, lineno, path), (path, "unexpected", UNKNOWN_FIELD), "warning")
    if last == 0:
        held.add(1, None, ("", "empty", "empty input: no message"), "error")
    else:
        problem = order.end("")
        if problem is not None:
            held.add(last, 1, ("", problem.code, problem.message), "error")
    if held.errors or (held.warnings and run.strict):
        run.invalid += 1
    else:
        run.accept("conversation")
    run.document(name, "conversation", held.items, held.more)


class _Held:
    """The problems of one document, held until it is read: the first ``PER_DOCUMENT``, and a count."""

    __slots__ = ("items", "more", "errors", "warnings", "_paths", "_order_codes", "_inside")

    def __init__(self) -> None:
        from ..errors import ORDER_CODES
        from ._rules import inside

        self._order_codes, self._inside = ORDER_CODES, inside
        self.items: list[tuple[int, int | None, Problem, str]] = []
        self.more = self.errors = self.warnings = 0
        self._paths: tuple[int, str] | None = None  # the line and path of the last error

    def add(self, line: int, column: int | None, problem: Problem, severity: str) -> None:
        if severity == "error":
            self.errors += 1
            if problem[1] not in self._order_codes:
                self._paths = (line, problem[0])
        else:
            self.warnings += 1
        if len(self.items) < PER_DOCUMENT:
            self.items.append((line, column, problem, severity))
        else:
            self.more += 1

    def inside(self, line: int, path: str) -> bool:
        """Tell whether ``path`` on ``line`` is inside the value of the last error (not an order error)."""
        return self._paths is not None and self._paths[0] == line and self._inside(path, self._paths[1])


def _line_blocks_of(stream: IO[bytes], run: Run) -> Iterator[bytes | None]:
    """Yield the lines of ``stream`` one by one (None for a line over ``--max-bytes``)."""
    from ._json_lines import line_blocks

    for block in line_blocks(stream.read, run.max_bytes):
        if block is None:
            yield None
        else:
            yield from block.split(b"\n")
