"""``--jobs N``: a JSON Lines file cut into pieces at byte offsets, checked by N processes.

Theory of operation: cutting reads nothing. Piece ``k`` holds the lines that start at or after
its offset and before the next piece's; the process that checks it skips the end of the line
its offset falls in (the piece before reads that line to its end) and reads on past its last
offset to the end of the line it is in. So every line is read by exactly one process, which
counts the lines it reads: a piece's problems come back at lines counted from 1 in the piece,
with the number of lines it holds, and the command, which writes the pieces' findings in file
order, knows how many lines came before and renumbers them. The report is the one a single
process writes, down to the line numbers.

The command and N - 1 worker processes take pieces from one counter, each piece exactly once;
the workers start in the background while the command checks the first pieces. Pieces are
big first and small last, so that the processes end together.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO, Any

from ._json_lines import CHUNK, check_lines, line_blocks, skip_line
from ._report import PER_DOCUMENT, Problem, Run, options

__all__ = ["worth_workers", "check_pieces"]

_PIECE = 16 << 20  # the most bytes of JSON Lines in a piece
_MIN_PIECE = 1 << 20  # the fewest (but for the last piece)
_WORTH = 32 << 20  # a smaller file is checked in one process (about as soon as workers would be up and help)
_STALL = 5.0  # seconds: the longest a process waits for the counter (held by a worker that stopped)
_PATIENCE = 0.5  # seconds a worker is given, beyond its piece's expected time, before the command checks it

# path, the pieces' offsets, then the options a worker checks with: kind, max_bytes, quiet, strict, max_problems
Job = tuple[str, list[int], "str | None", int, bool, bool, int]


def worth_workers(size: int) -> bool:
    """Tell whether ``size`` bytes of JSON Lines are worth starting worker processes for."""
    return size >= _WORTH


def check_pieces(run: Run, name: str, path: str, stream: IO[bytes], start: int, total: int, lineno: int) -> None:
    """Check the rest of the regular file ``path`` (from ``start``, line ``lineno``) in ``run.jobs`` processes."""
    offsets = _offsets(start, total, run.jobs)
    job: Job = (path, offsets, run.kind, run.max_bytes, run.quiet, run.strict, run.max_problems)
    _parallel(run, name, job, min(run.jobs, len(offsets)) - 1, lineno)


def _offsets(start: int, total: int, jobs: int) -> list[int]:
    """Return where the pieces of bytes ``start`` to ``total`` begin: big first, small last.

    Each piece holds a ``2 * jobs``-th of the bytes left, from ``_MIN_PIECE`` up to ``_PIECE``;
    the last one reads on to the end of the file, as one run would.

    >>> [round(offset / 2**20, 1) for offset in _offsets(0, 64 << 20, 2)]  # in MiB
    [0.0, 16.0, 28.0, 37.0, 43.8, 48.8, 52.6, 55.5, 57.6, 59.2, 60.4, 61.4, 62.4, 63.4]
    """
    offsets = [start]
    while True:
        step = max(1, _MIN_PIECE, min(_PIECE, (total - offsets[-1]) // (2 * jobs)))
        if offsets[-1] + step >= total:
            return offsets
        offsets.append(offsets[-1] + step)


def _parallel(run: Run, name: str, job: Job, workers: int, lineno: int) -> None:
    """Check the pieces of ``job`` here and in ``workers`` worker processes; write them in file order.

    This process takes pieces from the counter like the workers. Once none is left, it waits for
    the pieces the workers hold, each for a while (its expected time, measured on this process's
    own pieces, and ``_PATIENCE``), then checks a piece itself, so a worker that is slow, stopped or
    gone never holds up the run; a result that comes after is dropped.
    """
    import time

    count = len(job[1])
    context = _context() if workers else None
    claims: _Claims | _Counter = _Counter(count)
    if context is not None:
        try:
            claims = _Claims(context, count)
        except OSError:  # no semaphore or pipe left: the command checks alone
            context = None
    helpers = _Workers(context, workers, job, claims)
    results: dict[int, Sequence[Any]] = {}
    merged = 0  # the pieces written so far
    own = [0.0, 0]  # the seconds this process spent on its own pieces, and their bytes
    stalled = False
    try:
        while merged < count:
            helpers.collect(results, merged, 0)
            while merged in results:
                lineno = _merge(run, name, results.pop(merged), lineno)
                merged += 1
            if merged == count:
                break
            piece = None if stalled else claims.take()
            if piece is None:  # the counter is held by a worker that stopped: check what is missing here
                stalled = True
            elif piece < count:
                began = time.perf_counter()
                results[piece] = _work(job, piece)
                own[0] += time.perf_counter() - began
                own[1] += _size(job, piece)
                continue
            missing = [k for k in range(merged, count) if k not in results]
            if not stalled and helpers.collect(results, merged, _patience(job, missing, own)):
                continue
            results[missing[0]] = _work(job, missing[0])
    finally:
        helpers.stop()


def _patience(job: Job, missing: list[int], own: list[float]) -> float:
    """Return how long to wait for the ``missing`` pieces: twice the time of the biggest here, and more."""
    per_byte = own[0] / own[1] if own[1] else 5e-8  # measured, else about 50 ms a MiB
    return _PATIENCE + 2 * per_byte * max(_size(job, k) for k in missing)


def _size(job: Job, piece: int) -> int:
    """Return about how many bytes ``piece`` holds (the last one: as many as its predecessor)."""
    offsets = job[1]
    if piece + 1 < len(offsets):
        return offsets[piece + 1] - offsets[piece]
    return offsets[piece] - offsets[piece - 1] if piece else _MIN_PIECE


def _merge(run: Run, name: str, result: Sequence[Any], lineno: int) -> int:
    """Write the findings of one piece, its first line being ``lineno``, to ``run``; return the next piece's."""
    error, reports, documents, accepted, invalid, findings, hidden, size, tallies, lines = result
    if error is not None:
        raise OSError(*error)
    shift = lineno - 1
    before = run.findings
    for entry in reports:
        if len(entry) == 5:
            run.report(name, *_renumber(entry[0], entry[1], entry[2], shift), entry[3], entry[4])
        else:
            kind, items, more, start = entry
            items = [(*_renumber(line, column, problem, shift), severity) for line, column, problem, severity in items]
            run.document(name, kind, items, more, (start[0] + shift, start[1]))
    if hidden:  # the problems past --max-problems, counted only: the file's note counts them
        run.document(name, None, (), hidden)
    run.findings = before + findings
    run.documents += documents
    for kind, count in accepted.items():
        run.accept(kind, count)
    run.invalid += invalid
    for tally in tallies.values():
        if tally.longest:  # the line of the longest example, in the piece
            tally.longest_line += shift
    run.merge_tallies(tallies)
    if run.progress is not None:
        run.progress.advance(size, run.documents, run.findings)
    return lineno + int(lines)


def _renumber(line: int | None, column: int | None, problem: Problem, shift: int) -> tuple[Any, Any, Problem]:
    """Return a problem found ``shift`` lines into the file at ``line`` of its piece, as found in the file."""
    if line is None or not shift:
        return line, column, problem
    where = f" at line {line}, column {column}"  # the careful path names the line in a message, too
    if problem[2].endswith(where):
        problem = (problem[0], problem[1], f"{problem[2][:-len(where)]} at line {line + shift}, column {column}")
    return line + shift, column, problem


class _Piece(Run):
    """The run of one piece: its findings kept in order, lines counted from 1, for the command to write.

    A document's problems are kept as one entry, for the command to cap as a whole. Past
    ``--max-problems`` lines the command would show none: those are counted, not kept, so the
    findings of a piece stay small whatever it holds.
    """

    def __init__(self, kind: str | None, max_bytes: int, quiet: bool, strict: bool, max_problems: int) -> None:
        super().__init__(options(quiet=quiet, kind=kind, max_bytes=max_bytes, jsonl=True, strict=strict,
                                 max_problems=max_problems), sys.stdout)
        self.reports: list[tuple[Any, ...]] = []  # (line, column, problem, kind, severity); (kind, items, more, start)
        self.lines = 0  # the problem lines kept
        self.hidden = 0  # the problems past them

    def report(
        self, name: str, line: int | None, column: int | None, problem: Problem, kind: str | None,
        severity: str = "error",
    ) -> None:
        if severity != "note":
            self.findings += 1
        if self.quiet:
            return
        if severity != "note" and self.max_problems and self.lines >= self.max_problems:
            self.hidden += 1
            return
        self.reports.append((line, column, problem, kind, severity))
        self.lines += severity != "note"

    def document(
        self, name: str, kind: str | None, items: Sequence[tuple[int, int | None, Problem, str]], more: int = 0,
        start: tuple[int, int | None] = (1, None),
    ) -> None:
        shown = list(items[:PER_DOCUMENT])
        more += len(items) - len(shown)
        self.findings += len(shown) + more
        if self.quiet:
            return
        if self.max_problems and self.lines >= self.max_problems:
            self.hidden += len(shown) + more
            return
        self.reports.append((kind, shown, more, start))
        self.lines += len(shown)


def _work(job: Job, piece: int) -> tuple[Any, ...]:
    """Check one piece of a JSON Lines file, here or in a worker; its lines are counted from 1."""
    path, offsets, kind, max_bytes, quiet, strict, max_problems = job
    begin = offsets[piece]
    end = offsets[piece + 1] if piece + 1 < len(offsets) else None
    run = _Piece(kind, max_bytes, quiet, strict, max_problems)
    lines = size = 0
    try:
        with run.warnings_kept(), open(path, "rb") as stream:
            stream.seek(begin - 1 if piece else begin)
            if piece:  # the line this piece's offset falls in is the previous piece's
                skip_line(stream.readline)
            pos = first = stream.tell()
            done = end is not None and pos >= end

            def read(n: int) -> bytes:
                nonlocal pos, done
                if done:
                    return b""
                if end is None or pos < end:
                    data = stream.read(n if end is None else min(n, end - pos))
                    done = not data or (end is not None and pos + len(data) >= end and data[-1:] == b"\n")
                else:  # past the end: the rest of the line that ends the piece
                    data = stream.readline(n)
                    done = not data or data[-1:] == b"\n"
                pos += len(data)
                return data

            lines = check_lines(run, "", line_blocks(read, max_bytes), 1)
            size = pos - first
    except OSError as exc:
        return (exc.errno, exc.strerror), [], 0, {}, 0, 0, 0, size, {}, lines
    return (None, run.reports, run.documents, run.accepted, run.invalid, run.findings, run.hidden, size, run.tallies,
            lines)


class _Counter:
    """The next piece, for this process alone (no worker could start)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._next = 0

    def take(self) -> int | None:
        """Take the next piece; ``count`` when none is left."""
        piece = self._next
        self._next = min(piece + 1, self.count)
        return piece


class _Claims:
    """The next piece, shared by the command and its workers: each piece is taken exactly once.

    The number travels in a pipe under a lock: a process takes the lock, reads the number and
    writes the next one back. Every wait is bounded: a worker that stopped holding the lock
    (or died with the number) stalls the counter, and ``take`` says so with None.
    """

    def __init__(self, context: Any, count: int) -> None:
        self.count = count
        self._lock = context.Lock()
        self._get, self._put = context.Pipe(duplex=False)
        self._put.send_bytes(b"0")

    def take(self) -> int | None:
        """Take the next piece; ``count`` when none is left, None when the counter stalled."""
        if not self._lock.acquire(timeout=_STALL):
            return None
        try:
            if not self._get.poll(_STALL):
                return None
            piece = int(self._get.recv_bytes())
            self._put.send_bytes(b"%d" % min(piece + 1, self.count))
            return piece
        except (OSError, EOFError, ValueError):
            return None
        finally:
            self._lock.release()


def _context() -> Any:
    """Return the context workers start from; None: no process can start.

    On Linux, when this process runs no other thread (the command), they are forked from it:
    up in milliseconds. Elsewhere, or beside other threads, they are forked from a fork server
    that has loaded this package's modules that this process has loaded (the checkers the first
    line needed), else spawned.
    """
    import multiprocessing
    import threading

    try:
        if sys.platform == "linux" and threading.active_count() == 1:
            return multiprocessing.get_context("fork")
        if "forkserver" in multiprocessing.get_all_start_methods():
            from multiprocessing import forkserver

            package = __name__.rsplit(".", 2)[0]
            forkserver.set_forkserver_preload(sorted(
                module for module in sys.modules if module.startswith(package + ".") and not module.endswith("__main__")))
            forkserver.ensure_running()  # starts it and returns: it loads the modules meanwhile
            return multiprocessing.get_context("forkserver")
        return multiprocessing.get_context("spawn")
    except Exception:  # no fork server (no processes left): the command checks alone
        return None


class _Workers:
    """``count`` worker processes: forked at once, or started by a thread while the command checks.

    Each takes pieces from ``claims`` and sends back each one's findings on a pipe of its own.
    """

    def __init__(self, context: Any, count: int, job: Job, claims: _Counter | _Claims) -> None:
        import threading

        self._lock = threading.Lock()
        self._processes: list[Any] = []
        self._pipes: list[Any] = []  # the ends the findings come in on, of the workers still up
        self._stopped = False
        self._thread: threading.Thread | None = None
        self.method = None if context is None or not count else context.get_start_method()
        if self.method == "fork":  # quick, and never beside a thread
            self._start(context, count, job, claims)
        elif self.method is not None:
            self._thread = threading.Thread(target=self._start, args=(context, count, job, claims), daemon=True)
            self._thread.start()

    def _start(self, context: Any, count: int, job: Job, claims: _Counter | _Claims) -> None:
        import signal

        fork = self.method == "fork"
        try:
            if fork:  # a child writes nothing, but must not inherit unwritten output (it flushes at exit)
                sys.stdout.flush()
                sys.stderr.flush()
            for _ in range(count):
                get, put = context.Pipe(duplex=False)
                process = context.Process(target=_serve, args=(job, claims, put), daemon=True)
                if fork:  # a Ctrl-C waits until the child ignores it, then interrupts the command
                    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
                try:
                    process.start()
                finally:
                    if fork:
                        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                put.close()
                with self._lock:
                    if self._stopped:  # the command was done before this one was up
                        get.close()
                        _end(process)
                        return
                    self._processes.append(process)
                    self._pipes.append(get)
        except Exception:  # no more processes: the command checks what they would have
            return

    def collect(self, results: dict[int, Sequence[Any]], merged: int, timeout: float) -> bool:
        """Add the findings that came in (waiting up to ``timeout`` s for some) to ``results``; tell if any did.

        A piece's findings are kept only if they are not in yet (the command may have checked it).
        """
        import time
        from multiprocessing.connection import wait

        deadline = time.monotonic() + timeout
        got = False
        while True:
            with self._lock:
                pipes = list(self._pipes)
            left = deadline - time.monotonic()
            if not pipes:
                return got
            ready: list[Any] = wait(pipes, max(0.0, left))
            for pipe in ready:
                try:
                    piece, result = pipe.recv()
                except (OSError, EOFError):  # the worker is gone
                    with self._lock:
                        self._pipes.remove(pipe)
                    pipe.close()
                    continue
                if piece >= merged and piece not in results:
                    results[piece] = result
                    got = True
            if got or left <= 0:
                return got

    def stop(self) -> None:
        """Stop the workers, and those starting (a worker must not outlive the lock it is handed)."""
        with self._lock:
            self._stopped = True
            processes, self._processes = self._processes, []
            pipes, self._pipes = self._pipes, []
        for process in processes:
            _end(process)
        for pipe in pipes:
            pipe.close()
        if self._thread is not None:
            self._thread.join(_STALL)  # bounded: a fork server that never answers is left behind


def _end(process: Any) -> None:
    """Kill ``process`` unless it has exited (its number may belong to another process by then); reap it."""
    if process.exitcode is None:
        process.kill()
        process.join(1.0)  # a killed process is gone at once; bounded all the same


def _serve(job: Job, claims: _Claims, results: Any) -> None:
    """Check pieces of ``job`` until none is left (in a worker): send each one's findings to ``results``."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the command's to handle
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked while forked
    try:
        while True:
            piece = claims.take()
            if piece is None or piece >= claims.count:
                return
            results.send((piece, _work(job, piece)))
    except Exception:  # the command checks whatever this worker does not send
        return
    finally:
        results.close()
