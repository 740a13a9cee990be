"""Shows a tool written once as a dataclass: its strict JSON Schema for the provider, the model's
JSON arguments checked and built into the typed object, and a bad call answered with an error
the model can act on.

Run: python examples/tool_schema.py
"""

import enum
import json
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout, no install

from agentmsg import ToolCall, ToolDefinition, ToolResult, ValidationError  # noqa: E402


class Priority(enum.Enum):
    LOW = "low"
    HIGH = "high"


@dataclass(frozen=True)
class Attendee:
    email: str
    optional: bool = False


@dataclass(frozen=True)
class CreateEvent:
    """Create a calendar event.

    Times are RFC 3339 with an offset.
    """

    title: Annotated[str, "short title shown in the calendar"]
    start: datetime
    attendees: tuple[Attendee, ...]
    priority: Priority = Priority.LOW
    room: Optional[str] = None


def main() -> None:
    tool = ToolDefinition.from_dataclass(CreateEvent)
    print(f"tool {tool.name}: {tool.description}")
    print(json.dumps(tool.to_dict()["parameters"], indent=2))

    # What a model sends back under strict mode: every field present, null for "use the default".
    call = ToolCall.from_json_arguments(
        "call_1",
        "create_event",
        '{"title": "Design review", "start": "2025-03-04T15:00:00+01:00",'
        ' "attendees": [{"email": "ana@example.com", "optional": null}],'
        ' "priority": null, "room": "B2"}',
    )
    event = call.arguments_as(CreateEvent)
    print(event)

    bad = ToolCall.from_json_arguments(
        "call_2",
        "create_event",
        '{"title": "Retro", "start": "2025-03-04T16:00:00+01:00",'
        ' "attendees": [{"email": "ana@example.com", "optional": false}, {"email": 7, "optional": null}],'
        ' "priority": "urgent", "room": null}',
    )
    try:
        bad.arguments_as(CreateEvent)
    except ValidationError as error:
        print(f"rejected: path={error.path} code={error.code}")
        print(ToolResult.error(bad.id, f"invalid arguments: {error}").to_message().to_dict())


if __name__ == "__main__":
    main()
