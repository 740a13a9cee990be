"""The official JSON Schema Test Suite (draft 2020-12) against agentmsg's validator.

Every file in ``tests/data/json-schema-test-suite/draft2020-12`` (one per supported keyword, plus
``optional/ecmascript-regex.json`` and, with ``formats=True``, ``optional/format/*.json``) runs
group by group, case by case, on plain JSON and on the deep-frozen form the core stores
(FrozenDict, tuples). A group is not run only when the validator refuses its schema, and then
it must be refused with a ``ValidationError`` of code ``schema`` and be one of the refusals listed
in ``REFUSED`` with its reason: a keyword file passes in full unless it appears there.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from agentmsg._frozen import freeze_json
from agentmsg.errors import ValidationError
from agentmsg.schema import validate_arguments
from agentmsg.schema._validator import SUPPORTED

SUITE = Path(__file__).parent / "data" / "json-schema-test-suite" / "draft2020-12"

_REMOTE = "only local JSON-pointer references"
_PROPERTY_ESCAPE = "Unicode property escapes"
_UNEVALUATED = "keyword unevaluatedProperties is not supported"
# Every group the validator refuses, with the words its error must hold.
REFUSED = {
    "defs.json[0]": _REMOTE,  # validates against the remote meta-schema
    "not.json[8]": _UNEVALUATED,
    "pattern.json[2]": _PROPERTY_ESCAPE,
    "patternProperties.json[5]": _PROPERTY_ESCAPE,
    **{f"ref.json[{i}]": _REMOTE for i in (6, 11, 15, 16, 17, 18, 19, 20, 21, 26, 27, 28, 29, 30, 31, 32)},
    "ref.json[13]": _UNEVALUATED,
    **{f"optional/ecmascript-regex.json[{i}]": _PROPERTY_ESCAPE for i in (10, 14, 15, 19)},
}


def _files() -> list[Path]:
    files = sorted(SUITE.glob("*.json")) + [SUITE / "optional" / "ecmascript-regex.json"]
    files += sorted((SUITE / "optional" / "format").glob("*.json"))
    assert len(files) > 40, f"suite files missing in {SUITE}"
    return files


def _groups() -> list[tuple[str, bool, dict[str, Any]]]:
    out = []
    for path in _files():
        name = path.relative_to(SUITE).as_posix()
        formats = name.startswith("optional/format/")
        for i, group in enumerate(json.loads(path.read_bytes())):
            out.append((f"{name}[{i}]", formats, group))
    return out


GROUPS = _groups()


def _verdict(schema: Any, data: Any, formats: bool) -> bool:
    try:
        validate_arguments(schema, data, formats=formats)
    except ValidationError as exc:
        if exc.code == "schema":
            raise
        return False
    return True


@pytest.mark.parametrize(("gid", "formats", "group"), GROUPS, ids=[gid for gid, _, _ in GROUPS])
def test_suite_group(gid: str, formats: bool, group: dict[str, Any]) -> None:
    schema = group["schema"]
    if gid in REFUSED:
        with pytest.raises(ValidationError) as info:
            validate_arguments(schema, group["tests"][0]["data"], formats=formats)
        assert info.value.code == "schema" and REFUSED[gid] in info.value.message, str(info.value)
        return
    frozen_schema = freeze_json(schema)
    for case in group["tests"]:
        expected = case["valid"]
        assert _verdict(schema, case["data"], formats) is expected, (gid, case["description"])
        assert _verdict(frozen_schema, freeze_json(case["data"]), formats) is expected, (gid, case["description"], "frozen")


def test_every_supported_keyword_has_its_suite_file_and_runs_in_full(capsys: pytest.CaptureFixture[str]) -> None:
    names = {path.stem for path in SUITE.glob("*.json")}
    aliases = {"$ref": "ref", "$defs": "defs", "if": "if-then-else", "then": "if-then-else", "else": "if-then-else",
               # dependentSchemas has no file in this subset; additionalProperties.json[8] runs it
               "dependentSchemas": "additionalProperties"}
    for keyword in SUPPORTED:
        assert aliases.get(keyword, keyword) in names, keyword
    partly = sorted({gid.partition("[")[0] for gid in REFUSED})
    assert partly == ["defs.json", "not.json", "optional/ecmascript-regex.json", "pattern.json",
                      "patternProperties.json", "ref.json"]
    cases = sum(len(g["tests"]) for gid, _, g in GROUPS if gid not in REFUSED)
    with capsys.disabled():
        print(f"\nJSON Schema Test Suite: {len(GROUPS) - len(REFUSED)} groups / {cases} cases run; "
              f"{len(REFUSED)} groups refused (remote $ref, unevaluatedProperties, \\p{{...}})")
