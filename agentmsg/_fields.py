"""The private fast path: build frozen slotted instances from values already checked.

A frozen dataclass ``__init__`` stores each field through ``object.__setattr__`` (about 100 ns a
field); a slot descriptor's ``__set__`` costs a fraction of that. Factories and ``from_dict``
validate with the same private validators ``__post_init__`` uses, then store through here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["slot_setters", "new"]

new = object.__new__


def slot_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """Return the raw slot setters of ``cls`` for ``names``, in order."""
    return tuple(cls.__dict__[name].__set__ for name in names)
