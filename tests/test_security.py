"""Secrets stay out of reprs and logs; loggers are named after their modules."""

import ast
import logging
from pathlib import Path

from agentmsg import ChatMessage, ToolCall
from agentmsg._frozen import FrozenDict, thaw_json
from agentmsg.records import RequestedToolCall, ToolRequest, ToolResultRecord

SECRET = "sk-live-0123456789abcdef"
PACKAGE = Path(__file__).parent.parent / "agentmsg"


def test_logging_tool_arguments_does_not_leak_their_values(caplog):
    call = ToolCall("c1", "deploy", {"api_key": SECRET, "nested": {"token": SECRET}, "list": [SECRET], "n": 42})
    log = logging.getLogger("app")
    with caplog.at_level(logging.INFO, logger="app"):
        log.info("arguments %r", call.arguments)
        log.info("call %r", call)
        log.info("nested %r", call.arguments["nested"])
    text = caplog.text
    assert SECRET not in text and "42" not in text
    assert "'api_key': <24 chars>" in text and "'nested': <1 key>" in text and "'list': <1 item>" in text
    # values only through explicit access
    assert call.arguments["api_key"] == SECRET and thaw_json(call.arguments)["nested"]["token"] == SECRET
    assert dict(call.arguments)["api_key"] == SECRET


def test_no_repr_shows_a_value_or_content():
    call = ToolCall("c1", "deploy", {"api_key": SECRET})
    request = ToolRequest.of([call], id="q")
    objects = [
        call.arguments,
        call,
        ChatMessage.user(SECRET),
        ChatMessage.assistant(SECRET, [call]),
        request,
        RequestedToolCall(call=call),
        ToolResultRecord.failure("c1", f"KeyError: {SECRET}"),
        FrozenDict({SECRET[:5]: {"deep": [SECRET]}}),
    ]
    for obj in objects:
        assert SECRET not in repr(obj), type(obj).__name__


def test_a_long_frozen_dict_repr_is_bounded():
    big = FrozenDict({f"k{i}": i for i in range(1000)})
    text = repr(big)
    assert len(text) < 1000 and "<968 more keys>" in text


def test_every_logger_is_named_after_its_module():
    """No hard-coded logger names: ``logging.getLogger(__name__)``, another module's ``__name__``, or one made from ``__name__``."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "getLogger":
                arg = node.args[0] if node.args else None
                if not (isinstance(arg, ast.Attribute) and arg.attr == "__name__") and not (
                    # this module's name, or its package's or a sibling's made from it (not to import it)
                    arg is not None and any(isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(arg))
                ):
                    offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert offenders == []


def test_tool_errors_sent_to_the_model_carry_no_stack_trace():
    """The exception text is what the model reads; the stack trace stays on the record."""
    from agentmsg.io.execution import ApprovalPolicy, ToolExecutor, ToolRegistry

    registry = ToolRegistry()

    @registry.register
    def fail() -> str:
        """Fail."""
        raise RuntimeError("upstream said no")

    run = ToolExecutor(registry, ApprovalPolicy(default="auto")).process(ToolRequest.of([ToolCall("c1", "fail", {})], id="q"))
    (result,) = run.results
    assert result.error == "RuntimeError: upstream said no"
    assert "Traceback" in (result.stack_trace or "")
    from agentmsg.context import ConversationContext
    from agentmsg.records import TextRecord

    ctx = ConversationContext(plan_prompt="", act_prompt="")
    ctx.add(TextRecord.of("user", "deploy please", id="u1"))
    ctx.add(run.request)
    ctx.add(result)
    sent = str([m.to_dict() for m in ctx.to_chat_messages()])
    assert "upstream said no" in sent and "Traceback" not in sent and "line " not in sent


def test_resource_cache_with_a_client_never_started_fails_the_record():
    """Robustness: ResourceCache.resolve with a client that was never started gives a failed record, no RuntimeError."""
    import sys

    from agentmsg.io.mcp import McpClient, ResourceCache
    from agentmsg.records import McpResource

    server = Path(__file__).parent / "mcp_server.py"
    client = McpClient([sys.executable, str(server)], name="docs")  # never started
    cache = ResourceCache({"docs": client})
    done = cache.resolve(McpResource(id="m1", server="docs", uri="file:///project/README.md"))
    assert done.status == "failed" and done.error == "MCP server 'docs' is not started"
    assert cache.fetches == 0
