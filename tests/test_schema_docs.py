"""The README section for the schema generator (docs-fragments/schema.md) runs as a doctest."""

import doctest
from pathlib import Path

FRAGMENT = Path(__file__).resolve().parent.parent / "docs-fragments" / "schema.md"


def test_schema_docs_fragment() -> None:
    assert FRAGMENT.read_text(encoding="utf-8").count(">>>") > 10
    result = doctest.testfile(str(FRAGMENT), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 10
