"""The MCP client against hostile servers: bounded waits, bounded memory.

Each test runs the risky operation on a helper thread and joins it with a generous limit: the
limit only tells a hang from an answer (the old client hung forever on each of these), it is no
speed requirement.
"""

import gc
import os
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from agentmsg.io.mcp import McpClient, McpError

TESTS = Path(__file__).parent
HANG = 60  # seconds after which an operation counts as hung


def fake(mode, **kwargs):
    kwargs.setdefault("timeout", 10)
    return McpClient([sys.executable, str(TESTS / "mcp_fake_server.py"), mode], name=f"fake-{mode}", **kwargs)


def finishes(fn):
    """Run ``fn`` on a thread; fail if it does not return within HANG seconds; return its outcome."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG)
    assert not thread.is_alive(), "the operation hung"
    return box


def alive(pid):
    """Return whether the process ``pid`` runs (a zombie waiting to be reaped does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def gone(pid):
    deadline = time.monotonic() + HANG
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


posix_only = pytest.mark.skipif(os.name != "posix", reason="process groups and /proc are POSIX")


def test_a_server_that_stops_reading_cannot_block_a_request_or_close():
    client = fake("no_read", timeout=30).start()  # the handshake may take its time on a busy machine
    big = {"padding": "p" * (1 << 20)}  # far beyond a pipe's buffer: the writer blocks
    for _ in range(3):
        outcome = finishes(lambda: client.request("resources/list", big, timeout=0.1))
        assert isinstance(outcome.get("error"), McpError) and outcome["error"].code == "timeout"
    # the lock is not held by a blocked write: another caller still gets its own bounded answer
    outcome = finishes(lambda: client.request("resources/read", {"uri": "file:///a"}, timeout=0.1))
    assert outcome["error"].code == "timeout"
    pid = client.transport.process.pid
    assert "error" not in finishes(client.close)
    assert gone(pid)


def test_a_ping_flood_is_answered_without_blocking_the_reply():
    with fake("ping_flood", timeout=30) as client:
        outcome = finishes(client.list_resources)
        assert outcome.get("value") == (), outcome.get("error")
        pid = client.transport.process.pid
    assert gone(pid)


@posix_only
def test_close_ends_a_grandchild_that_holds_the_pipes():
    client = fake("grandchild").start()
    assert client.list_resources() == ()
    deadline = time.monotonic() + HANG
    while "grandchild" not in client.stderr_tail and time.monotonic() < deadline:
        time.sleep(0.02)
    grandchild = int(client.stderr_tail.split("grandchild ", 1)[1].split()[0])
    assert alive(grandchild)
    assert "error" not in finishes(client.close)
    assert gone(grandchild), "close() left the server's child running"


@posix_only
def test_a_dropped_client_does_not_leave_its_server_running():
    client = fake("spec").start()
    pid = client.transport.process.pid
    assert alive(pid)
    del client
    gc.collect()
    assert gone(pid)


@posix_only
def test_a_client_dropped_at_interpreter_exit_stops_its_server(tmp_path):
    script = tmp_path / "drop.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r})\n"
        "from agentmsg.io.mcp import McpClient\n"
        f"client = McpClient([sys.executable, {str(TESTS / 'mcp_fake_server.py')!r}, 'spec']).start()\n"
        "print(client.transport.process.pid, flush=True)\n"
        "keep = [client]  # still referenced when the interpreter exits\n"
    )
    import subprocess

    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    assert gone(int(done.stdout.split()[0]))


def test_a_notification_flood_does_not_pile_up_in_memory():
    with fake("notify_flood", timeout=60) as client:
        tracemalloc.start()
        try:
            outcome = finishes(client.list_resources)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert outcome.get("value") == (), outcome.get("error")
    # 50,000 notifications of ~100 bytes: ~10 MB if they were queued; dispatched, a few kB at a time
    assert peak < 4 * 1024 * 1024, f"peak {peak} bytes"


def test_a_huge_stderr_line_is_cut_and_kept_small():
    tracemalloc.start()
    try:
        with fake("stderr_flood", timeout=60) as client:
            assert client.list_resources() == ()
            deadline = time.monotonic() + HANG
            while "after the flood" not in client.stderr_tail and time.monotonic() < deadline:
                time.sleep(0.02)
            tail = client.stderr_tail
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "after the flood" in tail and "[line cut]" in tail
    assert len(tail) < 50 * 600
    assert peak < 4 * 1024 * 1024, f"peak {peak} bytes"  # the line is 20 MB


def test_a_message_over_the_size_limit_is_a_clear_error():
    with fake("huge_reply", max_message_bytes=1 << 20) as client:
        outcome = finishes(client.list_resources)
        error = outcome["error"]
        assert isinstance(error, McpError) and error.code == "protocol"
        assert f"longer than {1 << 20} bytes" in str(error)
        assert client.transport.stuck  # its output is no longer read: close gives it no grace period
        # the connection is over: later requests fail at once, they do not wait
        assert finishes(client.list_resources)["error"].code == "closed"


def test_a_server_that_closes_its_input_fails_the_request_at_once_not_at_the_timeout():
    client = fake("close_stdin", timeout=3600).start()  # a wait for the timeout would count as hung
    try:
        deadline = time.monotonic() + HANG
        while "input closed" not in client.stderr_tail:  # the next message cannot be written
            assert time.monotonic() < deadline, "the server never closed its input"
            time.sleep(0.05)
        box = finishes(lambda: client.request("resources/list"))
        assert isinstance(box.get("error"), McpError) and box["error"].code == "closed"
        assert "could not send" in box["error"].message
        assert client.transport.stuck  # it cannot see its input end: close gives it no grace period
        with pytest.raises(McpError, match="not running"):  # the connection counts as broken
            client.request("resources/list")
    finally:
        client.close()
