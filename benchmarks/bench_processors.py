"""Benchmark the processors: tool execution, MCP resource reads, the resource cache, file references.

Run: python benchmarks/bench_processors.py
Peers (columns skipped with a note when not installed): langchain-core's ``StructuredTool``
(pydantic-validated tool invocation) for tool execution, the official MCP Python SDK's client
(``mcp.ClientSession`` over ``stdio_client``) for ``resources/read`` against the same server
(``tests/mcp_server.py``, which itself needs ``mcp``), and plain stdlib file slicing.
"""

import asyncio
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import ns_per_op, table  # noqa: E402

from agentmsg import ToolCall  # noqa: E402
from agentmsg.io.execution import ApprovalPolicy, ToolExecutor, ToolRegistry  # noqa: E402
from agentmsg.io.files import FileResolver  # noqa: E402
from agentmsg.io.mcp import McpClient, ResourceCache  # noqa: E402
from agentmsg.records import FileReference, McpResource  # noqa: E402

SERVER = [sys.executable, str(ROOT / "tests" / "mcp_server.py")]
README_URI = "file:///project/README.md"
READS = 200


def search(query: str, limit: int = 10, exact: bool = False) -> list[str]:
    """Search the notes."""
    return [query] * min(limit, 3)


def bench_tools() -> tuple[str, float, dict[str, float | None]]:
    registry = ToolRegistry()
    registry.register(search)
    executor = ToolExecutor(registry, ApprovalPolicy(default="auto"))
    call = ToolCall("c1", "search", {"query": "cats", "limit": 2, "exact": None})
    ours = ns_per_op(lambda: executor.execute(call))
    peer = None
    if importlib.util.find_spec("langchain_core") is not None:
        from langchain_core.tools import StructuredTool

        tool = StructuredTool.from_function(search)
        args = {"query": "cats", "limit": 2}
        peer = ns_per_op(lambda: tool.invoke(args))
    else:
        print("note: langchain-core is not installed; its column is skipped")
    return ("execute one validated tool call", ours, {"langchain": peer})


def bench_mcp() -> list[tuple[str, float, dict[str, float | None]]]:
    if importlib.util.find_spec("mcp") is None:
        print("note: the mcp package is not installed; the test server cannot run, MCP rows skipped")
        return []
    with McpClient(SERVER, name="docs", timeout=30) as client:
        client.read_resource(README_URI)
        started = time.perf_counter()
        for _ in range(READS):
            client.read_resource(README_URI)
        ours = (time.perf_counter() - started) / READS * 1e9
        cache = ResourceCache(client)
        record = McpResource(id="m1", server="docs", uri=README_URI)
        cache.resolve(record)
        hit = ns_per_op(lambda: cache.resolve(record))
    peer = asyncio.run(_sdk_reads())
    return [
        ("resources/read round trip (stdio)", ours, {"mcp SDK": peer}),
        ("ResourceCache.resolve, fresh hit", hit, {}),
    ]


async def _sdk_reads() -> float:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=SERVER[0], args=SERVER[1:])
    with open(Path(tempfile.gettempdir()) / "bench_mcp_sdk.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.read_resource(README_URI)
                started = time.perf_counter()
                for _ in range(READS):
                    await session.read_resource(README_URI)
                return (time.perf_counter() - started) / READS * 1e9


def bench_files() -> tuple[str, float, dict[str, float | None]]:
    with tempfile.TemporaryDirectory() as root:
        path = Path(root) / "big.py"
        path.write_text("".join(f"line {n} = {n * n}\n" for n in range(1, 1001)))
        resolver = FileResolver(root)
        ref = FileReference(id="f1", path="big.py", start_line=500, end_line=509)
        ours = ns_per_op(lambda: resolver.resolve(ref))
        plain = ns_per_op(lambda: "\n".join(path.read_text().splitlines()[499:509]))
    return ("resolve a 10-line range of a 1000-line file", ours, {"stdlib": plain})


def main() -> None:
    rows = [bench_tools()]
    table("Tool execution (validate, run on a worker thread, record)", rows, ["langchain"])
    mcp_rows = bench_mcp()
    if mcp_rows:
        table(f"MCP resources (mean over {READS} reads of a text resource)", mcp_rows, ["mcp SDK"])
    table("File references (workspace checks, permission, size limit)", [bench_files()], ["stdlib"])


if __name__ == "__main__":
    main()
