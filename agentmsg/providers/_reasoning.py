"""Private helpers for reasoning in the codecs: which parts go to which provider, and plain text reasoning.

Theory of operation: a ``ReasoningPart`` whose ``provider`` is set carries opaque fields that
only that provider can read (a signature, an item id), so a codec sends it only to its own
provider and leaves every other provider's parts out. A part with no provider is plain text
reasoning (Ollama ``thinking``, vLLM ``reasoning_content``): the text formats send it back in
their one reasoning field, and the signed formats leave it out.
"""

from __future__ import annotations

from typing import Any

from .._checks import expected
from ..content import ReasoningPart, reasoning_part
from ..messages import ChatMessage

__all__ = ["plain_text", "plain_parts", "of_provider"]


def plain_text(message: ChatMessage) -> str | None:
    """Return the text of the message's plain (provider-less) reasoning parts, or None."""
    texts = [part.text for part in message.reasoning if part.provider is None and part.text]
    return "\n\n".join(texts) if texts else None


def plain_parts(data: dict[str, Any], *keys: str) -> tuple[ReasoningPart, ...]:
    """Return the plain reasoning part of the first of ``keys`` that holds a non-empty string."""
    for key in keys:
        value = data.get(key)
        if value is None:
            continue
        if type(value) is not str:
            raise expected("a string", value, key)
        if value:
            return (reasoning_part(value),)
    return ()


def of_provider(message: ChatMessage, provider: str) -> list[ReasoningPart]:
    """Return the message's reasoning parts that belong to ``provider``."""
    return [part for part in message.reasoning if part.provider == provider]
