"""Check agentmsg and provider documents from the command line: ``python -m agentmsg.validate``.

>>> main(["--list-kinds"])  # doctest: +ELLIPSIS, +NORMALIZE_WHITESPACE
chat_message        one chat message {role, content, ...}
conversation        an array of chat messages, checked in order as a ConversationHistory
...
openai_request      an OpenAI (or vLLM) Chat Completions request body {model, messages, tools}
...
0

Each FILE holds one JSON document or JSON Lines (one document per line: detected, or forced with
``--jsonl``); ``-`` reads standard input. Every problem prints as ``FILE:LINE: PATH: message``,
then a summary line. Exit status: 0 all valid, 1 something invalid, 2 usage error, unreadable
file, or an interrupted run.

Theory of operation: the first line decides the mode (it stands alone: JSON Lines; else one
document, read whole up to ``--max-bytes``). JSON Lines are read a mebibyte at a time, whole
lines only, so memory stays bounded whatever the file size, and each line takes the fast path:
the C scanner with the strict hooks, the candidate kinds looked up by the document's shape, the
core's ``from_dict``. Only a document that fails goes down the slow path, which parses it again
carefully, tries the other candidates, finds the line and column of each problem (``_json_position``),
and explains the detection. One big conversation array is checked a message at a time instead
of read whole (``_streamed``): it reports what the whole-document path would, or rewinds the
file and leaves the document to that path.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import signal
import stat
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, NoReturn, TypeVar

from .. import __version__
from .._json import _reject_constant, _reject_duplicates
from .._checks import type_name
from ._json_array import ArrayReader, GiveUp
from ._json_position import find_refused, line_column, locate, parse_path
from ._registry import (
    DETECTED, KINDS, Kind, Problems, _openai_only, all_kinds, candidates, resemblance, shape_kinds, specificity,
)
from ..formats import json_schema
from ..errors import ConversationOrderError, ValidationError
from ..history import OrderCheck
from ..messages import ChatMessage

__all__ = ["main"]

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"
_JSON_WS = b" \t\r\n"
_WS_ORDS = frozenset(_JSON_WS)
_JSONL_SUFFIXES = (".jsonl", ".ndjson")
_CHUNK = 1 << 20  # JSON Lines are read a mebibyte at a time
_PIECE = 16 << 20  # --jobs: the most bytes of JSON Lines one worker takes at a time
_MIN_PIECE = 1 << 20  # --jobs: a smaller file is checked in one process (starting one costs more)
_STREAM_MIN = 1 << 20  # a smaller JSON document is read whole (private: the tests lower it)
_STREAM_CHUNK = _CHUNK  # the streamed document's read size (private: the tests lower it)
_MAX_HELD = 10_000  # the most problems a streamed document holds before it is read whole instead
_DEPTH_MARGIN = 64  # frames (and nesting levels) of headroom the streamed check keeps; see _deeper
_PROGRESS_EVERY = 0.25  # seconds between two redraws of the progress line
_NO_LIMIT = 1 << 62  # the largest --max-bytes kept as given
_FAILURES = (ValidationError, ConversationOrderError, Problems, RecursionError)
_UNITS = {"": 1, "k": 1024, "kib": 1024, "m": 1024**2, "mib": 1024**2, "g": 1024**3, "gib": 1024**3}

_T = TypeVar("_T")

# One problem: (path, code, message), the path in the core's form ("[2].content", "" for the root).
Problem = tuple[str, str, str]


def _finite_float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:
        raise ValidationError("number out of range", "", "size")
    return value


# The careful decoder: refuses duplicate keys, NaN/Infinity and floats that overflow.
_decoder = json.JSONDecoder(
    object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant, parse_float=_finite_float
)
_decode = _decoder.decode


# The C scanner itself, for the fast path: no whitespace skipping, no end check, no wrapping.
# Its pair hook (the duplicate-key check) costs about half the parse again; a cheaper, exact
# way to see a repeated key with the standard library was not found (counting colons in the
# text costs more than the hook).
_scan: Callable[[str, int], tuple[Any, int]] = _decoder.scan_once  # type: ignore[attr-defined]  # JSONDecoder.scan_once is undocumented and untyped


class _Slow(Exception):
    """Leave the fast path: this line needs the careful one."""


# -- output -----------------------------------------------------------------------------------


def _printable(text: str) -> str:
    """Escape what would break a one-line report (newlines, control characters, lone surrogates)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _render_path(path: str) -> str:
    if not path:
        return "$"
    return _printable("$" + path if path[0] == "[" else "$." + path)


def _size(n: int) -> str:
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= factor and n % factor == 0:
            return f"{n // factor} {unit}"
    return f"{n} bytes"


class _Run:
    """The state of one run: options, counts, and the report as it is written."""

    def __init__(self, args: argparse.Namespace, out: IO[str]) -> None:
        self.out = out
        self.json = args.format == "json"
        self.quiet = args.quiet
        self.kind: str | None = args.kind
        self.kinds: tuple[Kind, ...] | None = (KINDS[args.kind],) if args.kind else None
        self.max_bytes: int = args.max_bytes
        self.jsonl: bool = args.jsonl
        self.jobs: int = args.jobs
        self.progress: _Progress | None = None
        self.documents = self.valid = self.invalid = self.findings = 0
        self.unreadable: list[dict[str, str]] = []
        self.warnings: list[warnings.WarningMessage] = []
        self._first = True
        if self.json and not self.quiet:
            self.write('{"problems": [')

    def write(self, text: str) -> None:
        try:
            self.out.write(text)
        except UnicodeEncodeError:
            encoding = getattr(self.out, "encoding", None) or "ascii"
            self.out.write(text.encode(encoding, "backslashreplace").decode(encoding))

    def report(
        self, name: str, line: int, column: int | None, problem: Problem, kind: str | None, severity: str = "error"
    ) -> None:
        """Write one problem line (or JSON item)."""
        self.findings += 1
        if self.quiet:
            return
        if self.progress is not None:
            self.progress.clear()
        path, code, message = problem
        if self.json:
            item = {"file": name, "line": line, "column": column, "path": _render_path(path), "code": code,
                    "message": message, "kind": kind, "severity": severity}
            self.write(("\n  " if self._first else ",\n  ") + json.dumps(item))
            self._first = False
        else:
            flag = "warning: " if severity == "warning" else ""
            self.write(_printable(f"{name}:{line}: {_render_path(path)}: {flag}{message}") + "\n")

    def cannot_read(self, name: str, exc: OSError) -> None:
        """Record a file that could not be read (exit status 2)."""
        reason = exc.strerror or type(exc).__name__
        self.unreadable.append({"file": name, "message": reason})
        print(_printable(f"{_prog()}: cannot read {name}: {reason}"), file=sys.stderr)

    def finish(self) -> int:
        """Write the summary; return the exit status."""
        counts = {"documents": self.documents, "valid": self.valid, "invalid": self.invalid}
        if self.json:
            tail = json.dumps({"unreadable": self.unreadable, **counts})[1:]
            self.write(("{" if self.quiet else ("\n], " if not self._first else "], ")) + tail + "\n")
        else:
            noun = "document" if self.documents == 1 else "documents"
            self.write(f"{self.documents} {noun}, {self.valid} valid, {self.invalid} invalid\n")
        if self.unreadable:
            return 2
        return 1 if self.invalid else 0


class _Progress:
    """The progress line on standard error, when it is a terminal: redrawn a few times a second.

    ``advance`` is called once per block of lines (about a mebibyte), so between two redraws it
    costs one clock read per block; the line is wiped before a report line and at the end of a file.
    """

    def __init__(self, err: IO[str]) -> None:
        self.err = err
        self.width = 0  # the length of the line on screen (0: none)
        self.name = ""
        self.total: int | None = None
        self.done = self.documents = 0
        self.began = self.next = 0.0

    def start(self, name: str, total: int | None, done: int, documents: int) -> None:
        """Begin a file of ``total`` bytes (None: unknown), ``done`` of them read already."""
        self.name, self.total, self.done, self.documents = name, total, done, documents
        self.began = time.monotonic()
        self.next = self.began + _PROGRESS_EVERY

    def advance(self, size: int, documents: int, findings: int) -> None:
        """Count ``size`` more bytes read; redraw if it is time to."""
        self.done += size
        now = time.monotonic()
        if now >= self.next:
            self.next = now + _PROGRESS_EVERY
            self.draw(now, documents, findings)

    def draw(self, now: float, documents: int, findings: int) -> None:
        mib = 1024 * 1024
        if self.total:
            done = min(self.done, self.total)
            where = f"{done / mib:.1f} of {self.total / mib:.1f} MiB ({100 * done // self.total}%)"
        else:
            where = f"{self.done / mib:.1f} MiB"
        rate = (documents - self.documents) / max(now - self.began, 1e-9)
        noun = "finding" if findings == 1 else "findings"
        text = f"{self.name}: {where}, {rate:,.0f} documents/s, {findings} {noun}"
        try:
            columns = os.get_terminal_size(self.err.fileno()).columns
        except (AttributeError, OSError, ValueError):
            columns = 0
        columns = columns if columns >= 20 else 80  # a new pseudo-terminal says 0: not known
        text = text if len(text) < columns else "..." + text[len(text) - columns + 4:]
        self._write("\r" + text.ljust(self.width))
        self.width = len(text)

    def clear(self) -> None:
        """Wipe the line, if one is shown."""
        if self.width:
            self._write("\r" + " " * self.width + "\r")
            self.width = 0

    def _write(self, text: str) -> None:
        try:
            self.err.write(text)
            self.err.flush()
        except (OSError, ValueError, UnicodeError):  # a closed or odd terminal: no more progress
            self.width = 0
            self.next = float("inf")


def _is_terminal(stream: IO[str] | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, OSError, ValueError):
        return False


class _Recorder(_Run):
    """A worker's run (``--jobs``): problems are kept, in order, for the parent to write."""

    def __init__(self, kind: str | None, max_bytes: int, quiet: bool) -> None:
        args = argparse.Namespace(format="text", quiet=quiet, kind=kind, max_bytes=max_bytes, jsonl=True, jobs=1)
        super().__init__(args, sys.stdout)
        self.reports: list[tuple[int, int | None, Problem, str | None, str]] = []

    def report(
        self, name: str, line: int, column: int | None, problem: Problem, kind: str | None, severity: str = "error"
    ) -> None:
        self.findings += 1
        if not self.quiet:
            self.reports.append((line, column, problem, kind, severity))


# -- checking one document --------------------------------------------------------------------


def _check(run: _Run, name: str, text: str, line: int) -> None:
    """Check one document carefully; its text starts on ``line``.

    The path of a single JSON document, and of a JSON Lines line that left the fast path.
    """
    run.documents += 1
    try:
        doc = _decode(text)
    except (ValueError, RecursionError) as exc:
        run.invalid += 1
        _bad_json(run, name, text, line, exc)
        return
    kinds = run.kinds or candidates(doc)
    if kinds:
        try:
            kinds[0].check(doc)
        except _FAILURES:
            pass
        else:
            run.valid += 1
            if run.warnings:
                _warned(run, name, text, line, kinds[0])
            return
    _failed(run, name, text, line, doc, kinds)


def _problems(exc: BaseException, doc: Any) -> list[Problem]:
    if isinstance(exc, ValidationError):
        return [(exc.path, exc.code, exc.message)]
    if isinstance(exc, ConversationOrderError):
        index = exc.index
        inside = index is not None and type(doc) is list and 0 <= index < len(doc)
        return [(f"[{index}]" if inside else "", exc.code, exc.message)]
    if isinstance(exc, Problems):
        return [problem for error in exc.errors for problem in _problems(error, doc)]
    return [("", "depth", "nested too deeply to check")]


def _attempt(kind: Kind, doc: Any) -> list[Problem] | None:
    """Return the problems of ``doc`` checked as ``kind`` (None when it is valid)."""
    try:
        kind.check(doc)
    except _FAILURES as exc:
        return _problems(exc, doc)
    return None


def _position(text: str, line: int, path: str) -> tuple[int, int]:
    """Return the line and column where the value at ``path`` (or its nearest ancestor) starts."""
    try:
        offset = locate(text, parse_path(path))
    except RecursionError:  # pragma: no cover - the scanner does not recurse; belt and braces
        offset = 0
    row, column = line_column(text, offset)
    return line + row - 1, column


def _failed(run: _Run, name: str, text: str, line: int, doc: Any, kinds: tuple[Kind, ...]) -> None:
    attempts: list[tuple[Kind, list[Problem]]] = []
    for kind in kinds:
        run.warnings.clear()
        problems = _attempt(kind, doc)
        if problems is None:
            run.valid += 1
            if run.warnings:
                _warned(run, name, text, line, kind)
            return
        attempts.append((kind, problems))
    run.warnings.clear()
    run.invalid += 1
    if not kinds:
        _unknown_kind(run, name, text, line, doc)
        return
    # The likeliest intent: the most specific match, then the fewest problems, then the one that
    # got furthest into the document before its first problem.
    best_kind, best = max(attempts, key=lambda attempt: (
        specificity(attempt[0], doc), -len(attempt[1]), len(parse_path(attempt[1][0][0]))))
    if len(attempts) > 1:
        others = [_first_error(kind.name, problems) for kind, problems in attempts if kind is not best_kind]
        if len(others) > 2:
            others[2:] = [f"and {len(others) - 2} more"]
        row, column = _position(text, line, "")
        note = f"checked as {best_kind.name}; also tried {', '.join(others)}"
        run.report(name, row, column, ("", "unknown", note), best_kind.name)
    for problem in best:
        row, column = _position(text, line, problem[0])
        run.report(name, row, column, problem, best_kind.name)


def _first_error(kind: str, problems: list[Problem]) -> str:
    path, _, message = problems[0]
    if len(message) > 60:
        message = message[:57] + "..."
    return f"{kind} ({_render_path(path)}: {message})"


def _unknown_kind(run: _Run, name: str, text: str, line: int, doc: Any) -> None:
    row, column = _position(text, line, "")
    if type(doc) is not dict and type(doc) is not list:
        message = f"expected a JSON object or array, got {type_name(doc)}"
    else:
        tried, passes = [], []
        for kind in all_kinds():
            problems = _attempt(kind, doc)
            if problems is None:
                passes.append(kind.name)
            else:
                tried.append((resemblance(kind, doc), len(parse_path(problems[0][0])), kind.name, problems))
        run.warnings.clear()
        # closest: the kinds whose key fields the document has most of, then the ones whose
        # check got furthest into it; stable: registry order among equals
        tried.sort(key=lambda t: (-t[0], -t[1]))
        closest = "; ".join(_first_error(kind, problems) for _, _, kind, problems in tried[:2])
        message = f"no known kind matches (tried {len(all_kinds())} kinds; closest: {closest}); use --kind KIND"
        if passes:  # a lenient checker takes it, though it lacks that kind's key fields
            message += f" (--kind {passes[0]} accepts it)"
    run.report(name, row, column, ("", "unknown", message), None)


def _warned(run: _Run, name: str, text: str, line: int, kind: Kind) -> None:
    row, column = _position(text, line, "")
    for warning in run.warnings:
        run.report(name, row, column, ("", "warning", str(warning.message)), kind.name, "warning")
    run.warnings.clear()


def _bad_json(run: _Run, name: str, text: str, line: int, exc: BaseException) -> None:
    if isinstance(exc, json.JSONDecodeError):
        # An error at the very end (truncated input) is placed just after the last character,
        # not on the line a trailing newline opens.
        end = len(text.rstrip(" \t\r\n"))
        row, column = line_column(text, min(exc.pos, end))
        row += line - 1
        what = exc.msg.removesuffix(" at")
        what = what[:1].lower() + what[1:] + (" (truncated)" if exc.pos >= end else "")
        problem = ("", "json", f"not valid JSON: {what} at line {row}, column {column}")
        run.report(name, row, column, problem, None)
        return
    if isinstance(exc, RecursionError):
        row, column = _position(text, line, "")
        run.report(name, row, column, ("", "depth", "nested too deeply to parse"), None)
        return
    found = find_refused(text)
    if found is None:  # pragma: no cover - every refusal the parser makes is one the scanner finds
        row, column = _position(text, line, "")
        run.report(name, row, column, ("", "json", str(exc)), None)
        return
    segments, offset, code, message = found
    row, column = line_column(text, offset)
    path = ""
    for segment in segments:
        path += f"[{segment}]" if type(segment) is int else f".{segment}" if path else str(segment)
    run.report(name, line + row - 1, column, (path, code, message), None)


def _bad_encoding(run: _Run, name: str, raw: bytes, line: int, exc: UnicodeDecodeError) -> None:
    run.documents += 1
    run.invalid += 1
    start = exc.start
    row = raw.count(b"\n", 0, start)
    line_start = raw.rfind(b"\n", 0, start) + 1
    column = len(raw[line_start:start].decode("utf-8", "replace")) + 1
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        message = "not UTF-8: this looks like UTF-16 (JSON must be UTF-8)"
    else:
        message = f"not valid UTF-8: byte 0x{raw[start]:02x} at line {line + row}, column {column}"
    run.report(name, line + row, column, ("", "encoding", message), None)


def _refuse(run: _Run, name: str, line: int, what: str) -> None:
    run.documents += 1
    run.invalid += 1
    message = f"{what} larger than {_size(run.max_bytes)} (--max-bytes); not checked"
    run.report(name, line, None, ("", "size", message), None)


# -- reading files ----------------------------------------------------------------------------


def _blank(raw: bytes) -> bool:
    return raw[0] in _WS_ORDS and not raw.strip(_JSON_WS)


def _skip_line(readline: Any) -> None:
    """Consume the rest of an over-long line, a chunk at a time."""
    while True:
        chunk = readline(_CHUNK)
        if not chunk or chunk[-1:] == b"\n":
            return


def _line_blocks(read: Any, limit: int, size: int = 0) -> Iterator[bytes | None]:
    """Yield runs of whole lines read a chunk at a time, or None for a line longer than ``limit``.

    A run is bytes holding one or more lines separated by ``\n`` (no break after the last one),
    so it covers ``run.count(b"\n") + 1`` lines; None covers one line, whose bytes were skipped,
    never held. Memory stays within a chunk (``size`` bytes, default ``_CHUNK``) plus ``limit``.
    """
    step = size or _CHUNK
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


def _check_lines(run: _Run, name: str, stream: IO[bytes], raw: bytes, lineno: int, path: str | None = None) -> None:
    """Check JSON Lines; ``raw`` is the first non-blank line (line ``lineno``), read with ``readline``.

    With ``--jobs N`` and a regular file at ``path``, the lines after the first are checked by
    worker processes (``_parallel``); otherwise here, a chunk at a time (``_lines``).
    """
    limit = run.max_bytes
    if len(raw) > limit and raw[-1:] != b"\n":
        _skip_line(stream.readline)
        first: bytes | None = None
    else:
        first = raw[:-1] if raw[-1:] == b"\n" else raw
    total = _regular_size(stream)
    progress = run.progress
    if progress is not None:
        progress.start(name, total, max(0, stream.tell() - len(raw)) if total is not None else 0, run.documents)
    try:
        start = stream.tell() if total is not None else 0
        if run.jobs > 1 and path is not None and total is not None and total - start >= 2 * _MIN_PIECE:
            _lines(run, name, (first,), lineno)
            pieces = _pieces(stream, start, total, run.jobs, lineno + 1)
            if total - start > _PIECE:  # cut the file as the workers go
                _parallel(run, name, path, run.jobs, pieces)
            else:  # no more workers than pieces
                cut = list(pieces)
                _parallel(run, name, path, min(run.jobs, len(cut)), cut)
        else:
            _lines(run, name, itertools.chain((first,), _line_blocks(stream.read, limit)), lineno)
    finally:
        if progress is not None:
            progress.clear()


def _lines(run: _Run, name: str, blocks: Iterable[bytes | None], lineno: int) -> int:
    """Check the lines of ``blocks`` (see ``_line_blocks``), the first being line ``lineno``.

    Return the number of lines covered. The loop is the fast path, inlined: decode a block of
    lines at once, then for each line scan it, look up the candidate kinds by shape, and check it
    as the first candidate. Anything unusual (an error, leading whitespace, no candidate) sends
    the line to ``_check``, which does it all again carefully and reports what it finds.
    """
    limit = run.max_bytes
    scan = _scan
    forced = run.kinds
    detected = DETECTED.get
    log = run.warnings
    progress = run.progress
    small = limit < _CHUNK  # then a line inside a chunk may be over the limit
    first_line = lineno
    lineno -= 1
    fast = 0
    try:
        for block in blocks:
            if block is None:
                lineno += 1
                _refuse(run, name, lineno, "line")
                continue
            if progress is not None:
                progress.advance(len(block) + 1, run.documents + fast, run.findings)
            try:
                lines = block.decode().split("\n")
            except UnicodeDecodeError:
                for raw in block.split(b"\n"):
                    lineno += 1
                    if len(raw) > limit:
                        _refuse(run, name, lineno, "line")
                    elif raw.strip(_JSON_WS):
                        _check_raw(run, name, raw, lineno)
                continue
            for line in lines:
                lineno += 1
                if not line:
                    continue
                if small and len(line.encode()) > limit:
                    _refuse(run, name, lineno, "line")
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
                    kinds[0].check(doc)
                except Exception:
                    log.clear()
                    if line.strip(" \t\r"):  # else a blank line: not a document
                        _check(run, name, line.rstrip("\r"), lineno)
                else:
                    fast += 1
                    if log:
                        _warned(run, name, line, lineno, kinds[0])
    finally:
        run.documents += fast
        run.valid += fast
    return lineno - first_line + 1


def _regular_size(stream: IO[bytes]) -> int | None:
    """Return the size of ``stream`` if it is a regular file (None for a pipe, a terminal...)."""
    try:
        info = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


# A piece of a JSON Lines file for one worker: (start, end or None for the end of the file, the
# number of its first line).
Piece = tuple[int, "int | None", int]


def _pieces(stream: IO[bytes], start: int, total: int, jobs: int, lineno: int) -> Iterator[Piece]:
    """Cut the rest of ``stream`` (from ``start``, line ``lineno``) into pieces of whole lines.

    A multiple of ``jobs`` pieces of about the same size, none much over ``_PIECE`` bytes (so a
    worker's report stays small and the workers end together) nor under ``_MIN_PIECE``. One pass over the bytes counts
    the lines, so each worker knows the number of its first line.
    """
    count = jobs * -(-(total - start) // (_PIECE * jobs))
    step = max(1, _MIN_PIECE, -(-(total - start) // count))
    stream.seek(start)
    pos, line = start, lineno
    first, first_line = start, lineno
    target = start + step  # cut at the first line that starts at or after target
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            break
        i = 0
        while target - 1 - pos < len(chunk):
            j = chunk.find(b"\n", max(i, target - 1 - pos))
            if j < 0:
                break
            line += chunk.count(b"\n", i, j + 1)
            i = j + 1
            yield first, pos + i, first_line
            first, first_line = pos + i, line
            target = first + step
        line += chunk.count(b"\n", i)
        pos += len(chunk)
    if first < pos:
        yield first, None, first_line  # the last piece reads on to the end, as one run would


def _parallel(run: _Run, name: str, path: str, workers: int, pieces: Iterable[Piece]) -> None:
    """Check ``pieces`` of the JSON Lines file ``path`` in ``workers`` processes.

    The workers' problems are written in the order of the pieces, so the report is the one a
    single process writes. Workers are spawned (not forked: the parent may run threads) and
    ignore Ctrl-C, which the parent handles. ``pieces`` may be a generator: the pool's feeder
    thread cuts the file while the first workers check their pieces.
    """
    if not workers:
        return
    import multiprocessing

    progress = run.progress
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers, initializer=_ignore_interrupts) as pool:
        tasks = ((path, begin, end, line, run.kind, run.max_bytes, run.quiet) for begin, end, line in pieces)
        for error, reports, documents, valid, invalid, findings, size in pool.imap(_work, tasks):
            if error is not None:
                raise OSError(*error)
            for report in reports:
                run.report(name, *report)
            run.documents += documents
            run.valid += valid
            run.invalid += invalid
            run.findings += findings - len(reports)
            if progress is not None:
                progress.advance(size, run.documents, run.findings)


def _records_log() -> logging.Logger:
    """Return agentmsg.records' logger, named without importing the module (it loads on first use)."""
    return logging.getLogger(__name__.rpartition(".")[0] + ".records")


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(task: tuple[str, int, int | None, int, str | None, int, bool]) -> tuple[Any, ...]:
    """Check one piece of a JSON Lines file in a worker process (``--jobs``)."""
    path, start, end, lineno, kind, max_bytes, quiet = task
    run = _Recorder(kind, max_bytes, quiet)
    records_log = _records_log()
    records_log.addFilter(_drop)
    size = 0
    try:
        with warnings.catch_warnings(record=True) as log, open(path, "rb") as stream:
            warnings.simplefilter("always")
            run.warnings = log
            stream.seek(start)
            left = _NO_LIMIT if end is None else end - start

            def read(n: int) -> bytes:
                nonlocal left, size
                data = stream.read(min(n, left))
                left -= len(data)
                size += len(data)
                return data

            _lines(run, "", _line_blocks(read, max_bytes), lineno)
    except OSError as exc:
        return (exc.errno, exc.strerror), [], 0, 0, 0, 0, size
    finally:
        records_log.removeFilter(_drop)
    return None, run.reports, run.documents, run.valid, run.invalid, run.findings, size


def _check_raw(run: _Run, name: str, raw: bytes, line: int) -> None:
    """Check one JSON Lines line carefully (the slow path)."""
    try:
        text = raw.decode()
    except UnicodeDecodeError as exc:
        _bad_encoding(run, name, raw, line, exc)
        return
    _check(run, name, text.rstrip("\r\n"), line)


def _looks_like_lines(raw: bytes) -> bool:
    """Tell whether a first line stands alone: it parses, or it is an object or array on one line."""
    try:
        _decode(raw.decode())
    except (ValueError, RecursionError):
        stripped = raw.strip(_JSON_WS)
        return stripped[:1] in (b"{", b"[") and stripped[-1:] in (b"}", b"]") and len(stripped) > 1
    return True


def _check_stream(run: _Run, name: str, stream: IO[bytes], path: str | None = None) -> None:
    """Check one input: JSON Lines or a single JSON document (``path``: the file, for ``--jobs``)."""
    limit = run.max_bytes
    if path is not None and _streamed(run, name, stream):
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
    too_long = len(raw) > limit and raw[-1:] != b"\n"
    if run.jsonl or name.lower().endswith(_JSONL_SUFFIXES) or (not too_long and _looks_like_lines(raw)):
        _check_lines(run, name, stream, raw, lineno, path)
        return
    data = None if too_long else _read_rest(stream.read, raw, limit)
    del raw  # hold one copy of the document at a time: bytes, then text
    if data is None:
        _refuse(run, name, lineno, "document")
        return
    try:
        text = data.decode()
    except UnicodeDecodeError as exc:
        _bad_encoding(run, name, data, lineno, exc)
        return
    del data
    _check(run, name, text, lineno)


def _streamed(run: _Run, name: str, stream: IO[bytes]) -> bool:
    """Check a big file holding one conversation array a message at a time; tell if done.

    The memory-bounded path for one big document: the array's elements are parsed one at a time
    (``ArrayReader``) and checked as they come, each message then dropped, the order kept by an
    ``OrderCheck``; the problems found (at most ``_MAX_HELD``) are held with their line and
    column until the array has parsed to its end, then reported as ``_failed`` reports them.
    At anything it does not explain the same way (not an array, another kind, JSON or UTF-8 that
    does not parse, nesting too deep, a warning, over ``--max-bytes``, a document that
    ``openai_messages`` may also explain) the file is rewound and checked by the whole-document
    path, so every report is the one that path writes. Only a regular file (it can be read
    again), of at least ``_STREAM_MIN`` bytes, checked as a conversation (detected or forced).
    """
    if run.jsonl or name.lower().endswith(_JSONL_SUFFIXES) or run.kind not in (None, "conversation"):
        return False
    size = _regular_size(stream)
    if size is None or not _STREAM_MIN <= size <= run.max_bytes:
        return False
    start = stream.tell()
    progress = run.progress
    read: Callable[[int], bytes] = stream.read
    if progress is not None:
        progress.start(name, size, 0, run.documents)

        def read(n: int) -> bytes:
            data = stream.read(n)
            progress.advance(len(data), run.documents, run.findings)
            return data

    reader = ArrayReader(read, _scan, chunk=_STREAM_CHUNK, limit=run.max_bytes)
    try:
        # a few frames deeper than the whole-document path checks from: what nests too deeply
        # there fails here too (then that path explains it), and nothing fails only there
        problems = _deeper(_DEPTH_MARGIN, lambda: _stream_problems(run, reader))
    except Exception:  # GiveUp, depth, anything odd: the careful path says what it is
        run.warnings.clear()
        stream.seek(start)
        return False
    finally:
        if progress is not None:
            progress.clear()
    run.documents += 1
    if not problems:
        run.valid += 1
        return True
    run.invalid += 1
    for line, column, problem in problems:
        run.report(name, line, column, problem, KINDS["conversation"].name)
    return True


def _deeper(frames: int, call: Callable[[], _T]) -> _T:
    """Return ``call()``, called ``frames`` Python frames deeper than this call."""
    return _deeper(frames - 1, call) if frames > 0 else call()


def _shallow(text: str) -> bool:
    """Tell whether the JSON value ``text`` parses with ``_DEPTH_MARGIN`` levels to spare."""
    try:
        _scan("[" * _DEPTH_MARGIN + text + "]" * _DEPTH_MARGIN, 0)
    except RecursionError:
        return False
    return True


def _stream_problems(run: _Run, reader: ArrayReader) -> list[tuple[int, int, Problem]]:
    """Check the conversation ``reader`` yields; return its problems (line, column, problem).

    Raise (``GiveUp`` or whatever went wrong) where the whole-document path must decide.
    """
    decode = ChatMessage.from_dict
    order = OrderCheck()
    add = order.add
    conversation, openai = KINDS["conversation"], KINDS["openai_messages"]
    held: list[tuple[int, int, Problem]] = []  # the invalid messages
    broken: tuple[int, int, Problem] | None = None  # the first order error, when every message is valid
    elements = reader.elements()
    first = next(elements)
    if run.kinds is None:
        found = shape_kinds(first)
        if not found or found[0] is not conversation:
            raise GiveUp("not a conversation")
        explained = all(kind is conversation or kind is openai for kind in found)
        head: list[Any] | None = [] if openai in found else None  # the items openai's confirm reads
    else:
        explained, head = True, None
    maybe_openai = False
    for index, element in enumerate(itertools.chain((first,), elements)):
        if head is not None:
            head.append(element)
            if len(head) == 64:
                maybe_openai, head = _openai_only(head), None
        try:
            message = decode(element)
        except ValidationError as exc:
            if not explained or len(held) >= _MAX_HELD or exc.code == "depth" or not _shallow(reader.text()):
                raise GiveUp("not explained here") from None
            error = exc.prefixed(index)
            held.append((*reader.where(parse_path(error.path)[1:]), (error.path, error.code, error.message)))
            continue
        if not held and broken is None:
            try:
                add(message)
            except ConversationOrderError as exc:
                if not explained:
                    raise GiveUp("not explained here") from None
                broken = (*reader.where([]), (f"[{exc.index}]", exc.code, exc.message))
    del first
    if head is not None:
        maybe_openai = _openai_only(head)
    if not held and broken is None:
        try:
            order.validate()
        except ConversationOrderError as exc:
            if not explained:
                raise GiveUp("not explained here") from None
            broken = (*reader.root, ("", exc.code, exc.message))
    if run.warnings:
        raise GiveUp("warned")
    if (held or broken) and maybe_openai:
        raise GiveUp("openai_messages is a candidate too")
    # The whole-document path takes the first line for JSON Lines when it stands alone: a line
    # that ends in } or ] before the array does. Then it reports what JSON Lines give.
    if reader.first_line_tail is not None and reader.first_line_tail in "]}":
        raise GiveUp("read as JSON Lines")
    return held or ([broken] if broken is not None else [])


def _read_rest(read: Any, first: bytes, limit: int) -> bytes | None:
    """Return ``first`` and the rest of the input, read a chunk at a time; None beyond ``limit``.

    Nothing is allocated ahead of what arrives: ``--max-bytes 30G`` on a 50-byte file reads 50 bytes.
    """
    chunks = [first]
    size = len(first)
    while True:
        chunk = read(min(_CHUNK, limit + 1 - size))
        if not chunk:
            return b"".join(chunks) if len(chunks) > 1 else first
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            return None


def _check_file(run: _Run, name: str) -> None:
    if name == "-":
        _check_stream(run, "<stdin>", sys.stdin.buffer)
        return
    shown = _printable(name)
    try:
        with _open_input(name) as stream:
            _check_stream(run, shown, stream, os.path.abspath(name))
    except BrokenPipeError:
        raise  # the report's reader went away: not this file's fault
    except OSError as exc:
        run.cannot_read(shown, exc)


def _conversation_file(run: _Run, name: str) -> None:
    """Check a JSON Lines file as one conversation (``--conversation``): one document per file."""
    shown = "<stdin>" if name == "-" else _printable(name)
    try:
        if name == "-":
            _check_conversation(run, shown, sys.stdin.buffer)
        else:
            with open(name, "rb") as stream:
                _check_conversation(run, shown, stream)
    except BrokenPipeError:
        raise
    except OSError as exc:
        run.cannot_read(shown, exc)


def _check_conversation(run: _Run, name: str, stream: IO[bytes]) -> None:
    """Check every line as a chat message, then their order, by ``ConversationHistory``'s rules.

    Each problem is reported on its line: a line that is not a valid message is left out of
    the order check (so one bad line does not make every later one wrong), an order error
    names the line of the message that breaks the order, and an unanswered tool call at the
    end is reported on the last line.
    """
    run.documents += 1
    history = OrderCheck()  # the rules alone: no message is kept
    bad = False
    last = 0
    for lineno, raw in enumerate(_line_blocks_of(stream, run), 1):
        if raw is None:
            _refuse(run, name, lineno, "line")
            run.documents -= 1
            run.invalid -= 1
            bad = True
            continue
        text = raw.decode("utf-8", "surrogateescape").rstrip("\r")
        if lineno == 1:
            text = text.removeprefix("\ufeff")
        if not text.strip():
            continue
        last = lineno
        try:
            message = ChatMessage.from_dict(_decode(text))
        except (ValueError, RecursionError) as exc:
            bad = True
            if isinstance(exc, ValidationError):
                row, column = _position(text, lineno, exc.path)
                run.report(name, row, column, (exc.path, exc.code, exc.message), "chat_message")
            else:
                _bad_json(run, name, text, lineno, exc)
            continue
        try:
            history.add(message)
        except ConversationOrderError as exc:
            bad = True
            run.report(name, lineno, 1, ("", exc.code, exc.message), "conversation")
    if last == 0:
        bad = True
        run.report(name, 1, None, ("", "empty", "empty input: no message"), "conversation")
    else:
        try:
            history.validate()
        except ConversationOrderError as exc:
            bad = True
            run.report(name, last, 1, ("", exc.code, exc.message), "conversation")
    if bad:
        run.invalid += 1
    else:
        run.valid += 1


def _line_blocks_of(stream: IO[bytes], run: _Run) -> Iterator[bytes | None]:
    """Yield the lines of ``stream`` one by one (None for a line over ``--max-bytes``)."""
    for block in _line_blocks(stream.read, run.max_bytes):
        if block is None:
            yield None
        else:
            yield from block.split(b"\n")


# -- the command ------------------------------------------------------------------------------


def _prog() -> str:
    return "agentmsg-validate" if os.path.basename(sys.argv[0] or "") == "agentmsg-validate" else (
        "python -m agentmsg.validate"
    )


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


def _max_bytes(text: str) -> int:
    number = text.strip().lower().rstrip("b")
    digits = number.rstrip("kmgi")
    try:
        value = int(digits) * _UNITS[number[len(digits):]]
    except (ValueError, KeyError):
        raise argparse.ArgumentTypeError(f"expected a size like 1048576, 512K or 64M, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1 byte")
    return min(value, _NO_LIMIT)  # more than memory can hold is no limit (and fits a C size)


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of processes like 2, got {text[:20]!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=_prog(),
        description="Check agentmsg and LLM provider documents (JSON or JSON Lines).",
        epilog="Exit status: 0 all valid, 1 something invalid, 2 usage error or unreadable file.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="a JSON or JSON Lines file; - for standard input")
    parser.add_argument("--kind", choices=sorted(KINDS), metavar="KIND",
                        help="check every document as KIND instead of detecting it (see --list-kinds)")
    parser.add_argument("--jsonl", action="store_true", help="read every FILE as JSON Lines")
    parser.add_argument("--conversation", action="store_true",
                        help="each FILE is one conversation: one chat message per line, checked in order")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="report format (default: text)")
    parser.add_argument("--quiet", "-q", action="store_true", help="print only the summary")
    parser.add_argument("--max-bytes", type=_max_bytes, default=DEFAULT_MAX_BYTES, metavar="SIZE",
                        help="refuse a document (or JSON Lines line) larger than SIZE (default: 64M)")
    parser.add_argument("--jobs", "-j", type=_jobs, default=1, metavar="N",
                        help="check JSON Lines files in N worker processes (default: 1); same report")
    parser.add_argument("--list-kinds", action="store_true", help="list the kinds of document and exit")
    parser.add_argument("--schema", choices=sorted(KINDS), metavar="KIND",
                        help="print the JSON Schema of KIND and exit")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def _list_kinds(out: IO[str]) -> int:
    width = max(len(kind.name) for kind in all_kinds()) + 2
    for kind in all_kinds():
        out.write(f"{kind.name:<{width}}{kind.summary}\n")
    return 0


def _print_schema(out: IO[str], name: str) -> int:
    kind = KINDS[name]
    if kind.schema is None:
        print(f"{_prog()}: no JSON Schema is shipped for {name}", file=sys.stderr)
        return 2
    out.write(json.dumps(json_schema(kind.schema), indent=2) + "\n")
    return 0


def _run(argv: list[str] | None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else 2
    out = sys.stdout
    if args.list_kinds:
        return _list_kinds(out)
    if args.schema:
        return _print_schema(out, args.schema)
    if not args.files:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: no FILE given (use - for standard input)", file=sys.stderr)
        return 2
    run = _Run(args, out)
    if not args.quiet and _is_terminal(sys.stderr):
        run.progress = _Progress(sys.stderr)
    # Unknown records are reported as warnings in the report; keep their log lines off stderr.
    records_log = _records_log()
    records_log.addFilter(_drop)
    try:
        with warnings.catch_warnings(record=True) as log:
            warnings.simplefilter("always")
            run.warnings = log
            for name in args.files:
                if args.conversation:
                    _conversation_file(run, name)
                else:
                    _check_file(run, name)
    finally:
        records_log.removeFilter(_drop)
    return run.finish()


def _drop(record: logging.LogRecord) -> bool:
    return False


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    >>> main(["--kind", "chat_message", "--no-such-option"])
    2
    """
    try:
        status = _run(argv)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, and keep Python's own final flush quiet.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 2
    except KeyboardInterrupt:
        print(f"{_prog()}: interrupted", file=sys.stderr)
        return 2
    except Exception as exc:  # pragma: no cover - last resort; the tests show no input reaches it
        print(f"{_prog()}: internal error: {type(exc).__name__} (please report this bug)", file=sys.stderr)
        return 2
