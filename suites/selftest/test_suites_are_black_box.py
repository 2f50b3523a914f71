"""The conformance suites are black-box: they import only pytest, hypothesis, fixtures and
the public reference_impl.api / reference_impl.errors modules, so they run on live clusters."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SUITES = Path(__file__).resolve().parents[1]
ALLOWED = (
    "pytest",
    "hypothesis",
    "fixtures",
    "reference_impl.api",
    "reference_impl.errors",
    "__future__",
    "typing",
    "collections",
    "dataclasses",
    "itertools",
    "functools",
    "math",
    "re",
    "json",
    "base64",
    "ipaddress",
)


def _modules(tree: ast.AST) -> list[str]:
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
    return out


FILES = sorted(p for p in SUITES.rglob("*.py") if "selftest" not in p.parts)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SUITES)) for p in FILES])
def test_suite_module_imports_only_the_black_box_surface(path: Path) -> None:
    bad = [
        m
        for m in _modules(ast.parse(path.read_text()))
        if not any(m == a or m.startswith(a + ".") for a in ALLOWED)
    ]
    assert not bad, f"{path.name} imports {bad}; suites may import only {ALLOWED}"
