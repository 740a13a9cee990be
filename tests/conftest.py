"""Shared test settings: a bounded hypothesis profile so the suite stays quick on four Pythons."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    max_examples=int(os.environ.get("AGENTMSG_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("default")


import shutil  # noqa: E402

import pytest  # noqa: E402

# Heavy end-to-end tests (a browser, PostgreSQL, Redis, npm clients) run wherever README's test command
# runs; .ci/run sets AGENTMSG_E2E=0 on all Pythons but one so the CI stays within its time.
e2e = pytest.mark.skipif(
    os.environ.get("AGENTMSG_E2E") == "0",
    reason="heavy end-to-end test: .ci/run runs it on Python 3.11 only (AGENTMSG_E2E=0 here)",
)


def require_program(name: str, debian_package: str) -> str:
    """Return the path of a program an end-to-end test needs, or fail naming the Debian package."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: apt-get install {debian_package} (tests/apt-packages.txt lists it)")
    return path


@pytest.fixture(scope="session")
def postgres_url():  # type: ignore[no-untyped-def]
    """A PostgreSQL server for this test session (started on first use, removed at the end): its URL.

    Tests that use it are heavy end-to-end tests: mark them ``@e2e``. ``postgres_server.fresh_schema_url``
    gives a test its own empty schema on it.
    """
    from postgres_server import postgres_bindir, running_postgres

    postgres_bindir()  # fails naming the Debian package when PostgreSQL is not installed
    with running_postgres() as url:
        yield url


@pytest.fixture
def ctrl_c():
    """Ctrl-C raises KeyboardInterrupt during the test, even where the runner was started with SIGINT
    ignored (a background job of a non-interactive shell inherits SIG_IGN, and Python keeps it)."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
