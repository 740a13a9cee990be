"""RFC 3339 timestamps: the one grammar, read into aware ``datetime`` values and written as ``...Z``.

Records hold aware UTC ``datetime`` values; the socket events keep the wire string, checked
against the same grammar in its upper-case form (as ``Date.prototype.toISOString`` writes it).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

from ._checks import check_str, expected, type_name
from .errors import ValidationError

__all__ = [
    "check_timestamp",
    "check_wire_timestamp",
    "format_timestamp",
    "now_wire_timestamp",
    "parse_date",
    "parse_date_time",
    "parse_timestamp",
]

# Each field's range is checked here; the calendar (February 30) when a datetime is built.
# RFC 3339 lets "T" and "Z" be lower case; the socket events take the upper-case form only.
_DATE = r"([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
_DATE_TIME = (
    _DATE + r"T([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]+))?"
    r"(?:Z|([+-])([01][0-9]|2[0-3]):([0-5][0-9]))"
)
_match_date = re.compile(_DATE, re.ASCII).fullmatch
_match_date_time = re.compile(_DATE_TIME, re.ASCII | re.IGNORECASE).fullmatch
_match_wire = re.compile(re.sub(r"\((?!\?)", "(?:", _DATE_TIME), re.ASCII).fullmatch  # no groups: faster


def _date_time(m: "re.Match[str]") -> datetime:
    """Build the aware datetime of a match, in its own offset; ``ValueError`` for a date that does not exist."""
    micro = int((m[7] or "0")[:6].ljust(6, "0"))
    tz = timezone.utc
    if m[8]:
        offset = timedelta(hours=int(m[9]), minutes=int(m[10]))
        tz = timezone(-offset if m[8] == "-" else offset)
    return datetime(int(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5]), int(m[6]), micro, tz)


def parse_date(text: str) -> date | None:
    """Return the date of an RFC 3339 ``full-date`` string, or None if it is not one.

    >>> parse_date("2024-02-29"), parse_date("2023-02-29")
    (datetime.date(2024, 2, 29), None)
    """
    m = _match_date(text)
    if m is None:
        return None
    try:
        return date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return None


def parse_date_time(text: str) -> datetime | None:
    """Return the aware datetime (in its own offset) of an RFC 3339 ``date-time`` string, or None.

    >>> parse_date_time("2026-11-25t10:00:00.5+01:00").isoformat()
    '2026-11-25T10:00:00.500000+01:00'

    Leap seconds (``:60``) are refused: Python's datetime cannot hold them.
    """
    m = _match_date_time(text)
    if m is None:
        return None
    try:
        return _date_time(m)
    except ValueError:
        return None


def check_timestamp(value: object, path: str) -> datetime:
    """Return ``value`` as an aware UTC ``datetime``, refusing naive ones and non-datetimes.

    >>> check_timestamp(datetime(2026, 11, 25, 11, tzinfo=timezone.utc), "at").hour
    11
    >>> try:
    ...     check_timestamp(datetime(2026, 11, 25), "at")
    ... except ValidationError as exc:
    ...     print(exc)
    at: datetime must be timezone-aware
    """
    if not isinstance(value, datetime):
        raise ValidationError(f"expected a datetime, got {type_name(value)}", path, "type")
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValidationError("datetime must be timezone-aware", path, "value")
    try:
        return value.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        raise ValidationError("datetime is out of range in UTC", path, "value") from None


def format_timestamp(value: datetime) -> str:
    """Write an aware ``datetime`` as an RFC 3339 string in UTC with a ``Z`` suffix.

    >>> format_timestamp(datetime(2026, 11, 25, 10, 0, tzinfo=timezone.utc))
    '2026-11-25T10:00:00Z'
    """
    v = value.astimezone(timezone.utc)
    text = f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}"
    if v.microsecond:
        text += f".{v.microsecond:06d}".rstrip("0")
    return text + "Z"


def parse_timestamp(value: object, path: str) -> datetime:
    """Read an RFC 3339 string (offset required) into an aware UTC ``datetime``.

    >>> parse_timestamp("2026-11-25T11:00:00+01:00", "at").isoformat()
    '2026-11-25T10:00:00+00:00'
    >>> try:
    ...     parse_timestamp("2026-11-25 10:00", "at")
    ... except ValidationError as exc:
    ...     print(exc)
    at: expected an RFC 3339 timestamp with an offset
    """
    if not isinstance(value, str):
        raise expected("a string", value, path)
    m = _match_date_time(value)
    if m is None:
        raise ValidationError("expected an RFC 3339 timestamp with an offset", path, "pattern")
    try:
        return _date_time(m).astimezone(timezone.utc)
    except (OverflowError, ValueError):  # February 30, or beyond the datetime range in UTC
        raise ValidationError("timestamp is not a valid date and time", path, "pattern") from None


def check_wire_timestamp(value: object, path: str) -> str:
    """Return ``value`` if it is a timestamp string as the socket events carry it.

    >>> check_wire_timestamp("2024-05-01T12:00:00.000Z", "timestamp")
    '2024-05-01T12:00:00.000Z'
    >>> try:
    ...     check_wire_timestamp("2024-05-01T12:00:00", "timestamp")
    ... except ValidationError as exc:
    ...     print(exc)
    timestamp: must be an ISO 8601 date-time with a zone, like 2024-05-01T12:00:00.000Z
    >>> try:
    ...     check_wire_timestamp("2023-02-30T12:00:00.000Z", "timestamp")
    ... except ValidationError as exc:
    ...     print(exc.code, exc)
    pattern timestamp: is not a date of the calendar (the month has no such day)
    """
    if type(value) is str and _match_wire(value) is not None:
        text = value  # all ASCII: no surrogate check needed
    else:
        text = check_str(value, path)
        if _match_wire(text) is None:
            raise ValidationError(
                "must be an ISO 8601 date-time with a zone, like 2024-05-01T12:00:00.000Z", path, "pattern"
            )
    day = int(text[8:10])
    if day > 28 and day > _days_in_month(int(text[:4]), int(text[5:7])):
        raise ValidationError("is not a date of the calendar (the month has no such day)", path, "pattern")
    return text


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def now_wire_timestamp() -> str:
    """Return the current UTC time as the socket events write it (``...T12:00:00.000Z``)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
