"""tests/mcp_forkserver.py runs a script as ``python SCRIPT`` would: a fresh process, the caller's pipes,
folder, environment and exit status; a signal to it reaches the script, and its death ends the script.

The MCP tests rely on it for their SDK servers, so it is checked here with the SDK server itself
and with small scripts.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from agentmsg.io.mcp import McpClient

from mcp_forkserver import sdk_server

TESTS = Path(__file__).parent
HANG = 60


def gone(pid):
    """Wait until ``pid`` is no running process (a zombie counts as gone); return whether it went."""
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except (FileNotFoundError, ProcessLookupError):  # reaped, before the open or during the read
            return True
        time.sleep(0.02)
    return False


def test_each_sdk_server_starts_with_the_scripts_fresh_state():
    for _ in range(2):
        with McpClient(sdk_server(TESTS / "mcp_server.py"), name="kitchen", timeout=30) as client:
            assert client.read_resource("counter://reads")[0]["text"] == "read 1 times"
            assert client.read_resource("counter://reads")[0]["text"] == "read 2 times"


def test_the_script_gets_the_callers_folder_environment_streams_and_gives_its_status(tmp_path):
    script = tmp_path / "show.py"
    script.write_text(
        "import os, sys\n"
        "print(os.getcwd(), os.environ.get('KITCHEN'), sys.argv[1:], sys.stdin.read())\n"
        "print('to stderr', file=sys.stderr)\n"
        "sys.exit(3)\n"
    )
    env = {**os.environ, "KITCHEN": "open"}
    done = subprocess.run(sdk_server(script, "a", "b"), input="from stdin", cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 3, done.stderr
    assert done.stdout == f"{tmp_path} open ['a', 'b'] from stdin\n" and done.stderr == "to stderr\n"
    script.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    assert subprocess.run(sdk_server(script), timeout=HANG).returncode == -signal.SIGKILL


def start(tmp_path):
    """Start a script that prints its pid and waits (SIGTERM: exit status 7); return the relay and the pid."""
    script = tmp_path / "wait.py"
    script.write_text("import os, signal, sys, time\nsignal.signal(signal.SIGTERM, lambda *a: sys.exit(7))\n"
                      "print(os.getpid(), flush=True)\ntime.sleep(600)\n")
    relay = subprocess.Popen(sdk_server(script), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return relay, int(relay.stdout.readline())


def test_sigterm_to_the_relay_reaches_the_script_and_its_status_comes_back(tmp_path):
    relay, pid = start(tmp_path)
    with relay.stdout:
        assert pid != relay.pid
        relay.terminate()
        assert relay.wait(HANG) == 7  # the script's own SIGTERM handler ran
        assert gone(pid)


def test_a_killed_relay_ends_the_script(tmp_path):
    relay, pid = start(tmp_path)
    with relay.stdout:
        relay.kill()
        relay.wait(HANG)
        assert gone(pid)


def test_without_the_fork_server_the_script_runs_in_the_relay(tmp_path):
    script = tmp_path / "pid.py"
    script.write_text("import os\nprint(os.getpid())\n")
    env = {key: value for key, value in os.environ.items() if key != "AGENTMSG_MCP_FORKSERVER"}
    relay = subprocess.Popen(sdk_server(script), stdout=subprocess.PIPE, env=env, text=True)
    assert int(relay.communicate(timeout=HANG)[0]) == relay.pid and relay.returncode == 0
