"""One error voice: every code the package can raise is in the table, one wording per rule."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

from agentmsg.errors import CODES, ORDER_CODES, ValidationError

PACKAGE = Path(__file__).resolve().parent.parent / "agentmsg"

_ERRORS = {"ValidationError": 2, "InvalidArgumentsError": 2}  # class name -> position of ``code``
_DEFAULTS = {"ValidationError": "value", "InvalidArgumentsError": "json"}


def _modules() -> dict[str, ast.Module]:
    return {str(p.relative_to(PACKAGE)): ast.parse(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))}


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _argument(node: ast.Call, position: int, keyword: str) -> ast.expr | None:
    for kw in node.keywords:
        if kw.arg == keyword:
            return kw.value
    return node.args[position] if len(node.args) > position else None


class _Scan:
    """Every code each raise site can pass, resolved through constants and helper parameters."""

    def __init__(self) -> None:
        self.modules = _modules()
        self.constants: dict[str, set[str]] = {}  # module-level NAME = "text", by name
        self.functions: dict[str, list[ast.FunctionDef]] = {}
        self.calls: dict[str, list[ast.Call]] = {}
        self.parents: dict[ast.AST, ast.AST] = {}
        for tree in self.modules.values():
            for stmt in tree.body:
                if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                    for target in stmt.targets:
                        if isinstance(target, ast.Name):
                            self.constants.setdefault(target.id, set()).add(stmt.value.value)
            for node in ast.walk(tree):
                for child in ast.iter_child_nodes(node):
                    self.parents[child] = node
                if isinstance(node, ast.FunctionDef):
                    self.functions.setdefault(node.name, []).append(node)
                elif isinstance(node, ast.Call) and (name := _call_name(node)):
                    self.calls.setdefault(name, []).append(node)

    def enclosing(self, node: ast.AST) -> ast.FunctionDef | None:
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, ast.FunctionDef):
                return node
        return None

    def resolve(self, expr: ast.expr | None, default: str, site: ast.AST, depth: int = 0) -> set[str]:
        if expr is None:
            return {default}
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return {expr.value}
        if isinstance(expr, ast.Attribute) and expr.attr == "code":
            return set()  # re-raising the code of an error already raised (and checked) elsewhere
        if isinstance(expr, ast.IfExp):
            return self.resolve(expr.body, default, site, depth) | self.resolve(expr.orelse, default, site, depth)
        if isinstance(expr, ast.Name):
            function = self.enclosing(site)
            params = [a.arg for a in function.args.posonlyargs + function.args.args] if function else []
            kwonly = [a.arg for a in function.args.kwonlyargs] if function else []
            if function and depth < 3 and (expr.id in params or expr.id in kwonly):
                return self.parameter(function, expr.id, depth + 1)
            if expr.id in self.constants:
                return self.constants[expr.id]
        raise AssertionError(f"cannot tell which code {ast.unparse(expr)!r} is (line {expr.lineno})")

    def parameter(self, function: ast.FunctionDef, name: str, depth: int) -> set[str]:
        args = function.args
        positional = [a.arg for a in args.posonlyargs + args.args]
        offset = 1 if positional and positional[0] in ("self", "cls") else 0
        codes: set[str] = set()
        if name in positional:
            defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults))
            if name in defaults:
                codes |= self.resolve(defaults[name], "", function, depth)
            position = positional.index(name) - offset
        else:
            position = 10**6
            kw_defaults = dict(zip([a.arg for a in args.kwonlyargs], args.kw_defaults))
            if kw_defaults.get(name) is not None:
                codes |= self.resolve(kw_defaults[name], "", function, depth)
        for call in self.calls.get(function.name, []):
            arg = _argument(call, position, name)
            if arg is not None:
                codes |= self.resolve(arg, "", call, depth)
        return codes

    def sites(self) -> list[tuple[str, int, set[str]]]:
        found = []
        for rel, tree in self.modules.items():
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and (name := _call_name(node)) in _ERRORS:
                    arg = _argument(node, _ERRORS[name], "code")
                    found.append((rel, node.lineno, self.resolve(arg, _DEFAULTS[name], node)))
        return found


def test_every_validation_error_code_is_in_the_table():
    sites = _Scan().sites()
    assert len(sites) > 150  # the scan sees the raise sites (about 250 today)
    strays = [f"{rel}:{line}: {code}" for rel, line, codes in sites for code in sorted(codes) if code not in CODES]
    assert not strays, strays


def test_the_scan_resolves_helpers_and_constants():
    codes = {code for _, _, found in _Scan().sites() for code in found}
    # "unsupported" reaches ValidationError only through providers._common.UNSUPPORTED, and
    # "pending" only through context._not_ready's parameter: the scan must follow both
    assert {"unsupported", "pending", "missing", "type"} <= codes


def test_every_order_code_is_in_the_table():
    scan = _Scan()
    codes = set()
    for call in scan.calls.get("ConversationOrderError", []):
        codes |= scan.resolve(_argument(call, 2, "code"), "order", call)
    assert codes and codes <= set(ORDER_CODES), codes - set(ORDER_CODES)


def test_the_table_documents_each_code_in_one_line():
    for table in (CODES, ORDER_CODES):
        for code, meaning in table.items():
            assert code.isidentifier() and code.islower() and meaning and "\n" not in meaning
    import agentmsg.errors

    doc = agentmsg.errors.__doc__ or ""
    assert all(f"``{code}``" in doc for code in CODES), [c for c in CODES if f"``{code}``" not in doc]


@pytest.mark.parametrize("code", sorted(CODES))
def test_codes_survive_pickling(code):
    err = pickle.loads(pickle.dumps(ValidationError("must be something", "a.b", code)))
    assert (err.code, err.path, str(err)) == (code, "a.b", "a.b: must be something")
