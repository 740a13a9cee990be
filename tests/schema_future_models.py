"""Dataclasses with postponed annotations (PEP 563), for the schema generator tests."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import date
from typing import Annotated, Optional


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclass(frozen=True, slots=True)
class Label:
    text: str
    color: Color = Color.RED


@dataclass(frozen=True)
class Issue:
    """File an issue.

    The second paragraph is not part of the tool description.
    """

    title: Annotated[str, "one line"]
    labels: tuple[Label, ...] = ()
    due: Optional[date] = None
    parent: Optional[Issue] = None
    watchers: frozenset[str] = field(default_factory=frozenset)
