"""Message records: what happened in a conversation, as tagged, versioned documents.

>>> ref = FileReference(id="r1", path="src/./app.py", start_line=3, end_line=4)
>>> ref.path, ref.status
('src/app.py', 'pending')
>>> doc = ref.to_dict()
>>> doc["type"], doc["version"], doc["id"], doc["data"]["path"]
('file_reference', 2, 'r1', 'src/app.py')
>>> decode(doc) == ref
True

Theory of operation. Every record encodes to one envelope::

    {"type": "<variant>", "version": <int >= 1>, "id": "<non-empty>", "data": {...}}

``decode`` reads the envelope, then, for a known ``type``, runs the migration steps registered
for ``(type, version)``, ``(type, version + 1)``... until the data is at the variant's current
``VERSION``, and builds the record from it. A ``type`` it does not know, or a version newer than
it knows, is kept as an ``UnknownRecord`` holding the document exactly (a warning is logged to
``agentmsg.records``), so a newer writer's records survive an older reader. Records do no I/O:
processors fill them in later through ``resolve``/``fail``-style methods that return an updated
copy. Ids are never generated while decoding; constructors default to ``new_record_id()``.
"""

from __future__ import annotations

from ._envelope import new_record_id
from .control import MODES, Mode, SystemControl
from .files import FileReference
from .images import ImageRecord
from .mcp import McpResource
from .registry import RECORD_TYPES, Record, UnknownRecord, decode
from .text import ReasoningRecord, TextRecord
from .tool_calls import RequestedToolCall, ToolRequest, ToolResultRecord

__all__ = [
    "FileReference",
    "ImageRecord",
    "McpResource",
    "ReasoningRecord",
    "Record",
    "RECORD_TYPES",
    "RequestedToolCall",
    "SystemControl",
    "TextRecord",
    "ToolRequest",
    "ToolResultRecord",
    "UnknownRecord",
    "decode",
    "new_record_id",
    "Mode",
    "MODES",
]
