"""The fast paths of issue 19 decide exactly what the slow, obvious code decides."""

from __future__ import annotations

import base64
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentmsg import ChatMessage, ImageSource, ValidationError
from agentmsg._frozen import FrozenDict, freeze_json, thaw_json
from agentmsg._images import is_base64

# The definition is_base64 used to be: the alphabet, then at most two '=', in a length divisible by 4.
_DEFINITION = re.compile(r"[A-Za-z0-9+/]*={0,2}", re.ASCII)
_NEAR_BASE64 = st.text(alphabet="AZaz09+/=-_.é\n \x00\udc80", max_size=16)


@given(st.one_of(_NEAR_BASE64, st.text(max_size=12), st.binary(max_size=30).map(lambda b: base64.b64encode(b).decode())))
def test_is_base64_matches_its_definition(text: str) -> None:
    assert is_base64(text) == (len(text) % 4 == 0 and _DEFINITION.fullmatch(text) is not None)


def test_is_base64_cases() -> None:
    assert is_base64("") and is_base64("QQ==") and is_base64("QUI=") and is_base64("QUJD")
    for bad in ("QQ=", "Q===", "QQ=A", "=QQA", "QU I", "QUJ\u00e9", "QUJ-", "QUJ_", "QQ==QQ=="):
        assert not is_base64(bad), bad
    source = ImageSource.from_url("data:image/png;base64,iVBORw0KGgo=")
    assert source.url == "data:image/png;base64,iVBORw0KGgo="
    try:
        ChatMessage.from_dict({"role": "user", "content": [{"type": "image", "source": {
            "type": "url", "url": "data:image/png;base64,iVBORw0KGgo*"}}]})
    except ValidationError as exc:
        assert (exc.path, exc.code) == ("content[0].source.url", "value")
    else:
        raise AssertionError("bad base64 in a data URL must be refused")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


def _plain(value: Any) -> bool:
    """Return whether ``value`` holds only plain, mutable containers (what a caller may edit)."""
    if type(value) is dict:
        return all(_plain(v) for v in value.values())
    if type(value) is list:
        return all(_plain(v) for v in value)
    return type(value) not in (tuple, FrozenDict)


def _direct(value: Any) -> Any:
    """Freeze without freeze_json: FrozenDicts built directly carry no flatness mark."""
    if isinstance(value, dict):
        return FrozenDict({k: _direct(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_direct(v) for v in value)
    return value


@given(_JSON)
def test_thaw_gives_back_plain_equal_copies(value: Any) -> None:
    for frozen in (freeze_json(value), _direct(value)):
        thawed = thaw_json(frozen)
        assert thawed == value and _plain(thawed)
        if isinstance(value, (dict, list)):
            assert thawed is not frozen and thaw_json(frozen) is not thawed  # a fresh copy each time
