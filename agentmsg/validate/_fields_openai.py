"""The fields of OpenAI Chat Completions documents: the ``openai`` SDK's types, as data.

>>> from ._fields import unknown_fields
>>> unknown_fields(FIELDS["openai_request"], {"model": "m", "messages": [
...     {"role": "user", "content": "Hi", "extra": 1}]})
['messages[0].extra']

Written by ``tests/test_validate_provider_fields.py`` from the request, message and tool
``TypedDict``s and the response and chunk models of the SDK named below
(``AGENTMSG_REGENERATE=1`` rewrites it); read as ``_fields.Node``s. Open values (a tool's
``parameters``, ``metadata``, ``extra_body``) are not looked into.
"""

from __future__ import annotations

from ._fields import Node

# -- written from the SDK's types by tests/test_validate_provider_fields.py (AGENTMSG_REGENERATE=1) --
# openai 3.57.0
_N0: Node = (frozenset({"id"}), {}, "", {})
_N1: Node = (frozenset({"format", "voice"}), {"voice": _N0}, "", {})
_N2: Node = (frozenset({"name"}), {}, "", {})
_N3: Node = (frozenset({"description", "name", "parameters"}), {}, "", {})
_N4: Node = (frozenset({"file_data", "file_id", "filename"}), {}, "", {})
_N5: Node = (frozenset({"detail", "url"}), {}, "", {})
_N6: Node = (frozenset({"data", "format"}), {}, "", {})
_N7: Node = (frozenset({"mode", "ttl"}), {}, "", {})
_N8: Node = (frozenset({"file", "prompt_cache_breakpoint", "type"}), {"file": _N4, "prompt_cache_breakpoint": _N7}, "", {})
_N9: Node = (frozenset({"image_url", "prompt_cache_breakpoint", "type"}), {"image_url": _N5, "prompt_cache_breakpoint": _N7}, "", {})
_N10: Node = (frozenset({"input_audio", "prompt_cache_breakpoint", "type"}), {"input_audio": _N6, "prompt_cache_breakpoint": _N7}, "", {})
_N11: Node = (frozenset({"refusal", "type"}), {}, "", {})
_N12: Node = (frozenset({"prompt_cache_breakpoint", "text", "type"}), {"prompt_cache_breakpoint": _N7}, "", {})
_N13: Node = (frozenset({"file", "image_url", "input_audio", "prompt_cache_breakpoint", "refusal", "text", "type"}), {"file": _N4, "image_url": _N5, "input_audio": _N6, "prompt_cache_breakpoint": _N7}, "type", {"file": _N8, "image_url": _N9, "input_audio": _N10, "refusal": _N11, "text": _N12})
_N14: Node = (frozenset({"arguments", "name"}), {}, "", {})
_N15: Node = (frozenset({"input", "name"}), {}, "", {})
_N16: Node = (frozenset({"custom", "id", "type"}), {"custom": _N15}, "", {})
_N17: Node = (frozenset({"function", "id", "type"}), {"function": _N14}, "", {})
_N18: Node = (frozenset({"custom", "function", "id", "type"}), {"custom": _N15, "function": _N14}, "type", {"custom": _N16, "function": _N17})
_N19: Node = (frozenset({"prompt_cache_breakpoint", "refusal", "text", "type"}), {"prompt_cache_breakpoint": _N7}, "type", {"refusal": _N11, "text": _N12})
_N20: Node = (frozenset({"audio", "content", "function_call", "name", "reasoning", "reasoning_content", "refusal", "role", "tool_calls"}), {"audio": _N0, "content": _N19, "function_call": _N14, "tool_calls": _N18}, "", {})
_N21: Node = (frozenset({"content", "name", "role"}), {"content": _N12}, "", {})
_N22: Node = (frozenset({"content", "name", "role"}), {}, "", {})
_N23: Node = (frozenset({"content", "role", "tool_call_id"}), {"content": _N12}, "", {})
_N24: Node = (frozenset({"file", "image_url", "input_audio", "prompt_cache_breakpoint", "text", "type"}), {"file": _N4, "image_url": _N5, "input_audio": _N6, "prompt_cache_breakpoint": _N7}, "type", {"file": _N8, "image_url": _N9, "input_audio": _N10, "text": _N12})
_N25: Node = (frozenset({"content", "name", "role"}), {"content": _N24}, "", {})
_N26: Node = (frozenset({"audio", "content", "function_call", "name", "reasoning", "reasoning_content", "refusal", "role", "tool_call_id", "tool_calls"}), {"audio": _N0, "content": _N13, "function_call": _N14, "tool_calls": _N18}, "role", {"assistant": _N20, "developer": _N21, "function": _N22, "system": _N21, "tool": _N23, "user": _N25})
_N27: Node = (frozenset({"mode"}), {}, "", {})
_N28: Node = (frozenset({"input", "output"}), {"input": _N27, "output": _N27}, "", {})
_N29: Node = (frozenset({"model", "policy"}), {"policy": _N28}, "", {})
_N30: Node = (frozenset({"content", "type"}), {"content": _N12}, "", {})
_N31: Node = (frozenset({"description", "name", "schema", "strict"}), {}, "", {})
_N32: Node = (frozenset({"type"}), {}, "", {})
_N33: Node = (frozenset({"json_schema", "type"}), {"json_schema": _N31}, "", {})
_N34: Node = (frozenset({"json_schema", "type"}), {"json_schema": _N31}, "type", {"json_object": _N32, "json_schema": _N33, "text": _N32})
_N35: Node = (frozenset({"include_obfuscation", "include_usage"}), {}, "", {})
_N36: Node = (frozenset({"mode", "tools"}), {}, "", {})
_N37: Node = (frozenset({"allowed_tools", "type"}), {"allowed_tools": _N36}, "", {})
_N38: Node = (frozenset({"custom", "type"}), {"custom": _N2}, "", {})
_N39: Node = (frozenset({"function", "type"}), {"function": _N2}, "", {})
_N40: Node = (frozenset({"allowed_tools", "custom", "function", "type"}), {"allowed_tools": _N36, "custom": _N2, "function": _N2}, "type", {"allowed_tools": _N37, "custom": _N38, "function": _N39})
_N41: Node = (frozenset({"definition", "syntax"}), {}, "", {})
_N42: Node = (frozenset({"grammar", "type"}), {"grammar": _N41}, "", {})
_N43: Node = (frozenset({"grammar", "type"}), {"grammar": _N41}, "type", {"grammar": _N42, "text": _N32})
_N44: Node = (frozenset({"description", "format", "name"}), {"format": _N43}, "", {})
_N45: Node = (frozenset({"description", "name", "parameters", "strict"}), {}, "", {})
_N46: Node = (frozenset({"custom", "type"}), {"custom": _N44}, "", {})
_N47: Node = (frozenset({"function", "type"}), {"function": _N45}, "", {})
_N48: Node = (frozenset({"custom", "function", "type"}), {"custom": _N44, "function": _N45}, "type", {"custom": _N46, "function": _N47})
_N49: Node = (frozenset({"city", "country", "region", "timezone"}), {}, "", {})
_N50: Node = (frozenset({"approximate", "type"}), {"approximate": _N49}, "", {})
_N51: Node = (frozenset({"search_context_size", "user_location"}), {"user_location": _N50}, "", {})
_N52: Node = (frozenset({"add_generation_prompt", "add_special_tokens", "allowed_token_ids", "audio", "bad_words", "best_of", "cache_salt", "chat_template", "chat_template_kwargs", "continue_final_message", "documents", "echo", "frequency_penalty", "function_call", "functions", "guided_choice", "guided_decoding_backend", "guided_grammar", "guided_json", "guided_regex", "guided_whitespace_pattern", "ignore_eos", "include_reasoning", "include_stop_str_in_output", "kv_transfer_params", "length_penalty", "logit_bias", "logits_processors", "logprobs", "max_completion_tokens", "max_tokens", "messages", "metadata", "min_p", "min_tokens", "mm_processor_kwargs", "modalities", "model", "moderation", "n", "parallel_tool_calls", "prediction", "presence_penalty", "priority", "prompt_cache_key", "prompt_cache_options", "prompt_cache_retention", "prompt_logprobs", "reasoning_effort", "repetition_penalty", "request_id", "response_format", "return_tokens_as_token_ids", "safety_identifier", "seed", "service_tier", "skip_special_tokens", "spaces_between_special_tokens", "stop", "stop_token_ids", "store", "stream", "stream_options", "structural_tag", "temperature", "tool_choice", "tools", "top_k", "top_logprobs", "top_p", "truncate_prompt_tokens", "use_beam_search", "user", "verbosity", "vllm_xargs", "web_search_options"}), {"audio": _N1, "function_call": _N2, "functions": _N3, "messages": _N26, "moderation": _N29, "prediction": _N30, "prompt_cache_options": _N7, "response_format": _N34, "stream_options": _N35, "tool_choice": _N40, "tools": _N48, "web_search_options": _N51}, "", {})
_N53: Node = (frozenset({"reasoning", "reasoning_content", "role"}), {}, "", {})
_N54: Node = (frozenset({"bytes", "logprob", "token"}), {}, "", {})
_N55: Node = (frozenset({"bytes", "logprob", "token", "top_logprobs"}), {"top_logprobs": _N54}, "", {})
_N56: Node = (frozenset({"content", "refusal"}), {"content": _N55, "refusal": _N55}, "", {})
_N57: Node = (frozenset({"end_index", "start_index", "title", "url"}), {}, "", {})
_N58: Node = (frozenset({"type", "url_citation"}), {"url_citation": _N57}, "", {})
_N59: Node = (frozenset({"data", "expires_at", "id", "transcript"}), {}, "", {})
_N60: Node = (frozenset({"annotations", "audio", "content", "function_call", "reasoning", "reasoning_content", "refusal", "role", "tool_calls"}), {"annotations": _N58, "audio": _N59, "function_call": _N14, "tool_calls": _N18}, "", {})
_N61: Node = (frozenset({"delta", "finish_reason", "index", "logprobs", "message", "stop_reason", "token_ids"}), {"delta": _N53, "logprobs": _N56, "message": _N60}, "", {})
_N62: Node = (frozenset({"categories", "category_applied_input_types", "category_scores", "flagged", "model", "type"}), {}, "", {})
_N63: Node = (frozenset({"code", "message", "type"}), {}, "", {})
_N64: Node = (frozenset({"model", "results", "type"}), {"results": _N62}, "", {})
_N65: Node = (frozenset({"code", "message", "model", "results", "type"}), {"results": _N62}, "type", {"error": _N63, "moderation_results": _N64})
_N66: Node = (frozenset({"input", "output"}), {"input": _N65, "output": _N65}, "", {})
_N67: Node = (frozenset({"accepted_prediction_tokens", "audio_tokens", "reasoning_tokens", "rejected_prediction_tokens", "text_tokens"}), {}, "", {})
_N68: Node = (frozenset({"audio_tokens", "cache_write_tokens", "cached_tokens", "image_tokens", "text_tokens"}), {}, "", {})
_N69: Node = (frozenset({"completion_tokens", "completion_tokens_details", "prompt_tokens", "prompt_tokens_details", "total_tokens"}), {"completion_tokens_details": _N67, "prompt_tokens_details": _N68}, "", {})
_N70: Node = (frozenset({"choices", "created", "id", "kv_transfer_params", "metadata", "model", "moderation", "object", "prompt_logprobs", "prompt_token_ids", "service_tier", "system_fingerprint", "usage"}), {"choices": _N61, "moderation": _N66, "usage": _N69}, "", {})
_N71: Node = (frozenset({"function", "id", "index", "type"}), {"function": _N14}, "", {})
_N72: Node = (frozenset({"audio", "content", "function_call", "reasoning", "reasoning_content", "refusal", "role", "tool_calls"}), {"audio": _N59, "function_call": _N14, "tool_calls": _N71}, "", {})
_N73: Node = (frozenset({"audio", "content", "function_call", "refusal", "role", "tool_calls"}), {"audio": _N59, "function_call": _N14, "tool_calls": _N71}, "", {})
_N74: Node = (frozenset({"audio", "content", "function_call", "reasoning", "reasoning_content", "refusal", "role", "tool_calls"}), {"audio": _N59, "function_call": _N14, "tool_calls": _N71}, "role", {"assistant": _N72, "developer": _N73, "system": _N73, "tool": _N73, "user": _N73})
_N75: Node = (frozenset({"delta", "finish_reason", "index", "logprobs", "message", "stop_reason", "token_ids"}), {"delta": _N74, "logprobs": _N56, "message": _N53}, "", {})
_N76: Node = (frozenset({"choices", "created", "id", "kv_transfer_params", "model", "moderation", "obfuscation", "object", "prompt_logprobs", "prompt_token_ids", "service_tier", "system_fingerprint", "usage"}), {"choices": _N75, "moderation": _N66, "usage": _N69}, "", {})
_N77: Node = (frozenset({"message"}), {}, "", {})
_N78: Node = (frozenset({"detailed_explanation", "error_type", "review_target", "steer"}), {"steer": _N77}, "", {})
_N79: Node = (frozenset({"code", "message", "misalignment", "param", "type"}), {"misalignment": _N78}, "", {})
_N80: Node = (frozenset({"error"}), {"error": _N79}, "", {})
FIELDS: dict[str, Node] = {
    "openai_request": _N52,
    "openai_messages": _N26,
    "openai_tool": _N48,
    "openai_tools": _N48,
    "openai_response": _N70,
    "openai_stream": _N76,
    "openai_error": _N80,
}
# -- end of the written table --
