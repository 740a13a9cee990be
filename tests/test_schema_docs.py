"""The README section for the schema generator runs as a doctest.

Until the lead folds docs-fragments/schema.md into README.md the fragment is doctested here;
afterwards the README (doctested by the suite's --doctest-glob) must carry the section.
"""

import doctest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRAGMENT = ROOT / "docs-fragments" / "schema.md"
HEADING = "## Tool schemas from type hints"


def test_schema_docs_section() -> None:
    if not FRAGMENT.exists():
        assert HEADING in (ROOT / "README.md").read_text(encoding="utf-8")
        return
    text = FRAGMENT.read_text(encoding="utf-8")
    assert text.startswith(HEADING) and text.count(">>>") > 10
    result = doctest.testfile(str(FRAGMENT), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 10
