"""The command line: its options, ``--list-kinds``, ``--schema``, and ``main``.

>>> main(["--list-kinds"])  # doctest: +ELLIPSIS, +NORMALIZE_WHITESPACE
chat_message        one chat message {role, content, ...}
conversation        an array of chat messages, checked in order as a ConversationHistory
...
openai_request      an OpenAI (or vLLM) Chat Completions request body {model, messages, tools}
...
0

Each FILE holds one JSON document or JSON Lines (one document per line: detected, or forced with
``--jsonl``); ``-`` reads standard input. Every problem prints as ``FILE:LINE: PATH: message
[KIND]``, then a summary line. Exit status: 0 all valid (warnings allowed, unless ``--strict``),
1 something invalid, 2 usage error, unreadable file, or an interrupted run.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from types import SimpleNamespace

from .. import __version__
from ._reader import check_file
from ._report import DEFAULT_MAX_PROBLEMS, Progress, Run, is_terminal, prog, terminal_columns

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up): type checkers read it as true
if TYPE_CHECKING:
    import argparse
    from typing import IO, Any, NoReturn

    from ._registry import Kind

__all__ = ["main"]

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
_NO_LIMIT = 1 << 62  # the largest --max-bytes kept as given
_UNITS = {"": 1, "k": 1024, "kib": 1024, "m": 1024**2, "mib": 1024**2, "g": 1024**3, "gib": 1024**3}


def _refused(message: str) -> Exception:
    """Return the error argparse reports as ``argument --OPTION: message`` (argparse loads only then)."""
    from argparse import ArgumentTypeError

    return ArgumentTypeError(message)


def _max_bytes(text: str) -> int:
    number = text.strip().lower().rstrip("b")
    digits = number.rstrip("kmgi")
    try:
        value = int(digits) * _UNITS[number[len(digits):]]
    except (ValueError, KeyError):
        raise _refused(f"expected a size like 1048576, 512K or 64M, got {text!r}") from None
    if value < 1:
        raise _refused("must be at least 1 byte")
    return min(value, _NO_LIMIT)  # more than memory can hold is no limit (and fits a C size)


def _count(what: str, least: int) -> Callable[[str], int]:
    """Return the argument type of a whole number of ``what`` (like 2), ``least`` or more."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise _refused(f"expected a number of {what} like 2, got {text[:20]!r}") from None
        if value < least:
            raise _refused(f"must be at least {least}")
        return value

    return parse


def _kinds() -> dict[str, Kind]:
    from ._registry import KINDS  # the kinds load when a document (or an option) needs them

    return KINDS


class _KindNames:
    """The names ``--kind`` and ``--schema`` take, in order: the kinds load only when one is given."""

    def __contains__(self, name: object) -> bool:
        return name in _kinds()

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(_kinds()))


# The options, each listed once, as argparse's ``add_argument`` takes them: ``_parser`` makes the
# parser of ``--help``, ``--version`` and every usage error from them, and ``_read`` reads an
# ordinary command line with them without loading argparse (~20 M instructions, a fifth of the
# command's start-up).
_OPTIONS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (("--kind",), {"choices": _KindNames(), "metavar": "KIND",
                   "help": "check every document as KIND instead of detecting it (see --list-kinds)"}),
    (("--jsonl",), {"action": "store_true", "help": "read every FILE as JSON Lines"}),
    (("--conversation",), {"action": "store_true",
                           "help": "each FILE is one conversation: one chat message per line, checked in order"}),
    (("--format",), {"choices": ("text", "json"), "default": "text", "help": "report format (default: text)"}),
    (("--quiet", "-q"), {"action": "store_true", "help": "print only the summary"}),
    (("--max-bytes",), {"type": _max_bytes, "default": DEFAULT_MAX_BYTES, "metavar": "SIZE",
                        "help": "refuse a document (or JSON Lines line) larger than SIZE (default: 64M)"}),
    (("--jobs", "-j"), {"type": _count("processes", 1), "default": 1, "metavar": "N",
                        "help": "check JSON Lines files in N worker processes (default: 1); same report"}),
    (("--strict",), {"action": "store_true",
                     "help": "report warnings (unknown fields...) as errors: such a document is invalid"}),
    (("--max-problems",), {"type": _count("problems", 0), "default": DEFAULT_MAX_PROBLEMS, "metavar": "N",
                           "help": f"print at most N problems a file, then how many more (default: "
                                   f"{DEFAULT_MAX_PROBLEMS}; 0: all); the counts are of every problem"}),
    (("--list-kinds",), {"action": "store_true", "help": "list the kinds of document and exit"}),
    (("--schema",), {"choices": _KindNames(), "metavar": "KIND", "help": "print the JSON Schema of KIND and exit"}),
    (("--version",), {"action": "version", "version": f"%(prog)s {__version__}"}),
)


def _parser() -> argparse.ArgumentParser:
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            self.print_usage(sys.stderr)
            self.exit(2, f"{self.prog}: error: {message}\n")

    class Formatter(argparse.HelpFormatter):
        """argparse's help formatter, as wide as the terminal (measured without importing ``shutil``)."""

        def __init__(self, prog: str) -> None:
            super().__init__(prog, width=terminal_columns(sys.stdout) - 2)

    parser = Parser(
        prog=prog(),
        formatter_class=Formatter,
        description="Check agentmsg and LLM provider documents (JSON or JSON Lines).",
        epilog="Exit status: 0 all valid, 1 something invalid, 2 usage error or unreadable file.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="a JSON or JSON Lines file; - for standard input")
    for flags, settings in _OPTIONS:
        parser.add_argument(*flags, **settings)
    return parser


def _read(argv: list[str]) -> SimpleNamespace | None:
    """Return the options of an ordinary command line as ``_parser`` would, else None (argparse decides).

    Ordinary: each option spelled in full (``--kind K``, ``--kind=K``, ``-j 2``), each value
    accepted, the files in one run (argparse refuses files on both sides of an option), no
    ``--``, no value beginning with ``-``. Anything else (help, a usage error, an abbreviation)
    is argparse's; ``tests/test_validate.py`` holds the two readings equal.
    """
    known: dict[str, tuple[str, dict[str, Any]]] = {}
    values: dict[str, Any] = {"files": []}
    for flags, settings in _OPTIONS:
        if settings.get("action") == "version":  # argparse's: it prints and exits
            continue
        dest = flags[0][2:].replace("-", "_")
        values[dest] = False if settings.get("action") == "store_true" else settings.get("default")
        known.update((flag, (dest, settings)) for flag in flags)
    files: list[str] = values["files"]
    runs, i = 0, 0
    after_file = False
    while i < len(argv):
        token = argv[i]
        i += 1
        if token == "-" or not token.startswith("-"):
            runs += not after_file
            after_file = True
            files.append(token)
            continue
        after_file = False
        flag, equals, value = token.partition("=")
        entry = known.get(flag)
        if entry is None:
            return None
        dest, settings = entry
        if settings.get("action") == "store_true":
            if equals:
                return None
            values[dest] = True
            continue
        if not equals:
            if i == len(argv) or argv[i].startswith("-"):
                return None
            value = argv[i]
            i += 1
        convert = settings.get("type")
        if convert is not None:
            try:
                values[dest] = convert(value)
            except Exception:
                return None
        elif value in settings["choices"]:
            values[dest] = value
        else:
            return None
    return SimpleNamespace(**values) if runs <= 1 else None


def _list_kinds(out: IO[str]) -> int:
    from ._registry import all_kinds

    width = max(len(kind.name) for kind in all_kinds()) + 2
    for kind in all_kinds():
        out.write(f"{kind.name:<{width}}{kind.summary}\n")
    return 0


def _print_schema(out: IO[str], name: str) -> int:
    kind = _kinds()[name]
    if kind.schema is None:
        print(f"{prog()}: no JSON Schema is shipped for {name}", file=sys.stderr)
        return 2
    from ..formats import json_schema

    out.write(json.dumps(json_schema(kind.schema), indent=2) + "\n")
    return 0


def _run(argv: list[str] | None) -> int:
    args: Any = _read(sys.argv[1:] if argv is None else argv)
    if args is None:
        try:
            args = _parser().parse_args(argv)
        except SystemExit as exc:  # --help, --version, usage errors
            return exc.code if isinstance(exc.code, int) else 2
    out = sys.stdout
    if args.list_kinds:
        return _list_kinds(out)
    if args.schema:
        return _print_schema(out, args.schema)
    if not args.files:
        _parser().print_usage(sys.stderr)
        print(f"{prog()}: error: no FILE given (use - for standard input)", file=sys.stderr)
        return 2
    run = Run(args, out)
    if not args.quiet and is_terminal(sys.stderr):
        run.progress = Progress(sys.stderr)
    with run.warnings_kept():
        for name in args.files:
            check_file(run, name)
    return run.finish()


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    >>> main(["--kind", "chat_message", "--no-such-option"])
    2
    """
    try:
        status = _run(argv)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, and keep Python's own final flush quiet.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 2
    except KeyboardInterrupt:
        print(f"{prog()}: interrupted", file=sys.stderr)
        return 2
    except Exception as exc:  # pragma: no cover - last resort; the tests show no input reaches it
        print(f"{prog()}: internal error: {type(exc).__name__} (please report this bug)", file=sys.stderr)
        return 2
