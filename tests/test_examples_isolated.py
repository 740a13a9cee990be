"""Every example runs with nothing but the package, or says in one line what to install.

The examples run under a fresh virtual environment that has no packages at all (not even the
test extra), the way a reader who only cloned the repository runs them.
"""

import ast
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.py"))
BARE = {"quickstart.py", "records.py", "tool_schema.py", "chat_backend.py"}  # need nothing but the package


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    env_dir = tmp_path_factory.mktemp("bare-venv")
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(env_dir)
    python = str(env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))
    probe = subprocess.run([python, "-I", "-c", "import mcp"], capture_output=True, text=True, timeout=60)
    assert probe.returncode != 0, "the bare environment must not see the test extra"
    return python


def run(python: str, script: Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, "-I", str(script)], capture_output=True, text=True, cwd=cwd, timeout=300, env=env)


def test_there_are_examples() -> None:
    assert BARE <= {path.name for path in EXAMPLES}


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_bare_or_names_the_install(script: Path, bare_python: str, tmp_path: Path) -> None:
    header = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
    result = run(bare_python, script, tmp_path)
    if script.name in BARE:
        assert result.returncode == 0, result.stderr
    if result.returncode == 0:
        assert result.stdout.strip() and not result.stderr.strip()
        return
    # Not runnable bare: one line naming the install, and the script's header says so too.
    assert result.returncode == 1 and not result.stdout.strip()
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"examples/{script.name} needs "), lines[0]
    wanted = re.findall(r"pip install (\S+)", lines[0])
    assert wanted, "the message names the install command"
    for package in wanted:
        assert package.strip("()") in header, f"the header of {script.name} does not mention {package}"



def test_processors_names_the_test_extra(bare_python: str, tmp_path: Path) -> None:
    result = run(bare_python, EXAMPLES[0].parent / "processors.py", tmp_path)
    assert result.stderr.strip() == (
        'examples/processors.py needs the MCP Python SDK for its test server: '
        'python -m pip install -e ".[test]" (or: python -m pip install mcp)'
    )


def test_processors_names_tesseract_when_it_is_missing(tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the test extra provides mcp")
    empty = tmp_path / "bin"
    empty.mkdir()  # a PATH with no tesseract on it
    result = run(sys.executable, EXAMPLES[0].parent / "processors.py", tmp_path, env={"PATH": str(empty)})
    assert result.returncode == 1
    assert result.stderr.strip() == "examples/processors.py needs Tesseract for OCR: apt-get install tesseract-ocr"
