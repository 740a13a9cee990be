"""The official JSON Schema Test Suite (draft 2020-12) against agentmsg's validator.

Every group whose schema uses only the keywords the validator supports is run, case by case,
on plain JSON and on the deep-frozen form the core stores (FrozenDict, tuples). A group is
skipped only when its schema uses an unsupported keyword or a non-local ``$ref``; for those the
validator must refuse the schema (``TypeError``) rather than validate it loosely.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from agentmsg._frozen import freeze_json
from agentmsg.schema._validator import SUPPORTED, UNSUPPORTED
from agentmsg.errors import ValidationError
from agentmsg.schema import validate_arguments

SUITE = Path(__file__).parent / "data" / "json-schema-test-suite" / "draft2020-12"
_MAPS = ("properties", "$defs", "patternProperties", "dependentSchemas")
_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains",
        "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema")
_LISTS = ("prefixItems", "anyOf", "allOf", "oneOf")


def _unsupported(schema: Any) -> set[str]:
    """Return what the schema uses that the validator does not support."""
    found: set[str] = set()
    if not isinstance(schema, dict):
        return found
    for key, value in schema.items():
        if key in UNSUPPORTED:
            found.add(key)
        if key == "$ref" and not (value == "#" or value.startswith("#/")):
            found.add("$ref (not a local JSON pointer)")
        if key in _MAPS and isinstance(value, dict):
            for sub in value.values():
                found |= _unsupported(sub)
        elif key in _ONE:
            found |= _unsupported(value)
        elif key in _LISTS and isinstance(value, list):
            for sub in value:
                found |= _unsupported(sub)
    return found


def _groups() -> list[tuple[str, dict[str, Any]]]:
    files = sorted(SUITE.glob("*.json"))
    assert files, f"no suite files in {SUITE}"
    out = []
    for path in files:
        for i, group in enumerate(json.loads(path.read_bytes())):
            out.append((f"{path.stem}[{i}]", group))
    return out


GROUPS = _groups()
RUN = [(gid, g) for gid, g in GROUPS if not _unsupported(g["schema"])]
SKIPPED = [(gid, g) for gid, g in GROUPS if _unsupported(g["schema"])]


def _verdict(schema: Any, data: Any) -> bool:
    try:
        validate_arguments(schema, data)
    except ValidationError:
        return False
    return True


@pytest.mark.parametrize(("gid", "group"), RUN, ids=[gid for gid, _ in RUN])
def test_suite_group(gid: str, group: dict[str, Any]) -> None:
    schema = group["schema"]
    for case in group["tests"]:
        expected = case["valid"]
        assert _verdict(schema, case["data"]) is expected, (gid, case["description"])
        frozen_schema, frozen_data = freeze_json(schema), freeze_json(case["data"])
        assert _verdict(frozen_schema, frozen_data) is expected, (gid, case["description"], "frozen")


@pytest.mark.parametrize(("gid", "group"), SKIPPED, ids=[gid for gid, _ in SKIPPED])
def test_skipped_group_is_refused(gid: str, group: dict[str, Any]) -> None:
    """A group is skipped only because the validator refuses its schema, never silently."""
    with pytest.raises(TypeError):
        for case in group["tests"]:
            validate_arguments(group["schema"], case["data"])


def test_suite_counts(capsys: pytest.CaptureFixture[str]) -> None:
    cases_run = sum(len(g["tests"]) for _, g in RUN)
    cases_skipped = sum(len(g["tests"]) for _, g in SKIPPED)
    reasons = sorted({r for _, g in SKIPPED for r in _unsupported(g["schema"])})
    with capsys.disabled():
        print(
            f"\nJSON Schema Test Suite: ran {len(RUN)} groups / {cases_run} cases; "
            f"skipped {len(SKIPPED)} groups / {cases_skipped} cases (unsupported: {', '.join(reasons)})"
        )
    assert len(RUN) > 0 and cases_run > 0
    assert len(RUN) + len(SKIPPED) == len(GROUPS)
    # every keyword the validator claims is exercised by at least one group that runs
    used = set()
    for _, g in RUN:
        used |= _keywords(g["schema"])
    assert SUPPORTED - {"format"} <= used, SUPPORTED - {"format"} - used


def _keywords(schema: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(schema, dict):
        found |= set(schema)
        for key, value in schema.items():
            if key in _MAPS and isinstance(value, dict):
                for sub in value.values():
                    found |= _keywords(sub)
            elif key in _ONE:
                found |= _keywords(value)
            elif key in _LISTS and isinstance(value, list):
                for sub in value:
                    found |= _keywords(sub)
    return found
