"""Write ``reference_impl/features/gates_1_37.json``: every gate that v1.37.2's
kube-apiserver and kubelet accept on ``--feature-gates``, with its 1.37 spec.

Both binaries register into one gate instance (``utilfeature.DefaultMutableFeatureGate``):
``k8s.io/kubernetes/pkg/features`` (its versioned map, which also restates the
apiserver's, apiextensions', controller-manager's and zpages' gates), the apiserver's
and apiextensions' own ``pkg/features`` maps, client-go's ``features`` (through
``clientAdapter``), component-base ``logs/api/v1`` (``cmd/*/app/server.go``) and
``metrics/features`` (``apiserver pkg/server/config.go``, ``pkg/kubelet/server``).

A gate's 1.37 spec is the last versioned entry at or below 1.37 whose
MinCompatibilityVersion is at most 1.36 (``featureSpecAtEmulationAndMinCompatVersion``).
The maps are read from the Go module cache (``tools/build.sh`` fills it) with a small
scanner of their literal shape; nothing is compiled.

``dependencies`` is kube's ``defaultKubernetesFeatureGateDependencies`` (the only
``AddDependencies`` call in v1.37.2's registering packages), each list sorted and
compacted as AddDependencies stores it; empty lists stay (``Dependencies()`` has them).

    python tools/featuregates/extract.py [--gomod ~/.cache/garhwal/gomod]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

OUT: Final = Path(__file__).resolve().parents[2] / "reference_impl" / "features" / "gates_1_37.json"
EMULATION: Final = (1, 37)
MIN_COMPAT: Final = (1, 36)

# (Go package, file under the module cache). The first is kube's own map.
_SOURCES: Final = (
    ("k8s.io/kubernetes/pkg/features", "k8s.io/kubernetes@v1.37.2/pkg/features/kube_features.go"),
    ("k8s.io/apiserver/pkg/features", "k8s.io/apiserver@v0.37.2/pkg/features/kube_features.go"),
    ("k8s.io/apiextensions-apiserver/pkg/features",
     "k8s.io/apiextensions-apiserver@v0.37.2/pkg/features/kube_features.go"),
    ("k8s.io/client-go/features", "k8s.io/client-go@v0.37.2/features/known_features.go"),
    ("k8s.io/component-base/logs/api/v1", "k8s.io/component-base@v0.37.2/logs/api/v1/kube_features.go"),
    ("k8s.io/component-base/metrics/features",
     "k8s.io/component-base@v0.37.2/metrics/features/kube_features.go"),
    ("k8s.io/component-base/zpages/features",
     "k8s.io/component-base@v0.37.2/zpages/features/kube_features.go"),
)  # fmt: skip
# Files that only declare constants the kube map names through an import alias.
_CONST_ONLY: Final = {"kcmfeatures": "k8s.io/controller-manager@v0.37.2/pkg/features/kube_features.go"}
# Import alias in kube_features.go -> the package whose constants it names.
_ALIASES: Final = {
    "genericfeatures": "k8s.io/apiserver/pkg/features",
    "apiextensionsfeatures": "k8s.io/apiextensions-apiserver/pkg/features",
    "zpagesfeatures": "k8s.io/component-base/zpages/features",
}
# featuregate.Feature(clientfeatures.AtomicFIFO): the kube map names client-go constants so.
_CLIENT_ALIAS: Final = {"clientfeatures": "k8s.io/client-go/features"}
_STAGES: Final = {"Alpha": "alpha", "Beta": "beta", "GA": "ga", "Deprecated": "deprecated"}

_CONST_RE: Final = re.compile(
    r'^\s*(\w+)\s+(?:(?:featuregate\.)?Feature\s*)?=\s*(?:featuregate\.Feature\()?"([^"]+)"', re.M
)
_MAP_START_RE: Final = re.compile(r"map\[(?:featuregate\.)?Feature\](?:featuregate\.)?VersionedSpecs\{\n")
_DEPS_START_RE: Final = re.compile(
    r"defaultKubernetesFeatureGateDependencies = map\[featuregate\.Feature\]\[\]featuregate\.Feature\{\n"
)
_DEP_ROW_RE: Final = re.compile(r"^\s*(?:(\w+)\.)?(\w+):\s*\{(.*)\},\s*$")
_DEP_REF_RE: Final = re.compile(r"^(?:featuregate\.Feature\()?(?:(\w+)\.)?(\w+)\)?$")
_KEY_RE: Final = re.compile(r"^\s*(?:(\w+)\.)?(\w+):\s*\{\s*$")
_SPEC_RE: Final = re.compile(r"^\s*\{(.*)\},?\s*$")
_VERSION_RE: Final = re.compile(r'(MinCompatibilityVersion|Version):\s*version\.MustParse\("(\d+)\.(\d+)"\)')
_DEFAULT_RE: Final = re.compile(r"\bDefault:\s*(true|false)")
_LOCK_RE: Final = re.compile(r"\bLockToDefault:\s*(true|false)")
_STAGE_RE: Final = re.compile(r"\bPreRelease:\s*(?:featuregate\.)?(\w+)")


@dataclass(frozen=True, slots=True)
class _Spec:
    version: tuple[int, int]
    min_compat: tuple[int, int] | None
    stage: str
    default: bool
    locked: bool


def _consts(text: str) -> dict[str, str]:
    return dict(_CONST_RE.findall(text))


def _spec(line: str) -> _Spec:
    versions = {k: (int(a), int(b)) for k, a, b in _VERSION_RE.findall(line)}
    stage = _STAGE_RE.search(line)
    default = _DEFAULT_RE.search(line)
    lock = _LOCK_RE.search(line)
    if "Version" not in versions or stage is None or stage.group(1) not in _STAGES:
        raise ValueError(f"unparsed spec: {line.strip()}")
    return _Spec(versions["Version"], versions.get("MinCompatibilityVersion"), _STAGES[stage.group(1)],
                 default is not None and default.group(1) == "true", lock is not None and lock.group(1) == "true")  # fmt: skip


def _versioned_map(text: str) -> dict[tuple[str | None, str], list[_Spec]]:
    """The single ``map[Feature]VersionedSpecs{...}`` literal: key (alias, const) -> specs."""
    starts = list(_MAP_START_RE.finditer(text))
    if len(starts) != 1:
        raise ValueError(f"expected one versioned map, found {len(starts)}")
    out: dict[tuple[str | None, str], list[_Spec]] = {}
    key: tuple[str | None, str] | None = None
    key_indent = 1 << 30
    for raw in text[starts[0].end() :].splitlines():
        line = raw.split("//", 1)[0].rstrip()  # specs carry trailing comments
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if line.strip() == "}" and indent < key_indent:  # the map's own closing brace
            return out
        if (m := _KEY_RE.match(line)) is not None:
            key, key_indent = (m.group(1), m.group(2)), indent
            out[key] = []
        elif (s := _SPEC_RE.match(line)) is not None:
            if key is None:
                raise ValueError(f"spec outside a key: {line}")
            out[key].append(_spec(s.group(1)))
        elif line.strip() != "},":
            raise ValueError(f"unexpected line in the versioned map: {line!r}")
    raise ValueError("unterminated versioned map")


def _at_137(specs: list[_Spec]) -> _Spec | None:
    """featureSpecAtEmulationAndMinCompatVersion at emulation 1.37, min compatibility 1.36."""
    for spec in reversed(specs):
        if spec.version > EMULATION:
            continue
        if spec.min_compat is not None and spec.min_compat > MIN_COMPAT:
            continue
        return spec
    return None  # PreAlpha at 1.37: not settable


def build(gomod: Path) -> list[dict[str, object]]:
    """One record per gate, sorted by name."""
    texts = {pkg: (gomod / path).read_text() for pkg, path in _SOURCES}
    consts = {pkg: _consts(text) for pkg, text in texts.items()}
    for const_alias, path in _CONST_ONLY.items():
        consts[const_alias] = _consts((gomod / path).read_text())
    gates: dict[str, dict[str, object]] = {}
    for pkg, text in texts.items():
        for (alias, const), specs in _versioned_map(text).items():
            owner = pkg if alias is None else _ALIASES.get(alias, alias)
            name = consts[owner][const]
            spec = _at_137(specs)
            if spec is None:
                continue
            row: dict[str, object] = {"name": name, "stage": spec.stage, "default": spec.default,
                                      "locked": spec.locked}  # fmt: skip
            prev = gates.get(name)
            if prev is None:
                gates[name] = {**row, "sources": [pkg]}
                continue
            # AddVersioned refuses a gate re-added with a different spec.
            if {k: prev[k] for k in row} != row:
                raise ValueError(f"{name}: {pkg} disagrees with {prev['sources']}")
            sources = prev["sources"]
            assert isinstance(sources, list)
            sources.append(pkg)
    return [gates[n] for n in sorted(gates)]


def _resolve(consts: dict[str, dict[str, str]], alias: str | None, const: str) -> str:
    owner = "k8s.io/kubernetes/pkg/features" if alias is None else {**_ALIASES, **_CLIENT_ALIAS}.get(alias, alias)
    return consts[owner][const]


def dependencies(gomod: Path) -> dict[str, list[str]]:
    """kube's dependency map: gate -> its dependencies, sorted and compacted."""
    text = (gomod / _SOURCES[0][1]).read_text()
    consts = {pkg: _consts((gomod / path).read_text()) for pkg, path in _SOURCES}
    for const_alias, path in _CONST_ONLY.items():
        consts[const_alias] = _consts((gomod / path).read_text())
    starts = list(_DEPS_START_RE.finditer(text))
    if len(starts) != 1:
        raise ValueError(f"expected one dependency map, found {len(starts)}")
    out: dict[str, list[str]] = {}
    for raw in text[starts[0].end() :].splitlines():
        line = raw.split("//", 1)[0].rstrip()
        if not line.strip():
            continue
        if line == "}":
            return dict(sorted(out.items()))
        m = _DEP_ROW_RE.match(line)
        if m is None:
            raise ValueError(f"unexpected line in the dependency map: {line!r}")
        deps: list[str] = []
        for ref in filter(None, (r.strip() for r in m.group(3).split(","))):
            r = _DEP_REF_RE.match(ref)
            if r is None:
                raise ValueError(f"unparsed dependency {ref!r} in {line!r}")
            deps.append(_resolve(consts, r.group(1), r.group(2)))
        name = _resolve(consts, m.group(1), m.group(2))
        if name in out:
            raise ValueError(f"{name}: listed twice")  # a Go map literal refuses it too
        out[name] = sorted(set(deps))
    raise ValueError("unterminated dependency map")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--gomod", type=Path, default=Path.home() / ".cache" / "garhwal" / "gomod")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    rows = build(args.gomod)
    doc = {
        "_source": "k8s.io/kubernetes v1.37.2 --feature-gates of kube-apiserver and kubelet; "
        "written by tools/featuregates/extract.py, do not edit",
        "gates": rows,
        "dependencies": dependencies(args.gomod),
    }
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {len(rows)} gates to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
