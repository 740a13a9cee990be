"""Start tests/mcp_server.py over Streamable HTTP on a free loopback port, and always stop it."""

import contextlib
import socket
import subprocess
import time
from pathlib import Path

from mcp_forkserver import sdk_server

SERVER = Path(__file__).parent / "mcp_server.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HttpServer:
    """The SDK server as a child process on one port: ``start``, ``stop``, and ``restart`` on the same port.

    ``options`` go to tests/mcp_server.py after ``--http PORT`` (``--json``, ``--idle 1``); ``script``
    and its ``args`` start another server that takes them (tests/mcp_names_server.py NAMES).
    """

    def __init__(self, *options: str, ready_within: float = 60.0, script: Path = SERVER, args: tuple[str, ...] = ()) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.script, self.args, self.options = script, args, options
        self.ready_within = ready_within
        self.proc = None

    def start(self) -> str:
        self.proc = proc = subprocess.Popen(
            sdk_server(self.script, *self.args, "--http", str(self.port), *self.options),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + self.ready_within
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the MCP server exited: {proc.stderr.read().decode()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.5).close()
                return self.url
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the MCP server did not start listening") from None
                time.sleep(0.05)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stderr.close()

    def restart(self) -> None:
        """Stop the server and start a new one on the same port: every session it had is gone."""
        self.stop()
        self.start()


@contextlib.contextmanager
def http_server(ready_within: float = 60.0, *, json_response: bool = False, script: Path = SERVER,
                args: tuple[str, ...] = ()):
    """Yield the URL of a running SDK server (``http://127.0.0.1:PORT/mcp``); stop it on exit.

    ``json_response`` makes the server answer each POST with one JSON body instead of an event stream;
    ``script`` and ``args`` start another server (``HttpServer``).
    """
    server = HttpServer(*(["--json"] if json_response else []), ready_within=ready_within, script=script, args=args)
    try:
        yield server.start()
    finally:
        server.stop()
