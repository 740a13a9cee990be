"""Benchmark the reference chat backend: one server process, 100 Socket.IO clients in one room (loopback).

What it measures, in three runs of one turn each, then a run of many turns:
- unpaced: a model streams N text deltas as fast as it can; how many deltas per second reach
  every client of the room, and how many ``message:chunk`` events carried them (the server sends
  the deltas that waited while the room was busy as one event);
- paced (a delta every ``--pace-ms``, 100 clients, then 1 client): the server's CPU time per event
  sent to the room (so the events per second one process sustains on one core), and the latency
  from the agent loop's delta to each client's receipt: median and 99th percentile over every
  delivery, and the median of the first and of the last client to get each delta;
- turns: ``--sessions`` clients, each in a session of its own, each sending ``--turns`` turns one
  after another, the sessions at once: turns per second and server CPU per turn; then the
  server's resident memory, now and at its peak (/proc/<pid>/status).
The server is ``examples/web_chat/server.py``'s ``ChatServer`` in a process of its own (the real
uvicorn, python-socketio, agent turn, session reducer and store), with a model that streams only
text. The clients are minimal Engine.IO/Socket.IO websocket clients (the ``websockets`` package)
in this process, so the clients cost little and the server is what is measured; its CPU time is
read from /proc. ``--profile`` runs the server under cProfile and prints its top entries.

Run: python benchmarks/bench_web_chat.py [--clients 100] [--events 1000] [--pace-ms 50] [--sessions 20]
     [--turns 5] [--profile]
     (or python benchmarks/run.py web; needs the web extra: pip install -e ".[web]")
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 120.0  # seconds: the bound of every wait; the benchmark never runs longer than a few of these


# -- the server process ----------------------------------------------------------------------------

def serve(port: int, profile: str | None) -> None:
    """Run ChatServer on ``port`` with a model that streams text only (``throughput N`` / ``latency N MS``)."""
    sys.path.insert(0, str(ROOT / "examples" / "web_chat"))
    import server as web  # noqa: PLC0415
    import uvicorn

    def pieces(message: str) -> Any:
        kind, count, *rest = message.split()
        if kind == "throughput":
            for i in range(int(count)):
                yield f"w{i} "
        else:
            pause = float(rest[0]) / 1000
            for _ in range(int(count)):
                time.sleep(pause)
                yield f"{time.time_ns()} "  # the moment the agent loop gets the delta

    def model(body: dict[str, Any]) -> Any:
        return web._anthropic_stream(pieces(body["messages"][-1]["content"]), None)

    params = {"model": "claude-haiku-4-5", "max_tokens": 1024, "stream": True}
    recipes_cmd = [sys.executable, str(ROOT / "examples" / "web_chat" / "recipes_mcp.py")]
    with web.MessageStore(":memory:") as store, web.McpClient(recipes_cmd, name="recipes", timeout=60) as recipes:
        chat = web.ChatServer(store, recipes, web.anthropic, model, params)
        config = uvicorn.Config(chat.app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
        if profile is None:
            try:
                uvicorn.Server(config).run()  # until SIGINT, which uvicorn raises again once it has shut down
            except KeyboardInterrupt:
                pass
            return
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
        try:
            uvicorn.Server(config).run()  # until SIGINT, which uvicorn raises again once it has shut down
        except KeyboardInterrupt:
            pass
        finally:
            profiler.disable()
            profiler.dump_stats(profile)


# -- the clients -----------------------------------------------------------------------------------

class Peer:
    """A minimal Socket.IO v5 client over one Engine.IO v4 websocket: connect, emit with ack, count events."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.acks: dict[int, asyncio.Future[Any]] = {}
        self.next_id = 0
        self.chunks = 0
        self.frames = 0
        self.completions = 0
        self.latencies: list[tuple[int, int]] = []  # (emitted, ns until received) of timed chunks
        self.done = asyncio.Event()
        self.reader: asyncio.Task[None] | None = None

    @classmethod
    async def connect(cls, url: str, token: str) -> Peer:
        import websockets

        ws = await websockets.connect(url, max_size=None, compression=None)
        peer = cls(ws)
        opening = await asyncio.wait_for(ws.recv(), TIMEOUT)
        assert opening.startswith("0{"), opening
        await ws.send("40" + json.dumps({"token": token}))
        answer = await asyncio.wait_for(ws.recv(), TIMEOUT)
        assert answer.startswith("40{"), answer
        peer.reader = asyncio.create_task(peer.read())
        return peer

    async def read(self) -> None:
        async for frame in self.ws:
            now = time.time_ns()
            if frame == "2":  # Engine.IO ping
                await self.ws.send("3")
            elif frame.startswith('42["message:chunk"'):
                self.frames += 1
                words = frame[frame.index('"chunk":"') + 9:].split('"', 1)[0].split()
                self.chunks += len(words)  # the model's deltas, one word each (the server may merge them)
                self.latencies.extend((int(word), now - int(word)) for word in words if word.isdigit())
            elif frame.startswith('42["completion"'):
                self.completions += 1
                self.done.set()
            elif frame.startswith("43"):
                digits = frame[2:len(frame) - len(frame[2:].lstrip("0123456789"))]
                self.acks.pop(int(digits)).set_result(json.loads(frame[2 + len(digits):])[0])

    async def call(self, event: str, payload: Any) -> Any:
        ack_id, self.next_id = self.next_id, self.next_id + 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.acks[ack_id] = future
        await self.ws.send(f"42{ack_id}" + json.dumps([event, payload]))
        return await asyncio.wait_for(future, TIMEOUT)

    async def close(self) -> None:
        await self.ws.close()
        if self.reader is not None:
            await asyncio.wait_for(self.reader, TIMEOUT)


def cpu_seconds(pid: int) -> tuple[float, float]:
    """User and system CPU time of a process and its threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


async def run_room(port: int, pid: int, clients: int, events: int, pace_ms: float) -> dict[str, float]:
    url = f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket"
    peers = [await Peer.connect(url, "bench-token-0") for _ in range(clients)]
    try:
        session = (await peers[0].call("chat:init", {}))["sessionId"]
        for peer in peers[1:]:
            await peer.call("chat:init", {"sessionId": session})
        message = f"throughput {events}" if pace_ms == 0 else f"latency {events} {pace_ms}"
        user, system = cpu_seconds(pid)
        start = time.perf_counter()
        ack = await peers[0].call("chat:send", {"message": message, "conversation_id": session})
        await asyncio.wait_for(asyncio.gather(*(p.done.wait() for p in peers)), TIMEOUT)
        elapsed = time.perf_counter() - start
        user, system = (after - before for after, before in zip(cpu_seconds(pid), (user, system)))
        cpu = user + system
        assert ack["status"] == "completed", ack
        assert all(p.chunks == events for p in peers), [p.chunks for p in peers]
        latencies = sorted(ns for p in peers for _, ns in p.latencies)
        by_delta: dict[int, list[int]] = {}
        for p in peers:
            for emitted, ns in p.latencies:
                by_delta.setdefault(emitted, []).append(ns)
        frames = peers[-1].frames
        out = {"elapsed": elapsed, "cpu": cpu, "events_per_s": events / elapsed, "frames": frames,
               "frames_per_s": frames / elapsed,
               "deliveries_per_s": events * clients / elapsed, "cpu_us_per_event": cpu / events * 1e6,
               "user_us_per_event": user / events * 1e6, "sys_us_per_event": system / events * 1e6}
        if latencies:
            out["p50_ms"] = statistics.median(latencies) / 1e6
            out["p99_ms"] = latencies[int(len(latencies) * 0.99) - 1] / 1e6
            out["first_p50_ms"] = statistics.median(min(v) for v in by_delta.values()) / 1e6
            out["last_p50_ms"] = statistics.median(max(v) for v in by_delta.values()) / 1e6
        return out
    finally:
        for peer in peers:
            await peer.close()


def memory_kb(pid: int) -> tuple[int, int]:
    """Resident memory of a process now and at its peak (``VmRSS``, ``VmHWM`` of /proc/<pid>/status), in KiB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


async def run_turns(port: int, pid: int, sessions: int, turns: int, deltas: int) -> dict[str, float]:
    """``sessions`` clients, each in a session of its own, each sending ``turns`` turns one after another, all at once."""
    url = f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket"
    peers = [await Peer.connect(url, f"bench-token-{i + 1}") for i in range(sessions)]
    try:
        ids = [(await peer.call("chat:init", {}))["sessionId"] for peer in peers]

        async def converse(peer: Peer, session: str) -> None:
            for _ in range(turns):
                ack = await peer.call("chat:send", {"message": f"throughput {deltas}", "conversation_id": session})
                assert ack["status"] == "completed", ack

        user, system = cpu_seconds(pid)
        start = time.perf_counter()
        await asyncio.wait_for(asyncio.gather(*(converse(peer, session) for peer, session in zip(peers, ids))), TIMEOUT)
        elapsed = time.perf_counter() - start
        cpu = sum(after - before for after, before in zip(cpu_seconds(pid), (user, system)))
        assert all(peer.completions == turns for peer in peers), [peer.completions for peer in peers]
        return {"elapsed": elapsed, "cpu": cpu, "turns_per_s": sessions * turns / elapsed,
                "cpu_ms_per_turn": cpu / (sessions * turns) * 1e3}
    finally:
        for peer in peers:
            await peer.close()


def start_server(profile: str | None) -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, __file__, "--serve", str(port)] + (["--profile-to", profile] if profile else [])
    process = subprocess.Popen(command, env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process, port
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise SystemExit("the benchmark server did not start") from None
            time.sleep(0.1)


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench_web_chat.py", description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--events", type=int, default=1000, help="model deltas of the unpaced turn")
    parser.add_argument("--latency-events", type=int, default=100, help="model deltas of the paced turns")
    parser.add_argument("--pace-ms", type=float, default=50.0, help="the pause between two paced deltas")
    parser.add_argument("--sessions", type=int, default=20, help="sessions of the turns run, all at once")
    parser.add_argument("--turns", type=int, default=5, help="turns of each session, one after another")
    parser.add_argument("--profile", action="store_true", help="run the server under cProfile; print its top entries")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--profile-to", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.profile_to)
        return 0
    profile = tempfile.mktemp(suffix=".prof") if args.profile else None
    process, port = start_server(profile)
    try:
        asyncio.run(run_room(port, process.pid, 2, 50, 0))  # warm up: imports, first turn, MCP tool listing
        throughput = asyncio.run(run_room(port, process.pid, args.clients, args.events, 0))
        latency = asyncio.run(run_room(port, process.pid, args.clients, args.latency_events, args.pace_ms))
        single = asyncio.run(run_room(port, process.pid, 1, args.latency_events, args.pace_ms))
        turns = asyncio.run(run_turns(port, process.pid, args.sessions, args.turns, 20))
        rss, peak = memory_kb(process.pid)
    finally:
        process.send_signal(signal.SIGINT)  # a graceful stop, after which the profile is written
        process.wait(timeout=TIMEOUT)
    print(f"\n## web chat: one server process, {args.clients} Socket.IO clients in one room (loopback)")
    print(f"unpaced: {args.events} model deltas in {throughput['elapsed']:.2f} s = {throughput['events_per_s']:,.0f} "
          f"deltas/s to each client ({throughput['deliveries_per_s']:,.0f} deliveries/s), sent as "
          f"{throughput['frames']:,.0f} message:chunk events; server CPU {throughput['cpu_us_per_event']:,.0f} µs per delta")
    for label, run in ((f"{args.clients} clients", latency), ("1 client", single)):
        print(f"paced, {label}: {args.latency_events} deltas every {args.pace_ms:g} ms sent as {run['frames']:,.0f} events; "
              f"server CPU {run['cpu'] / run['frames'] * 1e6:,.0f} µs per event ({run['user_us_per_event'] * args.latency_events / run['frames']:,.0f} user), "
              f"i.e. at most {run['frames'] / run['cpu']:,.0f} events/s on one core; "
              f"latency agent loop -> client p50 {run['p50_ms']:.2f} ms, p99 {run['p99_ms']:.2f} ms "
              f"(first client p50 {run['first_p50_ms']:.2f} ms, last client p50 {run['last_p50_ms']:.2f} ms)")
    print(f"turns: {args.sessions} sessions x {args.turns} turns (20 deltas each), the sessions at once: "
          f"{args.sessions * args.turns} turns in {turns['elapsed']:.2f} s = {turns['turns_per_s']:,.1f} turns/s; "
          f"server CPU {turns['cpu_ms_per_turn']:,.1f} ms per turn ({turns['cpu']:.2f} s in all)")
    print(f"server memory at the end: resident {rss / 1024:,.1f} MiB, peak {peak / 1024:,.1f} MiB")
    if profile:
        import pstats

        print("\n## the server's profile (main thread: the event loop), top entries by own time")
        stats = pstats.Stats(profile)
        stats.sort_stats("tottime").print_stats(15)
        if os.environ.get("BENCH_KEEP_PROFILE"):
            print("profile kept in", profile)
        else:
            os.unlink(profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
