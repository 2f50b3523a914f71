"""Write ``reference_impl/apiserver/go_encoding.json``: how Go's ``encoding/json`` writes
each field of each API struct, which ``reference_impl.apiserver.go_encoding`` replays.

For every definition the OpenAPI schema names, from the v1.37.2 type declarations in the
Go module cache (``tools/build.sh`` fills it):

    python tools/gotypes/encoding.py [--gomod ~/.cache/garhwal/gomod]

Output: {definition: {json field: [shape, omitempty, omitzero]}}; a shape is "str",
"int", "float", "bool", "any" (interface), "bytes", or "struct:D" (a struct definition D,
"time", "qty", "intstr", "raw", "dur" and "schemaor" (apiextensions' JSONSchemaPropsOr*)
for the ones with their own (Un)MarshalJSON),
prefixed "*" (pointer), "[]" (slice) or "{}" (map) as the Go type nests them. Embedded
(inline) structs' fields are merged into the embedding one.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Final

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extract import _IMPORT, _TYPE_DECL, K8S_VERSION, Loader, definition_package  # noqa: E402

OUT: Final = Path(__file__).resolve().parents[2] / "reference_impl" / "apiserver" / "go_encoding.json"
_FIELD = re.compile(r'^\s+(\w+)\s+([^\s`]+)\s+`json:"([^"]*)"')
_EMBEDDED = re.compile(r'^\s+(\*?[\w.]+)\s+`json:"([^"]*)"')
_INTS: Final = frozenset("int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64".split())
_OWN_MARSHAL: Final = {
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "time",
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "time",
    "io.k8s.apimachinery.pkg.api.resource.Quantity": "qty",
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "intstr",
    "io.k8s.apimachinery.pkg.runtime.RawExtension": "raw",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": "raw",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Duration": "dur",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON": "raw",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray": "schemaor",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool": "schemaor",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray": "schemaor",
}
# A field: (json name, Go type expression, options) or an embedded struct: ("", expr, "").
Field = tuple[str, str, str]


class Package:
    """One Go package's named types, struct fields and imports."""

    def __init__(self, path: str, directory: Path) -> None:
        self.path = path
        self.named: dict[str, str] = {}
        self.structs: dict[str, list[Field]] = {}
        self.imports: dict[str, str] = {}
        for f in sorted(directory.glob("*.go")):
            if not f.name.endswith("_test.go") and not f.name.startswith("zz_generated"):
                self._read(f.read_text("utf-8").splitlines())

    def _read(self, lines: list[str]) -> None:
        current: list[Field] | None = None
        in_imports = False
        for line in lines:
            if line.startswith("import ("):
                in_imports = True
            elif in_imports:
                if line.startswith(")"):
                    in_imports = False
                elif m := _IMPORT.match(line):
                    self.imports[m.group(1) or m.group(2).rsplit("/", 1)[-1]] = m.group(2)
            elif current is not None:
                if line.startswith("}"):
                    current = None
                elif m := _FIELD.match(line):
                    name, _, opts = m.group(3).partition(",")
                    if name != "-":
                        current.append((name or m.group(1), m.group(2), opts))
                elif m := _EMBEDDED.match(line):  # merged in, unless it has a json name
                    name, _, opts = m.group(2).partition(",")
                    current.append((name, m.group(1), opts))
            elif m := _TYPE_DECL.match(line):
                name, rest = m.group(1), m.group(2)
                if rest.startswith("struct {"):
                    current = self.structs.setdefault(name, [])
                    if rest.endswith("}"):
                        current = None
                else:
                    self.named[name] = rest


class Universe(Loader[Package]):
    """The packages the API types reach (apiextensions' too), loaded on demand."""

    def __init__(self, gomod: Path) -> None:
        super().__init__(gomod, Package, ("api", "apimachinery", "apiextensions-apiserver"))

    def owner(self, pkg: Package, expr: str) -> tuple[Package | None, str]:
        alias, _, name = expr.rpartition(".")
        return (pkg if not alias else self.package(pkg.imports.get(alias, ""))), name

    def shape(self, pkg: Package, expr: str) -> str:
        """The encoding shape of Go type ``expr`` written in ``pkg``."""
        if expr.startswith("*"):
            return "*" + self.shape(pkg, expr[1:])
        if expr == "[]byte":
            return "bytes"
        if expr.startswith("[]"):
            return "[]" + self.shape(pkg, expr[2:])
        if expr.startswith("map["):
            return "{}" + self.shape(pkg, expr[expr.index("]") + 1 :])
        if expr in _INTS:
            return "int"
        if expr in ("float32", "float64"):
            return "float"
        if expr in ("string", "bool"):
            return {"string": "str", "bool": "bool"}[expr]
        if expr in ("interface{}", "any"):
            return "any"
        owner, name = self.owner(pkg, expr)
        if owner is None:
            return "any"
        if name in owner.named:
            return self.shape(owner, owner.named[name])
        definition = "io." + owner.path.replace("/", ".").replace("k8s.io.", "k8s.", 1) + "." + name
        return "struct:" + _OWN_MARSHAL.get(definition, definition)

    def fields(self, pkg: Package, struct: str) -> dict[str, list[object]]:
        """The struct's encoded fields, embedded structs' merged in."""
        out: dict[str, list[object]] = {}
        for name, expr, opts in pkg.structs.get(struct, []):
            if not name:
                owner, inner = self.owner(pkg, expr.lstrip("*"))
                if owner is not None:
                    out.update(self.fields(owner, inner))
                continue
            flags = opts.split(",")
            out[name] = [self.shape(pkg, expr), "omitempty" in flags, "omitzero" in flags]
        return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="tools/gotypes/encoding.py")
    p.add_argument("--gomod", type=Path, default=Path.home() / ".cache" / "garhwal" / "gomod")
    args = p.parse_args(argv)
    universe = Universe(args.gomod)
    if not all(d.is_dir() for d in universe.roots.values()):
        print(f"encoding.py: the k8s.io {K8S_VERSION} modules are not under {args.gomod}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(OUT.parents[2]))
    from reference_impl.apiserver import schema

    table: dict[str, dict[str, list[object]]] = {}
    for definition in sorted(schema.definitions()):
        where = definition_package(definition)
        pkg = universe.package(where[0]) if where else None
        if where is not None and pkg is not None and where[1] in pkg.structs:
            table[definition] = universe.fields(pkg, where[1])
    OUT.write_text(json.dumps(table, indent=0, sort_keys=True) + "\n")
    print(f"{OUT}: {sum(len(v) for v in table.values())} fields of {len(table)} types")
    return 0


if __name__ == "__main__":
    sys.exit(main())
