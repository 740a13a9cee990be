"""The web-chat agent turn on agentmsg.agent: "What recipes do I have?" over an MCP tool, three APIs.

Runs with only the agentmsg package on the path plus the official MCP SDK (`pip install mcp`),
which this script uses for the one thing it needs it for: the recipe server it starts (itself,
with --serve) and talks to over stdio with agentmsg's stdlib McpClient.

The model first answers with text plus a call to the MCP tool `list_recipes`; the loop runs the
call on the server, sends the result back in the place each API wants it (OpenAI: a tool
message; Anthropic: a tool_result block; Ollama: a tool message with tool_name), and the model's
final answer, which is what the user sees, lists the recipes. The models are scripted stand-ins
that read each request as the API would and answer in its wire shape: swapping one for an HTTP
call is the only change a real agent needs. The second part pauses the turn for an approval and
resumes it. Run: python examples/agent_loop.py
"""

import importlib.util
import json
import sys
from pathlib import Path

RECIPES = ["Pancakes", "Tomato soup", "Omelette"]


def serve():
    """The recipe server: the official MCP SDK over stdio."""
    try:
        from mcp.server.mcpserver import MCPServer as Server
    except ImportError:  # mcp 1.x
        from mcp.server.fastmcp import FastMCP as Server
    from mcp.types import ToolAnnotations

    server = Server("recipes")

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True), structured_output=False)
    def list_recipes() -> str:
        """List the recipes in the user's cookbook."""
        return "\n".join(RECIPES)

    server.run("stdio")


if "--serve" in sys.argv:
    serve()
    sys.exit(0)
if importlib.util.find_spec("mcp") is None:
    sys.exit("examples/agent_loop.py needs the official MCP SDK for its recipe server: pip install mcp")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agentmsg import ChatMessage, ConversationHistory  # noqa: E402
from agentmsg.agent import AgentTurn  # noqa: E402
from agentmsg.events import ChatRequest, SessionReducer, encode  # noqa: E402
from agentmsg.io.execution import ApprovalPolicy  # noqa: E402
from agentmsg.io.mcp import McpClient  # noqa: E402
from agentmsg.io.store import MessageStore  # noqa: E402
from agentmsg.providers import anthropic, ollama, openai  # noqa: E402

QUESTION = "What recipes do I have?"


# -- scripted models: each reads the request as its API would and answers in its wire shape --------

def final_text(result):
    *first, last = result.split("\n")
    return f"You have {len(first) + 1} recipes: {', '.join(first)} and {last}."


def anthropic_model(body):
    last = body["messages"][-1]
    if isinstance(last["content"], list) and last["content"][0]["type"] == "tool_result":
        (block,) = last["content"]
        asked = [b["id"] for b in body["messages"][-2]["content"] if b["type"] == "tool_use"]
        assert block["tool_use_id"] == asked[0], "the API would reject this"
        return {"id": "msg_02", "type": "message", "role": "assistant", "model": body["model"], "stop_reason": "end_turn",
                "content": [{"type": "text", "text": final_text(block["content"])}],
                "usage": {"input_tokens": 120, "output_tokens": 20}}
    return {"id": "msg_01", "type": "message", "role": "assistant", "model": body["model"], "stop_reason": "tool_use",
            "content": [{"type": "text", "text": "Let me check your cookbook."},
                        {"type": "tool_use", "id": "toolu_01", "name": "list_recipes", "input": {}}],
            "usage": {"input_tokens": 80, "output_tokens": 30}}


def openai_model(body):
    last = body["messages"][-1]
    if last["role"] == "tool":
        assert last["tool_call_id"] == body["messages"][-2]["tool_calls"][0]["id"], "the API would reject this"
        message = {"role": "assistant", "content": final_text(last["content"]), "refusal": None}
        return {"object": "chat.completion", "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    call = {"id": "call_01", "type": "function", "function": {"name": "list_recipes", "arguments": "{}"}}
    message = {"role": "assistant", "content": "Let me check your cookbook.", "tool_calls": [call], "refusal": None}
    return {"object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 60, "completion_tokens": 20, "total_tokens": 80}}


def ollama_model(body):
    last = body["messages"][-1]
    if last["role"] == "tool":  # matched to the call by tool_name
        assert last["tool_name"] == "list_recipes"
        return {"model": body["model"], "created_at": "2025-07-07T20:43:37Z", "done": True, "done_reason": "stop",
                "message": {"role": "assistant", "content": final_text(last["content"])}}
    return {"model": body["model"], "created_at": "2025-07-07T20:43:35Z", "done": True, "done_reason": "stop",
            "message": {"role": "assistant", "content": "Let me check your cookbook.",
                        "tool_calls": [{"function": {"name": "list_recipes", "arguments": {}}}]}}


MODELS = [
    ("anthropic", anthropic, anthropic_model, {"model": "claude-haiku-4-5", "max_tokens": 1024}),
    ("openai", openai, openai_model, {"model": "gpt-4.1-mini"}),
    ("ollama", ollama, ollama_model, {"model": "llama3.2"}),
]

with McpClient([sys.executable, str(Path(__file__).resolve()), "--serve"], name="recipes", timeout=60) as recipes:
    print(f"MCP server {recipes.server_info.get('name')!r} offers: {', '.join(t.name for t in recipes.list_tools())}")
    for name, provider, model, params in MODELS:
        history = ConversationHistory([ChatMessage.system("You are a helpful cook.")])
        store = MessageStore(":memory:")
        session = SessionReducer()  # what the chat client's history becomes
        session.apply(ChatRequest(message=QUESTION))
        events = []

        def show(event):
            events.append(encode(event)[0])
            session.apply(event)  # the protocol accepts each event as it comes

        turn = AgentTurn(provider, history, QUESTION, mcp=[recipes], policy=ApprovalPolicy({"list_recipes": "auto"}),
                         params=params, on_event=show, store=store, conversation_id=f"chat-{name}")
        outcome = turn.run(model)
        history.validate()
        assert store.load(f"chat-{name}") == history.messages[1:]
        print(f"{name}: {outcome.status} in {outcome.steps} model calls; "
              f"{' '.join(m.role.name.lower() for m in history)}")
        print(f"  events: {' '.join(events)}")
        print(f"  the user sees: {outcome.message.text}")
        print(f"  stored and reloaded: {len(store.load(f'chat-{name}'))} messages, equal")

    # The same turn with a person in the loop: it pauses, the call is approved, it resumes.
    history = ConversationHistory([ChatMessage.system("You are a helpful cook.")])
    turn = AgentTurn(openai, history, QUESTION, mcp=[recipes], policy=ApprovalPolicy(default="ask"),
                     params={"model": "gpt-4.1-mini"})
    paused = turn.run(openai_model)
    print(f"approval: {paused.status}, waiting for {[(c.name, json.dumps(dict(c.call.arguments))) for c in paused.pending]}")
    for call in paused.pending:
        turn.approve(call.id)
    print(f"  resumed: {turn.run(openai_model).message.text}")
