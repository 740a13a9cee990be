"""The careful path: one document decoded strictly, checked as each kind it may be, each problem placed.

>>> import io
>>> out = io.StringIO()
>>> run = Run(options(), out)
>>> check(run, "c.json", '[{"role": "system", "content": "Be brief."},\\n {"role": "user", "content": 5, "lang": "en"}]', 1)
>>> print(out.getvalue(), end="")
c.json:2: $[1].content: expected a string or a list of parts, got number [conversation]
c.json:2: $[1].lang: warning: unknown field, ignored by agentmsg [conversation]

A single JSON document takes this path, and so does a JSON Lines line the fast path could not
vouch for. It parses the text again with the careful decoder (duplicate keys, ``NaN`` and
floats that overflow are refused), tries every candidate kind (valid if one accepts it),
reports the likeliest kind's problems at the line and column where each value starts
(``_json_position``), then the fields that kind does not know (``_fields``: warnings, errors
with ``--strict``; none inside a value reported already), and explains a document no kind
matches, JSON that does not parse, bytes that are not UTF-8 and a document over ``--max-bytes``.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from .._checks import type_name
from .._json import _finite_float, _reject_constant, _reject_duplicates
from ..errors import ORDER_CODES, ConversationOrderError, ValidationError
from ._fields import unknown_fields
from ._json_position import find_refused, line_column, locate, parse_path
from ._registry import Kind, Problems, all_kinds, candidates, resemblance, specificity
from ._report import PER_DOCUMENT, Problem, Run, options, render_path
from ._rules import inside

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up): type checkers read it as true
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "decode", "scan", "check", "position", "bad_json", "json_problem", "bad_encoding", "refuse", "too_big",
    "UNKNOWN_FIELD", "DEEP", "warnings_of", "options", "others_note",
]

UNKNOWN_FIELD = "unknown field, ignored by agentmsg"
DEEP: Problem = ("", "depth", "nested too deeply to check")

_FAILURES = (ValidationError, ConversationOrderError, Problems, RecursionError)


# The careful decoder: refuses duplicate keys, NaN/Infinity and floats that overflow.
_decoder = json.JSONDecoder(
    object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant, parse_float=_finite_float
)
decode = _decoder.decode


# The C scanner itself, for the fast path: no whitespace skipping, no end check, no wrapping.
# Its pair hook (the duplicate-key check) costs about half the parse again; a cheaper, exact
# way to see a repeated key with the standard library was not found (counting colons in the
# text costs more than the hook).
scan: Callable[[str, int], tuple[Any, int]] = _decoder.scan_once  # type: ignore[attr-defined]  # JSONDecoder.scan_once is undocumented and untyped


def _size(n: int) -> str:
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= factor and n % factor == 0:
            return f"{n // factor} {unit}"
    return f"{n} bytes"


def check(run: Run, name: str, text: str, line: int) -> None:
    """Check one document carefully; its text starts on ``line``.

    The path of a single JSON document, and of a JSON Lines line that left the fast path.
    """
    run.documents += 1
    try:
        doc = decode(text)
    except (ValueError, RecursionError) as exc:
        run.invalid += 1
        bad_json(run, name, text, line, exc)
        return
    kinds = run.kinds or candidates(doc)
    attempts: list[tuple[Kind, list[Problem], list[Problem]]] = []
    for kind in kinds:
        run.warnings.clear()
        problems = _attempt(kind, doc)
        if problems is None:
            found = warnings_of(run, kind, doc, ())
            if found and run.strict:
                run.invalid += 1
            else:
                run.accept(kind.name)
            if kind.tally is not None:
                run.tally(kind, doc, line)
            _write(run, name, text, line, kind, [(problem, "warning") for problem in found])
            return
        attempts.append((kind, problems, warnings_of(run, kind, doc, problems)))
    run.invalid += 1
    if not kinds:
        _unknown_kind(run, name, text, line, doc)
        return
    # The likeliest intent: the most specific match, then the fewest problems, then the one that
    # got furthest into the document before its first problem.
    best_kind, best, notes = max(attempts, key=lambda attempt: (
        specificity(attempt[0], doc), -len(attempt[1]), len(parse_path(attempt[1][0][0]))))
    if best_kind.tally is not None:
        run.tally(best_kind, doc, line)
    if len(attempts) > 1:
        others = [(kind.name, problems[0]) for kind, problems, _ in attempts if kind is not best_kind]
        row, column = position(text, line, "")
        run.report(name, row, column, ("", "unknown", others_note(best_kind.name, others)), best_kind.name)
    _write(run, name, text, line, best_kind, [(problem, "error") for problem in best] + [(problem, "warning") for problem in notes])


def _write(run: Run, name: str, text: str, line: int, kind: Kind, found: list[tuple[Problem, str]]) -> None:
    """Write a document's problems (each with its severity), each placed where its value starts."""
    if found:
        shown = [(*position(text, line, problem[0]), problem, severity) for problem, severity in found[:PER_DOCUMENT]]
        run.document(name, kind.name, shown, len(found) - len(shown), position(text, line, ""))


def warnings_of(run: Run, kind: Kind, doc: Any, problems: list[Problem] | tuple[()]) -> list[Problem]:
    """Return what checking ``doc`` as ``kind`` warned of, then the fields it does not know; forget the warnings.

    A warning of an invalid document is left out, and so is an unknown field inside a value
    with a problem (that value is wrong already; a message out of order is not a wrong value).
    """
    found: list[Problem] = []
    if not problems:
        found.extend(("", "warning", str(warning.message)) for warning in run.warnings)
    run.warnings.clear()
    if kind.fields is not None:
        wrong = [path for path, code, _ in problems if code not in ORDER_CODES]
        for path in unknown_fields(kind.fields, doc):
            if not any(inside(path, where) for where in wrong):
                found.append((path, "unexpected", UNKNOWN_FIELD))
    return found


def others_note(best: str, others: list[tuple[str, Problem]]) -> str:
    """Return the note of a document several kinds may be: the one it was checked as, why the others failed."""
    shown = [_first_error(kind, problem) for kind, problem in others]
    if len(shown) > 2:
        shown[2:] = [f"and {len(shown) - 2} more"]
    return f"checked as {best}; also tried {', '.join(shown)}"


def _problems(exc: BaseException, doc: Any) -> list[Problem]:
    if isinstance(exc, ValidationError):
        return [(exc.path, exc.code, exc.message)]
    if isinstance(exc, ConversationOrderError):
        index = exc.index
        inside = index is not None and type(doc) is list and 0 <= index < len(doc)
        return [(f"[{index}]" if inside else "", exc.code, exc.message)]
    if isinstance(exc, Problems):
        return [problem for error in exc.errors for problem in _problems(error, doc)]
    return [DEEP]


def _attempt(kind: Kind, doc: Any) -> list[Problem] | None:
    """Return the problems of ``doc`` checked as ``kind`` (None when it is valid)."""
    try:
        kind.check(doc)
    except _FAILURES as exc:
        return _problems(exc, doc)
    return None


def position(text: str, line: int, path: str) -> tuple[int, int]:
    """Return the line and column where the value at ``path`` (or its nearest ancestor) starts."""
    try:
        offset = locate(text, parse_path(path))
    except RecursionError:  # pragma: no cover - the scanner does not recurse; belt and braces
        offset = 0
    row, column = line_column(text, offset)
    return line + row - 1, column


def _first_error(kind: str, problem: Problem) -> str:
    path, _, message = problem
    if len(message) > 60:
        message = message[:57] + "..."
    return f"{kind} ({render_path(path)}: {message})"


def _unknown_kind(run: Run, name: str, text: str, line: int, doc: Any) -> None:
    row, column = position(text, line, "")
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
        closest = "; ".join(_first_error(kind, problems[0]) for _, _, kind, problems in tried[:2])
        message = f"no known kind matches (tried {len(all_kinds())} kinds; closest: {closest}); use --kind KIND"
        if passes:  # a lenient checker takes it, though it lacks that kind's key fields
            message += f" (--kind {passes[0]} accepts it)"
    run.report(name, row, column, ("", "unknown", message), None)


def bad_json(run: Run, name: str, text: str, line: int, exc: BaseException) -> None:
    """Report text the careful decoder refused (``exc``) where the refusal is."""
    run.report(name, *json_problem(text, line, exc), None)


def json_problem(text: str, line: int, exc: BaseException) -> tuple[int, int, Problem]:
    """Return the line, the column and the problem of text the careful decoder refused (``exc``)."""
    if isinstance(exc, json.JSONDecodeError):
        # An error at the very end (truncated input) is placed just after the last character,
        # not on the line a trailing newline opens.
        end = len(text.rstrip(" \t\r\n"))
        row, column = line_column(text, min(exc.pos, end))
        row += line - 1
        what = exc.msg.removesuffix(" at")
        what = what[:1].lower() + what[1:] + (" (truncated)" if exc.pos >= end else "")
        return row, column, ("", "json", f"not valid JSON: {what} at line {row}, column {column}")
    if isinstance(exc, RecursionError):
        return (*position(text, line, ""), ("", "depth", "nested too deeply to parse"))
    found = find_refused(text)
    if found is None:  # pragma: no cover - every refusal the parser makes is one the scanner finds
        return (*position(text, line, ""), ("", "json", str(exc)))
    segments, offset, code, message = found
    row, column = line_column(text, offset)
    path = ""
    for segment in segments:
        path += f"[{segment}]" if type(segment) is int else f".{segment}" if path else str(segment)
    return line + row - 1, column, (path, code, message)


def bad_encoding(run: Run, name: str, raw: bytes, line: int, exc: UnicodeDecodeError) -> None:
    """Count and report a document whose bytes are not UTF-8, at the first bad byte."""
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


def refuse(run: Run, name: str, line: int, what: str) -> None:
    """Count and report a document (or line) over ``--max-bytes``, left unchecked."""
    run.documents += 1
    run.invalid += 1
    run.report(name, line, None, too_big(run, what), None)


def too_big(run: Run, what: str) -> Problem:
    """Return the problem of a document (or line) over ``--max-bytes``."""
    return ("", "size", f"{what} larger than {_size(run.max_bytes)} (--max-bytes); not checked")
