"""The fields of Ollama /api/chat documents: the ``ollama`` SDK's types, as data.

>>> from ._fields import unknown_fields
>>> unknown_fields(FIELDS["ollama_request"], {"model": "m", "messages": [
...     {"role": "tool", "content": "ok", "tool_name": "f", "name": "f"}]})
['messages[0].name']

Written by ``tests/test_validate_provider_fields.py`` from the request, message, tool and
response models of the SDK named below (``AGENTMSG_REGENERATE=1`` rewrites it); read as
``_fields.Node``s. Open values (``options``, a tool's ``parameters``, a call's ``arguments``)
are not looked into.
"""

from __future__ import annotations

from ._fields import Node

# -- written from the SDK's types by tests/test_validate_provider_fields.py (AGENTMSG_REGENERATE=1) --
# ollama 0.6.3
_N0: Node = (frozenset({"value"}), {}, "", {})
_N1: Node = (frozenset({"arguments", "index", "name"}), {}, "", {})
_N2: Node = (frozenset({"function", "type"}), {"function": _N1}, "", {})
_N3: Node = (frozenset({"content", "images", "role", "thinking", "tool_calls", "tool_name"}), {"images": _N0, "tool_calls": _N2}, "", {})
_N4: Node = (frozenset({"embedding_only", "f16_kv", "frequency_penalty", "logits_all", "low_vram", "main_gpu", "mirostat", "mirostat_eta", "mirostat_tau", "num_batch", "num_ctx", "num_gpu", "num_keep", "num_predict", "num_thread", "numa", "penalize_newline", "presence_penalty", "repeat_last_n", "repeat_penalty", "seed", "stop", "temperature", "tfs_z", "top_k", "top_p", "typical_p", "use_mlock", "use_mmap", "vocab_only"}), {}, "", {})
_N5: Node = (frozenset({"description", "name", "parameters"}), {}, "", {})
_N6: Node = (frozenset({"function", "type"}), {"function": _N5}, "", {})
_N7: Node = (frozenset({"format", "keep_alive", "logprobs", "messages", "model", "options", "stream", "think", "tools", "top_logprobs"}), {"messages": _N3, "options": _N4, "tools": _N6}, "", {})
_N8: Node = (frozenset({"logprob", "token"}), {}, "", {})
_N9: Node = (frozenset({"logprob", "token", "top_logprobs"}), {"top_logprobs": _N8}, "", {})
_N10: Node = (frozenset({"created_at", "done", "done_reason", "eval_count", "eval_duration", "load_duration", "logprobs", "message", "model", "prompt_eval_count", "prompt_eval_duration", "total_duration"}), {"logprobs": _N9, "message": _N3}, "", {})
FIELDS: dict[str, Node] = {
    "ollama_request": _N7,
    "ollama_tool": _N6,
    "ollama_tools": _N6,
    "ollama_response": _N10,
    "ollama_stream": _N10,
}
# -- end of the written table --
