"""The provider codecs and the ``Response`` they share.

Six wire formats, one module each: ``openai`` (Chat Completions, and vLLM), ``openai_responses``,
``anthropic``, ``gemini``, ``ollama`` and ``bedrock`` (Amazon Bedrock Converse). Each provider
module has the same verbs, plain functions over plain dicts (no HTTP):
``to_request``, ``to_messages`` / ``from_messages``, ``to_tools`` / ``from_tools``,
``parse_response`` and a ``StreamParser`` with ``feed`` and ``finish``. Import the one you
need::

    from agentmsg.providers import anthropic, bedrock, gemini, ollama, openai, openai_responses

The ``to_request`` contract, the same in every provider module: ``to_request(messages, tools=(),
**params) -> dict`` returns the complete request body for the provider's chat endpoint, ready to
send as JSON or to spread into the official client (``client.chat.completions.create(**body)``,
``client.messages.create(**body)``, Ollama's ``POST /api/chat``, boto3's
``client.converse(**body)``). The codec builds the conversation keys itself (``messages``, and
``system`` where the provider puts it apart); ``params`` carry everything else (``model``,
``max_tokens``, ``temperature``, ``stream``...) as given. Absent things are omitted, never sent
as null: a None param, no system prompt, no tools. A param the API cannot do without (``model``;
Anthropic's ``max_tokens``; Bedrock's ``modelId``) missing, or one that names a key the codec
builds, is a ``TypeError``. A conversation the provider cannot express raises
``ValidationError``.

This module imports no provider module: nothing heavy runs on ``import agentmsg.providers``.
The codecs share their mechanisms through private modules, where a new codec starts:
``_common`` (error paths, tool names and calls, images, request bodies), ``_tools`` (tool
declarations both ways), ``_stream`` (raw SSE or NDJSON input, call deltas, the end of a
stream), ``_eventstream`` (the binary framing of Bedrock's streams) and ``_reasoning`` (which
reasoning goes to which provider); ``Response`` lives in ``_response``.
"""

from __future__ import annotations

from ._response import Response

__all__ = ["Response"]
