"""Run an MCP server script with the official SDK already imported: ``python tests/mcp_forkserver.py SCRIPT ARGS...``.

It behaves as ``python SCRIPT ARGS...`` (the same pipes, working folder, environment and exit status),
but the script runs in a process forked from a fork server that imported the SDK once: a fresh
interpreter spends ~1.5 s of CPU importing ``mcp.types`` (pydantic builds its models) before it answers.
Each run is still a fresh process with the script's fresh state.

The fork server starts on first use and listens on the socket AGENTMSG_MCP_FORKSERVER names
(tests/conftest.py gives each pytest process its own and stops the server at the end); without that
variable the script runs in this process, as it would directly.

This process stays the one the client started and sees: it hands its standard streams to the forked
server, passes SIGTERM, SIGINT and SIGHUP on, and exits as the server did. If it dies, the server ends
(it watches a pipe only this process holds), so a client that kills its child's process group
still ends the server.
"""

import json
import os
import runpy
import signal
import socket
import sys
import time

SOCKET = "AGENTMSG_MCP_FORKSERVER"
IDLE = 300.0  # the fork server ends after this many seconds without a live server


def sdk_server(script: object, *args: str) -> list[str]:
    """Return the command that runs ``script`` (an MCP SDK server) with ARGS through the fork server."""
    return [sys.executable, os.path.abspath(__file__), str(script), *args]


def main(argv: list[str]) -> None:
    if argv[:1] == ["--serve"]:
        serve(argv[1])
        return
    path = os.environ.get(SOCKET)
    if not path:
        run(argv)
    relay(path, argv)


def run(argv: list[str]) -> None:
    """Run the script here, as ``python SCRIPT ARGS...`` would."""
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
    runpy.run_path(argv[0], run_name="__main__")
    sys.exit(0)


# --- the relay: the process the client started ----------------------------------------------------


def connect(path: str) -> socket.socket:
    """Connect to the fork server, starting it first if nobody has (one starter at a time)."""
    try:
        return dial(path)
    except OSError:
        pass
    import fcntl
    import subprocess

    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return dial(path)
        except OSError:
            pass
        with open(path + ".log", "ab") as log:  # never the client's pipes: it waits for their end
            server = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", path],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                                      start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                return dial(path)
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the MCP fork server did not start (see {path}.log)") from None
                time.sleep(0.02)


def dial(path: str) -> socket.socket:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        conn.close()
        raise
    return conn


def relay(path: str, argv: list[str]) -> None:
    """Hand the script, this process's streams and a lifeline to the fork server; exit as the server does."""
    server: list[int] = []  # its pid, once known; a signal before that waits for it
    early: list[int] = []

    def forward(sig: int, frame: object) -> None:
        if not server:
            early.append(sig)
            return
        try:
            os.kill(server[0], sig)
        except ProcessLookupError:
            pass

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    conn = connect(path)
    lifeline, held = os.pipe()  # this process holds the write end until it dies
    socket.send_fds(conn, [b"!"], [0, 1, 2, lifeline])
    os.close(lifeline)
    request = {"argv": [os.path.abspath(argv[0]), *argv[1:]], "cwd": os.getcwd(), "env": dict(os.environ)}
    conn.sendall(json.dumps(request).encode() + b"\n")
    replies = conn.makefile("rb")
    server.append(int(replies.readline()))
    for sig in early:
        forward(sig, None)
    line = replies.readline()
    code = int(line) if line.strip() else 1
    if code < 0:  # killed by a signal: so is this process, so the client sees the same status
        if -code != signal.SIGKILL:
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


# --- the fork server --------------------------------------------------------------------------------


def serve(path: str) -> None:
    """Import the SDK, then fork one server per connection and report each one's pid and exit status."""
    import selectors

    import anyio  # noqa: F401
    import mcp.types  # noqa: F401
    import uvicorn  # noqa: F401

    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:  # mcp 1.x
        import mcp.server.fastmcp  # noqa: F401

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".new")
    listener.listen(64)
    os.replace(path + ".new", path)  # the name appears only when connections are accepted
    with open(path + ".pid", "w") as note:
        note.write(str(os.getpid()))
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, lambda sig, frame: None)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    waiting: dict[int, socket.socket] = {}
    while True:
        ready = selector.select(IDLE)
        if not ready and not waiting:  # idle: the next relay starts a new one
            for name in (path, path + ".pid"):
                os.unlink(name)
            return
        for key, _ in ready:
            if key.fileobj is listener:
                conn, _ = listener.accept()
                try:
                    pid = spawn(conn, selector, listener, wake_r, wake_w, *waiting.values())
                except (OSError, ValueError):
                    conn.close()
                    continue
                waiting[pid] = conn
            else:
                os.read(wake_r, 512)
        while True:  # reap every child that ended, also one whose relay went away before it was told the pid
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = waiting.pop(pid, None)
            if conn is not None:
                try:
                    conn.sendall(b"%d\n" % os.waitstatus_to_exitcode(status))
                except OSError:
                    pass
                conn.close()


def spawn(conn: socket.socket, *inherited: object) -> int:
    """Fork one server for the relay on ``conn``; return its pid (the child never returns)."""
    conn.settimeout(10)
    _, fds, _, _ = socket.recv_fds(conn, 1, 4)
    if len(fds) != 4:
        for fd in fds:
            os.close(fd)
        raise ValueError("expected four descriptors")
    request = json.loads(conn.makefile("rb").readline())
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        conn.sendall(b"%d\n" % pid)
        return pid
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        conn.close()
        for thing in inherited:  # the fork server's descriptors and its other relays' sockets
            if isinstance(thing, int):
                os.close(thing)
            else:
                thing.close()
        for target, fd in zip((0, 1, 2), fds):
            os.dup2(fd, target)
            os.close(fd)
        watch(fds[3])
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        run(request["argv"])
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


def watch(lifeline: int) -> None:
    """End this server when the relay is gone: its end of the pipe closes."""
    import threading

    def wait() -> None:
        os.read(lifeline, 1)
        os._exit(1)

    threading.Thread(target=wait, daemon=True).start()


if __name__ == "__main__":
    main(sys.argv[1:])
