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
read as a plain function that raises ``FileAccessError`` (with a stable ``code``).

Confinement is the default: a relative path is taken from the workspace root, and an absolute
path must lie inside it (``confine_absolute=False`` is the explicit opt-in to read anywhere the
process can). Paths are compared as paths, never as text prefixes (root ``ws`` does not contain
``ws-secret``). On POSIX the file is opened one component at a time from a descriptor of the
root, never letting the kernel follow a symbolic link: each link is read and resolved here,
``..`` never climbs above the root, so swapping a directory for a link while a read is under
way cannot escape the root (the check and the open are one step). Elsewhere, the opened file's
identity is compared with the checked path's. The file is opened without blocking (a FIFO cannot
hang the read), must be a regular file, no larger than ``max_bytes``, and UTF-8 text (a BOM is
dropped; NUL bytes mean binary). Lines are split on ``\\n`` only (``\\r\\n`` counts as one
break), so line numbers match what editors show and what the context renders.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from .._lines import split_lines
from ..errors import ProcessingError
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

    Codes: ``permission`` (the role lacks a permission), ``no_root`` (no workspace root to
    confine the path in), ``escape`` (the path leaves the workspace), ``path`` (not a usable file
    name: empty, not a string, a NUL byte, a lone surrogate), ``not_found``, ``directory``,
    ``not_regular`` (a device, FIFO or socket), ``too_large``, ``binary`` (not UTF-8 text),
    ``line_range`` (lines outside the file, or not integers), ``os`` (any other operating-system
    error, including a file changed while it was being opened).
    """


_O_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


class FileResolver:
    """Resolve ``FileReference`` records under a workspace root, for an agent role.

    >>> FileResolver(None).resolve(FileReference(id="f", path="src/app.py")).error
    'a relative path needs a workspace root (FileResolver(root=...))'

    ``max_bytes`` (default 1 MiB) bounds the size of a file read; ``role`` (default ``CODER``)
    must hold ``read``. Every path is confined to ``root``; ``confine_absolute=False`` lets
    absolute paths read anywhere (an explicit opt-in).
    """

    def __init__(
        self,
        root: "str | os.PathLike[str] | None" = None,
        *,
        role: AgentRole = CODER,
        max_bytes: int = 1024 * 1024,
        confine_absolute: bool = True,
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
        except OSError as exc:  # anything the mapping missed still fails only this record
            return ref.fail(f"could not read the file ({type(exc).__name__})")

    def read(self, path: str, start_line: int | None = None, end_line: int | None = None) -> str:
        """Return the text of ``path`` (or of lines ``start_line``..``end_line``), raising ``FileAccessError``.

        ``start_line`` alone reads to the end of the file. Lines are joined with ``\\n``.
        """
        if not self.role.allows(Permission.READ):
            raise FileAccessError(f"role {self.role.name!r} lacks the 'read' permission", "permission")
        if start_line is not None and type(start_line) is not int:
            raise FileAccessError("start_line must be an integer", "line_range")
        if end_line is not None and type(end_line) is not int:
            raise FileAccessError("end_line must be an integer", "line_range")
        data = _read_fd(open_confined(self.root, path, self.confine_absolute), self.max_bytes)
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


def open_confined(root: str | None, path: object, confine_absolute: bool = True) -> int:
    """Return a read-only, non-blocking descriptor of ``path`` under ``root``, raising ``FileAccessError``.

    >>> try:
    ...     open_confined(None, "notes.txt")
    ... except FileAccessError as exc:
    ...     print(exc.code, exc)
    no_root a relative path needs a workspace root (FileResolver(root=...))

    The caller closes the descriptor. This is the one way agentmsg opens a file a conversation
    names (``FileResolver`` and OCR's ``image_bytes`` use it).
    """
    if not isinstance(path, str) or not path:
        raise FileAccessError("the path must be a non-empty string", "path")
    if "\x00" in path:
        raise FileAccessError("the path holds a NUL byte", "path")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise FileAccessError("the path holds a lone surrogate (not valid UTF-8)", "path") from None
    absolute = os.path.isabs(path)
    if absolute and not confine_absolute:
        return _open_plain(path)
    if root is None:
        if absolute:
            raise FileAccessError(
                "an absolute path needs a workspace root to be confined in "
                "(FileResolver(root=...), or confine_absolute=False to read anywhere)",
                "no_root",
            )
        raise FileAccessError("a relative path needs a workspace root (FileResolver(root=...))", "no_root")
    root = os.path.abspath(root)
    try:
        real_root = os.path.realpath(root)
    except (OSError, ValueError):
        raise FileAccessError("the workspace root cannot be resolved", "no_root") from None
    if absolute:
        lexical = os.path.normpath(path)
        if _inside(lexical, real_root):
            relative = os.path.relpath(lexical, real_root)
        elif _inside(lexical, root):
            relative = os.path.relpath(lexical, root)
        else:
            raise FileAccessError("the path escapes the workspace root", "escape")
    else:
        relative = path
        if not _inside(os.path.normpath(os.path.join(root, path)), root):
            raise FileAccessError("the path escapes the workspace root", "escape")
    if _BENEATH:
        return _open_beneath(real_root, relative)
    return _open_checked(real_root, os.path.join(real_root, relative))


_O_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BENEATH = bool(_O_NOFOLLOW) and os.open in os.supports_dir_fd and os.readlink in os.supports_dir_fd
_MAX_LINKS = 40
_ESCAPE_LINK = "the path escapes the workspace root through a symbolic link"


def _open_beneath(real_root: str, relative: str) -> int:
    """Open ``relative`` from ``real_root`` one component at a time, resolving links here, never above the root."""
    try:
        root_fd = os.open(real_root, _O_DIR)
    except OSError as exc:
        raise _os_error(exc, "the workspace root cannot be opened") from None
    stack = [root_fd]
    parts = deque(relative.split(os.sep))
    links = 0
    try:
        while parts:
            name = parts.popleft()
            if name in ("", "."):
                continue
            if name == "..":
                if len(stack) == 1:
                    raise FileAccessError("the path escapes the workspace root", "escape")
                os.close(stack.pop())
                continue
            last = all(p in ("", ".") for p in parts)
            try:
                fd = os.open(name, (_O_FLAGS if last else _O_DIR) | _O_NOFOLLOW, dir_fd=stack[-1])
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise _os_error(exc) from None
                try:
                    target = os.readlink(name, dir_fd=stack[-1])
                except OSError as link_exc:
                    if link_exc.errno == errno.EINVAL:  # not a link: a file where a directory was needed
                        raise FileAccessError("no such file (a parent is not a directory)", "not_found") from None
                    raise _os_error(link_exc) from None
                links += 1
                if links > _MAX_LINKS:
                    raise FileAccessError("too many levels of symbolic links", "os") from None
                if os.path.isabs(target):
                    target = os.path.normpath(target)
                    if not _inside(target, real_root):
                        raise FileAccessError(_ESCAPE_LINK, "escape") from None
                    while len(stack) > 1:
                        os.close(stack.pop())
                    target = os.path.relpath(target, real_root)
                elif _climbs_out(target, len(stack) - 1):
                    raise FileAccessError(_ESCAPE_LINK, "escape") from None
                parts.extendleft(reversed(target.split(os.sep)))
                continue
            if last:
                return fd
            stack.append(fd)
        raise FileAccessError("is a directory, not a file", "directory")
    finally:
        for fd in stack:
            os.close(fd)


def _climbs_out(target: str, depth: int) -> bool:
    """Return True if the relative link ``target``, read ``depth`` levels below the root, climbs above it."""
    for name in target.split(os.sep):
        if name == "..":
            depth -= 1
            if depth < 0:
                return True
        elif name not in ("", "."):
            depth += 1
    return False


def _open_checked(real_root: str, joined: str) -> int:
    """Without ``dir_fd``: resolve, check, open, then check the opened file is the one checked."""
    try:
        real = os.path.realpath(joined)
    except (OSError, ValueError):
        raise FileAccessError("the path cannot be resolved", "not_found") from None
    if not _inside(real, real_root):
        raise FileAccessError(_ESCAPE_LINK, "escape")
    fd = _open_plain(real)
    try:
        opened, checked = os.fstat(fd), os.stat(real)
        same = (opened.st_dev, opened.st_ino) == (checked.st_dev, checked.st_ino)
        if not same or os.path.realpath(joined) != real:
            raise FileAccessError("the file changed while it was being opened", "os")
    except OSError:
        os.close(fd)
        raise FileAccessError("the file changed while it was being opened", "os") from None
    except FileAccessError:
        os.close(fd)
        raise
    return fd


def _open_plain(path: str) -> int:
    try:
        return os.open(path, _O_FLAGS)
    except OSError as exc:
        raise _os_error(exc) from None
    except ValueError:  # a path the platform cannot name
        raise FileAccessError("the path is not a usable file name", "path") from None


def _os_error(exc: OSError, what: str = "") -> FileAccessError:
    """Map an ``OSError`` from opening a file to a ``FileAccessError`` with a stable code."""
    if what:
        return FileAccessError(what, "os")
    if isinstance(exc, FileNotFoundError):
        return FileAccessError("no such file", "not_found")
    if isinstance(exc, NotADirectoryError):
        return FileAccessError("no such file (a parent is not a directory)", "not_found")
    if isinstance(exc, IsADirectoryError):
        return FileAccessError("is a directory, not a file", "directory")
    if isinstance(exc, PermissionError):
        return FileAccessError("the operating system refused to open the file", "os")
    if exc.errno == errno.ELOOP:
        return FileAccessError("too many levels of symbolic links", "os")
    return FileAccessError(f"could not open the file ({exc.strerror or type(exc).__name__})", "os")


def _read_fd(fd: int, max_bytes: int) -> bytes:
    """Read a whole regular file from ``fd`` (closing it), at most ``max_bytes``, raising ``FileAccessError``."""
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise FileAccessError("is a directory, not a file", "directory")
        if not stat.S_ISREG(info.st_mode):
            raise FileAccessError("not a regular file (a device, FIFO or socket)", "not_regular")
        if info.st_size > max_bytes:
            raise FileAccessError(f"the file is {info.st_size} bytes, over the limit of {max_bytes}", "too_large")
        chunks = []
        remaining = max_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1024 * 1024))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        if len(data) > max_bytes:
            raise FileAccessError(f"the file grew over the limit of {max_bytes} bytes", "too_large")
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
    lines = split_lines(text)
    count = len(lines)
    if start < 1 or (end is not None and end < start):
        raise FileAccessError("the line range is invalid (1-indexed, end_line >= start_line)", "line_range")
    if start > count:
        raise FileAccessError(f"start_line {start} is past the end of the file ({count} lines)", "line_range")
    if end is not None and end > count:
        raise FileAccessError(f"end_line {end} is past the end of the file ({count} lines)", "line_range")
    chosen = lines[start - 1 : count if end is None else end]
    return "\n".join(chosen)
