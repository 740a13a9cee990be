"""Start tests/mcp_server.py over Streamable HTTP on a free loopback port, and always stop it."""

import contextlib
import socket
import subprocess
import sys
import time
from pathlib import Path

SERVER = Path(__file__).parent / "mcp_server.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def http_server(ready_within: float = 60.0, *, json_response: bool = False):
    """Yield the URL of a running SDK server (``http://127.0.0.1:PORT/mcp``); stop it on exit.

    ``json_response`` makes the server answer each POST with one JSON body instead of an event stream.
    """
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port), *(["--json"] if json_response else [])],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + ready_within
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the MCP server exited: {proc.stderr.read().decode()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the MCP server did not start listening") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stderr.close()
