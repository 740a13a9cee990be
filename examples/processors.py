"""Processors: resolve a file reference, read an MCP resource, OCR an image, run tools with approval.

Run: python examples/processors.py
Needs, beside agentmsg (which stays stdlib-only): the MCP Python SDK, for the real test server
tests/mcp_server.py (``python -m pip install -e ".[test]"``, or just ``python -m pip install mcp``),
and Tesseract for OCR (Debian: ``apt-get install tesseract-ocr``). Without them the script says
which is missing, in one line, and exits with status 1.

The records say what should happen; the processors make it happen and hand back new records,
which replace the old ones in the conversation context. At the end the context is rendered as
the chat messages a model would see.
"""

import importlib.util
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout, no install

from agentmsg import ImageSource, ToolCall  # noqa: E402
from agentmsg.context import ConversationContext  # noqa: E402
from agentmsg.io.execution import ApprovalPolicy, ToolExecutor, ToolRegistry  # noqa: E402
from agentmsg.io.files import PLANNER, FileResolver  # noqa: E402
from agentmsg.io.mcp import McpClient, ResourceCache  # noqa: E402
from agentmsg.io.recognition import ImageRecognizer  # noqa: E402
from agentmsg.records import FileReference, ImageRecord, McpResource, TextRecord, ToolRequest  # noqa: E402


def main() -> None:
    workspace = Path(tempfile.mkdtemp(prefix="agentmsg-example-"))
    (workspace / "notes.md").write_text("# Notes\nShip the parser.\nFix the flaky test.\nWrite docs.\n")
    ctx = ConversationContext(plan_prompt="Plan, do not act.", act_prompt="You are a careful coding agent.")
    ctx.add(TextRecord.of("user", "What is left to do? Save a summary.", id="t1"))

    # 1. A file reference, read by a planner (read-only) inside the workspace.
    ref = ctx.add(FileReference(id="f1", path="notes.md", start_line=2, end_line=3))
    ctx.replace(FileResolver(workspace, role=PLANNER).resolve(ref))
    print(f"file reference: {ctx.get('f1').status}, lines {ctx.get('f1').lines}")
    (workspace / "sneaky.md").symlink_to("/etc/hostname")  # a link that leads out of the workspace
    escape = FileResolver(workspace, role=PLANNER).resolve(FileReference(id="f2", path="sneaky.md"))
    print(f"symlink out of the workspace: {escape.status} ({escape.error})")

    # 2. An image: this model has no vision, so ``auto`` reads it with Tesseract and says so.
    recognizer = ImageRecognizer(
        supports_vision=False, root=str(ROOT), on_notice=lambda record, text: print(f"notice: {text}")
    )
    image = ctx.add(ImageRecord(id="i1", source=ImageSource.from_path(str(ROOT / "tests/data/images/hello.png"))))
    ctx.replace(recognizer.recognize(image))
    seen = ctx.get("i1")
    print(f"image: {seen.state} by {seen.recognized_by}, words: {seen.text.split()}")

    # 3. MCP resources from a real server (the official SDK), through a cache.
    with McpClient([sys.executable, str(ROOT / "tests/mcp_server.py")], name="docs", timeout=30) as client:
        print(f"MCP server: {client.server_info.get('name')}, protocol {client.protocol_version}")
        print("resources:", [info.uri for info in client.list_resources()])
        cache = ResourceCache(client, max_age_by_mime={"image/*": 60})
        readme = ctx.add(McpResource(id="m1", server="docs", uri="file:///project/README.md"))
        ctx.replace(cache.resolve(readme))
        logo = cache.get("docs", "file:///project/logo.png")
        again = cache.get("docs", "file:///project/logo.png")
        print(f"logo: {logo.mime_type}, {len(logo.blob)} base64 chars; second read from cache: {cache.fetches == 2 and again.retrieved_at == logo.retrieved_at}")

    # 4. Tools: listing runs without asking, writing needs a person, deleting is refused.
    registry = ToolRegistry()

    @registry.register(safe=True)
    def list_files() -> list[str]:
        """List the files in the workspace."""
        return sorted(p.name for p in workspace.iterdir() if not p.is_symlink())

    @registry.register
    def write_file(path: str, content: str) -> dict:
        """Write a text file in the workspace."""
        target = workspace / Path(path).name
        target.write_text(content)
        return {"path": target.name, "bytes": len(content.encode())}

    @registry.register
    def delete_file(path: str) -> str:
        """Delete a file in the workspace."""
        (workspace / Path(path).name).unlink()
        return "deleted"

    policy = ApprovalPolicy({"list_files": "auto", "delete_file": "deny"}, default="ask")
    executor = ToolExecutor(registry, policy, timeout=10)
    summary = "Left: ship the parser, fix the flaky test."
    model_asks = ToolRequest.of(
        [
            ToolCall("call_1", "list_files", {}),
            ToolCall("call_2", "write_file", {"path": "summary.txt", "content": summary}),
            ToolCall("call_3", "delete_file", {"path": "notes.md"}),
        ],
        id="q1",
    )
    run = executor.process(model_asks)
    ctx.add(run.request)
    results = list(run.results)
    for item in run.pending:  # the approval step: show the call to a person, record the decision
        print(f"approval needed: {item.name}({', '.join(item.call.arguments)}) -> approved")
        ctx.replace(ctx.approve(item.id))
    run = executor.process(ctx.get("q1"), completed=results)  # type: ignore[arg-type]
    ctx.replace(run.request)
    results.extend(run.results)
    for result in results:
        ctx.add(result)
        print(f"tool result {result.tool_call_id}: {result.status} {json.dumps(result.to_dict()['data'].get('output'))}")
    print("approvals:", run.request.approvals, "| files now:", sorted(p.name for p in workspace.iterdir() if p.name != "sneaky.md"))

    # 5. What the model sees (the MCP resource joins the system message).
    messages = ctx.to_chat_messages()
    print("system message carries the MCP resource:", '<resource server="docs"' in messages[0].text)
    for message in messages:
        text = message.text.splitlines()
        first = text[0] if text else ""
        calls = f" tool_calls={[c.name for c in message.tool_calls]}" if message.tool_calls else ""
        print(f"{str(message.role):>9}: {first[:60]!r}{calls}")


def missing_requirement() -> str | None:
    """The one-line message for what this example needs and this Python lacks, or None."""
    if importlib.util.find_spec("mcp") is None:
        return ('examples/processors.py needs the MCP Python SDK for its test server: '
                'python -m pip install -e ".[test]" (or: python -m pip install mcp)')
    if shutil.which("tesseract") is None:
        return "examples/processors.py needs Tesseract for OCR: apt-get install tesseract-ocr"
    return None


if __name__ == "__main__":
    sys.exit(missing_requirement() or main())
