"""The training-dataset kinds of ``python -m agentmsg.validate``: OpenAI fine-tuning (chat, preference), Hugging Face chat.

Real examples (tests/data/datasets, PROVENANCE.md) are accepted; each rule the service or the
trainer applies gets a test named after it, which breaks one field of a real example and
expects the problem at its path with its code.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentmsg.errors
from agentmsg.validate import main

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data" / "datasets"
TOY = DATA / "openai_toy_chat_fine_tuning.jsonl"
DRONE = DATA / "openai_drone_training_head.jsonl"
SPEC = DATA / "openai_openapi_finetune_example.jsonl"
PREFERENCE = DATA / "openai_preference_together.jsonl"
TRL = DATA / "hf_trl_dataset_formats.jsonl"


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def problems(kind: str, *docs: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[int, str, str]]:
    """Return the (line, path, code) of every error a run with ``--kind kind`` reports on ``docs``."""
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(doc) + "\n" for doc in docs), encoding="utf-8")
    status = main(["--kind", kind, "--format", "json", "--max-problems", "0", str(path)])
    report = json.loads(capsys.readouterr().out)
    found = [(p["line"], p["path"], p["code"]) for p in report["problems"] if p["severity"] == "error"]
    assert status == (1 if found else 0)
    return found


def finetune(doc: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[str, str]]:
    return [(path, code) for _, path, code in problems("openai_finetune", doc, tmp_path=tmp_path, capsys=capsys)]


def preference(doc: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[str, str]]:
    return [(path, code) for _, path, code in problems("openai_preference", doc, tmp_path=tmp_path, capsys=capsys)]


def hf(doc: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[str, str]]:
    return [(path, code) for _, path, code in problems("hf_chat", doc, tmp_path=tmp_path, capsys=capsys)]


def toy(line: int) -> dict[str, Any]:
    return copy.deepcopy(lines(TOY)[line])


def drone(line: int = 0) -> dict[str, Any]:
    return copy.deepcopy(lines(DRONE)[line])


# -- the real examples pass, with the summary a person wants ----------------------------------


@pytest.mark.parametrize(("kind", "path"), [
    ("openai_finetune", TOY), ("openai_finetune", DRONE), ("openai_finetune", SPEC), ("openai_preference", PREFERENCE),
    ("hf_chat", TRL),
])
def test_the_real_examples_are_valid(kind: str, path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["--kind", kind, str(path)])
    out = capsys.readouterr().out
    assert status == 0, out
    count = len(lines(path))
    noun = "document" if count == 1 else "documents"
    assert out.splitlines()[-1] == f"{count} {noun}, {count} valid ({count} {kind}), 0 invalid"


def test_the_preference_examples_are_detected_without_kind(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(PREFERENCE)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "2 documents, 2 valid (2 openai_preference), 0 invalid"


def test_the_summary_counts_examples_messages_trained_turns_tool_calls_and_the_longest(
        capsys: pytest.CaptureFixture[str]) -> None:
    main(["--kind", "openai_finetune", str(TOY), str(DRONE)])
    out = capsys.readouterr().out.splitlines()
    # toy: 3 + 9 + 2 + 2 + 3 messages, 8 assistant messages; the last line's answer is 26,000 characters
    assert out[0] == (f"{TOY}: 5 examples (0 invalid): 19 messages, 8 assistant messages trained on, 0 tool calls; "
                      "longest example 26,077 characters (line 5) [openai_finetune]")
    assert out[1] == (f"{TOY}: note: OpenAI needs at least 10 examples to start a fine-tuning job; this file has 5 "
                      "[openai_finetune]")
    assert out[2].startswith(f"{DRONE}: 3 examples (0 invalid): 9 messages, 3 assistant messages trained on, "
                             "3 tool calls; longest example ")


def test_the_summary_counts_weight_0_messages_as_not_trained_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = toy(1)
    for message in doc["messages"][3:7]:
        if message["role"] == "assistant":
            message["weight"] = 0
    path = tmp_path / "w.jsonl"
    path.write_text(json.dumps(doc) + "\n" + json.dumps(toy(0)) + "\n", encoding="utf-8")
    assert main(["--kind", "openai_finetune", str(path)]) == 0
    # line 1: 4 assistant messages, 2 of them at weight 0; line 2: 1
    assert "12 messages, 3 assistant messages trained on" in capsys.readouterr().out


def test_the_summary_is_in_the_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--kind", "hf_chat", "--format", "json", str(TRL)])
    report = json.loads(capsys.readouterr().out)
    assert report["datasets"] == [{
        "file": str(TRL), "kind": "hf_chat", "documents": 3, "invalid": 0, "examples": 3, "messages": 9,
        "trained": 4, "tool_calls": 1, "longest_characters": 128, "longest_line": 3,
    }]


def test_the_summary_is_printed_with_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--kind", "openai_preference", "--quiet", str(PREFERENCE)])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{PREFERENCE}: 2 examples (0 invalid): 8 messages, 2 assistant messages trained on")
    assert len(out) == 2


def test_an_invalid_example_is_summed_as_far_as_it_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = toy(2)
    broken["messages"][1]["weight"] = "1"
    path = tmp_path / "b.jsonl"
    path.write_text(json.dumps(broken) + "\nnot json\n[1]\n", encoding="utf-8")
    assert main(["--kind", "openai_finetune", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: 3 examples (3 invalid): 2 messages, 1 assistant message" in out


def test_no_content_reaches_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = drone(0)
    doc["messages"][1]["role"] = "human"
    doc["messages"][2]["tool_calls"][0]["function"]["name"] = "secret_function_name"
    doc["messages"][2]["tool_calls"][0]["function"]["arguments"] = "{secret arguments"
    found = finetune(doc, tmp_path, capsys)
    assert found == [("$.messages[1].role", "value"), ("$.messages[2].tool_calls[0].function.name", "unknown"),
                     ("$.messages[2].tool_calls[0].function.arguments", "json")]
    main(["--kind", "openai_finetune", str(tmp_path / "data.jsonl")])
    out = capsys.readouterr().out
    assert "secret" not in out and "drone" not in out and "altitude" not in out


# -- OpenAI chat fine-tuning: each rule the service applies -----------------------------------


def test_openai_finetune_refuses_a_line_that_is_not_an_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the cookbook's "data_type"
    assert finetune([toy(0)], tmp_path, capsys) == [("$", "type")]


def test_openai_finetune_refuses_a_missing_or_empty_messages_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the cookbook's "missing_messages_list"; FineTuneChatRequestInput.messages has minItems 1
    assert finetune({"tools": []}, tmp_path, capsys) == [("$.messages", "missing")]
    assert finetune({"messages": []}, tmp_path, capsys) == [("$.messages", "value")]
    assert finetune({"messages": "Hi"}, tmp_path, capsys) == [("$.messages", "type")]


def test_openai_finetune_refuses_an_unknown_role(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the cookbook's "unrecognized_role"; the developer role is not one of FineTuneChatRequestInput's messages
    doc = toy(0)
    doc["messages"][0]["role"] = "developer"
    assert finetune(doc, tmp_path, capsys) == [("$.messages[0].role", "value")]
    del doc["messages"][0]["role"]
    assert finetune(doc, tmp_path, capsys) == [("$.messages[0].role", "missing")]
    doc["messages"][0]["role"] = ["system"]  # not a string, nor a key to look up (unhashable)
    assert finetune(doc, tmp_path, capsys) == [("$.messages[0].role", "value")]


def test_openai_finetune_refuses_an_unrecognized_message_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the cookbook's "message_unrecognized_key"
    doc = toy(0)
    doc["messages"][1]["weight"] = 1  # weight is for assistant messages only
    doc["messages"][2]["contnet"] = "x"
    assert finetune(doc, tmp_path, capsys) == [("$.messages[1].weight", "unexpected"), ("$.messages[2].contnet", "unexpected")]


def test_openai_finetune_refuses_a_message_without_content(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the cookbook's "missing_content": content, unless an assistant message calls a tool or function
    doc = toy(0)
    del doc["messages"][1]["content"]
    del doc["messages"][2]["content"]
    assert finetune(doc, tmp_path, capsys) == [("$.messages[1].content", "missing"), ("$.messages[2].content", "missing")]


def test_openai_finetune_refuses_no_assistant_message_to_learn_from(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the cookbook's "example_missing_assistant_message"
    doc = toy(0)
    doc["messages"].pop()
    assert finetune(doc, tmp_path, capsys) == [("$.messages", "value")]


def test_openai_finetune_refuses_a_weight_other_than_0_or_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # FineTuneChatCompletionRequestAssistantMessage.weight: integer, enum [0, 1]
    doc = toy(1)
    doc["messages"][2]["weight"] = 2
    doc["messages"][4]["weight"] = True
    doc["messages"][6]["weight"] = 0.5
    assert finetune(doc, tmp_path, capsys) == [
        ("$.messages[2].weight", "value"), ("$.messages[4].weight", "value"), ("$.messages[6].weight", "value")]


def test_openai_finetune_refuses_every_assistant_message_at_weight_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = toy(1)
    for message in doc["messages"]:
        if message["role"] == "assistant":
            message["weight"] = 0
    assert finetune(doc, tmp_path, capsys) == [("$.messages", "value")]
    doc["messages"][-1]["weight"] = 1
    assert finetune(doc, tmp_path, capsys) == []


def test_openai_finetune_refuses_a_tool_call_naming_no_tool_of_the_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = drone(0)
    doc["messages"][2]["tool_calls"][0]["function"]["name"] = "fly_to_the_moon"
    assert finetune(doc, tmp_path, capsys) == [("$.messages[2].tool_calls[0].function.name", "unknown")]
    doc = drone(0)
    del doc["tools"]
    assert finetune(doc, tmp_path, capsys) == [("$.messages[2].tool_calls[0].function.name", "unknown")]


def test_openai_finetune_refuses_tool_call_arguments_that_are_not_json_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = drone(0)
    doc["messages"][2]["tool_calls"][0]["function"]["arguments"] = {"altitude": 100}
    assert finetune(doc, tmp_path, capsys) == [("$.messages[2].tool_calls[0].function.arguments", "type")]
    doc["messages"][2]["tool_calls"][0]["function"]["arguments"] = '{"altitude": 100'
    assert finetune(doc, tmp_path, capsys) == [("$.messages[2].tool_calls[0].function.arguments", "json")]


def test_openai_finetune_reports_arguments_nested_too_deeply_to_parse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = drone(0)
    doc["messages"][2]["tool_calls"][0]["function"]["arguments"] = "[" * 100_000 + "]" * 100_000
    assert finetune(doc, tmp_path, capsys) == [("$.messages[2].tool_calls[0].function.arguments", "depth")]


def test_openai_finetune_refuses_a_tool_call_without_id_or_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = drone(0)
    del doc["messages"][2]["tool_calls"][0]["id"]
    doc["messages"][2]["tool_calls"][0]["type"] = "tool"
    assert finetune(doc, tmp_path, capsys) == [
        ("$.messages[2].tool_calls[0].id", "missing"), ("$.messages[2].tool_calls[0].type", "value")]


def test_openai_finetune_refuses_a_tool_call_left_unanswered_before_the_next_message(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = drone(0)  # the call that ends the example is the target: nothing answers it, and that is right
    doc["messages"].append({"role": "assistant", "content": "Taking off."})
    assert finetune(doc, tmp_path, capsys) == [("$.messages[2].tool_calls[0]", "unknown")]
    doc["messages"].insert(3, {"role": "tool", "tool_call_id": "call_id", "content": "ok"})
    assert finetune(doc, tmp_path, capsys) == []


def test_openai_finetune_refuses_a_tool_message_answering_no_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = drone(0)
    doc["messages"][3:] = [{"role": "tool", "tool_call_id": "call_other", "content": "ok"},
                           {"role": "assistant", "content": "Done."}]
    assert finetune(doc, tmp_path, capsys) == [
        ("$.messages[3].tool_call_id", "unknown"), ("$.messages[2].tool_calls[0]", "unknown")]
    del doc["messages"][3]["tool_call_id"]
    assert ("$.messages[3].tool_call_id", "missing") in finetune(doc, tmp_path, capsys)


def test_openai_finetune_refuses_a_broken_tool_definition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = drone(0)
    del doc["tools"][0]["type"]
    doc["tools"][1]["function"]["parameters"] = "object"
    doc["tools"][2]["function"]["name"] = "takeoff_drone"
    assert finetune(doc, tmp_path, capsys) == [
        ("$.tools[0].type", "missing"), ("$.tools[1].function.parameters", "type"), ("$.tools[2].function.name", "unique")]


def test_openai_finetune_refuses_parallel_tool_calls_that_is_not_a_boolean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = drone(0)
    doc["parallel_tool_calls"] = "false"
    assert finetune(doc, tmp_path, capsys) == [("$.parallel_tool_calls", "type")]


def test_openai_finetune_takes_the_legacy_functions_form(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # FineTuneChatRequestInput still lists functions (deprecated), function_call and function messages
    tools = drone(0)["tools"]
    doc = {"messages": [
        {"role": "user", "content": "Take off"},
        {"role": "assistant", "function_call": {"name": "takeoff_drone", "arguments": '{"altitude": 10}'}},
        {"role": "function", "name": "takeoff_drone", "content": "ok"},
        {"role": "assistant", "content": "Up."},
    ], "functions": [tool["function"] for tool in tools]}
    assert finetune(doc, tmp_path, capsys) == []
    doc["functions"] = doc["functions"] * 9
    assert finetune(doc, tmp_path, capsys) == [("$.functions", "size")]  # 144: at most 128 (FineTuneChatRequestInput)
    doc["functions"] = doc["functions"][:16]
    doc["messages"][1]["function_call"]["name"] = "land_on_mars"
    del doc["messages"][2]["name"]
    assert finetune(doc, tmp_path, capsys) == [
        ("$.messages[1].function_call.name", "unknown"), ("$.messages[2].name", "missing")]


def test_openai_finetune_takes_images_as_https_or_data_urls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
    doc = toy(2)
    doc["messages"][0]["content"] = [{"type": "text", "text": "What is this?"},
                                     {"type": "image_url", "image_url": {"url": png, "detail": "low"}},
                                     {"type": "image_url", "image_url": {"url": "https://example.com/a.jpg"}}]
    assert finetune(doc, tmp_path, capsys) == []


def test_openai_finetune_refuses_an_image_that_is_not_jpeg_png_or_webp(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = toy(2)
    doc["messages"][0]["content"] = [{"type": "image_url", "image_url": {"url": "data:image/gif;base64,R0lGODlhAQABAAAAACw="}}]
    assert finetune(doc, tmp_path, capsys) == [("$.messages[0].content[0].image_url.url", "value")]


def test_openai_finetune_refuses_an_image_url_of_another_scheme_or_not_base64(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = toy(2)
    doc["messages"][0]["content"] = [{"type": "image_url", "image_url": {"url": "file:///etc/passwd"}},
                                     {"type": "image_url", "image_url": {"url": "data:image/png;base64,not base64!"}},
                                     {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "max"}}]
    assert finetune(doc, tmp_path, capsys) == [
        ("$.messages[0].content[0].image_url.url", "pattern"), ("$.messages[0].content[1].image_url.url", "pattern"),
        ("$.messages[0].content[2].image_url.detail", "value")]


def test_openai_finetune_refuses_an_image_over_10_mb(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = toy(2)
    big = "data:image/png;base64," + "A" * (14 * 1024 * 1024)  # 10.5 MiB of bytes
    doc["messages"][0]["content"] = [{"type": "image_url", "image_url": {"url": big}}]
    assert finetune(doc, tmp_path, capsys) == [("$.messages[0].content[0].image_url.url", "size")]


def test_openai_finetune_refuses_more_than_64_images_in_an_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = toy(2)
    doc["messages"][0]["content"] = [{"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}] * 65
    assert finetune(doc, tmp_path, capsys) == [("$.messages[0].content[64]", "size")]


def test_openai_finetune_refuses_images_outside_user_messages_and_audio_or_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "Input messages may contain text or image content only" (FineTuneChatRequestInput); no image output
    doc = toy(2)
    image = {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
    doc["messages"][1]["content"] = [image]
    doc["messages"][0]["content"] = [{"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
                                     {"type": "file", "file": {"file_id": "file-1"}}]
    assert finetune(doc, tmp_path, capsys) == [
        ("$.messages[0].content[0].type", "value"), ("$.messages[0].content[1].type", "value"),
        ("$.messages[1].content[0].type", "value")]


# -- OpenAI preference (DPO): the faults Together's SDK test lists as the service's -----------

STRUCTURAL: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("empty_messages", {"input": {"messages": []}}, [("$.input.messages", "value")]),
    ("missing_role_preferred", {"preferred_output": [{"content": "Missing role field"}]},
     [("$.preferred_output[0].role", "value")]),
    ("missing_role_non_preferred", {"non_preferred_output": [{"content": "Missing role field"}]},
     [("$.non_preferred_output[0].role", "value")]),
    ("missing_content_preferred", {"preferred_output": [{"role": "assistant"}]}, [("$.preferred_output[0].content", "missing")]),
    ("missing_content_non_preferred", {"non_preferred_output": [{"role": "assistant"}]},
     [("$.non_preferred_output[0].content", "missing")]),
    ("wrong_output_format_preferred", {"preferred_output": "Not an array but a string"}, [("$.preferred_output", "type")]),
    ("wrong_output_format_non_preferred", {"non_preferred_output": "Not an array but a string"},
     [("$.non_preferred_output", "type")]),
    ("missing_content", {"input": {"messages": [{"role": "user"}]}}, [("$.input.messages[0].content", "missing")]),
    ("multiple_preferred_outputs", {"preferred_output": [{"role": "assistant", "content": "First response"},
                                                         {"role": "assistant", "content": "Second response"}]},
     [("$.preferred_output", "size")]),
    ("multiple_non_preferred_outputs", {"non_preferred_output": [{"role": "assistant", "content": "First response"},
                                                                 {"role": "assistant", "content": "Second response"}]},
     [("$.non_preferred_output", "size")]),
    ("empty_preferred_output", {"preferred_output": []}, [("$.preferred_output", "size")]),
    ("empty_non_preferred_output", {"non_preferred_output": []}, [("$.non_preferred_output", "size")]),
    ("non_string_content_in_messages", {"input": {"messages": [{"role": "user", "content": 123}]}},
     [("$.input.messages[0].content", "type")]),
    ("invalid_role_in_messages", {"input": {"messages": [{"role": "invalid_role", "content": "Hello"}]}},
     [("$.input.messages[0].role", "value")]),
    ("invalid_weight_type", {"input": {"messages": [{"role": "user", "content": "Hello", "weight": "not_an_integer"}]}},
     [("$.input.messages[0].weight", "unexpected")]),
    ("invalid_weight_value", {"input": {"messages": [{"role": "user", "content": "Hello", "weight": 2}]}},
     [("$.input.messages[0].weight", "unexpected")]),
    ("non_dict_message", {"input": {"messages": ["Not a dictionary"]}}, [("$.input.messages[0]", "type")]),
    ("non_dict_input", {"input": "Not a dictionary"}, [("$.input", "type")]),
    ("missing_messages_in_input", {"input": {}}, [("$.input.messages", "missing")]),
    ("non_assistant_role_in_preferred", {"preferred_output": [{"role": "user", "content": "This should be assistant"}]},
     [("$.preferred_output[0].role", "value")]),
    ("non_assistant_role_in_non_preferred",
     {"non_preferred_output": [{"role": "user", "content": "This should be assistant"}]},
     [("$.non_preferred_output[0].role", "value")]),
]


@pytest.mark.parametrize(("name", "change", "expected"), STRUCTURAL, ids=[case[0] for case in STRUCTURAL])
def test_openai_preference_refuses_the_structural_faults_the_service_refuses(
        name: str, change: dict[str, Any], expected: list[tuple[str, str]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = lines(PREFERENCE)[0]
    doc.update(change)
    assert preference(doc, tmp_path, capsys) == expected


@pytest.mark.parametrize("field", ["input", "preferred_output", "non_preferred_output"])
def test_openai_preference_refuses_a_missing_field(field: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = lines(PREFERENCE)[0]
    del doc[field]
    assert preference(doc, tmp_path, capsys) == [(f"$.{field}", "missing")]


def test_openai_preference_refuses_an_input_ending_with_an_assistant_message(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the DPO guide: the preferred and non-preferred messages are the final assistant message
    doc = lines(PREFERENCE)[0]
    doc["input"]["messages"].append({"role": "assistant", "content": "Let me check."})
    assert preference(doc, tmp_path, capsys) == [("$.input.messages[3]", "value")]


def test_openai_preference_refuses_images(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the DPO guide: "DPO is currently only supported for text inputs and outputs"
    doc = lines(PREFERENCE)[1]
    doc["input"]["messages"][0]["content"] = [{"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]
    assert preference(doc, tmp_path, capsys) == [("$.input.messages[0].content[0].type", "value")]


def test_openai_preference_refuses_a_weight_in_an_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = lines(PREFERENCE)[1]
    doc["preferred_output"][0]["weight"] = 1
    assert preference(doc, tmp_path, capsys) == [("$.preferred_output[0].weight", "unexpected")]


def test_openai_preference_refuses_an_output_calling_a_tool_the_input_does_not_define(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = drone(0)["tools"]
    doc = lines(PREFERENCE)[1]
    doc["input"]["tools"] = tools
    call = {"id": "call_1", "type": "function", "function": {"name": "takeoff_drone", "arguments": '{"altitude": 5}'}}
    doc["preferred_output"] = [{"role": "assistant", "tool_calls": [call]}]
    assert preference(doc, tmp_path, capsys) == []
    call["function"]["name"] = "teleport"
    assert preference(doc, tmp_path, capsys) == [("$.preferred_output[0].tool_calls[0].function.name", "unknown")]


# -- Hugging Face chat datasets (TRL's SFT trainer, transformers' chat templates) -------------


def trl(line: int) -> dict[str, Any]:
    return copy.deepcopy(lines(TRL)[line])


def test_hf_chat_refuses_a_missing_or_empty_messages_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # is_conversational reads messages[0]: an empty list raises IndexError in TRL
    assert hf({"text": "The sky is blue."}, tmp_path, capsys) == [("$.messages", "missing")]
    assert hf({"messages": []}, tmp_path, capsys) == [("$.messages", "value")]


def test_hf_chat_refuses_a_sharegpt_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a row of Locutusque/function-calling-chatml (glaive v2 in from/value form), as its dataset card shows it
    row = lines(DATA / "hf_sharegpt_glaive_row.jsonl")[0]
    assert hf(row, tmp_path, capsys) == [("$.messages", "missing")]
    main(["--kind", "hf_chat", str(DATA / "hf_sharegpt_glaive_row.jsonl")])
    out = capsys.readouterr().out
    assert "ShareGPT conversations column" in out and "John Doe" not in out


def test_hf_chat_refuses_a_message_without_role_or_content(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # is_conversational: "Each message must a list of dictionaries with keys 'role' and 'content'"
    doc = trl(0)
    del doc["messages"][0]["content"]
    del doc["messages"][1]["role"]
    doc["messages"].append("It is blue.")
    assert hf(doc, tmp_path, capsys) == [
        ("$.messages[0].content", "missing"), ("$.messages[1].role", "missing"), ("$.messages[2]", "type"),
        ("$.messages", "value")]


def test_hf_chat_refuses_a_role_chat_templates_do_not_know(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # ShareGPT's human/gpt roles are the usual mistake
    doc = trl(0)
    doc["messages"][0]["role"] = "human"
    doc["messages"][1]["role"] = "gpt"
    assert hf(doc, tmp_path, capsys) == [("$.messages[0].role", "value"), ("$.messages[1].role", "value"), ("$.messages", "value")]


def test_hf_chat_refuses_a_prompt_beside_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # SFTTrainer's tokenize_fn reads a row with "prompt" as prompt-completion (KeyError: 'completion');
    # the other columns (chosen, label, images, chat_template_kwargs) are left alone
    doc = trl(0)
    doc["prompt"] = "What color is the sky?"
    doc["chosen"] = doc["label"] = "x"
    assert hf(doc, tmp_path, capsys) == [("$.prompt", "unexpected")]


def test_hf_chat_reads_a_tools_column_of_json_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # tokenize_fn: json.loads(tools) when the column is a string
    doc = trl(2)
    doc["tools"] = json.dumps(doc["tools"])
    assert hf(doc, tmp_path, capsys) == []
    doc["messages"][1]["tool_calls"][0]["function"]["name"] = "open_the_door"
    assert hf(doc, tmp_path, capsys) == [("$.messages[1].tool_calls[0].function.name", "unknown")]
    doc["tools"] = "[{"
    assert hf(doc, tmp_path, capsys) == [("$.tools", "json")]


def test_hf_chat_refuses_tool_call_arguments_as_a_json_string(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # transformers' chat templates render arguments with tojson: an object, not OpenAI's JSON text
    doc = trl(2)
    doc["messages"][1]["tool_calls"][0]["function"]["arguments"] = '{"room": "living room", "state": "on"}'
    assert hf(doc, tmp_path, capsys) == [("$.messages[1].tool_calls[0].function.arguments", "type")]


def test_hf_chat_refuses_a_tool_call_naming_no_tool_of_the_tools_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = trl(2)
    doc["messages"][1]["tool_calls"][0]["function"]["name"] = "open_the_door"
    assert hf(doc, tmp_path, capsys) == [("$.messages[1].tool_calls[0].function.name", "unknown")]
    del doc["tools"]  # no tools column: the names are not checked
    assert hf(doc, tmp_path, capsys) == []


def test_hf_chat_refuses_a_tool_message_after_no_tool_call(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = trl(2)
    del doc["messages"][1]["tool_calls"]
    doc["messages"][1]["content"] = "Calling."
    assert hf(doc, tmp_path, capsys) == [("$.messages[2]", "unknown")]


def test_hf_chat_refuses_tool_calls_outside_assistant_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = trl(2)
    doc["messages"][0]["tool_calls"] = doc["messages"][1]["tool_calls"]
    assert hf(doc, tmp_path, capsys) == [("$.messages[0].tool_calls", "unexpected")]


def test_hf_chat_refuses_no_assistant_message_to_learn_from(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = trl(0)
    doc["messages"].pop()
    assert hf(doc, tmp_path, capsys) == [("$.messages", "value")]


def test_hf_chat_refuses_content_parts_without_a_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = trl(0)
    doc["messages"][0]["content"] = [{"type": "text", "text": "What color is the sky?"}, {"image": "sky.png"},
                                     {"type": "text", "text": 5}]
    assert hf(doc, tmp_path, capsys) == [("$.messages[0].content[1].type", "missing"), ("$.messages[0].content[2].text", "type")]


# -- detection, streaming, --jobs --------------------------------------------------------------


def test_detection_never_picks_the_fine_tuning_or_hf_kinds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # their lines look like a Bedrock request {messages}; a broken one must not pass as either
    assert main([str(TOY)]) == 1
    out = capsys.readouterr().out
    assert "openai_finetune" not in out and "hf_chat" not in out


def test_jobs_give_the_report_and_the_summary_of_one_process(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agentmsg.validate._jobs._MIN_PIECE", 1)  # let a small file be cut into pieces
    monkeypatch.setattr("agentmsg.validate._jobs._WORTH", 2)
    broken = drone(1)
    broken["messages"][2]["tool_calls"][0]["function"]["name"] = "hover"
    body = (TOY.read_text(encoding="utf-8") + DRONE.read_text(encoding="utf-8") + json.dumps(broken) + "\n") * 40
    path = tmp_path / "big.jsonl"
    path.write_text(body, encoding="utf-8")
    single = main(["--kind", "openai_finetune", "--max-problems", "0", str(path)]), capsys.readouterr().out
    with_jobs = main(["--kind", "openai_finetune", "--max-problems", "0", "--jobs", "2", str(path)]), capsys.readouterr().out
    assert single == with_jobs
    assert f"{path}: 360 examples (40 invalid): 1,240 messages, 480 assistant messages trained on, 160 tool calls" in single[1]


def test_the_dataset_module_loads_only_for_a_dataset(tmp_path: Path) -> None:
    code = ("import sys\nfrom agentmsg.validate import main\nmain(sys.argv[1:])\n"
            "print('loaded:', 'agentmsg.validate._datasets' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    chat = tmp_path / "chat.jsonl"
    chat.write_text('{"role": "user", "content": "Hi"}\n', encoding="utf-8")
    for args, loaded in (([str(chat)], "False"), (["--kind", "hf_chat", str(TRL)], "True")):
        result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=120)
        assert result.stdout.splitlines()[-1] == f"loaded: {loaded}", result.stderr


# -- any line at all: problems, never a crash -------------------------------------------------

KEYS = st.sampled_from(["messages", "role", "content", "tool_calls", "function", "name", "arguments", "weight",
                        "type", "id", "tool_call_id", "tools", "functions", "function_call", "image_url", "url",
                        "input", "preferred_output", "non_preferred_output", "parallel_tool_calls", "text", "prompt"])
VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.sampled_from(
    ["user", "assistant", "tool", "system", "function", "developer", "function", "image_url", "text", "{}", "{",
     "data:image/png;base64,iVBORw0KGgo=", "https://example.com/a.png", "c1"]))


def nested(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5)


JSON = st.recursive(VALUES, nested, max_leaves=40)


@settings(max_examples=300, deadline=None)
@given(doc=JSON | st.fixed_dictionaries({"messages": st.lists(st.dictionaries(KEYS, JSON, max_size=6), max_size=4)}))
def test_any_line_gives_problems_or_passes_and_sums_up(doc: Any) -> None:
    from agentmsg.validate._datasets import OpenAITally, check_hf_chat, check_openai_finetune, check_openai_preference
    from agentmsg.validate._rules import problems_of

    for check in (check_openai_finetune, check_openai_preference, check_hf_chat):
        for problem in problems_of(check, doc):
            assert problem.code in agentmsg.errors.CODES
    tally = OpenAITally()
    tally.add(doc, 1)
    assert tally.examples == (1 if type(doc) is dict else 0)
