"""The pydantic peer of the benchmarks: agentmsg's message rules as pydantic v2 models, and nothing else.

Run: python benchmarks/pydantic_peer.py LOG.jsonl   (prints how many lines failed)

This file imports only the standard library and pydantic, so a process that runs it pays
pydantic's start-up and no more: the lean script a pydantic user would write to check a JSON
Lines log (``validate_json`` per line, one model per role behind a discriminated union).
``bench_goals.py`` imports ``pydantic_models`` from here for its in-process rows.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, model_validator

_FROZEN = ConfigDict(frozen=True)


class PTextPart(BaseModel):
    model_config = _FROZEN
    type: Literal["text"]
    text: str


class PImageSource(BaseModel):
    model_config = _FROZEN
    type: Literal["url", "base64", "file"]
    url: Optional[str] = None
    media_type: Optional[str] = None
    data: Optional[str] = None
    path: Optional[str] = None


class PImagePart(BaseModel):
    model_config = _FROZEN
    type: Literal["image"]
    source: PImageSource


Part = Annotated[Union[PTextPart, PImagePart], Field(discriminator="type")]
Content = Union[str, Annotated[list[Part], Field(min_length=1)]]


class PToolCall(BaseModel):
    model_config = _FROZEN
    id: str = Field(min_length=1)
    name: str = Field(pattern=r"^[A-Za-z0-9_]{1,64}$")
    arguments: dict[str, JsonValue] = {}


class PMessage(BaseModel):
    """One model for every role (the in-process rows build one message at a time with it)."""

    model_config = _FROZEN
    role: Literal["system", "user", "assistant", "tool"]
    content: Optional[Content] = None
    tool_calls: list[PToolCall] = []
    tool_call_id: Optional[str] = None
    is_error: bool = False

    @model_validator(mode="after")
    def _rules(self) -> PMessage:
        if self.tool_calls and self.role != "assistant":
            raise ValueError("only assistant messages carry tool calls")
        if self.role == "tool" and not self.tool_call_id:
            raise ValueError("tool messages need tool_call_id")
        if self.content is None and not (self.role == "assistant" and self.tool_calls):
            raise ValueError("content is required")
        return self


class PSystem(BaseModel):
    model_config = _FROZEN
    role: Literal["system"]
    content: Content


class PUser(BaseModel):
    model_config = _FROZEN
    role: Literal["user"]
    content: Content


class PAssistant(BaseModel):
    model_config = _FROZEN
    role: Literal["assistant"]
    content: Optional[Content] = None
    tool_calls: list[PToolCall] = []

    @model_validator(mode="after")
    def _rules(self) -> PAssistant:
        if self.content is None and not self.tool_calls:
            raise ValueError("content or tool_calls is required")
        return self


class PTool(BaseModel):
    model_config = _FROZEN
    role: Literal["tool"]
    tool_call_id: str = Field(min_length=1)
    content: Content
    is_error: bool = False


LogLine = Annotated[Union[PSystem, PUser, PAssistant, PTool], Field(discriminator="role")]


def pydantic_models() -> tuple[Any, Any, Any, Any]:
    """Return ``PMessage``, ``PToolCall``, a ``TypeAdapter(PMessage)`` and a ``TypeAdapter(list[PMessage])``."""
    return PMessage, PToolCall, TypeAdapter(PMessage), TypeAdapter(list[PMessage])


def main(path: str) -> int:
    adapter = TypeAdapter(LogLine)
    bad = 0
    with open(path, "rb") as f:
        for line in f:
            try:
                adapter.validate_json(line)
            except ValueError:
                bad += 1
    print(bad)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
