"""File references: read the files (or lines) a conversation points at, within a workspace.

>>> import os, tempfile
>>> root = tempfile.mkdtemp()
>>> with open(os.path.join(root, "notes.txt"), "w") as f:
...     _ = f.write("one\\ntwo\\nthree\\n")
>>> resolver = FileResolver(root, role=PLANNER)
>>> resolver.resolve(FileReference(id="f1", path="notes.txt", start_line=2, end_line=3)).content
'two\\nthree'
>>> FileResolver(root, role=GUEST).resolve(FileReference(id="f2", path="notes.txt")).error
"role 'guest' lacks the 'read' permission"

Theory of operation. ``FileResolver.resolve`` takes a pending (or failed, to retry)
``FileReference`` record and returns a new one, resolved with the text of the referenced lines or
failed with a clear error; no exception escapes for a bad file. ``FileResolver.read`` is the same
read as a plain function that raises ``FileAccessError`` (with a stable ``code``). A relative path
is joined to the workspace root, then every symbolic link is followed and the real path must
still lie inside the real root; an absolute path is read as it is (``confine_absolute=True``
applies the same check to it). The file is opened without blocking (a FIFO cannot hang the
read), must be a regular file, no larger than ``max_bytes``, and UTF-8 text (a BOM is dropped;
NUL bytes mean binary). Lines are split on ``\\n`` only (``\\r\\n`` counts as one break), so
line numbers match what editors show.
"""

from __future__ import annotations

import os
import stat
from ..errors import ProcessingError
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from ..records import FileReference

__all__ = [
    "Permission",
    "AgentRole",
    "PLANNER",
    "CODER",
    "REVIEWER",
    "GUEST",
    "ROLES",
    "FileAccessError",
    "FileResolver",
]


class Permission(str, Enum):
    """What an agent role may do with files: ``read``, ``write``, ``execute``.

    >>> Permission("read") is Permission.READ, str(Permission.WRITE)
    (True, 'write')
    """

    READ = "read"
    WRITE = "write"
    EXECUTE = "execute"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class AgentRole:
    """Name an agent role and the set of file permissions it holds.

    >>> role = AgentRole("auditor", frozenset({Permission.READ}))
    >>> role.allows(Permission.READ), role.allows("write"), role
    (True, False, AgentRole(name='auditor', permissions=('read',)))
    """

    name: str
    permissions: frozenset[Permission]

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError("role name must be a non-empty string")
        if isinstance(self.permissions, str) or not isinstance(self.permissions, Iterable):
            raise TypeError("permissions must be a collection of Permission values")
        object.__setattr__(self, "permissions", frozenset(Permission(p) for p in self.permissions))

    def allows(self, permission: "Permission | str") -> bool:
        """Return True if this role holds ``permission``."""
        return Permission(permission) in self.permissions

    def __repr__(self) -> str:
        names = tuple(sorted(p.value for p in self.permissions))
        return f"AgentRole(name={self.name!r}, permissions={names!r})"


PLANNER = AgentRole("planner", frozenset({Permission.READ}))
CODER = AgentRole("coder", frozenset({Permission.READ, Permission.WRITE, Permission.EXECUTE}))
REVIEWER = AgentRole("reviewer", frozenset({Permission.READ}))
GUEST = AgentRole("guest", frozenset())
ROLES = {role.name: role for role in (PLANNER, CODER, REVIEWER, GUEST)}


class FileAccessError(ProcessingError):
    """A referenced file could not be read; ``code`` names the reason.

    >>> err = FileAccessError("is a directory", "directory")
    >>> err.code, str(err)
    ('directory', 'is a directory')

    Codes: ``permission`` (the role lacks a permission), ``no_root`` (a relative path with no
    workspace root), ``escape`` (the path leaves the workspace), ``not_found``, ``directory``,
    ``not_regular`` (a device, FIFO or socket), ``too_large``, ``binary`` (not UTF-8 text),
    ``line_range`` (lines outside the file), ``os`` (any other operating-system error).
    """


_O_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


class FileResolver:
    """Resolve ``FileReference`` records under a workspace root, for an agent role.

    >>> FileResolver(None).resolve(FileReference(id="f", path="src/app.py")).error
    'a relative path needs a workspace root (FileResolver(root=...))'

    ``max_bytes`` (default 1 MiB) bounds the size of a file read; ``role`` (default ``CODER``)
    must hold ``read``.
    """

    def __init__(
        self,
        root: "str | os.PathLike[str] | None" = None,
        *,
        role: AgentRole = CODER,
        max_bytes: int = 1024 * 1024,
        confine_absolute: bool = False,
    ) -> None:
        if not isinstance(role, AgentRole):
            raise TypeError(f"role must be an AgentRole (e.g. PLANNER), got {type(role).__name__}")
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
            raise TypeError("max_bytes must be an int >= 0")
        self.root = None if root is None else os.path.abspath(os.fspath(root))
        self.role = role
        self.max_bytes = max_bytes
        self.confine_absolute = bool(confine_absolute)

    def __repr__(self) -> str:
        return f"FileResolver(root={self.root!r}, role={self.role.name!r}, max_bytes={self.max_bytes})"

    def resolve(self, ref: FileReference) -> FileReference:
        """Return ``ref`` resolved with the referenced text, or failed with the reason.

        A resolved record is returned unchanged; a failed one is tried again.
        """
        if not isinstance(ref, FileReference):
            raise TypeError(f"expected a FileReference record, got {type(ref).__name__}")
        if ref.status == "resolved":
            return ref
        try:
            return ref.resolve(self.read(ref.path, ref.start_line, ref.end_line))
        except FileAccessError as exc:
            return ref.fail(exc.message)

    def read(self, path: str, start_line: int | None = None, end_line: int | None = None) -> str:
        """Return the text of ``path`` (or of lines ``start_line``..``end_line``), raising ``FileAccessError``.

        ``start_line`` alone reads to the end of the file. Lines are joined with ``\\n``.
        """
        if not self.role.allows(Permission.READ):
            raise FileAccessError(f"role {self.role.name!r} lacks the 'read' permission", "permission")
        real = self._locate(path)
        data = self._load(real)
        if b"\x00" in data:
            raise FileAccessError("not a text file (it holds NUL bytes)", "binary")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise FileAccessError("not a text file (not valid UTF-8)", "binary") from None
        if start_line is None:
            if end_line is not None:
                raise FileAccessError("end_line needs a start_line", "line_range")
            return text
        return _lines(text, start_line, end_line)

    def _locate(self, path: str) -> str:
        if not isinstance(path, str) or not path:
            raise FileAccessError("the path must be a non-empty string", "not_found")
        absolute = os.path.isabs(path)
        if not absolute and self.root is None:
            raise FileAccessError("a relative path needs a workspace root (FileResolver(root=...))", "no_root")
        joined = path if absolute or self.root is None else os.path.join(self.root, path)
        if absolute and not self.confine_absolute:
            return os.path.realpath(joined)
        if self.root is None:
            raise FileAccessError("confine_absolute needs a workspace root", "no_root")
        root = os.path.realpath(self.root)
        lexical = os.path.normpath(joined)
        if not _inside(lexical, os.path.normpath(self.root)) and not _inside(lexical, root):
            raise FileAccessError("the path escapes the workspace root", "escape")
        real = os.path.realpath(joined)
        if not _inside(real, root):
            raise FileAccessError("the path escapes the workspace root through a symbolic link", "escape")
        return real

    def _load(self, real: str) -> bytes:
        try:
            fd = os.open(real, _O_FLAGS)
        except FileNotFoundError:
            raise FileAccessError("no such file", "not_found") from None
        except NotADirectoryError:
            raise FileAccessError("no such file (a parent is not a directory)", "not_found") from None
        except IsADirectoryError:
            raise FileAccessError("is a directory, not a file", "directory") from None
        except PermissionError:
            raise FileAccessError("the operating system refused to open the file", "os") from None
        except OSError as exc:
            raise FileAccessError(f"could not open the file ({exc.strerror or type(exc).__name__})", "os") from None
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise FileAccessError("is a directory, not a file", "directory")
            if not stat.S_ISREG(info.st_mode):
                raise FileAccessError("not a regular file (a device, FIFO or socket)", "not_regular")
            if info.st_size > self.max_bytes:
                raise FileAccessError(
                    f"the file is {info.st_size} bytes, over the limit of {self.max_bytes}", "too_large"
                )
            chunks = []
            remaining = self.max_bytes + 1
            while remaining > 0:
                chunk = os.read(fd, min(remaining, 1024 * 1024))
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
            data = b"".join(chunks)
            if len(data) > self.max_bytes:
                raise FileAccessError(f"the file grew over the limit of {self.max_bytes} bytes", "too_large")
            return data
        except OSError as exc:
            raise FileAccessError(f"could not read the file ({exc.strerror or type(exc).__name__})", "os") from None
        finally:
            os.close(fd)


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives on Windows
        return False


def _lines(text: str, start: int, end: int | None) -> str:
    """Return lines ``start``..``end`` (1-indexed, inclusive) of ``text``, joined with ``\\n``."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # a trailing newline ends the last line, it does not start a new one
    count = len(lines)
    if start < 1 or (end is not None and end < start):
        raise FileAccessError("the line range is invalid (1-indexed, end_line >= start_line)", "line_range")
    if start > count:
        raise FileAccessError(f"start_line {start} is past the end of the file ({count} lines)", "line_range")
    if end is not None and end > count:
        raise FileAccessError(f"end_line {end} is past the end of the file ({count} lines)", "line_range")
    chosen = lines[start - 1 : count if end is None else end]
    return "\n".join(line[:-1] if line.endswith("\r") else line for line in chosen)
