"""The report of a run: its options and counts, a line (or JSON item) per problem, the progress line.

>>> import io
>>> out = io.StringIO()
>>> run = Run(options(), out)
>>> run.documents, run.invalid = 2, 1
>>> run.accept("chat_message")
>>> run.report("a.json", 3, 5, ("[0].content", "type", "expected a string, got number"), "conversation")
>>> run.finish()
1
>>> print(out.getvalue(), end="")
a.json:3: $[0].content: expected a string, got number [conversation]
2 documents, 1 valid (1 chat_message), 1 invalid

Each line names the kind a document was checked as (none for one that is not JSON, or that no
kind matches); the summary counts the valid documents by the kind that accepted them. A
document's lines stop at ``PER_DOCUMENT`` with a note of how many more there are, and a file's
at ``--max-problems`` (a note at the end of the file says how many were not shown); the counts
and the exit status are those of every problem.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from types import SimpleNamespace

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up): type checkers read it as true
if TYPE_CHECKING:
    from typing import IO, Any

    from ._registry import Kind

__all__ = [
    "Problem", "Run", "Progress", "is_terminal", "terminal_columns", "printable", "render_path", "prog", "options", "PER_DOCUMENT",
]

_PROGRESS_EVERY = 0.25  # seconds between two redraws of the progress line
PER_DOCUMENT = 20  # the most lines one document's problems print; a note counts the rest
DEFAULT_MAX_PROBLEMS = 100  # the most lines a file's problems print (--max-problems)

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


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def prog() -> str:
    """Return the command's name as it was run, for usage and error messages."""
    return "agentmsg-validate" if os.path.basename(sys.argv[0] or "") == "agentmsg-validate" else (
        "python -m agentmsg.validate"
    )


def options(**given: object) -> SimpleNamespace:
    """Return the options of a run: the command line's defaults, then ``given``."""
    values: dict[str, object] = {
        "format": "text", "quiet": False, "kind": None, "max_bytes": 64 << 20, "jsonl": False, "jobs": 1,
        "conversation": False, "strict": False, "max_problems": DEFAULT_MAX_PROBLEMS,
    }
    values.update(given)
    return SimpleNamespace(**values)


class Run:
    """The state of one run: options, counts, and the report as it is written."""

    def __init__(self, args: Any, out: IO[str]) -> None:
        self.out = out
        self.json = args.format == "json"
        self.quiet = args.quiet
        self.kind: str | None = args.kind
        self.kinds: tuple[Kind, ...] | None = None
        if args.kind:
            from ._registry import KINDS

            self.kinds = (KINDS[args.kind],)
        self.max_bytes: int = args.max_bytes
        self.jsonl: bool = args.jsonl
        self.jobs: int = args.jobs
        self.conversation: bool = args.conversation
        self.strict: bool = args.strict
        self.max_problems: int = args.max_problems
        self.progress: Progress | None = None
        self.documents = self.valid = self.invalid = self.findings = 0
        self.accepted: dict[str, int] = {}  # valid documents by the kind that accepted them
        self.unreadable: list[dict[str, str]] = []
        self.warnings: list[warnings.WarningMessage] = []
        self.tallies: dict[str, Any] = {}  # a training dataset's kind -> its Tally, for the file being read
        self.datasets: list[dict[str, Any]] = []  # the summaries of the files read, for --format json
        self._file_start = (0, 0)  # the documents and invalid documents counted before this file
        self._first = True
        self._shown = self._hidden = 0  # the lines of this file written, and not
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

        ``agentmsg.records`` logs the unknown records it warns about: the first record checked
        keeps those log lines off standard error (``quiet_records``) until the run ends.
        """
        try:
            with warnings.catch_warnings(record=True) as log:
                warnings.simplefilter("always")
                self.warnings = log
                yield
        finally:
            if "logging" in sys.modules:  # else no record was checked: nothing to undo
                from ._registry import quiet_records

                quiet_records(False)

    def accept(self, kind: str, count: int = 1) -> None:
        """Count ``count`` valid documents, accepted as ``kind``."""
        self.valid += count
        self.accepted[kind] = self.accepted.get(kind, 0) + count

    def tally(self, kind: Kind, doc: Any, line: int) -> None:
        """Sum up ``doc``, an example of the training dataset ``kind`` found on ``line``."""
        tally = self.tallies.get(kind.name)
        if tally is None and kind.tally is not None:
            tally = self.tallies[kind.name] = kind.tally()
        if tally is not None:
            tally.add(doc, line)

    def merge_tallies(self, tallies: dict[str, Any]) -> None:
        """Add a worker's sums (``--jobs``) to this file's."""
        for name, other in tallies.items():
            if name in self.tallies:
                self.tallies[name].merge(other)
            else:
                self.tallies[name] = other

    def report(
        self, name: str, line: int | None, column: int | None, problem: Problem, kind: str | None,
        severity: str = "error",
    ) -> None:
        """Write one problem line (or JSON item); ``severity`` is error, warning (an error with
        ``--strict``) or note (a line about the report itself)."""
        if severity == "note":
            if self.quiet:
                return
        else:
            self.findings += 1
            if self.quiet:
                return
            if self.max_problems and self._shown >= self.max_problems:
                self._hidden += 1
                return
            self._shown += 1
            if severity == "warning" and self.strict:
                severity = "error"
        if self.progress is not None:
            self.progress.clear()
        path, code, message = problem
        if self.json:
            item = {"file": name, "line": line, "column": column, "path": render_path(path), "code": code,
                    "message": message, "kind": kind, "severity": severity}
            self.write(("\n  " if self._first else ",\n  ") + json.dumps(item))
            self._first = False
        else:
            flag = "" if severity == "error" else severity + ": "
            where = f"{name}:{line}: {render_path(path)}" if line is not None else name
            label = f" [{kind}]" if kind else ""
            self.write(printable(f"{where}: {flag}{message}{label}") + "\n")

    def document(
        self, name: str, kind: str | None, items: Sequence[tuple[int, int | None, Problem, str]], more: int = 0,
        start: tuple[int, int | None] = (1, None),
    ) -> None:
        """Write a document's problems, each ``(line, column, problem, severity)``: the first ``PER_DOCUMENT``.

        ``more`` counts problems found beyond ``items``; a note at the document's ``start``
        (its line and column) says how many were not written.
        """
        for line, column, problem, severity in items[:PER_DOCUMENT]:
            self.report(name, line, column, problem, kind, severity)
        rest = max(0, len(items) - PER_DOCUMENT) + more
        if rest:
            self.findings += rest
            if self.max_problems and self._shown >= self.max_problems:  # the file's note counts them
                self._hidden += rest
                return
            noun = "problem" if rest == 1 else "problems"
            note = f"{rest} more {noun} in this document (the first {PER_DOCUMENT} are shown)"
            self.report(name, *start, ("", "more", note), kind, "note")

    def end_file(self, name: str) -> None:
        """Note how many lines of the file ``name`` went unwritten (over ``--max-problems``)."""
        if self._hidden:
            noun = "problem" if self._hidden == 1 else "problems"
            note = f"{self._hidden} more {noun} in this file (--max-problems {self.max_problems} are shown)"
            self.report(name, None, None, ("", "more", note), None, "note")
        self._shown = self._hidden = 0
        for kind, tally in self.tallies.items():
            self._summary(name, kind, tally)
        self.tallies = {}
        self._file_start = (self.documents, self.invalid)

    def _summary(self, name: str, kind: str, tally: Any) -> None:
        """Write the summary of a file of training examples (text), or keep it for the JSON report."""
        documents, invalid = self.documents - self._file_start[0], self.invalid - self._file_start[1]
        sums = tally.as_dict()
        if self.json:
            self.datasets.append({"file": name, "kind": kind, "documents": documents, "invalid": invalid, **sums})
        else:
            longest = f"; longest example {sums['longest_characters']:,} characters (line {sums['longest_line']})" if (
                sums["examples"]) else ""
            self.write(printable(
                f"{name}: {_plural(documents, 'example')} ({invalid:,} invalid): {_plural(sums['messages'], 'message')}, "
                f"{_plural(sums['trained'], 'assistant message')} trained on, {_plural(sums['tool_calls'], 'tool call')}"
                f"{longest} [{kind}]"
            ) + "\n")
        note = tally.note(documents)
        if note is not None:
            self.report(name, None, None, ("", "size", note), kind, "note")

    def cannot_read(self, name: str, exc: OSError) -> None:
        """Record a file that could not be read (exit status 2)."""
        reason = exc.strerror or type(exc).__name__
        self.unreadable.append({"file": name, "message": reason})
        print(printable(f"{prog()}: cannot read {name}: {reason}"), file=sys.stderr)

    def finish(self) -> int:
        """Write the summary; return the exit status."""
        accepted = sorted(self.accepted.items(), key=lambda item: (-item[1], item[0]))
        if self.json:
            counts: dict[str, Any] = {"documents": self.documents, "valid": self.valid, "invalid": self.invalid,
                                      "accepted": dict(accepted)}
            if self.datasets:
                counts["datasets"] = self.datasets
            tail = json.dumps({"unreadable": self.unreadable, **counts})[1:]
            self.write(("{" if self.quiet else ("\n], " if not self._first else "], ")) + tail + "\n")
        else:
            noun = "document" if self.documents == 1 else "documents"
            kinds = f" ({', '.join(f'{count} {kind}' for kind, count in accepted)})" if accepted else ""
            self.write(f"{self.documents} {noun}, {self.valid} valid{kinds}, {self.invalid} invalid\n")
        if self.unreadable:
            return 2
        return 1 if self.invalid else 0


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
        columns = terminal_columns(self.err)
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


def terminal_columns(stream: IO[str]) -> int:
    """Return the width of the terminal ``stream`` writes to: ``$COLUMNS``, else asked, else 80.

    ``shutil.get_terminal_size``'s answer, without the cost of importing ``shutil`` at start-up.
    """
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            columns = 0
    return columns if columns >= 20 else 80  # a new pseudo-terminal says 0: not known


def is_terminal(stream: IO[str] | None) -> bool:
    """Tell whether ``stream`` is a terminal (the progress line is drawn only there)."""
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, OSError, ValueError):
        return False
