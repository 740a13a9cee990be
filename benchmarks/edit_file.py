"""The tool arguments of the ``arguments_as`` rows: a 6-field dataclass with a nested one, an enum, a list, an optional.

``bench_goals.py`` (CPU time) and ``callgrind_core.py`` (instructions) both measure
``ToolCall("call_1", "edit_file", EDIT_ARGS).arguments_as(EditFile)`` against pydantic's
``TypeAdapter(EditFile).validate_python(EDIT_ARGS)``. Standard library only.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional


class Mode(enum.Enum):
    READ = "read"
    WRITE = "write"


@dataclass(frozen=True)
class LineRange:
    start: int
    end: int


@dataclass(frozen=True)
class EditFile:
    path: str
    mode: Mode
    lines: LineRange
    tags: list[str]
    dry_run: bool = False
    note: Optional[str] = None


EDIT_ARGS = {"path": "src/app.py", "mode": "write", "lines": {"start": 10, "end": 42},
             "tags": ["refactor", "small"], "dry_run": True, "note": None}
