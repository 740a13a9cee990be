"""Build frozen slotted instances fast: the core types' factories and decoders use these.

Kept apart from ``_fields`` (the field-table generator of events and records) so that loading
the core types does not load the generator (issue 19, import time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["new", "slot_setters", "slots_twin"]

new = object.__new__


def slot_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """Return the raw slot setters of ``cls`` for ``names``, in order."""
    return tuple(cls.__dict__[name].__set__ for name in names)


def slots_twin(cls: type) -> type:
    """Return a class with the slots of the frozen slotted ``cls`` and nothing else: its builder.

    The cheapest way to make a frozen instance from checked values (issue 19): make a twin,
    store each field with a plain attribute store (what a mutable slotted class compiles to,
    ~20 times cheaper than a slot setter's call), then give the object its real class,
    ``obj.__class__ = cls``, which CPython allows between classes of the same layout::

        obj = new(_Twin); obj.id = id; obj.name = name; obj.__class__ = ToolCall

    The result is a ``cls`` in every way (``type``, equality, hashing, pickling, ``replace``);
    ``tests/test_fast_paths.py`` checks it for each twin.
    """
    twin = type(f"_{cls.__name__}Slots", (), {"__slots__": cls.__dict__["__slots__"], "__module__": cls.__module__})
    return twin
