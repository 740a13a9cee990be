"""The README section for events and the store (docs-fragments/events.md) runs as written."""

import doctest
from pathlib import Path

FRAGMENT = Path(__file__).resolve().parent.parent / "docs-fragments" / "events.md"


def test_events_docs_fragment_doctests() -> None:
    result = doctest.testfile(str(FRAGMENT), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 15
    assert result.failed == 0
