"""JSON Lines: read in blocks of whole lines, each line checked on the fast path.

>>> import io
>>> list(line_blocks(io.BytesIO(b'{"a": 1}\\n{"b": 2}\\n' + b"x" * 50 + b"\\nend").read, 40, 8))
[b'{"a": 1}', b'{"b": 2}', None, b'end']

Theory of operation: the lines are read a mebibyte at a time, whole lines only, so memory stays
bounded whatever the file size, and a line longer than ``--max-bytes`` is skipped, never held.
Each line takes the fast path: the C scanner with the strict hooks, the candidate kinds looked
up by the document's shape, then the kind's check-only function (``_check_only``: its rules
applied to the parsed dicts, no object built) or, for a kind without one or a document it does
not prove, the core's ``from_dict`` and the check for unknown keys. Only a line that fails (or
looks unusual) goes to the careful path (``_diagnosis.check``), which parses it again and
explains it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ._diagnosis import bad_encoding, check, refuse, scan as scan_once
from ._fields import unknown_check
from ._registry import DETECTED, Kind, candidates
from ._report import Run

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up): type checkers read it as true
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CHUNK", "JSON_WS", "line_blocks", "skip_line", "check_lines", "check_only"]

CHUNK = 1 << 20  # JSON Lines are read a mebibyte at a time
JSON_WS = b" \t\r\n"


class _Slow(Exception):
    """Leave the fast path: this line needs the careful one."""


def skip_line(readline: Any) -> None:
    """Consume the rest of an over-long line, a chunk at a time."""
    while True:
        chunk = readline(CHUNK)
        if not chunk or chunk[-1:] == b"\n":
            return


def line_blocks(read: Any, limit: int, size: int = 0) -> Iterator[bytes | None]:
    """Yield runs of whole lines read a chunk at a time, or None for a line longer than ``limit``.

    A run is bytes holding one or more lines separated by ``\n`` (no break after the last one),
    so it covers ``run.count(b"\n") + 1`` lines; None covers one line, whose bytes were skipped,
    never held. Memory stays within a chunk (``size`` bytes, default ``CHUNK``) plus ``limit``.
    """
    step = size or CHUNK
    partial: list[bytes] = []  # the start of a line that continues in the next chunk
    size = 0
    skipping = False
    while True:
        chunk = read(step)
        if not chunk:
            if partial:
                yield b"".join(partial)
            return
        start = 0
        if partial or skipping:
            end = chunk.find(b"\n")
            if end < 0:
                if not skipping:
                    partial.append(chunk)
                    size += len(chunk)
                    if size > limit:
                        partial, size, skipping = [], 0, True
                        yield None
                continue
            if skipping:
                skipping = False
            elif size + end > limit:
                partial, size = [], 0
                yield None
            else:
                partial.append(chunk[:end])
                yield b"".join(partial)
                partial, size = [], 0
            start = end + 1
        cut = chunk.rfind(b"\n")
        if cut >= start:
            yield chunk[start:cut]
            start = cut + 1
        if start < len(chunk):
            rest = chunk[start:]
            if len(rest) > limit:
                skipping = True
                yield None
            else:
                partial, size = [rest], len(rest)


def check_lines(run: Run, name: str, blocks: Iterable[bytes | None], lineno: int) -> int:
    """Check the lines of ``blocks`` (see ``line_blocks``), the first being line ``lineno``.

    Return the number of lines covered. The loop is the fast path, inlined: decode a block of
    lines at once, then for each line scan it, look up the candidate kinds by shape, check it
    as the first candidate, and look for fields that kind does not know. Anything unusual (an
    error, a warning, an unknown field, leading whitespace, no candidate) sends the line to
    ``check``, which does it all again carefully and reports what it finds.
    """
    limit = run.max_bytes
    scan = scan_once
    forced = run.kinds
    detected = DETECTED.get
    log = run.warnings
    progress = run.progress
    small = limit < CHUNK  # then a line inside a chunk may be over the limit
    first_line = lineno
    lineno -= 1
    fast: dict[Kind, int] = {}  # the lines the fast path found valid, by kind
    counted = fast.get
    unknowns: dict[Kind, Callable[[Any], bool]] = {}  # each kind's check for unknown keys, written on first use
    unknown = unknowns.get
    proofs: dict[Kind, Callable[[Any], bool] | None] = {}  # each kind's check-only function, looked up on first use
    proof = proofs.get
    try:
        for block in blocks:
            if block is None:
                lineno += 1
                refuse(run, name, lineno, "line")
                continue
            if progress is not None:
                progress.advance(len(block) + 1, run.documents + sum(fast.values()), run.findings)
            try:
                lines = block.decode().split("\n")
            except UnicodeDecodeError:
                for raw in block.split(b"\n"):
                    lineno += 1
                    if len(raw) > limit:
                        refuse(run, name, lineno, "line")
                    elif raw.strip(JSON_WS):
                        _check_raw(run, name, raw, lineno)
                continue
            block = None  # held as text from here on
            for line in lines:
                lineno += 1
                if not line:
                    continue
                if small and len(line.encode()) > limit:
                    refuse(run, name, lineno, "line")
                    continue
                try:
                    doc, end = scan(line, 0)
                    if end != len(line) and line[end:].strip(" \t\r"):
                        raise _Slow
                    if forced:
                        kinds = forced
                    elif type(doc) is dict:
                        kinds = detected(tuple(doc)) or candidates(doc)
                    else:
                        kinds = candidates(doc)
                    kind = kinds[0]
                    proven = proof(kind, _nothing)
                    if proven is _nothing:
                        proven = proofs[kind] = check_only(kind)
                    if proven is None or not proven(doc):
                        kind.check(doc)
                        if log:
                            raise _Slow
                        has_unknown = unknown(kind)
                        if has_unknown is None:
                            has_unknown = unknowns[kind] = _nothing if kind.fields is None else unknown_check(kind.fields)
                        if has_unknown(doc):
                            raise _Slow
                except Exception:
                    log.clear()
                    if line.strip(" \t\r"):  # else a blank line: not a document
                        check(run, name, line.rstrip("\r"), lineno)
                else:
                    fast[kind] = counted(kind, 0) + 1
                    if kind.tally is not None:  # a training dataset: summed up for the file's summary
                        run.tally(kind, doc, lineno)
    finally:
        for kind, count in fast.items():
            run.documents += count
            run.accept(kind.name, count)
    return lineno - first_line + 1


def check_only(kind: Kind) -> Callable[[Any], bool] | None:
    """Return the check-only function of ``kind`` (``_check_only``), or None: it has none."""
    if kind.name not in _CHECK_ONLY:
        return None
    from . import _check_only  # loaded with the first document of such a kind, not with the CLI

    found: Callable[[Any], bool] = getattr(_check_only, kind.name)
    return found


_CHECK_ONLY = frozenset({"chat_message"})  # the kinds ``_check_only`` proves, by name


def _nothing(doc: Any) -> bool:
    """Tell that ``doc`` holds no unknown key: its kind's fields are not looked at."""
    return False


def _check_raw(run: Run, name: str, raw: bytes, line: int) -> None:
    """Check one JSON Lines line carefully (the slow path)."""
    try:
        text = raw.decode()
    except UnicodeDecodeError as exc:
        bad_encoding(run, name, raw, line, exc)
        return
    check(run, name, text.rstrip("\r\n"), line)
