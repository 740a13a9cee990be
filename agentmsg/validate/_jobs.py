"""``--jobs N``: a JSON Lines file cut into pieces of whole lines, checked by N worker processes.

Each piece is ``(start, end or None for the end of the file, the number of its first line)``.
The workers' problems are written in the order of the pieces, so the report is the one a single
process writes.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any

from ._json_lines import CHUNK, check_lines, line_blocks
from ._report import Recorder, Run

__all__ = ["worth_workers", "check_pieces"]

_PIECE = 16 << 20  # the most bytes of JSON Lines one worker takes at a time
_MIN_PIECE = 1 << 20  # a smaller file is checked in one process (starting one costs more)

Piece = tuple[int, "int | None", int]


def worth_workers(size: int) -> bool:
    """Tell whether ``size`` bytes of JSON Lines are worth starting worker processes for."""
    return size >= 2 * _MIN_PIECE


def check_pieces(run: Run, name: str, path: str, stream: IO[bytes], start: int, total: int, lineno: int) -> None:
    """Check the rest of the regular file ``path`` (from ``start``, line ``lineno``) in ``run.jobs`` workers."""
    pieces = _pieces(stream, start, total, run.jobs, lineno)
    if total - start > _PIECE:  # cut the file as the workers go
        _parallel(run, name, path, run.jobs, pieces)
    else:  # no more workers than pieces
        cut = list(pieces)
        _parallel(run, name, path, min(run.jobs, len(cut)), cut)


def _pieces(stream: IO[bytes], start: int, total: int, jobs: int, lineno: int) -> Iterator[Piece]:
    """Cut the rest of ``stream`` (from ``start``, line ``lineno``) into pieces of whole lines.

    A multiple of ``jobs`` pieces of about the same size, none much over ``_PIECE`` bytes (so a
    worker's report stays small and the workers end together) nor under ``_MIN_PIECE``. One
    pass over the bytes counts the lines, so each worker knows the number of its first line.
    """
    count = jobs * -(-(total - start) // (_PIECE * jobs))
    step = max(1, _MIN_PIECE, -(-(total - start) // count))
    stream.seek(start)
    pos, line = start, lineno
    first, first_line = start, lineno
    target = start + step  # cut at the first line that starts at or after target
    while True:
        chunk = stream.read(CHUNK)
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


def _parallel(run: Run, name: str, path: str, workers: int, pieces: Iterable[Piece]) -> None:
    """Check ``pieces`` of the JSON Lines file ``path`` in ``workers`` processes.

    Workers are spawned (not forked: the parent may run threads) and ignore Ctrl-C, which the
    parent handles. ``pieces`` may be a generator: the pool's feeder thread cuts the file while
    the first workers check their pieces.
    """
    if not workers:
        return
    import multiprocessing

    progress = run.progress
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers, initializer=_ignore_interrupts) as pool:
        tasks = ((path, begin, end, line, run.kind, run.max_bytes, run.quiet, run.strict) for begin, end, line in pieces)
        for error, reports, documents, accepted, invalid, findings, size, tallies in pool.imap(_work, tasks):
            if error is not None:
                raise OSError(*error)
            for report in reports:
                run.report(name, *report)
            run.documents += documents
            for kind, count in accepted.items():
                run.accept(kind, count)
            run.invalid += invalid
            run.merge_tallies(tallies)
            run.findings += findings - sum(report[4] != "note" for report in reports)
            if progress is not None:
                progress.advance(size, run.documents, run.findings)


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(task: tuple[str, int, int | None, int, str | None, int, bool, bool]) -> tuple[Any, ...]:
    """Check one piece of a JSON Lines file in a worker process (the pool finds it by this name)."""
    path, start, end, lineno, kind, max_bytes, quiet, strict = task
    run = Recorder(kind, max_bytes, quiet, strict)
    size = 0
    try:
        with run.warnings_kept(), open(path, "rb") as stream:
            stream.seek(start)
            left = sys.maxsize if end is None else end - start

            def read(n: int) -> bytes:
                nonlocal left, size
                data = stream.read(min(n, left))
                left -= len(data)
                size += len(data)
                return data

            check_lines(run, "", line_blocks(read, max_bytes), lineno)
    except OSError as exc:
        return (exc.errno, exc.strerror), [], 0, {}, 0, 0, size, {}
    return None, run.reports, run.documents, run.accepted, run.invalid, run.findings, size, run.tallies
