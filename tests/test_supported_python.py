"""On a Python older than 3.10, ``import agentmsg`` says which Python it needs, in one line."""

import glob
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def old_pythons() -> list[str]:
    """Interpreters older than 3.10 on this machine: python3.9 ... python3.6 on PATH or under pyenv."""
    found = []
    for minor in range(9, 5, -1):
        name = f"python3.{minor}"
        candidates = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/3.{minor}.*/bin/{name}")))
        candidates.append(shutil.which(name) or "")  # a pyenv shim may exist and not work: try it
        for path in candidates:
            if path and os.access(path, os.X_OK) and runs(path, minor):
                found.append(path)
                break
    return found


def runs(python: str, minor: int) -> bool:
    try:
        result = subprocess.run([python, "-c", "import sys; print(sys.version_info[1])"],
                                capture_output=True, text=True, timeout=60)
    except OSError:
        return False
    return result.returncode == 0 and result.stdout.strip() == str(minor)


OLD = old_pythons()


@pytest.mark.skipif(not OLD, reason="no Python older than 3.10 is installed here to try the import with")
@pytest.mark.parametrize("python", OLD[:2], ids=lambda path: Path(path).name)
def test_old_python_gets_a_clear_error(python: str) -> None:
    version = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=60).stdout.strip()
    assert tuple(map(int, version.split("."))) < (3, 10)
    for code in ("import agentmsg", "from agentmsg.providers import openai", "import agentmsg.validate"):
        result = subprocess.run([python, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); {code}"],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 1
        last = result.stderr.strip().splitlines()[-1]
        assert last == f"ImportError: agentmsg needs Python 3.10 or newer; this is Python {version}", result.stderr
        assert "slots" not in result.stderr and "TypeError" not in result.stderr
