"""RFC 3339 timestamps: aware ``datetime`` values in UTC, written as ``...Z`` strings."""

import re
from datetime import datetime, timedelta, timezone

from ._codec import type_name
from .errors import ValidationError

__all__ = ["check_timestamp", "format_timestamp", "parse_timestamp"]

_SECOND = timedelta(seconds=1)

_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]+))?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))",
    re.ASCII,
)


def check_timestamp(value: object, path: str) -> datetime:
    """Return ``value`` as an aware UTC ``datetime``, refusing naive ones and non-datetimes.

    >>> check_timestamp(datetime(2026, 11, 25, 11, tzinfo=timezone.utc), "at").hour
    11
    >>> check_timestamp(datetime(2026, 11, 25), "at")
    Traceback (most recent call last):
        ...
    agentmsg.errors.ValidationError: at: datetime must be timezone-aware
    """
    if not isinstance(value, datetime):
        raise ValidationError(f"expected a datetime, got {type(value).__name__}", path, "type")
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValidationError("datetime must be timezone-aware", path, "timezone")
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
    >>> parse_timestamp("2026-11-25 10:00", "at")
    Traceback (most recent call last):
        ...
    agentmsg.errors.ValidationError: at: expected an RFC 3339 timestamp with an offset
    """
    if not isinstance(value, str):
        raise ValidationError(f"expected a string, got {type_name(value)}", path, "type")
    m = _RFC3339.fullmatch(value)
    if m is None:
        raise ValidationError("expected an RFC 3339 timestamp with an offset", path, "pattern")
    year, month, day, hour, minute, second = (int(g) for g in m.group(1, 2, 3, 4, 5, 6))
    micro = int((m.group(7) or "0")[:6].ljust(6, "0"))
    if m.group(8):
        tz = timezone.utc
    else:
        sign = -1 if m.group(9) == "-" else 1
        hours, minutes = int(m.group(10)), int(m.group(11))
        if hours > 23 or minutes > 59:
            raise ValidationError("timestamp offset is out of range", path, "value")
        tz = timezone(sign * ((hours * 60 + minutes) * 60) * _SECOND)
    try:
        when = datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)
        return when.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        raise ValidationError("timestamp is not a valid date and time", path, "value") from None

