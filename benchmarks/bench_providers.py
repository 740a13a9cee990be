"""Benchmark the provider codecs against langchain's converters on the same data.

Run: python benchmarks/bench_providers.py
(pip install langchain-core langchain-openai langchain-anthropic langchain-ollama for the
langchain column; without them the column shows "-").

What is timed, for agentmsg and, in the same run, for langchain (the functions named):
- a 100-message conversation (system, then user / assistant with text and two tool calls / two
  tool results / assistant answer, repeated) to each provider's request messages, and back:
  OpenAI   to: langchain_openai.chat_models.base._convert_message_to_dict (per message)
           from: langchain_openai.chat_models.base._convert_dict_to_message (per message)
  Anthropic to: langchain_anthropic.chat_models._format_messages
  Ollama   to: langchain_ollama.ChatOllama._convert_messages_to_ollama_messages
  (langchain has no converter from Anthropic or Ollama request messages back to messages)
- a response body with text and two tool calls: OpenAI parse_response against
  _convert_dict_to_message on choices[0].message;
- a 2,000-chunk streamed response (text pieces and two tool calls whose arguments arrive in
  pieces, then a usage chunk) parsed into the final message: agentmsg's StreamParser against
  langchain's _convert_delta_to_message_chunk per chunk, summed with ``+`` as langchain does to
  build the final message. Anthropic (2,000 events) and Ollama (2,000 NDJSON lines) streams are
  timed for agentmsg alone.
- the same conversation to and from the OpenAI Responses ``input`` items and Gemini ``contents``,
  against Chat Completions in the same run (the ratio column is new format / Chat Completions).
"""

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import ns_per_op, table  # noqa: E402

from agentmsg import ChatMessage, MessageRole, ReasoningPart, ToolCall  # noqa: E402
from agentmsg.providers import anthropic, gemini, ollama, openai, openai_responses  # noqa: E402

ARGS_A = {"path": "src/app.py", "content": "print('hello, world')\n", "mode": "w"}
ARGS_B = {"command": ["python", "-m", "pytest", "-q"], "timeout": 60, "env": {"CI": "1"}}


def conversation() -> list[ChatMessage]:
    """Return 100 messages: a system prompt, then turns with text beside two tool calls."""
    messages = [ChatMessage.system("You are a careful coding agent. Use the tools.")]
    turn = 0
    while len(messages) < 100:
        a, b = f"call_{turn}_a", f"call_{turn}_b"
        messages += [
            ChatMessage.user(f"Step {turn}: write the file and run the tests."),
            ChatMessage.assistant("I'll write the file, then run the tests.", [ToolCall(a, "write_file", ARGS_A), ToolCall(b, "run_command", ARGS_B)]),
            ChatMessage.tool(a, "File written: 22 bytes"),
            ChatMessage.tool(b, "3 passed in 0.12s"),
            ChatMessage.assistant(f"Done with step {turn}: the tests pass."),
        ]
        turn += 1
    return messages[:100]


def langchain_messages(messages: list[ChatMessage]) -> Any:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    out: list[Any] = []
    for m in messages:
        if m.role == 0:
            out.append(SystemMessage(m.text))
        elif m.role == 1:
            out.append(HumanMessage(m.text))
        elif m.role == 2:
            calls = [{"id": c.id, "name": c.name, "args": json.loads(json.dumps(c.arguments))} for c in m.tool_calls]
            out.append(AIMessage(m.text, tool_calls=calls))
        else:
            out.append(ToolMessage(m.text, tool_call_id=m.tool_call_id))
    return out


def split(text: str, k: int) -> list[str]:
    """Cut ``text`` into exactly ``k`` non-empty pieces."""
    bounds = [len(text) * i // k for i in range(k + 1)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def arguments(k: int) -> str:
    return json.dumps({"items": [f"v{i}" for i in range(k)]})


def openai_stream(n: int = 2000) -> list[dict[str, Any]]:
    """Return n chunks: text pieces, two tool calls with arguments in pieces, a usage chunk."""
    def chunk(delta: dict[str, Any], finish: Any = None) -> dict[str, Any]:
        return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    per_call = 400
    text = n - 5 - 2 * per_call  # role, finish and usage chunks; the first chunk of each call
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": f"word{i} "}) for i in range(text)]
    for index, name in enumerate(("write_file", "run_command")):
        chunks.append(chunk({"tool_calls": [{"index": index, "id": f"call_{index}", "type": "function", "function": {"name": name, "arguments": ""}}]}))
        chunks += [chunk({"tool_calls": [{"index": index, "function": {"arguments": p}}]}) for p in split(arguments(per_call), per_call)]
    chunks.append(chunk({}, "tool_calls"))
    chunks.append({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [],
                   "usage": {"prompt_tokens": 900, "completion_tokens": 2000, "total_tokens": 2900}})
    return chunks


def anthropic_stream(n: int = 2000) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": [], "usage": {"input_tokens": 900, "output_tokens": 1}}},
                                    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}]
    per_call = 400
    events += [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": f"word{i} "}} for i in range(n - 9 - 2 * per_call)]
    events.append({"type": "content_block_stop", "index": 0})
    for index, name in ((1, "write_file"), (2, "run_command")):
        events.append({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": f"toolu_{index}", "name": name, "input": {}}})
        events += [{"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": p}} for p in split(arguments(per_call), per_call)]
        events.append({"type": "content_block_stop", "index": index})
    events += [{"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 2000}}, {"type": "message_stop"}]
    return events


def ollama_stream(n: int = 2000) -> list[dict[str, Any]]:
    lines = [{"model": "llama3.2", "created_at": f"2025-07-07T20:22:{i // 100:02d}.{i:04d}Z", "message": {"role": "assistant", "content": f"word{i} "}, "done": False} for i in range(n - 3)]
    for name, args in (("write_file", ARGS_A), ("run_command", ARGS_B)):
        lines.append({"model": "llama3.2", "created_at": "2025-07-07T20:23:00Z", "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": name, "arguments": args}}]}, "done": False})
    lines.append({"model": "llama3.2", "created_at": "2025-07-07T20:23:01Z", "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop", "eval_count": 2000})
    return lines


def parse(module: Any, chunks: list[Any]) -> Any:
    parser = module.StreamParser()
    for c in chunks:
        parser.feed(c)
    return parser.finish()


def main() -> None:
    messages = conversation()
    oa_wire = openai.to_messages(messages)
    an_system, an_wire = anthropic.to_messages(messages)
    ol_wire = ollama.to_messages(messages)
    assert openai.from_messages(oa_wire) == tuple(messages) and anthropic.from_messages(an_wire, an_system) == tuple(messages)
    assert ollama.from_messages(ol_wire) == tuple(messages)
    response = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": None,
                "message": {**oa_wire[2], "refusal": None}}], "usage": {"prompt_tokens": 90, "completion_tokens": 40, "total_tokens": 130}}
    streams = {"openai": openai_stream(), "anthropic": anthropic_stream(), "ollama": ollama_stream()}
    for name, chunks in streams.items():
        assert len(chunks) == 2000, (name, len(chunks))
        assert len(parse({"openai": openai, "anthropic": anthropic, "ollama": ollama}[name], chunks).message.tool_calls) == 2

    ops: list[tuple[str, Any, Any]] = [
        ("OpenAI: 100 messages to wire", lambda: openai.to_messages(messages), None),
        ("OpenAI: 100 messages from wire", lambda: openai.from_messages(oa_wire), None),
        ("Anthropic: 100 messages to wire", lambda: anthropic.to_messages(messages), None),
        ("Anthropic: 100 messages from wire", lambda: anthropic.from_messages(an_wire, an_system), None),
        ("Ollama: 100 messages to wire", lambda: ollama.to_messages(messages), None),
        ("Ollama: 100 messages from wire", lambda: ollama.from_messages(ol_wire), None),
        ("OpenAI: parse a response (text + 2 calls)", lambda: openai.parse_response(response), None),
        ("OpenAI: 2,000-chunk stream", lambda: parse(openai, streams["openai"]), None),
        ("Anthropic: 2,000-event stream", lambda: parse(anthropic, streams["anthropic"]), None),
        ("Ollama: 2,000-line stream", lambda: parse(ollama, streams["ollama"]), None),
    ]
    peers: dict[str, Any] = {}
    try:
        from langchain_anthropic.chat_models import _format_messages
        from langchain_core.messages import AIMessageChunk
        from langchain_ollama import ChatOllama
        from langchain_openai.chat_models.base import _convert_delta_to_message_chunk, _convert_dict_to_message, _convert_message_to_dict
    except ImportError as exc:
        print(f"note: langchain converters not installed ({exc.name}); the langchain column is empty")
    else:
        lc = langchain_messages(messages)
        chat_ollama = ChatOllama(model="llama3.2")

        def lc_stream() -> Any:
            total = None
            for c in streams["openai"]:
                if c["choices"]:
                    piece = _convert_delta_to_message_chunk(c["choices"][0]["delta"], AIMessageChunk)
                    total = piece if total is None else total + piece
            return total

        assert len(lc_stream().tool_calls) == 2
        peers = {
            "OpenAI: 100 messages to wire": lambda: [_convert_message_to_dict(m) for m in lc],
            "OpenAI: 100 messages from wire": lambda: [_convert_dict_to_message(d) for d in oa_wire],
            "Anthropic: 100 messages to wire": lambda: _format_messages(lc, model=None),
            "Ollama: 100 messages to wire": lambda: chat_ollama._convert_messages_to_ollama_messages(lc),
            "OpenAI: parse a response (text + 2 calls)": lambda: _convert_dict_to_message(response["choices"][0]["message"]),
            "OpenAI: 2,000-chunk stream": lc_stream,
        }
    rows = []
    for name, ours, _ in ops:
        theirs = peers.get(name)
        rows.append((name, ns_per_op(ours), {"langchain": ns_per_op(theirs) if theirs else None}))
    table("Provider codecs (100-message conversation with tool calls; 2,000-chunk streams)", rows, ["langchain"])
    new_formats()


def with_reasoning(messages: list[ChatMessage], provider: str | None) -> list[ChatMessage]:
    """Give every assistant message one reasoning part: plain text, or signed by ``provider``."""
    def part() -> ReasoningPart:
        text = "Write the file first, then run the tests and read their output."
        if provider is None:
            return ReasoningPart(text)
        return ReasoningPart(text, signature="EqQBCkgIARABGAIiQL1YxEqQBCkgIARAB", provider=provider,
                             id="rs_68c1a2" if provider == "openai" else None)
    return [m if m.role is not MessageRole.ASSISTANT else ChatMessage.assistant(m.content, m.tool_calls, reasoning=[part()])
            for m in messages]


def new_formats() -> None:
    """Time the Responses and Gemini conversions against Chat Completions, in the same run.

    Twice: the plain conversation, and the same with reasoning on every assistant message (plain
    reasoning for Chat Completions' ``reasoning_content``, signed parts for Responses and Gemini).
    """
    for label, reasoning in (("", False), (", with reasoning", True)):
        base = conversation()
        chat = with_reasoning(base, None) if reasoning else base
        responses = with_reasoning(base, "openai") if reasoning else base
        google = with_reasoning(base, "gemini") if reasoning else base
        oa_wire = openai.to_messages(chat)
        instructions, items = openai_responses.to_messages(responses)
        system, contents = gemini.to_messages(google)
        assert openai.from_messages(oa_wire) == tuple(chat)
        assert openai_responses.from_messages(items, instructions) == tuple(responses)
        assert gemini.from_messages(contents, system) == tuple(google)
        chat_to = ns_per_op(lambda: openai.to_messages(chat))
        chat_from = ns_per_op(lambda: openai.from_messages(oa_wire))
        rows = [
            ("Responses: 100 messages to wire", ns_per_op(lambda: openai_responses.to_messages(responses)), {"chat": chat_to}),
            ("Responses: 100 messages from wire", ns_per_op(lambda: openai_responses.from_messages(items, instructions)), {"chat": chat_from}),
            ("Gemini: 100 messages to wire", ns_per_op(lambda: gemini.to_messages(google)), {"chat": chat_to}),
            ("Gemini: 100 messages from wire", ns_per_op(lambda: gemini.from_messages(contents, system)), {"chat": chat_from}),
        ]
        table(f"New formats against Chat Completions (same 100 messages{label}; ratio = new / Chat Completions)", rows, ["chat"])


if __name__ == "__main__":
    main()
