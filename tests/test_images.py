"""The base64 and data-URL rules of an image source (``agentmsg/_images.py``) against the rules they replace.

``is_base64`` and ``check_url`` delete the alphabet from the whole text and read what is left,
in place of slicing the data out of a data URL and stripping its padding first. The rule must
not move: the reference implementations below are the ones they replace, and every
generated or mutated string must get the same verdict, and the same error (message, path, code).
"""

from __future__ import annotations

import base64
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentmsg import ImageSource, ValidationError
from agentmsg._checks import type_name
from agentmsg._images import IMAGE_MEDIA_TYPES, check_base64, check_media_type, check_url, is_base64

# -- the reference: the rules as they were written before -----------------------------------------

_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_DATA_URL = re.compile(r"data:([a-z]+/[a-z0-9.+-]+);base64,", re.ASCII).match
_HTTP_URL = re.compile(r"https?://[^\s/?#]+[^\s]*", re.ASCII | re.IGNORECASE).fullmatch


def reference_is_base64(text: str) -> bool:
    if len(text) % 4 or not text.isascii():
        return False
    body = text.rstrip("=")
    return len(text) - len(body) <= 2 and not body.encode().translate(None, _ALPHABET)


def reference_check_base64(data: object, path: str) -> str:
    if type(data) is not str:
        raise ValidationError(f"expected a string, got {type_name(data)}", path, "type")
    if data.startswith("data:"):
        raise ValidationError(
            "must be bare base64 without a 'data:' prefix (use ImageSource.from_url for data: URLs)", path, "value"
        )
    if not data:
        raise ValidationError("must not be empty", path, "value")
    if not reference_is_base64(data):
        raise ValidationError("must be valid base64", path, "value")
    return data


def reference_check_url(url: object, path: str = "url") -> str:
    if type(url) is not str:
        raise ValidationError(f"expected a string, got {type_name(url)}", path, "type")
    match = _DATA_URL(url)
    if match is not None:
        check_media_type(match.group(1), path)
        reference_check_base64(url[match.end():], path)
        return url
    if _HTTP_URL(url) is None:
        raise ValidationError("must be an http(s) URL or a data: URL", path, "pattern")
    return url


def outcome(check: object, *args: object) -> tuple[str, ...]:
    """What ``check(*args)`` did: returned its value, or raised a ValidationError (message, path, code)."""
    try:
        value = check(*args)  # type: ignore[operator]
    except ValidationError as exc:
        return ("error", str(exc), exc.path, exc.code)
    assert value is args[0]
    return ("value",)


# -- generated and mutated strings ----------------------------------------------------------------

ALPHABET = _ALPHABET.decode()
# the characters a mutation brings in: the alphabet, padding, the data URL's own punctuation,
# whitespace, a URL's characters, a byte past ASCII, a lone surrogate
NOISE = "A/+=:;,. \n\t-_%é\x00\x7f\ud800"
encoded = st.binary(max_size=40).map(lambda raw: base64.b64encode(raw).decode())
near_base64 = st.text(alphabet=ALPHABET + "=", max_size=24)
anything = st.text(alphabet=ALPHABET + NOISE, max_size=24)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """Valid base64 with characters replaced, inserted or removed at drawn places."""
    text = list(draw(encoded))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.integers(0, len(text)))
        how = draw(st.sampled_from(["replace", "insert", "remove"]))
        char = draw(st.sampled_from(NOISE))
        if how == "insert" or not text:
            text.insert(where, char)
        elif how == "replace":
            text[min(where, len(text) - 1)] = char
        else:
            del text[min(where, len(text) - 1)]
    return "".join(text)


bodies = st.one_of(encoded, near_base64, anything, mutated())
prefixes = st.one_of(st.sampled_from([f"data:{media};base64," for media in IMAGE_MEDIA_TYPES]),
                     st.sampled_from(["data:image/bmp;base64,", "data:image/PNG;base64,", "data:image/png;base64",
                                      "data:image/png,", "data:image/png;base64,data:image/png;base64,",
                                      "data:image/svg+xml;base64,", "data:,", "data:", "https://example.com/",
                                      "http://a/", "", "DATA:image/png;base64,", " data:image/png;base64,"]),
                     st.text(alphabet="data:imgepn/;bs64,", max_size=24))
EDGES = ["", "=", "==", "===", "====", "A===", "AA==", "AAA=", "AAAA", "AA=A", "A=AA", "=AAA", "AAAA====",
         "AAAA\n", " AAAA", "AA==AAAA", "+/+/", "////", "++++", "AAAé", "AA\ud800=", "-_-_", "AAA\x00"]


@settings(max_examples=2000, deadline=None)
@given(bodies)
def test_is_base64_decides_as_the_translate_rule(text: str) -> None:
    assert is_base64(text) is reference_is_base64(text)


@pytest.mark.parametrize("text", EDGES)
def test_is_base64_decides_the_edge_cases_as_the_translate_rule(text: str) -> None:
    assert is_base64(text) is reference_is_base64(text)


@settings(max_examples=2000, deadline=None)
@given(prefixes, bodies)
@example("data:image/png;base64,", "")
@example("data:image/jpeg;base64,", "data:AAA")
def test_check_url_accepts_and_refuses_as_before(prefix: str, body: str) -> None:
    url = prefix + body
    assert outcome(check_url, url) == outcome(reference_check_url, url)
    assert outcome(check_url, url, "source.url") == outcome(reference_check_url, url, "source.url")


@settings(max_examples=1000, deadline=None)
@given(st.one_of(bodies, prefixes.map(lambda prefix: prefix + "AAAA")))
def test_check_base64_accepts_and_refuses_as_before(data: str) -> None:
    assert outcome(check_base64, data, "data") == outcome(reference_check_base64, data, "data")


@pytest.mark.parametrize("value", [None, 3, b"AAAA", ["AAAA"]])
def test_a_value_that_is_not_a_string_is_refused_as_before(value: object) -> None:
    assert outcome(check_url, value) == outcome(reference_check_url, value)
    assert outcome(check_base64, value, "data") == outcome(reference_check_base64, value, "data")


def test_an_image_sized_data_url_is_accepted_and_one_bad_byte_refused() -> None:
    data = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 12).decode()
    for media in IMAGE_MEDIA_TYPES:
        url = f"data:{media};base64,{data}"
        assert ImageSource.from_url(url).url == url
    for at in (0, 1, len(data) // 2, len(data) - 3):
        for char in "=:;,-_ \n\x00é":
            bad = f"data:image/png;base64,{data[:at]}{char}{data[at + 1:]}"
            assert outcome(check_url, bad) == outcome(reference_check_url, bad) == (
                "error", "url: must be valid base64", "url", "value")


def test_a_data_url_of_an_accepted_type_is_checked_without_the_regular_expression(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(text: str) -> None:
        raise AssertionError("the data URL went the slow way")

    monkeypatch.setattr("agentmsg._images._data_url", refuse)
    for media in IMAGE_MEDIA_TYPES:
        url = f"data:{media};base64,R0lGODlhAQABAAAAACw="
        assert check_url(url) == url
