"""``python -m agentmsg.validate --jobs N`` and the progress line on a terminal."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
from collections.abc import Iterator
from typing import Any
from pathlib import Path

import pytest

from agentmsg.validate import main
from agentmsg.validate._jobs import _offsets

ROOT = Path(__file__).resolve().parent.parent
USER = '{"role": "user", "content": "Hi"}'
TOOL = json.dumps({"name": "wordy", "description": "x" * 1100, "parameters": {"type": "object"}, "strict": False})

# A log where nearly every line has something to say: each kind of finding, a warning, blank and
# whitespace-only lines, CRLF endings, a line over --max-bytes 1500, invalid UTF-8, and a last
# line with no newline. Repeated, so that any cut falls inside lines of every sort.
LINES = [
    USER.encode(),
    b'{"role": "user", "content": 1}',
    b"",
    b'{"role": "user"',
    b'{"a": 1, "a": 2}\r',
    b"   \t",
    b'{"role": "user", "content": "caf\xe9"}',
    b'{"role": "assistant", "content": "x", "tool_calls": [{"id": "c", "name": "bad name", "arguments": {}}]}\r',
    TOOL.encode(),
    json.dumps({"role": "user", "content": "long " * 400}).encode(),
    b'[1, 2]',
    b'{"role": "robot", "content": "Hi"}',
]


# Documents with more problems than a document prints (20 unknown fields, then a note)
MANY_PROBLEMS = b"\n".join(json.dumps({"role": "user", "content": "Hi", **{f"x{i}": i for i in range(20 + n)}}).encode()
                           for n in (1, 5, 9))


def log_bytes(repeat: int, *, bom: bool = False, final_newline: bool = False) -> bytes:
    data = b"\n".join(LINES * repeat) + b'\n{"role": "tool", "content": "no id"}'
    return (b"\xef\xbb\xbf" if bom else b"") + data + (b"\n" if final_newline else b"")


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let --jobs cut a small file anywhere (a file under 32 MiB is checked in one process otherwise)."""
    monkeypatch.setattr("agentmsg.validate._jobs._MIN_PIECE", 1)
    monkeypatch.setattr("agentmsg.validate._jobs._WORTH", 2)


def children(pid: int, thread: int | None = None) -> list[int]:
    """Return the processes ``pid`` (its thread ``thread``, default the main one) started (Linux)."""
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{thread or pid}/children").read_text().split()]
    except OSError:  # gone
        return []


def state(pid: int) -> str:
    """Return the state of process ``pid`` (R, S, Z...), or "" when it is gone (Linux)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):  # gone (reaped while read)
        return ""


def log_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str], repeat: int) -> tuple[Path, Any]:
    """Write a log of ``repeat`` times ``LINES``; return its path and the report of one process."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(log_bytes(repeat))
    return path, run(["--max-bytes", "1500", str(path)], capsys)


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    out, err = capsys.readouterr()
    assert "internal error" not in err, err
    return status, out, err


# The command, with --jobs cutting a file of 2 bytes or more into pieces of 16 KiB or more.
CUT_SMALL = ("import sys, agentmsg.validate._jobs as jobs; jobs._WORTH, jobs._MIN_PIECE = 2, 16 << 10; "
             "from agentmsg.validate import main; sys.exit(main())")


def cli(*args: str, stdin: bytes | None = None, cut_small: bool = False) -> subprocess.CompletedProcess[str]:
    command = ["-c", CUT_SMALL] if cut_small else ["-m", "agentmsg.validate"]
    result = subprocess.run([sys.executable, *command, *args], input=stdin, capture_output=True,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    out = subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode(), result.stderr.decode())
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr
    return out


# -- --jobs: the same report as one process ---------------------------------------------------


def test_jobs_write_the_report_of_one_process(tmp_path: Path, small_pieces: None,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    paths = [tmp_path / f"{shape}.jsonl" for shape in ("plain", "bom", "final-newline")]
    paths[0].write_bytes(log_bytes(25))
    paths[1].write_bytes(log_bytes(25, bom=True))
    paths[2].write_bytes(log_bytes(25, final_newline=True))
    files = [str(path) for path in paths]
    for fmt in ("text", "json"):
        for cap in ([], ["--max-problems", "0"]):  # the first 20 problems of each file, and every one
            serial = run(["--max-bytes", "1500", *cap, "--format", fmt, *files], capsys)
            for jobs in ("2", "3", "7"):
                assert run(["--max-bytes", "1500", *cap, "--format", fmt, "--jobs", jobs, *files], capsys) == serial
    assert serial[0] == 1
    for path in files:
        problems = [p for p in json.loads(serial[1])["problems"] if p["file"] == path]
        # every sort of finding is in the report, down to the last line, which has no newline
        assert {p["code"] for p in problems} >= {"type", "json", "unique", "encoding", "size", "pattern", "value",
                                                 "warning", "unknown", "missing"}
        assert problems[-1]["line"] == 25 * len(LINES) + 1
        assert [p["line"] for p in problems] == sorted(p["line"] for p in problems)


# A fresh interpreter (no thread but its own) runs the command with --jobs, then tells which way its
# workers were made and the states of the processes it started.
FORK_CHECK = """
import os, sys
import agentmsg.validate._jobs as jobs
jobs._WORTH, jobs._MIN_PIECE = 2, 1
made = []
init = jobs._Workers.__init__
def record(self, *args):
    init(self, *args)
    made.append(self.method)
jobs._Workers.__init__ = record
from agentmsg.validate import main
status = main(sys.argv[1:])
pid = os.getpid()
kids = open(f"/proc/{pid}/task/{pid}/children").read().split() if sys.platform == "linux" else []
states = []
for kid in kids:
    try:
        states.append(open(f"/proc/{kid}/stat").read().rsplit(")", 1)[1].split()[0])
    except (OSError, IndexError):  # reaped while read
        pass
import json
print(json.dumps({"made": made, "states": states}), file=sys.stderr)
sys.exit(status)
"""


def test_workers_come_from_a_fork_server_beside_another_thread(tmp_path: Path, small_pieces: None,
                                                               capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Forked from the command when it runs no other thread (Linux); never beside one: from the fork server."""
    import threading

    path, serial = log_and_report(tmp_path, capsys, 25)
    # alone: a fresh interpreter (this one may hold threads other tests left, a hung tool's say)
    alone = subprocess.run([sys.executable, "-c", FORK_CHECK, "--max-bytes", "1500", "--jobs", "3", str(path)],
                           capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                           timeout=300)
    assert (alone.returncode, alone.stdout) == serial[:2], alone.stderr
    told = json.loads(alone.stderr.strip().splitlines()[-1])
    assert told["made"] == ["fork" if sys.platform == "linux" else "forkserver"]
    assert "Z" not in told["states"]  # the forked workers are reaped: no zombie is left behind
    # beside another thread: from the fork server
    made_here = ghost_workers(monkeypatch, lambda workers, claims: None)
    done = threading.Event()
    other = threading.Thread(target=done.wait, args=(60,))
    other.start()
    try:
        assert run(["--max-bytes", "1500", "--jobs", "3", str(path)], capsys) == serial
    finally:
        done.set()
        other.join()
    assert [workers.method for workers in made_here] == ["forkserver"]


def test_jobs_hide_document_notes_past_max_problems(tmp_path: Path, small_pieces: None,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Past --max-problems, a document's "N more problems" note is hidden and counted in the file's note."""
    path = tmp_path / "many.jsonl"
    path.write_bytes(b"\n".join([MANY_PROBLEMS] * 30) + b"\n")
    for args in ([], ["--max-problems", "45"], ["--max-problems", "0"], ["--format", "json"], ["--strict"]):
        serial = run([*args, str(path)], capsys)
        for jobs in ("2", "3"):
            assert run([*args, "--jobs", jobs, str(path)], capsys) == serial, args
    # 20 problems of each of the first five documents are shown (100), with the notes of the first four
    default = run([str(path)], capsys)[1]
    assert default.count("in this document (the first 20 are shown)") == 4 and default.count(": unknown field") == 100
    # 30 * 75 problems: 100 shown, 1 + 5 + 9 + 1 in the documents' notes, the rest in the file's
    assert "note: 2134 more problems in this file (--max-problems 100 are shown)" in default


def test_cuts_anywhere_and_more_jobs_than_lines(tmp_path: Path, small_pieces: None,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # With N above the line count every line is a piece of its own; between, cuts land everywhere.
    path, serial = log_and_report(tmp_path, capsys, 1)
    assert serial[1].count("\n") == 11
    for jobs in (5, 40):
        assert run(["--max-bytes", "1500", "--jobs", str(jobs), str(path)], capsys) == serial, jobs


def test_the_real_command_with_jobs(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(log_bytes(60))  # about 190 KiB: cut in about ten pieces
    serial = cli("--max-bytes", "1500", "--max-problems", "0", str(path))
    parallel = cli("--max-bytes", "1500", "--max-problems", "0", "-j", "2", str(path), cut_small=True)
    assert (parallel.returncode, parallel.stdout, parallel.stderr) == (serial.returncode, serial.stdout, serial.stderr)
    assert serial.returncode == 1 and serial.stdout.count("\n") > 500


@pytest.mark.parametrize("data, status, summary", [
    (b"", 1, "1 document, 0 valid, 1 invalid"),  # empty input is reported, as without --jobs
    (b"\n\n  \n", 1, "1 document, 0 valid, 1 invalid"),
    (USER.encode(), 0, "1 document, 1 valid (1 chat_message), 0 invalid"),
    ((USER + "\n") * 3, 0, "3 documents, 3 valid (3 chat_message), 0 invalid"),
    (USER.encode() + b"\r\n" + USER.encode() + b"\r\n", 0, "2 documents, 2 valid (2 chat_message), 0 invalid"),
])
def test_small_inputs_and_exit_codes(data: bytes | str, status: int, summary: str, tmp_path: Path,
                                     small_pieces: None, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "small.jsonl"
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    serial = run([str(path)], capsys)
    assert (serial[0], serial[1].splitlines()[-1]) == (status, summary)
    for jobs in ("1", "16"):
        assert run(["--jobs", jobs, str(path)], capsys) == serial


def test_jobs_with_several_files_a_missing_one_and_standard_input(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(log_bytes(60))
    single = tmp_path / "one.json"
    single.write_text('{\n  "role": "user",\n  "content": 5\n}\n')
    args = [str(log), str(tmp_path / "missing.jsonl"), str(single), "-"]
    serial = cli(*args, stdin=log_bytes(2))
    parallel = cli("--jobs", "3", *args, stdin=log_bytes(2), cut_small=True)
    assert serial.returncode == 2  # the missing file
    assert (parallel.returncode, parallel.stdout, parallel.stderr) == (serial.returncode, serial.stdout, serial.stderr)
    assert "<stdin>:" in serial.stdout and "one.json:3: $.content" in serial.stdout


def test_jobs_with_conversation_and_kind(tmp_path: Path, small_pieces: None, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "conv.jsonl"
    path.write_text('{"role": "system", "content": "Be brief."}\n' + (USER + "\n") * 3)
    for args in (["--conversation"], ["--kind", "chat_message"], ["--kind", "tool_call"]):
        serial = run([*args, str(path)], capsys)
        assert run([*args, "--jobs", "2", str(path)], capsys) == serial


def test_jobs_when_no_worker_can_start(tmp_path: Path, small_pieces: None, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path, serial = log_and_report(tmp_path, capsys, 5)

    def no_processes(*args: object, **kwargs: object) -> None:
        raise OSError(11, "Resource temporarily unavailable")  # fork() when no process is left

    monkeypatch.setattr("multiprocessing.process.BaseProcess.start", no_processes)
    assert run(["--max-bytes", "1500", "--jobs", "2", str(path)], capsys) == serial
    monkeypatch.setattr("multiprocessing.context.BaseContext.Lock", no_processes)  # no semaphore either
    assert run(["--max-bytes", "1500", "--jobs", "2", str(path)], capsys) == serial


def ghost_workers(monkeypatch: pytest.MonkeyPatch, haunt: Any) -> list[Any]:
    """Let ``haunt(workers, claims)`` play a worker that misbehaves, as soon as the workers are made."""
    from agentmsg.validate import _jobs

    init = _jobs._Workers.__init__
    made: list[Any] = []

    def init_haunted(self: Any, context: Any, count: int, job: Any, claims: Any) -> None:
        init(self, context, count, job, claims)
        made.append(self)
        haunt(self, claims)

    monkeypatch.setattr(_jobs._Workers, "__init__", init_haunted)
    return made


@pytest.mark.parametrize("dies", [False, True])
def test_jobs_never_wait_for_a_worker_that_does_not_answer(dies: bool, tmp_path: Path, small_pieces: None,
                                                         capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker takes a piece, then never answers (or dies): the command checks it itself."""
    import multiprocessing

    path, serial = log_and_report(tmp_path, capsys, 5)
    silent: list[Any] = []

    def take_and_hang(workers: Any, claims: Any) -> None:
        get, put = multiprocessing.Pipe(duplex=False)
        assert claims.take() < claims.count  # a piece, held from here on
        if dies:
            put.close()  # end of file: the worker is gone, with the first piece
        else:
            silent.append(put)  # held open: never a word, never end of file
        workers._pipes.append(get)

    ghost_workers(monkeypatch, take_and_hang)
    for jobs in ("2", "3"):
        assert run(["--max-bytes", "1500", "--jobs", jobs, str(path)], capsys) == serial
    assert len(silent) == (0 if dies else 2)


def test_jobs_when_a_worker_holds_the_counter_forever(tmp_path: Path, small_pieces: None,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker stopped while it takes a piece: the others find the counter stalled and go on."""
    path, serial = log_and_report(tmp_path, capsys, 5)
    monkeypatch.setattr("agentmsg.validate._jobs._STALL", 0.2)

    def hold_the_lock(workers: Any, claims: Any) -> None:
        assert claims._lock.acquire(timeout=60)

    made = ghost_workers(monkeypatch, hold_the_lock)
    assert run(["--max-bytes", "1500", "--jobs", "2", str(path)], capsys) == serial
    assert made


def test_jobs_with_real_workers_stopped(tmp_path: Path, small_pieces: None, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Real workers frozen (SIGSTOP) as soon as they are up, wherever they are: the same report, and none is left."""
    import signal
    import time

    if not hasattr(signal, "SIGSTOP"):
        pytest.skip("SIGSTOP is POSIX")
    path, serial = log_and_report(tmp_path, capsys, 40)
    monkeypatch.setattr("agentmsg.validate._jobs._STALL", 0.5)
    stopped: list[Any] = []

    def freeze_when_up(workers: Any, claims: Any) -> None:
        for _ in range(1200):  # the workers are up (a fork server starting on a loaded machine: seconds)
            with workers._lock:
                up = list(workers._processes)
            if len(up) == 2:
                break
            time.sleep(0.05)
        for process in up:
            os.kill(process.pid, signal.SIGSTOP)
        stopped.extend(up)

    ghost_workers(monkeypatch, freeze_when_up)
    assert run(["--max-bytes", "1500", "--jobs", "3", str(path)], capsys) == serial
    assert len(stopped) == 2
    for process in stopped:  # killed, though stopped
        process.join(60)
        assert process.exitcode == -signal.SIGKILL


def test_ctrl_c_stops_the_command_and_its_workers(tmp_path: Path) -> None:
    """The real command, interrupted while it checks pieces: exit status 2, one line, no worker left."""
    import signal
    import time

    if not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists():
        pytest.skip("needs /proc/PID/task/PID/children (Linux) to find the workers")
    path = tmp_path / "log.jsonl"
    path.write_bytes(log_bytes(10000))  # about 30 MiB: many seconds of work in 16 KiB pieces
    code = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); " + CUT_SMALL
    process = subprocess.Popen([sys.executable, "-c", code, "--quiet", "-j", "3", str(path)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    workers: list[int] = []
    try:
        for _ in range(1200):  # two workers forked (the command runs no thread): all three check pieces
            workers = children(process.pid)
            if len(workers) == 2 or process.poll() is not None:
                break
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert (process.returncode, out, err.decode()) == (2, b"", "python -m agentmsg.validate: interrupted\n")
    assert len(workers) == 2
    for _ in range(200):
        if all(state(worker) in ("", "Z") for worker in workers):
            break
        time.sleep(0.05)
    assert all(state(worker) in ("", "Z") for worker in workers)


@pytest.mark.parametrize("cap", [0, 3, 20])
def test_pieces_hold_every_line_once_with_its_number(cap: int, tmp_path: Path, small_pieces: None) -> None:
    """Cut anywhere, the pieces read every line exactly once: the findings of one process, renumbered."""
    from agentmsg.validate._jobs import _merge, _work
    from agentmsg.validate._json_lines import check_lines, line_blocks
    from agentmsg.validate._report import Run, options

    # big pieces first, small ones last: each a 2 * jobs-th of the bytes left
    offsets = _offsets(0, 120, 4)
    assert offsets[:6] == [0, 15, 28, 39, 49, 57] and offsets[-3:] == [117, 118, 119]
    assert all(a - b >= c - a for b, a, c in zip(offsets, offsets[1:], offsets[2:]))
    data = log_bytes(2, bom=False) + b"\n" + MANY_PROBLEMS
    path = tmp_path / "log.jsonl"
    path.write_bytes(data)
    starts = [0] + [i + 1 for i, byte in enumerate(data) if byte == 10]
    for begin in (0, starts[1], starts[4]):
        out = io.StringIO()
        serial = Run(options(max_bytes=1500, max_problems=cap), out)
        with serial.warnings_kept():
            check_lines(serial, "f", line_blocks(io.BytesIO(data[begin:]).read, 1500), 7)
        serial.end_file("f")
        for jobs in range(1, 40):
            offsets = _offsets(begin, len(data), jobs)
            job = (str(path), offsets, None, 1500, False, False, cap)
            parallel = Run(options(max_bytes=1500, max_problems=cap), io.StringIO())
            line = 7
            for piece in range(len(offsets)):
                line = _merge(parallel, "f", _work(job, piece), line)
            parallel.end_file("f")
            assert parallel.out.getvalue() == out.getvalue(), (begin, jobs)
            assert line - 7 == data.count(b"\n", begin) + 1  # the last line has no newline
            assert (parallel.documents, parallel.valid, parallel.invalid, parallel.findings) == (
                serial.documents, serial.valid, serial.invalid, serial.findings)


def test_a_line_longer_than_many_pieces(tmp_path: Path, small_pieces: None) -> None:
    from agentmsg.validate._jobs import _work

    long_line = json.dumps({"role": "user", "content": "x" * 5000}).encode()
    data = USER.encode() + b"\n" + long_line + b"\r\n" + USER.encode() + b"\n"
    path = tmp_path / "log.jsonl"
    path.write_bytes(data)
    offsets = list(range(0, len(data), 100))  # the long line spans fifty pieces
    for max_bytes in (1500, 1 << 20):  # refused (skipped, never held) or checked
        job = (str(path), offsets, None, max_bytes, False, False, 20)
        results = [_work(job, piece) for piece in range(len(offsets))]
        # the first piece holds the two lines that start in it, reading the long one to its end
        assert [r[9] for r in results if r[9]] == [2, 1] and results[0][9] == 2
        assert sum(r[7] for r in results) == len(data)  # every byte read once
        assert sum(r[2] for r in results) == 3


# -- the progress line ------------------------------------------------------------------------


def read_terminal(fd: int) -> str:
    chunks = []
    while select.select([fd], [], [], 0)[0]:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the other end is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode()


@pytest.fixture
def terminal() -> Iterator[tuple[int, io.TextIOWrapper]]:
    """A real terminal (a pseudo-terminal pair); yields (master fd, the slave as a text file)."""
    pytest.importorskip("pty", reason="pseudo-terminals are POSIX")
    master, slave = os.openpty()
    err = open(slave, "w", encoding="utf-8", closefd=True)
    assert err.isatty()
    yield master, err
    err.close()
    os.close(master)


def test_progress_on_a_terminal(terminal: tuple[int, io.TextIOWrapper], tmp_path: Path, small_pieces: None,
                                capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    master, err = terminal
    monkeypatch.setattr(sys, "stderr", err)  # here: capsys replaces it while fixtures are set up
    monkeypatch.setattr("agentmsg.validate._report._PROGRESS_EVERY", 0.0)  # redraw at every block
    monkeypatch.setattr("agentmsg.validate._json_lines.CHUNK", 256)
    path = tmp_path / "log.jsonl"
    path.write_bytes(log_bytes(5))
    size = path.stat().st_size
    for jobs in ("1", "2"):
        status = main(["--max-bytes", "1500", "--jobs", jobs, str(path)])
        shown = read_terminal(master)
        out = capsys.readouterr().out
        assert status == 1 and out.count("\n") > 20  # the report itself goes to stdout, unchanged
        frames = [frame.strip() for frame in shown.split("\r") if frame.strip()]
        assert frames, shown
        # bytes done of the total, documents per second, findings so far; redrawn in place
        assert all(f.startswith(f"{path}: ") or f.startswith("...") for f in frames), frames
        assert all(f" of {size / 2**20:.1f} MiB (" in f and " documents/s, " in f for f in frames), frames
        findings = [int(f.rsplit(", ", 1)[1].split()[0]) for f in frames]
        assert findings == sorted(findings) and findings[-1] > 0
        assert shown.endswith("\r") and shown.rstrip("\r").split("\r")[-1].strip() == ""  # wiped at the end


def test_no_progress_when_quiet_or_not_a_terminal(terminal: tuple[int, io.TextIOWrapper], tmp_path: Path,
                                                  small_pieces: None,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    master, err = terminal
    monkeypatch.setattr(sys, "stderr", err)  # here: capsys replaces it while fixtures are set up
    monkeypatch.setattr("agentmsg.validate._report._PROGRESS_EVERY", 0.0)
    monkeypatch.setattr("agentmsg.validate._json_lines.CHUNK", 256)
    path = tmp_path / "log.jsonl"
    path.write_bytes(log_bytes(5))
    assert main(["--quiet", "--max-bytes", "1500", str(path)]) == 1
    assert main(["--quiet", "--max-bytes", "1500", "--jobs", "2", str(path)]) == 1
    assert read_terminal(master) == ""
    assert capsys.readouterr().out == "51 documents, 10 valid (5 chat_message, 5 tool_definition), 41 invalid\n" * 2
    # standard error a pipe (the real command, as in CI or `2>log`): not a byte of progress
    result = cli("--max-bytes", "1500", str(path))
    assert result.returncode == 1 and result.stderr == ""


def test_progress_in_a_real_terminal_stays_off_a_short_run(tmp_path: Path) -> None:
    """The real command with its standard error on a pseudo-terminal: a short run draws nothing."""
    pytest.importorskip("pty", reason="pseudo-terminals are POSIX")
    master, slave = os.openpty()
    path = tmp_path / "log.jsonl"
    path.write_bytes(log_bytes(5))
    try:
        result = subprocess.run([sys.executable, "-m", "agentmsg.validate", "--max-bytes", "1500", str(path)],
                                stdout=subprocess.PIPE, stderr=slave, cwd=ROOT, timeout=120,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
        os.close(slave)
        shown = read_terminal(master)
    finally:
        os.close(master)
    assert result.returncode == 1 and result.stdout.decode().endswith(
        "51 documents, 10 valid (5 chat_message, 5 tool_definition), 41 invalid\n")
    # if a redraw did fall due (a slow machine), it was wiped: nothing is left on the line
    assert shown.replace(" ", "").replace("\r", "") == "" or shown.endswith("\r"), shown
