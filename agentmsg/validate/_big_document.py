"""One big JSON array checked without being read whole: an element at a time, as each kind it may be.

Theory of operation: a regular file of at least a mebibyte holding one array is parsed an element
at a time (``_json_array.ArrayReader``). The kinds it may be are those of its first element's
shape (or the one ``--kind`` names); each must check its document an element at a time (its
``Items``, the very check its whole-document checker runs), and each is fed every element in turn,
which is then dropped. So memory holds one element, the few facts each check keeps (the order's
state, the tool names seen), and for each kind its first problems with their lines and columns
and a count of the rest. When the array ends, the report is the one the whole-document path
(``_diagnosis``) writes: the first kind that found nothing wrong accepts it, or the likeliest
kind's problems are written, by the same rules. Anything this path does not explain exactly as
that path would sends the file back to it, rewound: the report is the same either way.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import IO, Any, TypeVar

from ..errors import ORDER_CODES, ValidationError
from ._diagnosis import UNKNOWN_FIELD, others_note, scan
from ._fields import has_unknown_fields, unknown_fields
from ._json_array import ArrayReader, GiveUp
from ._json_lines import CHUNK
from ._json_position import line_column, locate, parse_path
from ._registry import Kind, shape_kinds
from ._report import PER_DOCUMENT, Problem, Run
from ._rules import Findings, Items, inside

__all__ = ["check_big_document"]

_STREAM_MIN = 1 << 20  # a smaller JSON document is read whole (private: the tests lower it)
_STREAM_CHUNK = CHUNK  # the read size (private: the tests lower it)
_DEPTH_MARGIN = 64  # frames (and nesting levels) of headroom the check keeps; see _deeper
_HEAD = 64  # the elements a kind's ``confirm`` looks at (``_registry.openai_only``)

_T = TypeVar("_T")
Placed = tuple[int, int, Problem]


def check_big_document(run: Run, name: str, stream: IO[bytes], size: int) -> bool:
    """Check a big file holding one array an element at a time; tell if done.

    The memory-bounded path for one big document: the array's elements are parsed one at a time
    (``ArrayReader``) and fed to the element check of each kind the array may be; each element is
    then dropped. At anything it does not explain the same way as the whole-document path (not an
    array, a kind without an element check, JSON or UTF-8 that does not parse, nesting too deep,
    over ``--max-bytes``) the file is rewound and checked by that path, so every report is the one
    it writes. Only a regular file (it can be read again) of ``size`` bytes, at least ``_STREAM_MIN``.
    """
    if not _STREAM_MIN <= size <= run.max_bytes or (run.kinds is not None and run.kinds[0].items is None):
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

    reader = ArrayReader(read, scan, chunk=_STREAM_CHUNK, limit=run.max_bytes)
    try:
        # a few frames deeper than the whole-document path checks from: what nests too deeply
        # there fails here too (then that path explains it), and nothing fails only there
        checks = _deeper(_DEPTH_MARGIN, lambda: _checked(run, reader))
    except Exception:  # GiveUp, depth, anything odd: the careful path says what it is
        run.warnings.clear()
        stream.seek(start)
        return False
    finally:
        if progress is not None:
            progress.clear()
    _write(run, name, reader, checks)
    return True


class _Check:
    """One kind the array may be: its element check, and what it found (the first problems, a count)."""

    __slots__ = ("kind", "items", "errors", "error_count", "first", "notes", "note_count", "warnings", "warning_count",
                 "score")

    def __init__(self, kind: Kind, score: int) -> None:
        assert kind.items is not None
        self.kind = kind
        self.items: Items = kind.items()
        self.errors: list[Placed] = []
        self.error_count = 0
        self.first: Problem | None = None  # the first problem, for the ranking and the note of the others
        self.notes: list[Placed] = []  # the unknown fields
        self.note_count = 0
        self.warnings: list[str] = []  # what the check warned of (placed at the array): the first ones
        self.warning_count = 0
        self.score = score  # the specificity of the kind's match

    def feed(self, run: Run, place: Callable[[str], tuple[int, int]], index: int, element: Any) -> None:
        """Feed the element at ``index``; ``place(path)`` gives where a path inside it is."""
        log = run.warnings
        seen = len(log)
        found: Findings = []
        self.items.item(index, element, found)
        if len(log) > seen:
            self.warning_count += len(log) - seen
            self.warnings.extend(str(warning.message) for warning in log[seen:seen + PER_DOCUMENT - len(self.warnings)])
            del log[seen:]
        paths = []
        if found:
            head = f"[{index}]"
            for problem in found:
                if problem.code == "depth" or not (problem.path == head or problem.path.startswith((head + ".", head + "["))):
                    raise GiveUp("not explained here")
                self._error(place, problem)
                if problem.code not in ORDER_CODES:
                    paths.append(problem.path)
        fields = self.kind.fields
        if fields is not None and has_unknown_fields(fields, element):
            for path in unknown_fields(fields, element, f"[{index}]"):
                if not any(inside(path, where) for where in paths):
                    self.note_count += 1
                    if len(self.notes) < PER_DOCUMENT:
                        self.notes.append((*place(path), (path, "unexpected", UNKNOWN_FIELD)))

    def end(self, count: int, reader: ArrayReader) -> None:
        found: Findings = []
        self.items.end(count, found)
        for problem in found:
            if problem.path:
                raise GiveUp("not explained here")
            self._error(lambda path: reader.root, problem)

    def _error(self, place: Callable[[str], tuple[int, int]], problem: ValidationError) -> None:
        self.error_count += 1
        found = (problem.path, problem.code, problem.message)
        if self.first is None:
            self.first = found
        if len(self.errors) < PER_DOCUMENT:
            self.errors.append((*place(problem.path), found))


def _placer(reader: ArrayReader) -> Callable[[str], tuple[int, int]]:
    """Return where a path is in the element being read (``$``: the array), as the reader places it."""

    def place(path: str) -> tuple[int, int]:
        if not _shallow(reader.text()):
            raise GiveUp("nested too deeply to place here")
        return reader.where(parse_path(path)[1:])

    return place


def _kept(reader: ArrayReader) -> Callable[[str], tuple[int, int]]:
    """Return where a path is in the element being read, from a copy of its text (for a later look)."""
    text = reader.text()
    line, column = reader.where([])

    def place(path: str) -> tuple[int, int]:
        if not _shallow(text):
            raise GiveUp("nested too deeply to place here")
        row, col = line_column(text, locate(text, parse_path(path)[1:]))
        return (line, column + col - 1) if row == 1 else (line + row - 1, col)

    return place


def _deeper(frames: int, call: Callable[[], _T]) -> _T:
    """Return ``call()``, called ``frames`` Python frames deeper than this call."""
    return _deeper(frames - 1, call) if frames > 0 else call()


def _shallow(text: str) -> bool:
    """Tell whether the JSON value ``text`` parses with ``_DEPTH_MARGIN`` levels to spare."""
    try:
        scan("[" * _DEPTH_MARGIN + text + "]" * _DEPTH_MARGIN, 0)
    except RecursionError:
        return False
    return True


def _checked(run: Run, reader: ArrayReader) -> list[_Check]:
    """Feed every element ``reader`` yields to each kind the array may be; return their checks.

    Raise (``GiveUp`` or whatever went wrong) where the whole-document path must decide.
    """
    elements = reader.elements()
    first = next(elements)
    kinds = run.kinds if run.kinds is not None else shape_kinds(first)
    if not kinds or any(kind.items is None for kind in kinds):
        raise GiveUp("not a kind checked an element at a time")
    detected = run.kinds is None
    keys = frozenset(first) if type(first) is dict else frozenset()
    # A kind that looks past the shape (``confirm``, on the first elements) waits until they are
    # read: as ``candidates``, it is checked only if it agrees, and then one more specific.
    waiting = [kind for kind in kinds if detected and kind.confirm is not None]
    checks = [_Check(kind, kind.detect((True, keys))) for kind in kinds if kind not in waiting]
    head: list[tuple[Any, Callable[[str], tuple[int, int]]]] = []  # the first elements, and where each is
    place = _placer(reader)
    count = 0
    for index, element in enumerate(itertools.chain((first,), elements)):
        for check in checks:
            check.feed(run, place, index, element)
        if waiting:
            head.append((element, _kept(reader)))
            if len(head) == _HEAD:
                checks = _confirmed(run, checks, waiting, head, keys, kinds)
                waiting, head = [], []
        count += 1
    del first
    if waiting:
        checks = _confirmed(run, checks, waiting, head, keys, kinds)
    if not checks:
        raise GiveUp("no kind left")
    for check in checks:
        check.end(count, reader)
    # The whole-document path takes the first line for JSON Lines when it stands alone: a line
    # that ends in } or ] before the array does. Then it reports what JSON Lines give.
    if reader.first_line_tail is not None and reader.first_line_tail in "]}":
        raise GiveUp("read as JSON Lines")
    return checks


def _confirmed(run: Run, checks: list[_Check], waiting: list[Kind], head: list[tuple[Any, Callable[[str], tuple[int, int]]]],
               keys: frozenset[str], kinds: tuple[Kind, ...]) -> list[_Check]:
    """Return ``checks`` and, in the kinds' order, the waiting kinds the elements of ``head`` confirm, fed them."""
    elements = [element for element, _ in head]
    added = [_Check(kind, kind.detect((True, keys)) + 1) for kind in waiting
             if kind.confirm is not None and kind.confirm(elements)]
    for check in added:
        for index, (element, place) in enumerate(head):
            check.feed(run, place, index, element)
    return sorted([*checks, *added], key=lambda check: kinds.index(check.kind))


def _write(run: Run, name: str, reader: ArrayReader, checks: list[_Check]) -> None:
    """Count the document and write its report, as the whole-document path does."""
    run.documents += 1
    for check in checks:
        if not check.error_count:  # the first kind that found nothing wrong accepts it
            found = [(*reader.root, ("", "warning", warning), "warning") for warning in check.warnings]
            found += [(line, column, problem, "warning") for line, column, problem in check.notes]
            if found and run.strict:
                run.invalid += 1
            else:
                run.accept(check.kind.name)
            more = check.warning_count + check.note_count - len(found)
            run.document(name, check.kind.name, found[:PER_DOCUMENT], more + max(0, len(found) - PER_DOCUMENT),
                         reader.root)
            return
    run.invalid += 1
    # The likeliest intent, as ``_diagnosis.check`` ranks it.
    best = max(checks, key=lambda check: (check.score, -check.error_count, len(parse_path(check.first[0]))
                                          if check.first is not None else 0))
    kind = best.kind.name
    if len(checks) > 1:
        others = [(check.kind.name, check.first) for check in checks if check is not best and check.first is not None]
        run.report(name, *reader.root, ("", "unknown", others_note(kind, others)), kind)
    found = [(line, column, problem, "error") for line, column, problem in best.errors]
    found += [(line, column, problem, "warning") for line, column, problem in best.notes]
    more = best.error_count + best.note_count - len(found)
    run.document(name, kind, found[:PER_DOCUMENT], more + max(0, len(found) - PER_DOCUMENT), reader.root)
