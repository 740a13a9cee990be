"""Benchmark the front-end adapters (agentmsg.ui) against encoding the agentmsg event itself.

One turn of the recipes scenario, as the reference backend runs it (text chunks, a tool call with its
updates, progress, a final answer, the completion: the events AgentTurn emits), is sent three ways,
each per event, to SSE bytes:

- agentmsg: ``encode(event)`` and ``json.dumps`` of the payload (what POST /api/chat sends);
- AG-UI: ``AguiRun.translate(event)`` and ``sse`` of each AG-UI event (translator state included);
- AI SDK: ``AiSdkStream.translate(event)`` and ``sse`` of each chunk.

The adapters' column is their whole cost (translation plus framing); "translate only" leaves out
the framing. Run: python benchmarks/bench_ui.py
"""

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import fmt, ns_per_op  # noqa: E402

from agentmsg import events as ev  # noqa: E402
from agentmsg.ui import agui, aisdk  # noqa: E402

STAMP = "2024-05-01T12:00:00Z"


def recipes_turn() -> list[Any]:
    """The events of one recipes turn (as AgentTurn emits them for the scripted model)."""
    out: list[Any] = [ev.MessageStart(id="m1")]
    out += [ev.MessageChunk(id="m1", chunk=w) for w in ("Let ", "me ", "check ", "your ", "cookbook.")]
    out += [ev.ToolMessageStart(id="t1", tool_name="list_recipes", title="Calling list_recipes", status="pending",
                                timestamp=STAMP),
            ev.ToolMessageUpdate(id="t1", patch={"status": "running"}),
            ev.Progress(status="running", progress=12, message="Step 1: Running 1 tool call(s)"),
            ev.ToolMessageUpdate(id="t1", patch={"content": "Pancakes\nTomato soup\nOmelette"}),
            ev.ToolMessageComplete(id="t1", status="completed", timestamp=STAMP),
            ev.MessageStart(id="m2")]
    words = "You have 3 recipes: Pancakes, Tomato soup and Omelette.".split(" ")
    out += [ev.MessageChunk(id="m2", chunk=w + " ") for w in words]
    out.append(ev.Completion.ok({"steps": 2, "text": "You have 3 recipes: Pancakes, Tomato soup and Omelette."}))
    return out


def main() -> None:
    turn = recipes_turn()
    n = len(turn)

    def ours() -> None:
        for event in turn:
            name, payload = ev.encode(event)
            (f"event: {name}\ndata: " + json.dumps(payload, ensure_ascii=False) + "\n\n").encode()

    def agui_sse() -> None:
        run = agui.AguiRun(thread_id="s1", run_id="r1")
        for event in turn:
            for out in run.translate(event):
                agui.sse(out)

    def agui_only() -> None:
        run = agui.AguiRun(thread_id="s1", run_id="r1")
        for event in turn:
            run.translate(event)

    def aisdk_sse() -> None:
        stream = aisdk.AiSdkStream(message_id="a1")
        for event in turn:
            for out in stream.translate(event):
                aisdk.sse(out)

    def aisdk_only() -> None:
        stream = aisdk.AiSdkStream(message_id="a1")
        for event in turn:
            stream.translate(event)

    rows = [
        ("agentmsg event: encode + json.dumps (SSE bytes)", ns_per_op(ours) / n),
        ("AG-UI: translate + sse", ns_per_op(agui_sse) / n),
        ("AG-UI: translate only", ns_per_op(agui_only) / n),
        ("AI SDK: translate + sse", ns_per_op(aisdk_sse) / n),
        ("AI SDK: translate only", ns_per_op(aisdk_only) / n),
    ]
    print(f"\n## the front-end adapters, per agentmsg event ({n} events of one recipes turn)")
    print(f"{'operation':<52} {'per event':>10} {'vs encode':>10}")
    base = rows[0][1]
    for name, value in rows:
        print(f"{name:<52} {fmt(value):>10} {value / base:>9.2f}×")


if __name__ == "__main__":
    main()
