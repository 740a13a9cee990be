"""The common string formats of JSON Schema, checked when a caller asks (``formats=True``).

Draft 2020-12 makes ``format`` an annotation: validators report it and assert nothing unless
asked. These checkers follow the RFCs the specification names and pass the JSON Schema Test
Suite's ``optional/format`` files: ``date``, ``time``, ``date-time`` (RFC 3339, leap seconds
included), ``email`` (RFC 5321 mailbox), ``ipv4``, ``ipv6`` (RFC 2673 / 4291, no zone ids),
``uri`` (RFC 3986, absolute) and ``uuid`` (RFC 4122). Other formats stay annotations.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable

__all__ = ["FORMATS"]

_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})", re.ASCII)
_TIME = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))", re.ASCII)
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _date(text: str) -> bool:
    m = _DATE.fullmatch(text)
    if m is None:
        return False
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    if year == 0 or not 1 <= month <= 12 or day < 1 or day > _DAYS[month - 1]:  # no year 0, as Python's date
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return not (month == 2 and day == 29 and not leap)


def _time(text: str) -> bool:
    m = _TIME.fullmatch(text)
    if m is None:
        return False
    hour, minute, second = int(m[1]), int(m[2]), int(m[3])
    if m[4] is None:
        off_h, off_m = int(m[6]), int(m[7])
        if off_h > 23 or off_m > 59:
            return False
        offset = (off_h * 60 + off_m) * (1 if m[5] == "+" else -1)
    else:
        offset = 0
    if hour > 23 or minute > 59 or second > 60:
        return False
    if second == 60:  # a leap second happens at 23:59:60 UTC only
        return (hour * 60 + minute - offset) % 1440 == 23 * 60 + 59
    return True


def _date_time(text: str) -> bool:
    head, sep, tail = text[:10], text[10:11], text[11:]
    return sep in ("T", "t") and _date(head) and _time(tail)


_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_EMAIL = re.compile(
    rf'(?:{_ATOM}(?:\.{_ATOM})*|"(?:[^"\\\r\n]|\\.)*")@(?:({_LABEL}(?:\.{_LABEL})*)|\[(IPv6:[^\]]+|[0-9.]+)\])',
    re.ASCII,
)


def _ipv4(text: str) -> bool:
    if not text or any(c not in "0123456789." for c in text):
        return False
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


def _ipv6(text: str) -> bool:
    if not text or any(c not in "0123456789abcdefABCDEF:." for c in text):
        return False  # no zone ids (%eth0), no spaces, no non-ASCII digits
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _email(text: str) -> bool:
    m = _EMAIL.fullmatch(text)
    if m is None:
        return False
    literal = m[2]
    if literal is None:
        return True
    return _ipv6(literal[5:]) if literal.startswith("IPv6:") else _ipv4(literal)


_PCT = r"%[0-9A-Fa-f]{2}"
_UNRESERVED_SUB = r"\-A-Za-z0-9._~!$&'()*+,;="
_PCHAR = rf"(?:[{_UNRESERVED_SUB}:@]|{_PCT})"
_URI = re.compile(
    rf"[A-Za-z][A-Za-z0-9+.-]*:"
    rf"(?://(?:(?:[{_UNRESERVED_SUB}:]|{_PCT})*@)?"  # userinfo
    rf"(?:\[([^\]/]*)\]|(?:[{_UNRESERVED_SUB}]|{_PCT})*)"  # host: IP literal or reg-name / IPv4
    rf"(?::[0-9]*)?(?:/{_PCHAR}*)*"  # port, path-abempty
    rf"|/(?:{_PCHAR}+(?:/{_PCHAR}*)*)?"  # path-absolute
    rf"|{_PCHAR}+(?:/{_PCHAR}*)*"  # path-rootless
    rf"|)"  # path-empty
    rf"(?:\?(?:{_PCHAR}|[/?])*)?(?:#(?:{_PCHAR}|[/?])*)?",
    re.ASCII,
)
_IPVFUTURE = re.compile(rf"[vV][0-9A-Fa-f]+\.[{_UNRESERVED_SUB}:]+", re.ASCII)


def _uri(text: str) -> bool:
    m = _URI.fullmatch(text)
    if m is None:
        return False
    literal = m[1]
    return literal is None or _ipv6(literal) or _IPVFUTURE.fullmatch(literal) is not None


_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}", re.ASCII)

FORMATS: dict[str, Callable[[str], bool]] = {
    "date": _date,
    "time": _time,
    "date-time": _date_time,
    "email": _email,
    "ipv4": _ipv4,
    "ipv6": _ipv6,
    "uri": _uri,
    "uuid": lambda text: _UUID.fullmatch(text) is not None,
}
