"""One big JSON document checked without being read whole: a conversation array, a message at a time.

Theory of operation: a regular file of at least a mebibyte whose array's first item makes it a
conversation is parsed an element at a time (``_json_array.ArrayReader``); each message is
checked and dropped, the order kept by an ``OrderCheck``, so memory holds one message and the
problems found. Anything this path does not explain exactly as the whole-document path would
sends the file back to that path, rewound: the report is the same either way.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import IO, Any, TypeVar

from ..errors import ConversationOrderError, ValidationError
from ..history import OrderCheck
from ..messages import ChatMessage
from ._diagnosis import scan
from ._json_array import ArrayReader, GiveUp
from ._json_lines import CHUNK
from ._json_position import parse_path
from ._registry import KINDS, openai_only, shape_kinds
from ._report import Problem, Run

__all__ = ["check_big_document"]

_STREAM_MIN = 1 << 20  # a smaller JSON document is read whole (private: the tests lower it)
_STREAM_CHUNK = CHUNK  # the read size (private: the tests lower it)
_MAX_HELD = 10_000  # the most problems held before the document is read whole instead
_DEPTH_MARGIN = 64  # frames (and nesting levels) of headroom the check keeps; see _deeper

_T = TypeVar("_T")


def check_big_document(run: Run, name: str, stream: IO[bytes], size: int) -> bool:
    """Check a big file holding one conversation array a message at a time; tell if done.

    The memory-bounded path for one big document: the array's elements are parsed one at a time
    (``ArrayReader``) and checked as they come, each message then dropped, the order kept by an
    ``OrderCheck``; the problems found (at most ``_MAX_HELD``) are held with their line and
    column until the array has parsed to its end, then reported as the careful path (``_diagnosis``) reports them.
    At anything it does not explain the same way (not an array, another kind, JSON or UTF-8 that
    does not parse, nesting too deep, a warning, over ``--max-bytes``, a document that
    ``openai_messages`` may also explain) the file is rewound and checked by the whole-document
    path, so every report is the one that path writes. Only a regular file (it can be read
    again) of ``size`` bytes, at least ``_STREAM_MIN``, checked as a conversation (detected or forced).
    """
    if run.kind not in (None, "conversation") or not _STREAM_MIN <= size <= run.max_bytes:
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
        scan("[" * _DEPTH_MARGIN + text + "]" * _DEPTH_MARGIN, 0)
    except RecursionError:
        return False
    return True


def _stream_problems(run: Run, reader: ArrayReader) -> list[tuple[int, int, Problem]]:
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
                maybe_openai, head = openai_only(head), None
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
        maybe_openai = openai_only(head)
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
