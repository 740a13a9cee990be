"""README.md and docs/ stay true: the map names every page, links resolve.

(The `>>>` examples of README.md and docs/*.md run as doctests through pytest's --doctest-glob;
tests/test_error_voice.py writes their tables of error codes from `agentmsg.errors`.)
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"


def test_the_map_names_every_page_and_every_named_page_exists() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\]\(([\w.-]+\.md)\)", index))
    pages = {path.name for path in DOCS.glob("*.md")} - {"index.md"}
    assert pages - named == set(), "add a row to docs/index.md for each new page"
    assert named - pages == set(), "docs/index.md names pages that do not exist"


def test_every_relative_link_resolves() -> None:
    for path in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert (path.parent / target).exists(), f"{path.relative_to(ROOT)} links to missing {target}"


def test_readme_keeps_its_two_commands() -> None:
    assert "```sh\npython examples/quickstart.py\n```" in README
    assert '```sh\npython -m pip install -e ".[test]" && python -m pytest\n```' in README
    assert (ROOT / "examples" / "quickstart.py").exists() and (ROOT / "LICENSE").exists()


def test_readme_stays_short() -> None:
    # README sells and orients; teaching goes to docs/. About 250 lines is the budget.
    assert len(README.splitlines()) <= 300
