"""The fields of Amazon Bedrock Converse documents: botocore's service model, as data.

>>> from ._fields import unknown_fields
>>> unknown_fields(FIELDS["bedrock_request"], {"messages": [{"role": "user", "content": [
...     {"text": "Hi", "cachePoint": {"type": "default"}, "image": {}}]}], "inferenceConfig": {"max_tokens": 1}})
['inferenceConfig.max_tokens']

Written by ``tests/test_validate_provider_fields.py`` from the bedrock-runtime shapes of the
botocore release named below (``AGENTMSG_REGENERATE=1`` rewrites it); read as
``_fields.Node``s. Documents (``additionalModelRequestFields``, a tool's ``json`` schema, a
call's ``input``) are not looked into.
"""

from __future__ import annotations

from ._fields import Node

# -- written from the SDK's types by tests/test_validate_provider_fields.py (AGENTMSG_REGENERATE=1) --
# botocore 1.44.8
_N0: Node = (frozenset({"guardrailIdentifier", "guardrailVersion", "trace"}), {}, "", {})
_N1: Node = (frozenset({"maxTokens", "stopSequences", "temperature", "topP"}), {}, "", {})
_N2: Node = (frozenset({"message"}), {}, "", {})
_N3: Node = (frozenset({"bucketOwner", "uri"}), {}, "", {})
_N4: Node = (frozenset({"bytes", "s3Location"}), {"s3Location": _N3}, "", {})
_N5: Node = (frozenset({"error", "format", "source"}), {"error": _N2, "source": _N4}, "", {})
_N6: Node = (frozenset({"ttl", "type"}), {}, "", {})
_N7: Node = (frozenset({"documentIndex", "end", "start"}), {}, "", {})
_N8: Node = (frozenset({"end", "searchResultIndex", "start"}), {}, "", {})
_N9: Node = (frozenset({"domain", "url"}), {}, "", {})
_N10: Node = (frozenset({"documentChar", "documentChunk", "documentPage", "searchResultLocation", "web"}), {"documentChar": _N7, "documentChunk": _N7, "documentPage": _N7, "searchResultLocation": _N8, "web": _N9}, "", {})
_N11: Node = (frozenset({"text"}), {}, "", {})
_N12: Node = (frozenset({"location", "source", "sourceContent", "title"}), {"location": _N10, "sourceContent": _N11}, "", {})
_N13: Node = (frozenset({"citations", "content"}), {"citations": _N12, "content": _N11}, "", {})
_N14: Node = (frozenset({"enabled"}), {}, "", {})
_N15: Node = (frozenset({"bytes", "content", "s3Location", "text"}), {"content": _N11, "s3Location": _N3}, "", {})
_N16: Node = (frozenset({"citations", "context", "format", "name", "source"}), {"citations": _N14, "source": _N15}, "", {})
_N17: Node = (frozenset({"bytes"}), {}, "", {})
_N18: Node = (frozenset({"format", "source"}), {"source": _N17}, "", {})
_N19: Node = (frozenset({"qualifiers", "text"}), {}, "", {})
_N20: Node = (frozenset({"image", "text"}), {"image": _N18, "text": _N19}, "", {})
_N21: Node = (frozenset({"signature", "text"}), {}, "", {})
_N22: Node = (frozenset({"reasoningText", "redactedContent"}), {"reasoningText": _N21}, "", {})
_N23: Node = (frozenset({"citations", "content", "source", "title"}), {"citations": _N14, "content": _N11}, "", {})
_N24: Node = (frozenset({"name", "serverName", "type"}), {}, "", {})
_N25: Node = (frozenset({"tool"}), {"tool": _N24}, "", {})
_N26: Node = (frozenset({"format", "source"}), {"source": _N4}, "", {})
_N27: Node = (frozenset({"document", "image", "json", "searchResult", "text", "video"}), {"document": _N16, "image": _N5, "searchResult": _N23, "video": _N26}, "", {})
_N28: Node = (frozenset({"content", "status", "toolUseId", "type"}), {"content": _N27}, "", {})
_N29: Node = (frozenset({"input", "name", "toolUseId", "type"}), {}, "", {})
_N30: Node = (frozenset({"audio", "cachePoint", "citationsContent", "document", "guardContent", "image", "reasoningContent", "searchResult", "text", "toolAddition", "toolRemoval", "toolResult", "toolUse", "video"}), {"audio": _N5, "cachePoint": _N6, "citationsContent": _N13, "document": _N16, "guardContent": _N20, "image": _N5, "reasoningContent": _N22, "searchResult": _N23, "toolAddition": _N25, "toolRemoval": _N25, "toolResult": _N28, "toolUse": _N29, "video": _N26}, "", {})
_N31: Node = (frozenset({"content", "role"}), {"content": _N30}, "", {})
_N32: Node = (frozenset({"description", "name", "schema"}), {}, "", {})
_N33: Node = (frozenset({"jsonSchema"}), {"jsonSchema": _N32}, "", {})
_N34: Node = (frozenset({"structure", "type"}), {"structure": _N33}, "", {})
_N35: Node = (frozenset({"effort", "textFormat"}), {"textFormat": _N34}, "", {})
_N36: Node = (frozenset({"latency"}), {}, "", {})
_N37: Node = (frozenset({"type"}), {}, "", {})
_N38: Node = (frozenset({"cachePoint", "guardContent", "text"}), {"cachePoint": _N6, "guardContent": _N20}, "", {})
_N39: Node = (frozenset({}), {}, "", {})
_N40: Node = (frozenset({"name"}), {}, "", {})
_N41: Node = (frozenset({"any", "auto", "tool"}), {"any": _N39, "auto": _N39, "tool": _N40}, "", {})
_N42: Node = (frozenset({"json"}), {}, "", {})
_N43: Node = (frozenset({"description", "inputSchema", "name", "strict"}), {"inputSchema": _N42}, "", {})
_N44: Node = (frozenset({"cachePoint", "systemTool", "toolSpec"}), {"cachePoint": _N6, "systemTool": _N40, "toolSpec": _N43}, "", {})
_N45: Node = (frozenset({"toolChoice", "tools"}), {"toolChoice": _N41, "tools": _N44}, "", {})
_N46: Node = (frozenset({"additionalModelRequestFields", "additionalModelResponseFieldPaths", "guardrailConfig", "inferenceConfig", "messages", "modelId", "outputConfig", "performanceConfig", "projectIdentifier", "promptVariables", "requestMetadata", "serviceTier", "system", "toolConfig"}), {"guardrailConfig": _N0, "inferenceConfig": _N1, "messages": _N31, "outputConfig": _N35, "performanceConfig": _N36, "serviceTier": _N37, "system": _N38, "toolConfig": _N45}, "", {})
_N47: Node = (frozenset({"latencyMs"}), {}, "", {})
_N48: Node = (frozenset({"message"}), {"message": _N31}, "", {})
_N49: Node = (frozenset({"actionReason", "inputAssessment", "modelOutput", "outputAssessments"}), {}, "", {})
_N50: Node = (frozenset({"invokedModelId"}), {}, "", {})
_N51: Node = (frozenset({"guardrail", "promptRouter"}), {"guardrail": _N49, "promptRouter": _N50}, "", {})
_N52: Node = (frozenset({"inputTokens", "ttl"}), {}, "", {})
_N53: Node = (frozenset({"cacheDetails", "cacheReadInputTokenCount", "cacheReadInputTokens", "cacheWriteInputTokenCount", "cacheWriteInputTokens", "inputTokens", "outputTokens", "serverToolUsage", "totalTokens"}), {"cacheDetails": _N52}, "", {})
_N54: Node = (frozenset({"additionalModelResponseFields", "metrics", "output", "performanceConfig", "serviceTier", "stopReason", "trace", "usage"}), {"metrics": _N47, "output": _N48, "performanceConfig": _N36, "serviceTier": _N37, "trace": _N51, "usage": _N53}, "", {})
_N55: Node = (frozenset({"error", "source"}), {"error": _N2, "source": _N4}, "", {})
_N56: Node = (frozenset({"redactedContent", "signature", "text"}), {}, "", {})
_N57: Node = (frozenset({"json", "text"}), {}, "", {})
_N58: Node = (frozenset({"input"}), {}, "", {})
_N59: Node = (frozenset({"citation", "image", "reasoningContent", "text", "toolResult", "toolUse"}), {"citation": _N12, "image": _N55, "reasoningContent": _N56, "toolResult": _N57, "toolUse": _N58}, "", {})
_N60: Node = (frozenset({"contentBlockIndex", "delta", "p"}), {"delta": _N59}, "", {})
_N61: Node = (frozenset({"format"}), {}, "", {})
_N62: Node = (frozenset({"status", "toolUseId", "type"}), {}, "", {})
_N63: Node = (frozenset({"name", "toolUseId", "type"}), {}, "", {})
_N64: Node = (frozenset({"image", "toolResult", "toolUse"}), {"image": _N61, "toolResult": _N62, "toolUse": _N63}, "", {})
_N65: Node = (frozenset({"contentBlockIndex", "p", "start"}), {"start": _N64}, "", {})
_N66: Node = (frozenset({"contentBlockIndex", "p"}), {}, "", {})
_N67: Node = (frozenset({"message", "p"}), {}, "", {})
_N68: Node = (frozenset({"p", "role"}), {}, "", {})
_N69: Node = (frozenset({"additionalModelResponseFields", "p", "stopReason"}), {}, "", {})
_N70: Node = (frozenset({"metrics", "p", "performanceConfig", "serviceTier", "trace", "usage"}), {"metrics": _N47, "performanceConfig": _N36, "serviceTier": _N37, "trace": _N51, "usage": _N53}, "", {})
_N71: Node = (frozenset({"message", "originalMessage", "originalStatusCode", "p"}), {}, "", {})
_N72: Node = (frozenset({"contentBlockDelta", "contentBlockStart", "contentBlockStop", "internalServerException", "messageStart", "messageStop", "metadata", "modelStreamErrorException", "serviceUnavailableException", "throttlingException", "validationException"}), {"contentBlockDelta": _N60, "contentBlockStart": _N65, "contentBlockStop": _N66, "internalServerException": _N67, "messageStart": _N68, "messageStop": _N69, "metadata": _N70, "modelStreamErrorException": _N71, "serviceUnavailableException": _N67, "throttlingException": _N67, "validationException": _N67}, "", {})
FIELDS: dict[str, Node] = {
    "bedrock_request": _N46,
    "bedrock_response": _N54,
    "bedrock_stream": _N72,
}
# -- end of the written table --
