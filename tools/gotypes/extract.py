"""Write ``reference_impl/apiserver/go_types.json``: the Go type each API field decodes into,
for the fields whose type names a Go type the OpenAPI schema does not (``v1.PodPhase``,
``types.UID``, ``v1.ResourceList``, ``[]v1.FinalizerName``), as Go's decoder prints it.

The strict decoder's 400 says ``... into Go struct field PodStatus.status.phase of type
v1.PodPhase``; the schema only knows "string". The facts come from the v1.37.2 type
declarations in the Go module cache (``tools/build.sh`` fills it):

    python tools/gotypes/extract.py [--gomod ~/.cache/garhwal/gomod]

Output: {definition: {json field: type, json field + "[]": element type, json field +
"{}": map value type}}, only where some part of the type is a named non-struct type.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final, Generic, TypeVar

K8S_VERSION: Final = "v0.37.2"
OUT: Final = Path(__file__).resolve().parents[2] / "reference_impl" / "apiserver" / "go_types.json"

_TYPE_DECL = re.compile(r"^type (\w+) (.+?)\s*(//.*)?$")
_FIELD = re.compile(r'^\s+(\w+)\s+([^\s`]+)\s+`json:"([^,"]*)')
_IMPORT = re.compile(r'^\s*(?:(\w+)\s+)?"([^"]+)"')
_BUILTIN: Final = frozenset(
    "string bool byte int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 float32 "
    "float64 interface{} any".split()
)


class Package:
    """One Go package's declarations: named types and struct fields (json name -> type)."""

    def __init__(self, path: str, directory: Path) -> None:
        self.path = path
        self.name = path.rsplit("/", 1)[-1]
        self.named: dict[str, str] = {}  # type name -> underlying, for non-struct types
        self.structs: dict[str, dict[str, str]] = {}
        self.imports: dict[str, str] = {}  # alias -> import path, per package (merged)
        for f in sorted(directory.glob("*.go")):
            if not f.name.endswith("_test.go") and not f.name.startswith("zz_generated"):
                self._read(f.read_text("utf-8").splitlines())

    def _read(self, lines: list[str]) -> None:
        current: dict[str, str] | None = None
        in_imports = False
        for line in lines:
            if line.startswith("import ("):
                in_imports = True
                continue
            if in_imports:
                if line.startswith(")"):
                    in_imports = False
                elif m := _IMPORT.match(line):
                    self.imports[m.group(1) or m.group(2).rsplit("/", 1)[-1]] = m.group(2)
                continue
            if current is not None:
                if line.startswith("}"):
                    current = None
                elif m := _FIELD.match(line):
                    if m.group(3) not in ("", "-"):  # "": embedded, "-": not encoded
                        current[m.group(3)] = m.group(2)
                continue
            if m := _TYPE_DECL.match(line):
                name, rest = m.group(1), m.group(2)
                if rest.startswith("struct {"):
                    current = self.structs.setdefault(name, {})
                    if rest.endswith("}"):
                        current = None
                else:
                    self.named[name] = rest


P = TypeVar("P")


class Loader(Generic[P]):
    """Go packages of the k8s.io ``modules`` (v0.37.2), read on demand from the module cache
    by ``read(import path, directory)``."""

    def __init__(
        self, gomod: Path, read: Callable[[str, Path], P], modules: tuple[str, ...] = ("api", "apimachinery")
    ) -> None:
        self.roots = {f"k8s.io/{m}": gomod / "k8s.io" / f"{m}@{K8S_VERSION}" for m in modules}
        self._read = read
        self.packages: dict[str, P | None] = {}

    def package(self, path: str) -> P | None:
        if path not in self.packages:
            self.packages[path] = None
            for root, directory in self.roots.items():
                if path.startswith(root + "/"):
                    d = directory / path[len(root) + 1 :]
                    if d.is_dir():
                        self.packages[path] = self._read(path, d)
        return self.packages[path]


class Universe(Loader[Package]):
    """Every package the API types reach, loaded on demand from the module cache."""

    def __init__(self, gomod: Path) -> None:
        super().__init__(gomod, Package)

    def render(self, pkg: Package, expr: str) -> tuple[str, bool]:
        """(the type as Go's reflect prints it, whether a named non-struct type is in it)."""
        if expr.startswith("*"):
            return self.render(pkg, expr[1:])
        if expr.startswith("[]"):
            inner, named = self.render(pkg, expr[2:])
            return "[]" + inner, named
        if expr.startswith("map["):
            depth, i = 0, 3
            for i in range(3, len(expr)):
                depth += {"[": 1, "]": -1}.get(expr[i], 0)
                if depth == 0:
                    break
            key, kn = self.render(pkg, expr[4:i])
            val, vn = self.render(pkg, expr[i + 1 :])
            return f"map[{key}]{val}", kn or vn
        if expr in _BUILTIN:
            return ("interface {}" if expr in ("interface{}", "any") else expr), False
        alias, _, name = expr.rpartition(".")
        owner = pkg if not alias else self.package(pkg.imports.get(alias, ""))
        if owner is None:
            return expr, False
        return f"{owner.name}.{name}", name in owner.named


def definition_package(definition: str) -> tuple[str, str] | None:
    """("k8s.io/api/core/v1", "PodStatus") for "io.k8s.api.core.v1.PodStatus"."""
    if not definition.startswith("io.k8s."):
        return None
    parts = definition.split(".")
    return "k8s.io/" + "/".join(parts[2:-1]), parts[-1]


def extract(universe: Universe, definitions: list[str]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for definition in sorted(definitions):
        where = definition_package(definition)
        pkg = universe.package(where[0]) if where else None
        if where is None or pkg is None or where[1] not in pkg.structs:
            continue
        fields: dict[str, str] = {}
        for json_name, expr in pkg.structs[where[1]].items():
            shown, named = universe.render(pkg, expr)
            if not named:
                continue
            fields[json_name] = shown
            bare = expr.lstrip("*")
            if bare.startswith("[]"):
                fields[json_name + "[]"] = universe.render(pkg, bare[2:])[0]
            elif not bare.startswith("map["):
                # A named slice or map: its elements decode as the underlying's.
                alias, _, name = bare.rpartition(".")
                owner = pkg if not alias else universe.package(pkg.imports.get(alias, ""))
                under = owner.named.get(name, "") if owner else ""
                if owner and under.startswith("[]"):
                    fields[json_name + "[]"] = universe.render(owner, under[2:])[0]
                elif owner and under.startswith("map["):
                    fields[json_name + "{}"] = universe.render(owner, under[under.index("]") + 1 :])[0]
            if bare.startswith("map["):
                fields[json_name + "{}"] = universe.render(pkg, bare[bare.index("]") + 1 :])[0]
        if fields:
            out[definition] = fields
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="tools/gotypes/extract.py")
    p.add_argument("--gomod", type=Path, default=Path.home() / ".cache" / "garhwal" / "gomod")
    args = p.parse_args(argv)
    universe = Universe(args.gomod)
    if not all(d.is_dir() for d in universe.roots.values()):
        print(f"extract.py: no k8s.io/api and apimachinery {K8S_VERSION} under {args.gomod}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(OUT.parents[2]))
    from reference_impl.apiserver import schema

    table = extract(universe, list(schema.definitions()))
    OUT.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {sum(len(v) for v in table.values())} fields of {len(table)} types")
    return 0


if __name__ == "__main__":
    sys.exit(main())
