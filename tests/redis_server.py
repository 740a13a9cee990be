"""A real redis-server on a free loopback port for the tests: no persistence, a bounded startup, cleanup."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from conftest import require_program

STARTUP = 20  # seconds: a bound for redis-server to answer, never a performance claim


class RedisServer:
    """``redis-server --port <free> --save '' --appendonly no`` in its own directory; ``stop()``/``start()`` again."""

    def __init__(self, directory: Path) -> None:
        self.program = require_program("redis-server", "redis-server")
        self.directory = directory
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.program, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.directory)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=self.directory,
        )
        deadline = time.monotonic() + STARTUP
        while not self.answers():
            if self.process.poll() is not None:
                out = self.process.stdout.read().decode(errors="replace") if self.process.stdout else ""
                raise RuntimeError(f"redis-server exited at startup:\n{out}")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"redis-server did not answer PING within {STARTUP} s")
            time.sleep(0.05)

    def answers(self) -> bool:
        """Whether the server answers PING (the protocol's own liveness check)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()
        self.process = None


@contextmanager
def redis_server(directory: Path) -> Iterator[RedisServer]:
    server = RedisServer(directory)
    server.start()
    try:
        yield server
    finally:
        server.stop()
