"""``--jobs N``: a JSON Lines file cut into pieces of whole lines, checked by N processes.

Each piece is ``(start, end or None for the end of the file, the number of its first line)``.
The command checks pieces itself while N - 1 worker processes start and check the others; the
problems are written in the order of the pieces, so the report is the one a single process writes.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Iterator, Sequence
from typing import IO, Any

from ._json_lines import CHUNK, check_lines, line_blocks
from ._report import Recorder, Run

__all__ = ["worth_workers", "check_pieces"]

_PIECE = 16 << 20  # the most bytes of JSON Lines one process takes at a time
_MIN_PIECE = 1 << 20  # the fewest (but for the last piece)
_WORTH = 32 << 20  # a smaller file is checked in one process (about as soon as workers would be up and help)

Piece = tuple[int, "int | None", int]
Task = tuple[str, int, "int | None", int, "str | None", int, bool, bool]


def worth_workers(size: int) -> bool:
    """Tell whether ``size`` bytes of JSON Lines are worth starting worker processes for."""
    return size >= _WORTH


def check_pieces(run: Run, name: str, path: str, stream: IO[bytes], start: int, total: int, lineno: int) -> None:
    """Check the rest of the regular file ``path`` (from ``start``, line ``lineno``) in ``run.jobs`` processes."""
    pieces = _pieces(stream, start, total, run.jobs, lineno)
    if total - start > _PIECE:  # cut the file as the processes go
        _parallel(run, name, path, run.jobs, pieces)
    else:  # no more processes than pieces
        cut = list(pieces)
        _parallel(run, name, path, min(run.jobs, len(cut)), iter(cut))


def _pieces(stream: IO[bytes], start: int, total: int, jobs: int, lineno: int) -> Iterator[Piece]:
    """Cut the rest of ``stream`` (from ``start``, line ``lineno``) into pieces of whole lines.

    Each piece holds a ``2 * jobs``-th of the bytes left, from ``_MIN_PIECE`` up to ``_PIECE``:
    big pieces first, small ones last, so that the processes end together. One pass over the
    bytes counts the lines, so each process knows the number of its first line.
    """
    def step(first: int) -> int:
        return max(1, _MIN_PIECE, min(_PIECE, (total - first) // (2 * jobs)))

    stream.seek(start)
    pos, line = start, lineno
    first, first_line = start, lineno
    target = start + step(start)  # cut at the first line that starts at or after target
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
            target = first + step(first)
        line += chunk.count(b"\n", i)
        pos += len(chunk)
    if first < pos:
        yield first, None, first_line  # the last piece reads on to the end, as one run would


def _parallel(run: Run, name: str, path: str, processes: int, pieces: Iterator[Piece]) -> None:
    """Check ``pieces`` of the JSON Lines file ``path`` here and in ``processes - 1`` workers.

    The workers start in the background while this process checks pieces itself. Each worker
    holds up to two pieces; whenever the findings of the next piece are not back, this process
    checks the next piece itself, and once the file is all handed out, the last piece a worker
    holds: so it never waits for a worker (one that is slow to start, or gone), and the two meet
    in the middle. Findings are merged in file order.
    """
    tasks: Iterator[Task] = ((path, begin, end, line, run.kind, run.max_bytes, run.quiet, run.strict)
                             for begin, end, line in pieces)
    helpers = _Workers(processes - 1)
    pending: deque[list[Any]] = deque()  # in file order: [task, a worker's AsyncResult or the findings]
    in_hand = 0  # the pieces the workers hold
    more = True
    try:
        while more or pending:
            pool = helpers.pool
            while pool is not None and more and in_hand < 2 * helpers.count:
                task = next(tasks, None)
                if task is None:
                    more = False
                else:
                    pending.append([task, pool.apply_async(_work, (task,))])
                    in_hand += 1
            while pending and (type(pending[0][1]) is tuple or pending[0][1].ready()):
                task, result = pending.popleft()
                if type(result) is not tuple:
                    in_hand -= 1
                    result = result.get()
                _merge(run, name, result)
            task = next(tasks, None) if more else None
            if task is not None:  # the next piece's findings are not back: check a piece here
                pending.append([task, _work(task)])
            elif pending:  # all handed out: check here the last piece a worker holds
                more = False
                last = next(entry for entry in reversed(pending) if type(entry[1]) is not tuple)
                last[1] = _work(last[0])
            else:
                more = False
    finally:
        helpers.stop()


class _Workers:
    """``count`` worker processes, started by a thread so that the caller goes on meanwhile.

    They come from a fork server that has loaded the modules of this package that this process
    has loaded (the checkers the first line needed), else they are spawned; never forked from
    this process, which may run threads. They ignore Ctrl-C, which the command handles.
    """

    def __init__(self, count: int) -> None:
        import threading

        self.count = count
        self.pool: Any = None  # set by the thread once the workers are up
        self._lock = threading.Lock()
        self._stopped = False
        if not count:
            return
        import multiprocessing.pool

        try:
            if "forkserver" in multiprocessing.get_all_start_methods():
                from multiprocessing import forkserver

                package = __name__.rsplit(".", 2)[0]
                forkserver.set_forkserver_preload(sorted(
                    module for module in sys.modules
                    if module.startswith(package + ".") and not module.endswith("__main__")))
                forkserver.ensure_running()  # starts it and returns: it loads the modules meanwhile
                context: Any = multiprocessing.get_context("forkserver")
            else:
                context = multiprocessing.get_context("spawn")
        except Exception:  # no fork server (no processes left): the command checks alone
            return
        threading.Thread(target=self._start, args=(context,), daemon=True).start()

    def _start(self, context: Any) -> None:
        try:
            pool = context.Pool(self.count, initializer=_ignore_interrupts)
        except Exception:  # no workers (no processes left): the command checks alone
            return
        with self._lock:
            if not self._stopped:
                self.pool = pool
                return
        pool.terminate()  # the command was done before they were up

    def stop(self) -> None:
        """Stop the workers, now or as soon as they are up."""
        with self._lock:
            self._stopped = True
            pool, self.pool = self.pool, None
        if pool is not None:
            pool.terminate()


def _merge(run: Run, name: str, result: Sequence[Any]) -> None:
    """Add the findings of one piece to ``run`` and write its reports."""
    error, reports, documents, accepted, invalid, findings, size, tallies = result
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
    if run.progress is not None:
        run.progress.advance(size, run.documents, run.findings)


def _ignore_interrupts() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(task: Task) -> tuple[Any, ...]:
    """Check one piece of a JSON Lines file, here or in a worker (the pool finds it by this name)."""
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
