"""The wire-name mapping: reversible, the identity on plain names, refusals with their rule."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentmsg import ValidationError
from agentmsg.tools import NAME_ESCAPE, to_canonical_name, to_wire_name

CANONICAL = re.compile(r"[A-Za-z0-9_]{1,64}")
# Biased towards the characters that make escapes, so the tricky spellings come up often.
TRICKY = st.sampled_from(list("_x25defab-.:/ ") + ["_x2d_", "_x5f_", "_x2e", "x"])
WIRE = st.one_of(
    st.lists(TRICKY, min_size=1, max_size=12).map("".join),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=12),
).filter(lambda s: len(s) <= 64)


@given(WIRE)
def test_wire_names_round_trip(wire: str) -> None:
    try:
        canonical = to_canonical_name(wire)
    except ValidationError as exc:  # only a canonical name beyond 64 characters is refused
        assert exc.code == "size"
        return
    assert CANONICAL.fullmatch(canonical)
    assert to_wire_name(canonical) == wire


@given(st.from_regex(CANONICAL, fullmatch=True))
def test_plain_canonical_names_are_their_own_wire_names(name: str) -> None:
    if NAME_ESCAPE in name:  # names holding "_x" are covered by the round trip below
        return
    assert to_canonical_name(name) == name
    assert to_wire_name(name) == name


@given(st.lists(TRICKY.filter(lambda s: s.isascii() and re.fullmatch(r"\w+", s) is not None), min_size=1, max_size=10).map("".join))
def test_canonical_names_round_trip_or_are_refused(name: str) -> None:
    try:
        wire = to_wire_name(name)
    except ValidationError as exc:
        assert (exc.code, exc.path) == ("pattern", "name")
        assert "_x5f_" in name
        return
    assert to_canonical_name(wire) == name


@pytest.mark.parametrize(
    ("wire", "canonical"),
    [
        ("get-sum", "get_x2d_sum"),
        ("list-recipes", "list_x2d_recipes"),
        ("db.query", "db_x2e_query"),
        ("get_weather", "get_weather"),
        ("mcp__github__list_issues", "mcp__github__list_issues"),
        ("x86_info", "x86_info"),
        ("a_x2d_b", "a_x5f_x2d_b"),  # the text of an escape is kept by escaping its underscore
        ("a_x2d", "a_x2d"),  # not an escape: no closing underscore
        ("a_x2d-", "a_x5f_x2d_x2d_"),
    ],
)
def test_readable_names_both_ways(wire: str, canonical: str) -> None:
    assert to_canonical_name(wire) == canonical
    assert to_wire_name(canonical) == wire


@pytest.mark.parametrize(
    ("name", "code"),
    [("", "pattern"), ("café", "pattern"), ("tab\there", "pattern"), ("-" * 13, "size"), ("a" * 65, "pattern")],
)
def test_unmappable_wire_names_are_refused(name: str, code: str) -> None:
    with pytest.raises(ValidationError) as info:
        to_canonical_name(name)
    assert (info.value.path, info.value.code) == ("name", code)


@pytest.mark.parametrize("name", ["a b", "get-sum", "", "a_x5f_b", "a" * 65])
def test_bad_canonical_names_are_refused(name: str) -> None:
    with pytest.raises(ValidationError) as info:
        to_wire_name(name)
    assert info.value.code in ("pattern", "type")


def test_non_string_is_a_validation_error() -> None:
    with pytest.raises(ValidationError) as info:
        to_canonical_name(5)  # type: ignore[arg-type]
    assert info.value.code == "type"
