"""ECMA-262 patterns (as JSON Schema writes them) translated to Python ``re``, or refused clearly.

JSON Schema's ``pattern`` and ``patternProperties`` are ECMA-262 regular expressions with Unicode
semantics; Python's ``re`` reads the same text differently in a few places. ``translate`` rewrites
those places and refuses what it cannot rewrite:

- ``\\d`` ``\\w`` are ASCII (``[0-9]``, ``[A-Za-z0-9_]``), ``\\s`` is ECMA's whitespace set, and
  ``\\b`` is the ASCII word boundary (the pattern compiles with ``re.ASCII``);
- ``$`` matches only at the very end (Python's ``$`` also matches before a final newline), and
  ``.`` matches anything but the four line terminators ``\\n \\r \\u2028 \\u2029``;
- ``\\cX`` control escapes, ``\\u{...}``, ``(?<name>...)`` and ``\\k<name>``, ``[]`` and ``[^]`` are
  rewritten;
- Unicode property escapes (``\\p{Letter}``), Python-only syntax (``(?i)``, ``(?P<..>``, ``\\A``,
  ``\\Z``, possessive quantifiers) and escapes ECMA-262 does not define are refused.

Catastrophic backtracking: Python's ``re`` cannot be given a time budget, so a pattern that can
backtrack exponentially is refused before it ever runs. The rule is the "star height" one with
one proven-safe exception: a quantifier that repeats without bound (``*``, ``+``, ``{n,}``, or a
maximum above 9) may not apply to a group that itself repeats something (``(a+)+``,
``(\\w*\\s?)*``, ``(x{2,5})+`` are refused) unless every iteration of that group starts with a
separator character that nothing repeated inside it can match (``[a-z]+(-[a-z]+)*``,
``\\d+(\\.\\d+)*`` are accepted: the separators fix how the string splits). Overlapping
alternatives under a single star (``(a|ab)*``) are not detected; they are rare in tool schemas.
"""

from __future__ import annotations

import re

__all__ = ["PatternError", "translate", "compile_pattern"]

# ECMA-262 WhiteSpace and LineTerminator code points (what \s matches).
_WS = "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_CLASS_ESCAPES = {"d": "0-9", "w": "A-Za-z0-9_", "s": _WS}
_OUTSIDE = {
    "d": "[0-9]", "D": "[^0-9]", "w": "[A-Za-z0-9_]", "W": "[^A-Za-z0-9_]", "s": f"[{_WS}]", "S": f"[^{_WS}]",
}
_DOT = "[^\\n\\r\\u2028\\u2029]"
_KEEP = frozenset("tnrvfbB")  # the same in both
_SYNTAX = frozenset("^$\\.*+?()[]{}|/-,=:!<>'\"@#%&~`;_ ")
_QUANT = re.compile(r"\{(\d+)(,(\d*))?\}")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class PatternError(ValueError):
    """A pattern that cannot be matched as ECMA-262 would; the message says why."""


class _Group:
    __slots__ = ("repeats", "atoms", "opaque", "first", "alternates", "count")

    def __init__(self) -> None:
        self.repeats = False  # holds a quantifier whose maximum is above one
        self.atoms: list[str] = []  # the atoms it repeats (Python text)
        self.opaque = False  # repeats a group inside: too complex to prove safe
        self.first: str | None = None  # the literal character it starts with, if any
        self.alternates = False  # has a top-level "|"
        self.count = 0  # atoms seen so far


def _safe_under_star(group: _Group) -> bool:
    """Whether an unbounded quantifier may apply to ``group``, which repeats something inside.

    Safe when every iteration must start with a separator character that none of the repeated
    atoms inside can match (``(-[a-z]+)*``, ``(\\.\\d+)+``): the separators then fix how a string
    splits into iterations, so there is nothing to backtrack over.
    """
    if group.opaque or group.alternates or group.first is None:
        return False
    sep = group.first
    return all(re.fullmatch(atom, sep, re.ASCII) is None for atom in group.atoms)


def _literal(text: str) -> str | None:
    """Return the character an atom's Python text stands for, if it is one literal character."""
    if len(text) == 1 and text not in "^$|":
        return text
    if len(text) == 2 and text[0] == "\\" and text[1].isascii() and not text[1].isalnum():
        return text[1]
    return None


def translate(pattern: str) -> str:
    """Return the Python ``re`` text that matches as the ECMA-262 ``pattern`` does.

    >>> translate(r"^\\d+$")
    '^[0-9]+(?!(?s:.))'
    >>> try:
    ...     translate("(a+)+b")
    ... except PatternError as exc:
    ...     print(exc)
    an unbounded quantifier applies to a group that repeats inside (catastrophic backtracking)

    Raises ``PatternError`` naming the reason for what it refuses.
    """
    out: list[str] = []
    stack = [_Group()]
    i = 0
    n = len(pattern)
    atom: str | None = None  # the last atom's Python text (None: nothing a quantifier could repeat)
    atom_group: _Group | None = None  # the last atom, if it was a group
    atom_first = False  # the last atom was its group's first

    def add(text: str) -> None:
        nonlocal atom, atom_group, atom_first
        group = stack[-1]
        atom, atom_group, atom_first = text, None, group.count == 0
        if group.count == 0:
            group.first = _literal(text)
        group.count += 1
        out.append(text)

    while i < n:
        c = pattern[i]
        if c == "\\":
            text, i = _escape(pattern, i, in_class=False)
            add(text)
            continue
        if c == "[":
            text, i = _class(pattern, i)
            add(text)
            continue
        if c == "(":
            head = pattern[i + 1 : i + 4]
            if head.startswith("?"):
                if head[:2] in ("?:", "?=", "?!") or head[:3] in ("?<=", "?<!"):
                    size = 2 if head[:2] in ("?:", "?=", "?!") else 3
                    out.append("(" + head[:size])
                    i += 1 + size
                elif head.startswith("?<"):
                    m = _NAME.match(pattern, i + 3)
                    if m is None or not pattern.startswith(">", m.end()):
                        raise PatternError("a named group must read (?<name>...)")
                    out.append(f"(?P<{m.group()}>")
                    i = m.end() + 1
                else:
                    raise PatternError(
                        "(? must start (?:, (?=, (?!, (?<=, (?<! or (?<name>; Python's inline flags and (?P are not ECMA-262"
                    )
            else:
                out.append("(")
                i += 1
            stack.append(_Group())
            atom = None
            continue
        if c == ")":
            if len(stack) == 1:
                raise PatternError("unbalanced parenthesis")
            group = stack.pop()
            out.append(")")
            i += 1
            parent = stack[-1]
            parent.repeats |= group.repeats
            parent.opaque |= group.opaque
            parent.atoms.extend(group.atoms)
            atom, atom_group, atom_first = ")", group, parent.count == 0
            if parent.count == 0 and not group.alternates:
                parent.first = group.first
            parent.count += 1
            continue
        if c in "*+?{":
            bounds = _quantifier(pattern, i)
            if bounds is None:  # a lone "{" is a literal in ECMA-262 without the u flag
                add("\\{")
                i += 1
                continue
            low, high, size = bounds
            if atom is None:
                raise PatternError("a quantifier must follow something to repeat")
            group = stack[-1]
            if atom_first and low == 0:
                group.first = None  # an optional first atom is no separator
            if atom_group is not None and atom_group.repeats and (high is None or high > 9):
                if not _safe_under_star(atom_group):
                    raise PatternError(
                        "an unbounded quantifier applies to a group that repeats inside (catastrophic backtracking)"
                    )
            if high is None or high > 1:
                group.repeats = True
                if atom_group is not None:
                    group.opaque = True
                else:
                    group.atoms.append(atom)
            out.append(pattern[i : i + size])
            i += size
            if i < n and pattern[i] == "?":  # lazy
                out.append("?")
                i += 1
            if i < n and pattern[i] in "*+?{" and _quantifier(pattern, i) is not None:
                raise PatternError("a quantifier cannot follow a quantifier (Python reads some as possessive)")
            atom = None
            continue
        i += 1
        if c == ".":
            add(_DOT)
        elif c == "$":
            out.append("(?!(?s:.))")
            atom = None
        elif c == "^":
            out.append("^")
            atom = None
        elif c == "|":
            out.append("|")
            stack[-1].alternates = True
            atom = None
        elif c == "}" or c == "]":
            add("\\" + c)
        else:
            add(c)
    if len(stack) != 1:
        raise PatternError("unbalanced parenthesis")
    return "".join(out)


def _quantifier(pattern: str, i: int) -> tuple[int, int | None, int] | None:
    """Return (min, max or None, length) of the quantifier at ``i``, or None for a literal ``{``."""
    c = pattern[i]
    if c == "*":
        return 0, None, 1
    if c == "+":
        return 1, None, 1
    if c == "?":
        return 0, 1, 1
    m = _QUANT.match(pattern, i)
    if m is None:
        return None
    low = int(m.group(1))
    if m.group(2) is None:
        high: int | None = low
    else:
        high = int(m.group(3)) if m.group(3) else None
    if high is not None and high < low:
        raise PatternError("numbers out of order in a {min,max} quantifier")
    return low, high, m.end() - i


def _escape(pattern: str, i: int, in_class: bool) -> tuple[str, int]:
    """Return the Python text for the escape at ``pattern[i]`` (a backslash) and the next index."""
    if i + 1 >= len(pattern):
        raise PatternError("a pattern cannot end with a backslash")
    c = pattern[i + 1]
    if in_class and c in _CLASS_ESCAPES:
        return _CLASS_ESCAPES[c], i + 2
    if in_class and c in "DWS":
        raise PatternError(f"\\{c} inside a character class is not supported")
    if c in _OUTSIDE:
        return _OUTSIDE[c], i + 2
    if c in _KEEP:
        if c in "bB" and not in_class:
            return "\\" + c, i + 2
        if c == "B" and in_class:
            raise PatternError("\\B inside a character class is not ECMA-262")
        return ("\\x08" if c == "b" else "\\" + c), i + 2
    if c == "c":
        letter = pattern[i + 2 : i + 3]
        if letter.isascii() and letter.isalpha():
            return f"\\x{ord(letter) % 32:02x}", i + 3
        raise PatternError("\\c must be followed by a letter")
    if c == "x":
        if _HEX2.match(pattern, i + 2):
            return pattern[i : i + 4], i + 4
        raise PatternError("\\x must be followed by two hex digits")
    if c == "u":
        if pattern.startswith("{", i + 2):
            end = pattern.find("}", i + 3)
            digits = pattern[i + 3 : end] if end != -1 else ""
            if not digits or len(digits) > 6 or any(d not in "0123456789abcdefABCDEF" for d in digits) or int(digits, 16) > 0x10FFFF:
                raise PatternError("\\u{...} must hold a code point in hex")
            return f"\\U{int(digits, 16):08x}", end + 1
        if _HEX4.match(pattern, i + 2):
            return pattern[i : i + 6], i + 6
        raise PatternError("\\u must be followed by four hex digits")
    if c == "0" and not pattern[i + 2 : i + 3].isdigit():
        return "\\x00", i + 2
    if c.isdigit():
        if in_class:
            raise PatternError("a backreference cannot appear inside a character class")
        j = i + 1
        while j < len(pattern) and pattern[j].isdigit():
            j += 1
        return f"(?:\\{pattern[i + 1 : j]})", j
    if c == "k" and not in_class:
        m = _NAME.match(pattern, i + 3)
        if pattern.startswith("<", i + 2) and m is not None and pattern.startswith(">", m.end()):
            return f"(?P={m.group()})", m.end() + 1
        raise PatternError("\\k must read \\k<name>")
    if c in "pP":
        raise PatternError("Unicode property escapes (\\p{...}) are not supported by Python's re")
    if c in _SYNTAX or not c.isascii():
        return "\\" + c if c.isascii() and not c.isalnum() else c, i + 2
    raise PatternError(f"\\{c} is not an ECMA-262 escape (Python's re would read it differently)")


def _class(pattern: str, i: int) -> tuple[str, int]:
    """Return the Python text of the character class starting at ``pattern[i]`` and the next index."""
    j = i + 1
    negate = pattern.startswith("^", j)
    if negate:
        j += 1
    if pattern.startswith("]", j):  # [] matches nothing, [^] anything
        return ("(?s:.)" if negate else "(?!)"), j + 1
    parts = ["[^" if negate else "["]
    prev = ""
    while j < len(pattern):
        c = pattern[j]
        if c == "]":
            parts.append("]")
            return "".join(parts), j + 1
        if c == "\\":
            text, j = _escape(pattern, j, in_class=True)
            parts.append(text)
            prev = ""
            continue
        if c in "[&~|" or (c == "-" and prev == "-"):
            parts.append("\\" + c)  # Python warns about (future) set operations on these
        else:
            parts.append(c)
        prev = c
        j += 1
    raise PatternError("unterminated character class")


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """Return the compiled Python pattern for an ECMA-262 ``pattern``; ``PatternError`` if refused.

    >>> bool(compile_pattern(r"^\\w+$").search("école"))
    False
    """
    text = translate(pattern)
    try:
        return re.compile(text, re.ASCII)
    except (re.error, OverflowError, RecursionError) as exc:
        raise PatternError(f"not a valid regular expression ({str(exc)[:60]})") from None
