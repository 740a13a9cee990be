"""``import agentmsg`` loads nothing but the package: every public name loads on first use (PEP 562).

Each check runs in a fresh interpreter (``-I``, this checkout first on ``sys.path``): in the test
process the names are long loaded.
"""

import ast
import subprocess
import sys
from pathlib import Path

import agentmsg

ROOT = Path(agentmsg.__file__).parent.parent
PUBLIC = tuple(name for name in agentmsg.__all__ if name != "__version__")


def run(code: str) -> list[str]:
    """Run ``code`` in a fresh isolated interpreter that imports this checkout; return its output lines."""
    prelude = f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
    result = subprocess.run([sys.executable, "-I", "-W", "error", "-c", prelude + code],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_import_loads_only_the_package() -> None:
    # no submodule, and none of the standard modules the core types need (nor anything else)
    out = run("before = set(sys.modules)\nimport agentmsg\n"
              "print(sorted(set(sys.modules) - before))\n"
              "print(agentmsg.__version__ == '0.1.0.dev0', sorted(k for k in vars(agentmsg) if k in agentmsg.__all__))\n"
              "print(all(m not in sys.modules for m in ('agentmsg.messages', 'dataclasses', 'typing')))")
    assert out == ["['agentmsg']", "True ['__version__']", "True"]


def test_every_public_name_is_the_defining_modules_object() -> None:
    # package first, then the module: the same object; and the table names every public name
    assert set(agentmsg._LAZY) == set(PUBLIC)
    out = run("import importlib, agentmsg\n"
              "for name, module in sorted(agentmsg._LAZY.items()):\n"
              "    value = getattr(agentmsg, name)\n"
              "    print(name, value is getattr(importlib.import_module('agentmsg.' + module), name),\n"
              "          vars(agentmsg)[name] is value)\n")
    assert out == [f"{name} True True" for name in sorted(PUBLIC)]


def test_a_submodule_imported_first_gives_the_same_objects() -> None:
    out = run("import agentmsg.messages\nfrom agentmsg.tools import ToolCall\nimport agentmsg\n"
              "print(agentmsg.ChatMessage is agentmsg.messages.ChatMessage, agentmsg.ToolCall is ToolCall,\n"
              "      'agentmsg.streaming' in sys.modules, 'agentmsg.formats' in sys.modules)")
    assert out == ["True True False False"]


def test_star_import_gives_every_public_name() -> None:
    out = run("import agentmsg\nnamespace = {}\nexec('from agentmsg import *', namespace)\n"
              "print(sorted(k for k in namespace if k != '__builtins__') == sorted(agentmsg.__all__))\n"
              "print(all(namespace[k] is getattr(agentmsg, k) for k in agentmsg.__all__))")
    assert out == ["True", "True"]


def test_dir_lists_every_public_name_without_loading_any() -> None:
    out = run("import agentmsg\nnames = dir(agentmsg)\n"
              "print(sorted(set(agentmsg.__all__) - set(names)), names == sorted(names))\n"
              "print(sorted(m for m in sys.modules if m.startswith('agentmsg.')))")
    assert out == ["[] True", "[]"]


def test_an_unknown_name_raises_attribute_error_naming_it() -> None:
    out = run("import agentmsg\n"
              "try:\n    agentmsg.ChatMesage\nexcept AttributeError as exc:\n    print(exc)\n"
              "try:\n    from agentmsg import chat_message\nexcept ImportError as exc:\n    print(exc.name, 'chat_message' in str(exc))\n"
              "print(hasattr(agentmsg, 'TYPE_CHECKING'), hasattr(agentmsg, '_sys'), hasattr(agentmsg, 'messages'))")
    assert out == ["module 'agentmsg' has no attribute 'ChatMesage'", "agentmsg True", "False True False"]


def test_threads_touching_a_lazy_name_at_once_get_the_same_object() -> None:
    # 8 threads released together ask for names of two unloaded modules; each name is one object
    out = run("import threading, agentmsg\n"
              "names = ('ChatMessage', 'ToolCall', 'ToolCallAccumulator', 'ConversationHistory')\n"
              "barrier = threading.Barrier(8)\nseen = []\n"
              "def worker():\n    barrier.wait()\n    seen.append(tuple(getattr(agentmsg, n) for n in names))\n"
              "threads = [threading.Thread(target=worker) for _ in range(8)]\n"
              "for t in threads: t.start()\n"
              "for t in threads: t.join()\n"
              "import agentmsg.messages, agentmsg.tools, agentmsg.streaming, agentmsg.history\n"
              "expected = (agentmsg.messages.ChatMessage, agentmsg.tools.ToolCall,\n"
              "            agentmsg.streaming.ToolCallAccumulator, agentmsg.history.ConversationHistory)\n"
              "print(len(seen), all(s == expected and all(a is b for a, b in zip(s, expected)) for s in seen))")
    assert out == ["8 True"]


def test_the_package_docstring_example_runs_in_a_fresh_interpreter() -> None:
    # doctest's globals are the module's dict: the example imports what it uses (relatively, as a
    # vendored copy has no top-level agentmsg)
    out = run("import doctest, agentmsg\nprint(doctest.testmod(agentmsg))")
    assert out == ["TestResults(failed=0, attempted=6)"]


def test_type_checkers_see_every_name_from_its_module() -> None:
    # the ``if TYPE_CHECKING:`` imports and the lazy table agree, name by name
    tree = ast.parse((ROOT / "agentmsg" / "__init__.py").read_text(encoding="utf-8"))
    blocks = [node for node in tree.body if isinstance(node, ast.If)
              and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"]
    assert len(blocks) == 1
    static = {}
    for node in blocks[0].body:
        assert isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
        for alias in node.names:
            assert alias.asname is None
            static[alias.name] = node.module
    assert static == agentmsg._LAZY


def test_submodules_and_the_cli_still_import_directly() -> None:
    out = run("from agentmsg.validate import main\nimport agentmsg.content as content\n"
              "print(callable(main), content.TextPart('hi').text)")
    assert out == ["True hi"]
    result = subprocess.run([sys.executable, "-m", "agentmsg.validate", "--help"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage:")


def test_type_hints_of_the_public_dataclasses_still_resolve() -> None:
    # why ``typing`` is still imported at run time by the core modules: get_type_hints (pydantic,
    # the schema builder) needs ``Literal``/``Any`` in each module's globals; in a fresh interpreter
    # so that no other test's imports help
    out = run("import dataclasses, typing, agentmsg\n"
              "names = [n for n in agentmsg.__all__ if dataclasses.is_dataclass(getattr(agentmsg, n))]\n"
              "for name in names:\n    typing.get_type_hints(getattr(agentmsg, name))\n"
              "print(len(names), typing.get_type_hints(agentmsg.ImageSource)['type'])")
    assert out == ["10 typing.Literal['url', 'base64', 'file']"]


def test_the_cli_loads_only_what_its_documents_need(tmp_path: Path) -> None:
    # start-up: an empty file loads no kind, no core type, no codec (nor typing, dataclasses,
    # shutil, logging); valid chat messages take the check-only path: no core type either, nor
    # typing and dataclasses, and still no codec, record or event
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "chat.jsonl").write_text('{"role": "user", "content": "Hi"}\n{"role": "assistant", "content": '
                                         '"Hello", "tool_calls": [{"id": "c1", "name": "now", "arguments": {}}]}\n')
    code = ("import io, contextlib\nfrom agentmsg.validate import main\n"
            "watched = ('agentmsg.validate._registry', 'agentmsg.messages', 'agentmsg.providers', 'agentmsg.records', "
            "'agentmsg.events', 'agentmsg.schema', 'agentmsg.validate._provider_kinds', 'typing', 'dataclasses', "
            "'shutil', 'logging', 'agentmsg.validate._fields_openai')\n"
            "for name in sys.argv[1:]:\n"
            "    with contextlib.redirect_stdout(io.StringIO()):\n"
            "        main(['--quiet', name])\n"
            "    print(sorted(m for m in watched if m in sys.modules))\n")
    prelude = f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
    result = subprocess.run([sys.executable, "-I", "-W", "error", "-c", prelude + code,
                             str(tmp_path / "empty.jsonl"), str(tmp_path / "chat.jsonl")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "[]", "['agentmsg.validate._registry']"]
