"""The report of a run: its options and counts, a line (or JSON item) per problem, the progress line.

>>> import argparse, io
>>> out = io.StringIO()
>>> options = argparse.Namespace(format="text", quiet=False, kind=None, max_bytes=100, jsonl=False, jobs=1,
...                              conversation=False)
>>> run = Run(options, out)
>>> run.documents, run.invalid = 1, 1
>>> run.report("a.json", 3, 5, ("[0].content", "type", "expected a string, got number"), "conversation")
>>> run.finish()
1
>>> print(out.getvalue(), end="")
a.json:3: $[0].content: expected a string, got number
1 document, 0 valid, 1 invalid
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import time
import warnings
from collections.abc import Iterator
from typing import IO

from ._registry import KINDS, Kind

__all__ = ["Problem", "Run", "Recorder", "Progress", "is_terminal", "printable", "render_path", "prog"]

_PROGRESS_EVERY = 0.25  # seconds between two redraws of the progress line

# One problem: (path, code, message), the path in the core's form ("[2].content", "" for the root).
Problem = tuple[str, str, str]


def printable(text: str) -> str:
    """Escape what would break a one-line report (newlines, control characters, lone surrogates).

    >>> printable("a\\nb")
    'a\\\\nb'
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def render_path(path: str) -> str:
    """Return an error path as the report shows it: ``$``, ``$[2].content``, ``$.messages[0]``."""
    if not path:
        return "$"
    return printable("$" + path if path[0] == "[" else "$." + path)


def prog() -> str:
    """Return the command's name as it was run, for usage and error messages."""
    return "agentmsg-validate" if os.path.basename(sys.argv[0] or "") == "agentmsg-validate" else (
        "python -m agentmsg.validate"
    )


def _drop(record: logging.LogRecord) -> bool:
    return False


class Run:
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
        self.conversation: bool = args.conversation
        self.progress: Progress | None = None
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

    @contextlib.contextmanager
    def warnings_kept(self) -> Iterator[None]:
        """Keep the warnings the checks raise in ``warnings``, for the report to show.

        ``agentmsg.records`` logs the unknown records it warns about; those log lines are kept
        off standard error (the logger is named, not imported: the module loads on first use).
        """
        records_log = logging.getLogger(__name__.rsplit(".", 2)[0] + ".records")
        records_log.addFilter(_drop)
        try:
            with warnings.catch_warnings(record=True) as log:
                warnings.simplefilter("always")
                self.warnings = log
                yield
        finally:
            records_log.removeFilter(_drop)

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
            item = {"file": name, "line": line, "column": column, "path": render_path(path), "code": code,
                    "message": message, "kind": kind, "severity": severity}
            self.write(("\n  " if self._first else ",\n  ") + json.dumps(item))
            self._first = False
        else:
            flag = "warning: " if severity == "warning" else ""
            self.write(printable(f"{name}:{line}: {render_path(path)}: {flag}{message}") + "\n")

    def cannot_read(self, name: str, exc: OSError) -> None:
        """Record a file that could not be read (exit status 2)."""
        reason = exc.strerror or type(exc).__name__
        self.unreadable.append({"file": name, "message": reason})
        print(printable(f"{prog()}: cannot read {name}: {reason}"), file=sys.stderr)

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


class Recorder(Run):
    """A worker's run (``--jobs``): problems are kept, in order, for the parent to write."""

    def __init__(self, kind: str | None, max_bytes: int, quiet: bool) -> None:
        args = argparse.Namespace(format="text", quiet=quiet, kind=kind, max_bytes=max_bytes, jsonl=True, jobs=1,
                                  conversation=False)
        super().__init__(args, sys.stdout)
        self.reports: list[tuple[int, int | None, Problem, str | None, str]] = []

    def report(
        self, name: str, line: int, column: int | None, problem: Problem, kind: str | None, severity: str = "error"
    ) -> None:
        self.findings += 1
        if not self.quiet:
            self.reports.append((line, column, problem, kind, severity))


class Progress:
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


def is_terminal(stream: IO[str] | None) -> bool:
    """Tell whether ``stream`` is a terminal (the progress line is drawn only there)."""
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, OSError, ValueError):
        return False
