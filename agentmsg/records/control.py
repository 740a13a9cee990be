"""System control records: a mode change (``plan``/``act``) or a branch switch, kept for audit.

>>> SystemControl.branch_switch("main", "retry", id="s").to_dict()["data"]
{'kind': 'branch_switch', 'old': 'main', 'new': 'retry'}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

from .._checks import check_branch_name, check_choice
from .._fieldtable import Codec, row
from ..errors import ValidationError
from ._envelope import ID, new_record_id, record

__all__ = ["SystemControl", "Mode", "MODES"]

Mode = Literal["plan", "act"]
MODES: tuple[Mode, ...] = ("plan", "act")
ControlKind = Literal["mode_change", "branch_switch"]
_CONTROL_KINDS: tuple[ControlKind, ...] = ("mode_change", "branch_switch")


@record
@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class SystemControl(Codec):
    """Record a mode change (``plan``/``act``) or a branch switch, for audit; never sent to a model.

    >>> SystemControl.mode_change("plan", "act", id="s1")
    SystemControl(id='s1', kind='mode_change', old='plan', new='act')
    >>> SystemControl.mode_change("act", "plan", id="s").to_dict()
    {'type': 'system_control', 'version': 1, 'id': 's', 'data': {'kind': 'mode_change', 'old': 'act', 'new': 'plan'}}
    >>> try:
    ...     SystemControl(id="s2", kind="mode_change", old="plan", new="run")
    ... except ValidationError as exc:
    ...     print(exc)
    new: must be one of plan, act
    """

    TYPE: ClassVar[str] = "system_control"
    VERSION: ClassVar[int] = 1

    # old and new depend on kind: __post_init__ checks them.
    id: str = field(default_factory=new_record_id, metadata=ID)
    kind: ControlKind = field(metadata=row("kind", check_choice, _CONTROL_KINDS))
    old: str = field(metadata=row("old"))
    new: str = field(metadata=row("new"))

    def __post_init__(self) -> None:
        if self.kind == "mode_change":
            check_choice(self.old, "old", MODES)
            check_choice(self.new, "new", MODES)
        else:
            check_branch_name(self.old, "old")
            check_branch_name(self.new, "new")
        if self.old == self.new:
            raise ValidationError("must differ from old", "new", "value")

    @classmethod
    def mode_change(cls, old: Mode, new: Mode, *, id: str | None = None) -> "SystemControl":
        """Build a mode-change record.

        >>> SystemControl.mode_change("act", "plan", id="s").new
        'plan'
        """
        return cls(id=new_record_id() if id is None else id, kind="mode_change", old=old, new=new)

    @classmethod
    def branch_switch(cls, old: str, new: str, *, id: str | None = None) -> "SystemControl":
        """Build a branch-switch record.

        >>> SystemControl.branch_switch("main", "retry", id="s").kind
        'branch_switch'
        """
        return cls(id=new_record_id() if id is None else id, kind="branch_switch", old=old, new=new)
