"""MCP resources: what a server lists and sends back, and a cache that resolves ``McpResource`` records.

>>> cache = ResourceCache({}, max_age=3600, max_age_by_mime={"image/*": 60})
>>> cache.max_age_for("file:///logo.png", "image/png"), cache.max_age_for("file:///a.md", "text/markdown")
(60.0, 3600.0)

``resource_info`` reads one entry of a ``resources/list`` reply, ``resource_template`` one of a
``resources/templates/list`` reply, ``resource_contents`` the contents of a ``resources/read``
reply; each raises ``McpError(code="protocol")`` for a malformed one (the client names its server
in the message). ``ResourceCache`` sits in front of one or more clients and turns pending
``McpResource`` records into retrieved or failed ones; an entry whose resource the server said
was updated (a subscription's ``notifications/resources/updated``) is stale at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol

from ...records import McpResource
from .protocol import McpError

__all__ = ["McpResourceInfo", "McpResourceTemplate", "ResourceCache"]


@dataclass(frozen=True, slots=True)
class McpResourceInfo:
    """Describe one resource a server lists (``resources/list``): URI, name and MIME type.

    >>> McpResourceInfo("file:///a.md", "a.md", mime_type="text/markdown")
    McpResourceInfo(uri='file:///a.md', name='a.md', mime_type='text/markdown')
    """

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None

    def __repr__(self) -> str:
        return f"McpResourceInfo(uri={self.uri!r}, name={self.name!r}, mime_type={self.mime_type!r})"


@dataclass(frozen=True, slots=True)
class McpResourceTemplate:
    """Describe one resource template a server lists (``resources/templates/list``): an RFC 6570 URI template.

    >>> McpResourceTemplate("file:///{path}", "Project Files", mime_type="application/octet-stream")
    McpResourceTemplate(uri_template='file:///{path}', name='Project Files', mime_type='application/octet-stream')
    """

    uri_template: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None

    def __repr__(self) -> str:
        return f"McpResourceTemplate(uri_template={self.uri_template!r}, name={self.name!r}, mime_type={self.mime_type!r})"


def resource_template(item: object, index: int) -> McpResourceTemplate:
    """Return entry ``index`` of a ``resources/templates/list`` reply as an ``McpResourceTemplate``."""
    return McpResourceTemplate(*_listed(item, "resources/templates/list", f"resourceTemplates[{index}]", "uriTemplate"))


def resource_info(item: object, index: int) -> McpResourceInfo:
    """Return entry ``index`` of a ``resources/list`` reply as an ``McpResourceInfo``."""
    fields = _listed(item, "resources/list", f"resources[{index}]", "uri")
    size = item.get("size") if isinstance(item, dict) else None
    return McpResourceInfo(*fields, size if isinstance(size, int) and not isinstance(size, bool) else None)


def _listed(item: object, method: str, where: str, key: str) -> tuple[str, str, str | None, str | None, str | None]:
    """Return a listed entry's ``key`` (its URI or URI template), name, title, description and MIME type."""
    if not isinstance(item, dict):
        raise McpError(f"malformed reply to {method}: {where} must be an object", "protocol")
    first, name = item.get(key), item.get("name")
    if not isinstance(first, str) or not first or not isinstance(name, str):
        raise McpError(f"malformed reply to {method}: {where} needs a {key} and a name", "protocol")
    return first, name, _opt_str(item, "title"), _opt_str(item, "description"), _opt_str(item, "mimeType")


def resource_contents(result: Mapping[str, Any]) -> tuple[dict[str, Any], ...]:
    """Return the contents of a ``resources/read`` result: dicts with uri, mimeType, and text or blob.

    Each item has exactly one of ``text`` (a string) and ``blob`` (base64 text).
    """
    contents = result.get("contents")
    if not isinstance(contents, list):
        raise McpError("malformed reply to resources/read: contents must be an array", "protocol")
    out = []
    for index, item in enumerate(contents):
        where = f"contents[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
            raise McpError(f"malformed reply to resources/read: {where} needs a uri", "protocol")
        text, blob = item.get("text"), item.get("blob")
        if (text is None) == (blob is None) or not isinstance(text if blob is None else blob, str):
            raise McpError(
                f"malformed reply to resources/read: {where} needs exactly one of text and blob (a string)",
                "protocol",
            )
        mime = item.get("mimeType")
        out.append({"uri": item["uri"], "mimeType": mime if isinstance(mime, str) else None, "text": text, "blob": blob})
    return tuple(out)


def _opt_str(item: Mapping[str, Any], key: str) -> str | None:
    value = item.get(key)
    return value if isinstance(value, str) else None

# --- the resource cache ------------------------------------------------------------------------


class ResourceReader(Protocol):
    """What ``ResourceCache`` needs of a client (``McpClient`` is one): a name and ``read_resource``.

    A client that also has ``resource_version(uri)`` (a number that changes when the server says
    the resource was updated) gets its stale entries refetched at once.
    """

    name: str

    def read_resource(self, uri: str) -> tuple[dict[str, Any], ...]: ...


def _version(client: ResourceReader, uri: str) -> int:
    version = getattr(client, "resource_version", None)
    return version(uri) if version is not None else 0


@dataclass(frozen=True, slots=True)
class _Cached:
    text: str | None
    blob: str | None
    mime_type: str | None
    retrieved_at: datetime
    fetched: float
    version: int


class ResourceCache:
    """Resolve ``McpResource`` records through MCP clients, reusing fresh copies.

    >>> cache = ResourceCache({}, max_age_by_scheme={"file": 10})
    >>> cache.max_age_for("file:///a.txt", None), cache.max_age_for("https://x/y", None)
    (10.0, 3600.0)
    >>> record = McpResource(id="m1", server="docs", uri="file:///a.txt")
    >>> cache.resolve(record).error
    "no MCP server named 'docs' is configured"

    ``max_age`` (seconds, default one hour) is how long a fetched resource stays fresh;
    ``max_age_by_mime`` (exact types, or ``"image/*"``) and ``max_age_by_scheme`` (``"file"``)
    override it, in that order of precedence. Asking again for a fresh resource returns the
    cached content (with its original ``retrieved_at``); an older one is fetched again, and so is
    one the server said was updated since (``McpClient.subscribe``). Keep one
    cache per conversation context. Errors never escape ``resolve``: the record comes back
    failed, and nothing is cached, so resolving it again retries. ``clients`` is one
    ``McpClient``, a mapping of server names to clients, or an iterable of clients (each under its
    ``name``).
    """

    def __init__(
        self,
        clients: ResourceReader | Mapping[str, ResourceReader] | Iterable[ResourceReader],
        *,
        max_age: float = 3600.0,
        max_age_by_mime: Mapping[str, float] | None = None,
        max_age_by_scheme: Mapping[str, float] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(clients, Mapping):
            self._clients: dict[str, ResourceReader] = dict(clients)
        elif isinstance(clients, Iterable):
            self._clients = {c.name: c for c in clients}
        elif hasattr(clients, "read_resource"):  # one client
            self._clients = {clients.name: clients}
        else:
            raise TypeError("clients must be an McpClient, a mapping of names to clients, or an iterable of clients")
        self.max_age = _seconds(max_age, "max_age")
        self._by_mime = {k.lower(): _seconds(v, f"max_age_by_mime[{k!r}]") for k, v in (max_age_by_mime or {}).items()}
        self._by_scheme = {
            k.lower().rstrip(":"): _seconds(v, f"max_age_by_scheme[{k!r}]") for k, v in (max_age_by_scheme or {}).items()
        }
        self._clock = clock
        self._entries: dict[tuple[str, str], _Cached] = {}
        self._lock = threading.Lock()
        self.fetches = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"ResourceCache(servers={sorted(self._clients)!r}, entries={len(self._entries)})"

    def max_age_for(self, uri: str, mime_type: str | None) -> float:
        """Return the freshness limit (seconds) for a resource with this URI and MIME type."""
        if mime_type:
            mime = mime_type.split(";", 1)[0].strip().lower()
            if mime in self._by_mime:
                return self._by_mime[mime]
            wildcard = mime.split("/", 1)[0] + "/*"
            if wildcard in self._by_mime:
                return self._by_mime[wildcard]
        scheme = uri.split(":", 1)[0].lower() if ":" in uri else ""
        return self._by_scheme.get(scheme, self.max_age)

    def invalidate(self, server: str | None = None, uri: str | None = None) -> None:
        """Forget cached entries (all of them, one server's, or one resource)."""
        with self._lock:
            for key in list(self._entries):
                if (server is None or key[0] == server) and (uri is None or key[1] == uri):
                    del self._entries[key]

    def resolve(self, record: McpResource) -> McpResource:
        """Return ``record`` retrieved (from the cache when fresh, else from its server) or failed."""
        if not isinstance(record, McpResource):
            raise TypeError(f"expected an McpResource record, got {type(record).__name__}")
        key = (record.server, record.uri)
        with self._lock:
            entry = self._entries.get(key)
        client = self._clients.get(record.server)
        if (
            entry is not None
            and self._clock() - entry.fetched <= self.max_age_for(record.uri, entry.mime_type)
            and (client is None or entry.version == _version(client, record.uri))
        ):
            return record.retrieve(
                text=entry.text, blob=entry.blob, mime_type=entry.mime_type, retrieved_at=entry.retrieved_at
            )
        if client is None:
            return record.fail(f"no MCP server named {record.server[:80]!r} is configured")
        version = _version(client, record.uri)  # read before the fetch: an update during it counts
        try:
            contents = client.read_resource(record.uri)
        except McpError as exc:
            return record.fail(exc.message)
        except RuntimeError:  # a client that was never started
            return record.fail(f"MCP server {record.server[:80]!r} is not started")
        now = datetime.now(timezone.utc)
        if not contents:
            return record.fail(f"MCP server {record.server[:80]!r} returned no contents for the resource")
        item = next((c for c in contents if c["uri"] == record.uri), contents[0])
        entry = _Cached(item["text"], item["blob"], item["mimeType"] or record.mime_type, now, self._clock(), version)
        try:
            resolved = record.retrieve(
                text=entry.text, blob=entry.blob, mime_type=entry.mime_type, retrieved_at=entry.retrieved_at
            )
        except ValueError as exc:  # e.g. a blob that is not base64, a bad MIME type
            return record.fail(f"MCP server {record.server[:80]!r} sent unusable content ({exc})")
        with self._lock:
            self._entries[key] = entry
            self.fetches += 1
        return resolved

    def get(self, server: str, uri: str) -> McpResource:
        """Return a new record for ``uri`` on ``server``, resolved (see ``resolve``)."""
        return self.resolve(McpResource(server=server, uri=uri))


def _seconds(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0:
        raise TypeError(f"{name} must be a number of seconds >= 0")
    return float(value)
