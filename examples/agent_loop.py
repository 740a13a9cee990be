"""An agent loop against OpenAI, Anthropic and Ollama, with a scripted stand-in for each model.

The model answers with text together with tool calls; the tool results go back in the place each
API wants them (OpenAI: tool messages; Anthropic: tool_result blocks in one user turn; Ollama:
tool messages with tool_name); the loop continues to a final answer. The stand-ins return the
providers' real wire shapes, so swapping one for an HTTP call is the only change a real agent
needs. Run: python examples/agent_loop.py
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agentmsg import ChatMessage, ConversationHistory, ToolDefinition, ToolResult  # noqa: E402
from agentmsg.providers import anthropic, ollama, openai  # noqa: E402

WEATHER = {"Paris": "18 C, sunny", "Oslo": "4 C, rain"}
TOOLS = [ToolDefinition("get_weather", "Current weather in a city.", {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": False})]


def run_tool(call):
    city = call.get_argument("city", str)
    if city not in WEATHER:
        return ToolResult.error(call.id, "unknown city")
    return ToolResult.success(call.id, WEATHER[city])


# -- scripted models: they read the request as the API would and answer in its wire shape ----------

def final_text(results):
    return "Paris: " + results[0] + "; Oslo: " + results[1] + "."


def openai_model(body):
    last = body["messages"][-1]
    if last["role"] == "tool":  # the two tool messages answer the two calls, by id
        asked = [c["id"] for c in body["messages"][-3]["tool_calls"]]
        assert [m["tool_call_id"] for m in body["messages"][-2:]] == asked, "the API would reject this"
        results = [m["content"] for m in body["messages"][-2:]]
        message = {"role": "assistant", "content": final_text(results), "refusal": None}
        return {"object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    calls = [{"id": f"call_{i}", "type": "function", "function": {"name": "get_weather", "arguments": json.dumps({"city": c})}}
             for i, c in enumerate(WEATHER)]
    message = {"role": "assistant", "content": "Checking both cities.", "tool_calls": calls, "refusal": None}
    return {"object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 60, "completion_tokens": 40, "total_tokens": 100}}


def anthropic_model(body):
    last = body["messages"][-1]
    if last["role"] == "user" and isinstance(last["content"], list):  # one user turn of tool_result blocks
        asked = [b["id"] for b in body["messages"][-2]["content"] if b["type"] == "tool_use"]
        assert [b["tool_use_id"] for b in last["content"]] == asked, "the API would reject this"
        results = [b["content"] for b in last["content"]]
        return {"type": "message", "role": "assistant", "content": [{"type": "text", "text": final_text(results)}],
                "stop_reason": "end_turn", "usage": {"input_tokens": 120, "output_tokens": 20}}
    blocks = [{"type": "text", "text": "Checking both cities."}]
    blocks += [{"type": "tool_use", "id": f"toolu_0{i}", "name": "get_weather", "input": {"city": c}} for i, c in enumerate(WEATHER)]
    return {"type": "message", "role": "assistant", "content": blocks, "stop_reason": "tool_use",
            "usage": {"input_tokens": 80, "output_tokens": 45}}


def ollama_model(body):
    last = body["messages"][-1]
    if last["role"] == "tool":  # matched to the calls by tool_name (and tool_call_id on recent servers)
        assert [m["tool_name"] for m in body["messages"][-2:]] == ["get_weather"] * 2
        results = [m["content"] for m in body["messages"][-2:]]
        return {"model": "llama3.2", "created_at": "2025-07-07T20:43:37Z", "done": True, "done_reason": "stop",
                "message": {"role": "assistant", "content": final_text(results)}}
    calls = [{"function": {"name": "get_weather", "arguments": {"city": c}}} for c in WEATHER]  # no ids
    return {"model": "llama3.2", "created_at": "2025-07-07T20:43:35Z", "done": True, "done_reason": "stop",
            "message": {"role": "assistant", "content": "Checking both cities.", "tool_calls": calls}}


def request(codec, messages):
    if codec is anthropic:
        system, wire = codec.to_messages(messages)
        return {"model": "claude-haiku-4-5", "max_tokens": 1024, "system": system, "messages": wire, "tools": codec.to_tools(TOOLS)}
    return {"model": "stand-in", "messages": codec.to_messages(messages), "tools": codec.to_tools(TOOLS)}


def agent(codec, model, question):
    history = ConversationHistory([ChatMessage.system("Answer briefly."), ChatMessage.user(question)])
    while True:
        response = codec.parse_response(model(request(codec, history.messages)))
        history.add(response.message)
        if not response.message.tool_calls:
            return history, response
        for call in response.message.tool_calls:
            history.add(run_tool(call).to_message())


for name, codec, model in [("openai", openai, openai_model), ("anthropic", anthropic, anthropic_model), ("ollama", ollama, ollama_model)]:
    history, response = agent(codec, model, "What is the weather in Paris and Oslo?")
    history.validate()
    roles = " ".join(str(m.role) for m in history)
    print(f"{name}: {len(history)} messages ({roles}); finish_reason={response.finish_reason}")
    print(f"  answer: {response.message.text}")
