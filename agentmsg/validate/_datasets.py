"""Training datasets: OpenAI chat fine-tuning (supervised and preference) and Hugging Face chat lines.

>>> [str(e) for e in problems_of(check_openai_finetune, {"messages": [{"role": "user", "content": "Hi"}]})]
['messages: no assistant message to learn from (OpenAI fine-tuning trains on assistant messages)']
>>> [str(e) for e in problems_of(check_hf_chat, {"messages": [{"role": "user", "content": "Hi"},
...     {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "now", "arguments": "{}"}}]}]})]
['messages[1].tool_calls[0].function.arguments: expected an object, got string (chat templates render arguments with tojson: a JSON string is rendered quoted)']

Each line of a JSON Lines dataset is one example, checked on its own by the rules the service
(or the trainer) applies, each stated at its check with its source:

- OpenAI: the API reference's ``FineTuneChatRequestInput``, ``FineTunePreferenceRequestInput`` and
  ``FineTuneChatCompletionRequestAssistantMessage`` (openai/openai-openapi ``openapi.yaml`` at
  498c71dd; the preference outputs as the DPO guide names them), the supervised, vision and DPO
  fine-tuning guides (platform.openai.com/docs/guides/), and the cookbook's format checks
  (openai/openai-cookbook ``examples/Chat_finetuning_data_prep.ipynb``).
- Hugging Face: TRL v1.9.0's SFT trainer (``trainer/sft_trainer.py``: ``tokenize_fn``) and
  ``data_utils.is_conversational`` (huggingface/trl at 35def3ee), its dataset formats page, and
  the tool-use format of transformers' chat templates (``arguments`` an object).

A file of examples is summed up by a ``Tally`` (examples, messages, assistant messages trained
on, tool calls, the longest example in characters), which the report prints after the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .._checks import expect_object
from ._provider_rules import tool_rules
from ._rules import Findings, Problems, absent, array_at, err, join, object_at, problems_of, string_at, wrong_type

__all__ = ["check_openai_finetune", "check_openai_preference", "check_hf_chat", "Tally", "OpenAITally", "MIN_EXAMPLES"]

MIN_EXAMPLES = 10  # the supervised fine-tuning guide: "The minimum number of examples you can provide ... is 10"

# The keys each role's message may hold (FineTuneChatRequestInput.messages: the system, user,
# FineTuneChatCompletionRequestAssistantMessage, tool and function messages; no developer message).
_OPENAI_KEYS = {
    "system": frozenset({"role", "content", "name"}),
    "user": frozenset({"role", "content", "name"}),
    "assistant": frozenset({"role", "content", "name", "tool_calls", "function_call", "weight", "refusal"}),
    "tool": frozenset({"role", "content", "tool_call_id"}),
    "function": frozenset({"role", "content", "name"}),
}
# "Input messages may contain text or image content only. Audio and file input messages are not
# currently supported for fine-tuning." (FineTuneChatRequestInput); assistant parts: text, refusal.
_OPENAI_PARTS = {"system": ("text",), "user": ("text", "image_url"), "assistant": ("text", "refusal"), "tool": ("text",)}
# The vision fine-tuning guide (and Azure OpenAI's, the same table): JPEG, PNG or WEBP; at most 10 MB an
# image, 64 images an example; no image in an assistant message.
_IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp")
_IMAGE_BYTES = 10 * 1024 * 1024
_IMAGES = 64
_HF_ROLES = ("system", "developer", "user", "assistant", "tool")


class _Example:
    """What one example's checks share: its problems, its tool names, the calls waiting for a result."""

    __slots__ = ("out", "tools", "functions", "pending", "images", "assistants", "trained", "pictures")

    def __init__(self, pictures: bool) -> None:
        self.out: Findings = []
        self.tools: set[str] | None = None  # the names ``tools`` defines (None: no ``tools``)
        self.functions: set[str] | None = None  # the names the legacy ``functions`` defines
        self.pending: dict[str, str] = {}  # tool_call_id -> the path of its call
        self.images = self.assistants = 0
        self.trained = 0  # the assistant messages not at weight 0
        self.pictures = pictures  # images allowed (supervised: yes; preference: text only)


def _objects(items: list[Any], path: str, out: Findings, what: str = "an object") -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield the path and value of each object of ``items`` (at ``path``); note any other value in ``out``."""
    for i, item in enumerate(items):
        if type(item) is dict:
            yield f"{path}[{i}]", item
        else:
            out.append(wrong_type(f"{path}[{i}]", what, item))


def _tool_names(body: dict[str, Any], path: str, ex: _Example) -> None:
    """Check ``tools`` (and the legacy ``functions``) of an example; keep the names they define."""
    tools = array_at(body, "tools", path, ex.out, required=False)
    if "tools" in body and type(body["tools"]) is list:
        ex.tools = set()
        for i, tool in enumerate(tools):
            where = join(join(path, "tools"), i)
            ex.out.extend(tool_rules("openai", tool, where))
            fn = tool.get("function") if type(tool) is dict else None
            name = fn.get("name") if type(fn) is dict else None
            if type(name) is str:
                if name in ex.tools:
                    ex.out.append(err(f"{where}.function.name", "tool names must be unique in tools", "unique"))
                ex.tools.add(name)
    if "functions" in body:  # deprecated, still in FineTuneChatRequestInput: [{name, description, parameters}]
        ex.functions = set()
        functions = array_at(body, "functions", path, ex.out)
        if type(body["functions"]) is list and not 1 <= len(functions) <= 128:
            ex.out.append(err(join(path, "functions"), "must hold 1 to 128 functions (OpenAI)", "size"))
        for where, fn in _objects(functions, join(path, "functions"), ex.out, "an object {name, description, parameters}"):
            name = string_at(fn, "name", where, ex.out)
            if name is not None:
                ex.functions.add(name)
    parallel = body.get("parallel_tool_calls")
    if parallel is not None and type(parallel) is not bool:
        ex.out.append(wrong_type(join(path, "parallel_tool_calls"), "a boolean", parallel))


def _image(part: dict[str, Any], path: str, ex: _Example) -> None:
    """Check an ``image_url`` part by the vision fine-tuning guide (an http(s) URL or a base64 data URL)."""
    ex.images += 1
    if ex.images == _IMAGES + 1:
        ex.out.append(err(path, f"an example holds at most {_IMAGES} images (OpenAI vision fine-tuning)", "size"))
    image = object_at(part, "image_url", path, ex.out, what="an object {url, detail?}")
    if image is None:
        return
    where = join(path, "image_url")
    url = string_at(image, "url", where, ex.out)
    detail = image.get("detail")
    if detail is not None and detail not in ("auto", "low", "high"):
        ex.out.append(err(join(where, "detail"), 'must be "auto", "low" or "high" (OpenAI)'))
    if url is None:
        return
    where = join(where, "url")
    if url.startswith(("https://", "http://")):
        return
    if not url.startswith("data:"):
        ex.out.append(err(where, "must be an http(s) URL or a base64 data: URL (OpenAI vision fine-tuning)", "pattern"))
        return
    from .._images import is_base64, split_data_url

    split = split_data_url(url)
    if split is None or not is_base64(split[1]):
        ex.out.append(err(where, "must be a data:image/...;base64, URL of base64 data", "pattern"))
    elif split[0] not in _IMAGE_TYPES:
        ex.out.append(err(where, "images must be JPEG, PNG or WEBP (OpenAI vision fine-tuning)"))
    elif len(split[1]) // 4 * 3 > _IMAGE_BYTES:
        ex.out.append(err(where, "an image may be at most 10 MB (OpenAI vision fine-tuning)", "size"))


def _content(message: dict[str, Any], role: str, path: str, ex: _Example) -> None:
    """Check an OpenAI message's ``content``: a string, or parts of the types its role takes."""
    content = message.get("content")
    if type(content) is str:
        return
    where = f"{path}.content"
    if content is None:
        has_call = message.get("tool_calls") or message.get("function_call") is not None
        if role != "assistant" or not has_call:  # the cookbook's "missing_content"
            ex.out.append(absent(where, "an assistant message without tool_calls needs content" if role == "assistant" else ""))
        return
    if type(content) is not list:
        ex.out.append(wrong_type(where, "a string or an array of content parts", content))
        return
    allowed = _OPENAI_PARTS.get(role, ("text",)) if ex.pictures or role != "user" else ("text",)
    for at, part in _objects(content, where, ex.out):
        kind = part.get("type")
        if kind not in allowed:
            shown = kind[:30] if type(kind) is str else "no type"
            ex.out.append(err(join(at, "type"), f"a {role} message in a fine-tuning example cannot hold {shown!r} parts "
                                                f"(OpenAI takes {', '.join(allowed)})"))
        elif kind == "image_url":
            _image(part, at, ex)
        else:
            string_at(part, kind, at, ex.out)


def _call(call: Any, path: str, ex: _Example, names: set[str] | None, what: str) -> None:
    """Check one tool call (or legacy function call) ``{name, arguments}`` of an OpenAI example."""
    fn = call
    if what == "tools":
        if type(call) is not dict:
            ex.out.append(wrong_type(path, "an object", call))
            return
        call_id = string_at(call, "id", path, ex.out)
        if call.get("type") != "function":
            ex.out.append(err(join(path, "type"), 'must be "function" (OpenAI)') if "type" in call
                          else absent(join(path, "type"), 'OpenAI: "type": "function"'))
        fn = object_at(call, "function", path, ex.out)
        if fn is None:
            return
        if call_id is not None:
            ex.pending[call_id] = path
        path = join(path, "function")
    elif type(fn) is not dict:
        ex.out.append(wrong_type(path, "an object {name, arguments}", fn))
        return
    name = string_at(fn, "name", path, ex.out)
    if name is not None and (names is None or name not in names):
        ex.out.append(err(join(path, "name"), f"names no function defined in {what} (OpenAI fine-tuning: a call "
                                              f"names one of the example's {what})", "unknown"))
    arguments = string_at(fn, "arguments", path, ex.out, "OpenAI: arguments are JSON text")
    if arguments is not None:
        try:
            json.loads(arguments)
        except ValueError:
            ex.out.append(err(join(path, "arguments"), "must be valid JSON text (OpenAI)", "json"))
        except RecursionError:
            ex.out.append(err(join(path, "arguments"), "nested too deeply to check", "depth"))


def _openai_messages(messages: list[Any], path: str, ex: _Example, weights: bool = True) -> None:
    """Check the messages of an OpenAI example in order: each message, then the tool calls answered."""
    for at, message in _objects(messages, path, ex.out):
        role = message.get("role")
        if type(role) is not str or role not in _OPENAI_KEYS:
            shown = f"unknown role {role[:20]!r}" if type(role) is str else "no role" if role is None else "a role that is not a string"
            ex.out.append(err(join(at, "role"), f"{shown}: OpenAI fine-tuning takes system, user, assistant, tool, function",
                              "missing" if role is None else "value"))
            continue
        if not _OPENAI_KEYS[role].issuperset(message):  # the cookbook's "message_unrecognized_key"
            for key in message:
                if key not in _OPENAI_KEYS[role]:
                    ex.out.append(err(join(at, key[:40]), f"is not a field of a {role} message in a fine-tuning "
                                                          "example", "unexpected"))
        if ex.pending and role != "tool":
            for call in ex.pending.values():  # the Chat Completions rule, kept by fine-tuning
                ex.out.append(err(call, "this tool call has no tool message answering it before the next message",
                                  "unknown"))
            ex.pending.clear()
        _content(message, role, at, ex)
        if role == "assistant":
            ex.assistants += 1
            weight = message.get("weight", 1)
            if "weight" in message and not weights:
                ex.out.append(err(join(at, "weight"), "is not allowed in a preference example", "unexpected"))
            elif type(weight) is not int or weight not in (0, 1):
                ex.out.append(err(join(at, "weight"), "must be 0 or 1 (0: not trained on)"))
            if weight != 0 or type(weight) is not int:  # 1, or a wrong weight (reported): not "nothing to learn"
                ex.trained += 1
            calls = message.get("tool_calls")
            if calls is not None:
                if type(calls) is not list:
                    ex.out.append(wrong_type(join(at, "tool_calls"), "an array", calls))
                else:
                    for j, call in enumerate(calls):
                        _call(call, f"{at}.tool_calls[{j}]", ex, ex.tools, "tools")
            if message.get("function_call") is not None:
                _call(message["function_call"], join(at, "function_call"), ex, ex.functions, "functions")
        elif role == "tool":
            call_id = string_at(message, "tool_call_id", at, ex.out, "OpenAI: a tool message names the call it answers")
            if call_id is not None and ex.pending.pop(call_id, None) is None:
                ex.out.append(err(join(at, "tool_call_id"), "answers no tool call of the assistant message before it",
                                  "unknown"))
        elif role == "function":
            string_at(message, "name", at, ex.out, "OpenAI: a function message names its function")
    ex.pending.clear()  # the last assistant message's calls are the target: answered by no one


def check_openai_finetune(doc: Any) -> None:
    """Check one line of an OpenAI chat fine-tuning file ``{messages, tools, parallel_tool_calls}``."""
    body = expect_object(doc)
    ex = _Example(True)
    _tool_names(body, "", ex)
    messages = array_at(body, "messages", "", ex.out)  # the cookbook's "missing_messages_list"
    if "messages" in body and type(body["messages"]) is list:
        if not messages:
            ex.out.append(err("messages", "must hold at least one message", "value"))
        else:
            _openai_messages(messages, "messages", ex)
            if not ex.assistants:
                ex.out.append(err("messages", "no assistant message to learn from (OpenAI fine-tuning trains on "
                                              "assistant messages)", "value"))
            elif ex.trained == 0:
                ex.out.append(err("messages", "every assistant message has weight 0: nothing to learn from", "value"))
    if ex.out:
        raise Problems(ex.out)


def _output(body: dict[str, Any], key: str, ex: _Example) -> None:
    """Check a preference output: an array of exactly one assistant message (FineTunePreferenceRequestInput)."""
    messages = array_at(body, key, "", ex.out)
    if type(body.get(key)) is not list:
        return
    if len(messages) != 1:
        ex.out.append(err(key, "must hold exactly one assistant message (OpenAI DPO)", "size"))
        return
    message = messages[0]
    if type(message) is dict and message.get("role") != "assistant":
        ex.out.append(err(f"{key}[0].role", 'must be "assistant" (OpenAI DPO: the output is the final assistant message)'))
        return
    _openai_messages(messages, key, ex, weights=False)


def check_openai_preference(doc: Any) -> None:
    """Check one line of an OpenAI preference (DPO) file ``{input, preferred_output, non_preferred_output}``."""
    body = expect_object(doc)
    ex = _Example(False)  # "DPO is currently only supported for text inputs and outputs" (DPO guide)
    given = object_at(body, "input", "", ex.out, what="an object {messages, tools, parallel_tool_calls}")
    if given is not None:
        _tool_names(given, "input", ex)
        messages = array_at(given, "messages", "input", ex.out)
        if type(given.get("messages")) is list:
            if not messages:
                ex.out.append(err("input.messages", "must hold at least one message", "value"))
            _openai_messages(messages, "input.messages", ex, weights=False)
            last = messages[-1] if messages else None
            if type(last) is dict and last.get("role") == "assistant":
                ex.out.append(err(f"input.messages[{len(messages) - 1}]", "the input must not end with an assistant "
                                  "message (OpenAI DPO: the outputs are the final assistant message)"))
    _output(body, "preferred_output", ex)
    _output(body, "non_preferred_output", ex)
    if ex.out:
        raise Problems(ex.out)


def _hf_messages(messages: list[Any], ex: _Example) -> None:
    """Check a Hugging Face ``messages`` column as TRL and transformers' chat templates read it."""
    answered_by: str | None = None  # the path of the last assistant message with tool calls
    for at, message in _objects(messages, "messages", ex.out, "an object {role, content}"):
        role = string_at(message, "role", at, ex.out)
        if role is None:
            continue
        if role not in _HF_ROLES:
            ex.out.append(err(join(at, "role"), f"unknown role {role[:20]!r}: chat templates take system, developer, user, assistant, tool"))
            continue
        calls = message.get("tool_calls")
        content = message.get("content")
        if "content" not in message and not (role == "assistant" and calls):
            ex.out.append(absent(join(at, "content"), "chat templates read each message's content"))
        elif content is not None and type(content) is not str:
            _hf_parts(content, join(at, "content"), ex)
        if role == "assistant":
            ex.trained += 1
            answered_by = None
            if calls is not None:
                if type(calls) is not list:
                    ex.out.append(wrong_type(join(at, "tool_calls"), "an array", calls))
                else:
                    for j, call in enumerate(calls):
                        _hf_call(call, f"{at}.tool_calls[{j}]", ex)
                    answered_by = at if calls else None
        elif calls is not None:
            ex.out.append(err(join(at, "tool_calls"), f"is not allowed in a {role} message", "unexpected"))
        if role == "tool" and answered_by is None:
            ex.out.append(err(at, "a tool message must follow an assistant message with tool_calls", "unknown"))
        elif role in ("user", "system"):
            answered_by = None


def _hf_parts(content: Any, path: str, ex: _Example) -> None:
    """Check content parts as multimodal chat templates read them: objects with a ``type``."""
    if type(content) is not list:
        ex.out.append(wrong_type(path, "a string or an array of parts {type, ...}", content))
        return
    for at, part in _objects(content, path, ex.out, "an object {type, ...}"):
        if type(part.get("type")) is not str:
            ex.out.append(absent(join(at, "type")) if part.get("type") is None else wrong_type(join(at, "type"), "a string", part["type"]))
        elif part["type"] == "text":
            string_at(part, "text", at, ex.out)


def _hf_call(call: Any, path: str, ex: _Example) -> None:
    """Check a tool call in the shape transformers' chat templates read: ``{type, function: {name, arguments}}``."""
    if type(call) is not dict:
        ex.out.append(wrong_type(path, "an object {type, function}", call))
        return
    if call.get("type", "function") != "function":
        ex.out.append(err(join(path, "type"), 'must be "function" (the OpenAI shape chat templates read)'))
    fn = object_at(call, "function", path, ex.out, what="an object {name, arguments}")
    if fn is None:
        return
    where = join(path, "function")
    name = string_at(fn, "name", where, ex.out)
    if name is not None and ex.tools is not None and name not in ex.tools:
        ex.out.append(err(join(where, "name"), "names no tool defined in tools", "unknown"))
    arguments = fn.get("arguments")
    if arguments is None:
        ex.out.append(absent(join(where, "arguments")))
    elif type(arguments) is not dict:
        ex.out.append(wrong_type(join(where, "arguments"), "an object", arguments,
                                 "chat templates render arguments with tojson: a JSON string is rendered quoted"))


def check_hf_chat(doc: Any) -> None:
    """Check one row of a Hugging Face chat dataset ``{messages: [{role, content, tool_calls}], tools}``."""
    body = expect_object(doc)
    ex = _Example(False)
    tools = body.get("tools")
    if type(tools) is str:  # tokenize_fn: a tools column of JSON text is read with json.loads
        try:
            body = {**body, "tools": json.loads(tools)}
        except (ValueError, RecursionError):
            ex.out.append(err("tools", "must be a list of tools, or JSON text of one (TRL)", "json"))
            body = {key: value for key, value in body.items() if key != "tools"}
    if body.get("tools") is not None:
        _tool_names(body, "", ex)
    if "prompt" in body:  # tokenize_fn reads a row with "prompt" as prompt-completion: example["completion"]
        ex.out.append(err("prompt", 'is not allowed beside "messages" (TRL reads a row with "prompt" as '
                                    "prompt-completion)", "unexpected"))
    if "messages" not in body and "conversations" in body:  # the usual mistake: a ShareGPT row
        ex.out.append(absent("messages", "a ShareGPT conversations column of from/value is not read: TRL reads "
                                         "messages of role/content"))
    messages = array_at(body, "messages", "", ex.out, required="conversations" not in body)
    if type(body.get("messages")) is list:
        if not messages:  # is_conversational reads messages[0]
            ex.out.append(err("messages", "must hold at least one message", "value"))
        else:
            _hf_messages(messages, ex)
            if ex.trained == 0:  # assistant_only_loss: "at least one example has no assistant tokens"
                ex.out.append(err("messages", "no assistant message to learn from", "value"))
    if ex.out:
        raise Problems(ex.out)


# -- the summary of a file --------------------------------------------------------------------


class Tally:
    """The sums of a file's examples: messages, assistant messages trained on, tool calls, the longest one.

    >>> tally = Tally()
    >>> tally.add({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!",
    ...     "weight": 0}, {"role": "user", "content": "Bye"}, {"role": "assistant", "content": "Bye!"}]}, 3)
    >>> tally.examples, tally.messages, tally.trained, tally.tool_calls, tally.longest, tally.longest_line
    (1, 4, 1, 0, 15, 3)

    Tolerant: an example that is not valid is summed as far as it can be read. The characters
    are those of the text the model reads (contents, tool names and arguments), not of images.
    """

    __slots__ = ("examples", "messages", "trained", "tool_calls", "longest", "longest_line")
    minimum = 0  # the fewest examples the service takes in a file (0: no minimum)

    def __init__(self) -> None:
        self.examples = self.messages = self.trained = self.tool_calls = self.longest = self.longest_line = 0

    def add(self, doc: Any, line: int) -> None:
        """Sum up one example (of any kind of dataset) found on ``line``."""
        if type(doc) is not dict:
            return
        self.examples += 1
        size = count = trained = calls = 0
        given = doc.get("input")
        preference = type(given) is dict  # its outputs are what is trained on: one pair an example
        lists: tuple[Any, ...] = (doc.get("messages"),)
        if type(given) is dict:
            lists = (given.get("messages"), doc.get("preferred_output"), doc.get("non_preferred_output"))
        for messages in lists:
            if type(messages) is not list:
                continue
            for message in messages:
                if type(message) is not dict:
                    continue
                count += 1
                content = message.get("content")
                if type(content) is str:
                    size += len(content)
                elif content is not None:
                    size += _text_size(content)
                if message.get("role") != "assistant":
                    continue
                if not preference and message.get("weight", 1) != 0:
                    trained += 1
                tool_calls = message.get("tool_calls")
                if type(tool_calls) is list:
                    calls += len(tool_calls)
                    for call in tool_calls:
                        size += _call_size(call.get("function") if type(call) is dict else None)
                if message.get("function_call") is not None:
                    calls += 1
                    size += _call_size(message["function_call"])
        self.messages += count
        self.trained += 1 if preference else trained
        self.tool_calls += calls
        if size > self.longest:
            self.longest, self.longest_line = size, line

    def merge(self, other: Tally) -> None:
        """Add the sums of ``other`` (a worker's part of the same file)."""
        self.examples += other.examples
        self.messages += other.messages
        self.trained += other.trained
        self.tool_calls += other.tool_calls
        if other.longest > self.longest or (other.longest == self.longest and other.longest_line < self.longest_line):
            self.longest, self.longest_line = other.longest, other.longest_line

    def note(self, documents: int) -> str | None:
        """Return what a file of ``documents`` examples should know before it is uploaded (None: nothing)."""
        if documents < self.minimum:
            return f"OpenAI needs at least {self.minimum} examples to start a fine-tuning job; this file has {documents}"
        return None

    def as_dict(self) -> dict[str, int]:
        """Return the sums as the JSON report shows them."""
        return {"examples": self.examples, "messages": self.messages, "trained": self.trained,
                "tool_calls": self.tool_calls, "longest_characters": self.longest, "longest_line": self.longest_line}


class OpenAITally(Tally):
    """The sums of a file of OpenAI examples, which the service takes from ``MIN_EXAMPLES`` up."""

    __slots__ = ()
    minimum = MIN_EXAMPLES


def _text_size(content: Any) -> int:
    """Return the characters of text in a list of content parts."""
    if type(content) is str:
        return len(content)
    if type(content) is not list:
        return 0
    return sum(len(part["text"]) for part in content if type(part) is dict and type(part.get("text")) is str)


def _call_size(fn: Any) -> int:
    """Return the characters of a call's name and arguments (an object's as JSON text)."""
    if type(fn) is not dict:
        return 0
    name, arguments = fn.get("name"), fn.get("arguments")
    size = len(name) if type(name) is str else 0
    if type(arguments) is str:
        return size + len(arguments)
    try:
        return size + (len(json.dumps(arguments)) if type(arguments) is dict else 0)
    except RecursionError:  # as deep as the parser allows: summed as nothing, never a crash
        return size
