"""Shared test settings: hypothesis profiles, the e2e tier, and the programs and servers tests share."""

import contextlib
import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis profiles: "ci" (.ci/run sets HYPOTHESIS_PROFILE=ci) runs every test's own example count,
# @settings(max_examples=N), and 150 where a test names none; "default", for a quick local run, a sixth.
settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("default", settings.get_profile("ci"), max_examples=25)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# The helper modules beside the tests hold no doctests; --doctest-modules would import each of them (the
# MCP SDK with tests/mcp_server.py) in every worker for nothing.
collect_ignore = [path.name for path in Path(__file__).parent.glob("*.py") if not path.name.startswith("test_")]


def pytest_configure(config: pytest.Config) -> None:
    """Deselect the e2e tests under AGENTMSG_E2E=0, as ``-m "not e2e"`` does."""
    if os.environ.get("AGENTMSG_E2E") == "0":
        expression = config.option.markexpr
        config.option.markexpr = f"({expression}) and not e2e" if expression else "not e2e"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Scale the example count a hypothesis test names itself to the loaded profile (a sixth by default)."""
    share = settings.default.max_examples / settings.get_profile("ci").max_examples
    scaled: set[int] = set()
    for item in items:
        test = getattr(item, "obj", None)
        test = getattr(test, "__func__", test)  # a method's function
        # what @given and @settings leave on the test; hypothesis reads it when the test runs
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if share == 1 or own is None or own.max_examples == settings.default.max_examples or id(test) in scaled:
            continue  # a test that names no count follows the profile already
        scaled.add(id(test))
        test._hypothesis_internal_use_settings = settings(own, max_examples=max(1, round(own.max_examples * share)))


def require_program(name: str, debian_package: str) -> str:
    """Return the path of a program an end-to-end test needs, or fail naming the Debian package."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: apt-get install {debian_package} (tests/apt-packages.txt lists it)")
    return path


@contextlib.contextmanager
def exclusive(name: str) -> Iterator[None]:
    """Hold a lock named ``name`` across processes (xdist workers, parallel runs) for the block."""
    digest = hashlib.sha256(name.encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"agentmsg-tests-{digest}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def npm_ci(folder: Path, timeout: float) -> None:
    """Install ``folder``'s pinned packages (``npm ci``) into its node_modules, which appears whole.

    npm runs in a staging folder beside it, whose node_modules then replaces the old one by renames,
    so a test in another process never reads a half-installed package. One install at a time per folder.
    """
    npm = require_program("npm", "npm")
    with exclusive(str(folder.resolve())), tempfile.TemporaryDirectory(dir=folder, prefix=".npm-ci-") as staging:
        for name in ("package.json", "package-lock.json"):
            shutil.copy2(folder / name, staging)
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=staging, capture_output=True, text=True,
                              timeout=timeout)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        target = folder / "node_modules"
        if target.exists():
            target.rename(Path(staging) / "old_node_modules")  # removed with the staging folder
        (Path(staging) / "node_modules").rename(target)


@pytest.fixture(scope="session")
def postgres_url():  # type: ignore[no-untyped-def]
    """A PostgreSQL server for this test session (started on first use, removed at the end): its URL.

    Tests that use it are heavy end-to-end tests: mark them ``@pytest.mark.e2e``. Under xdist each
    worker that runs one starts its own server (a free port, a temp dir of its own).
    ``postgres_server.fresh_schema_url`` gives a test its own empty schema on it.
    """
    from postgres_server import postgres_bindir, running_postgres

    postgres_bindir()  # fails naming the Debian package when PostgreSQL is not installed
    with running_postgres() as url:
        yield url


@pytest.fixture
def ctrl_c():
    """Ctrl-C raises KeyboardInterrupt during the test, even where the runner was started with SIGINT
    ignored (a background job of a non-interactive shell inherits SIG_IGN, and Python keeps it)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Give this pytest process its own MCP fork server socket (tests/mcp_forkserver.py starts it on first use)."""
    os.environ["AGENTMSG_MCP_FORKSERVER"] = str(Path(tempfile.mkdtemp(prefix="agentmsg-mcp-")) / "fork")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Stop this process's MCP fork server, if a test started it, and remove its folder."""
    path = Path(os.environ.pop("AGENTMSG_MCP_FORKSERVER", ""))
    if not path.name:
        return
    with contextlib.suppress(OSError, ValueError):
        pid = int(path.with_suffix(".pid").read_text())
        if str(path).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():  # it, not a process that took its pid
            os.kill(pid, signal.SIGTERM)
    shutil.rmtree(path.parent, ignore_errors=True)
