"""Write ``reference_impl/apiserver/rbac_bootstrap.json``: kube-apiserver v1.37.2's
bootstrap RBAC policy as its rbac post-start hook stores it, for the live cluster's gates.

The objects' metadata (labels, annotations), ``aggregationRule``, ``roleRef`` and
``subjects`` come from the golden files of ``plugin/pkg/auth/authorizer/rbac/
bootstrappolicy/testdata`` in the Go module cache (``tools/build.sh`` fills it). Those
files are rendered at the default gates (``cluster-roles-featuregates.yaml``: every gate
on); the live launcher turns on more (``fixtures/localcluster/launcher.py``
FEATURE_GATES), which adds rules and one controller role. So the rules are kept from the
data file itself, which holds them as recorded from the live cluster (aggregated roles
with the rules the aggregation controller gave them); each recorded rule list must equal
the golden default or every-gate list, or be one of the names in ``_GATED`` below.

    python tools/rbacpolicy/extract.py [--gomod ~/.cache/garhwal/gomod]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Final

import yaml

OUT: Final = Path(__file__).resolve().parents[2] / "reference_impl" / "apiserver" / "rbac_bootstrap.json"
_TESTDATA: Final = "k8s.io/kubernetes@v1.37.2/plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata"
_LABELS: Final = {"kubernetes.io/bootstrapping": "rbac-defaults"}
_ANNOTATIONS: Final = {"rbac.authorization.kubernetes.io/autoupdate": "true"}
# Rules that differ from both golden renderings under the live gate set: GenericWorkload,
# CompositePodGroup, WorkloadWithJob, DRAWorkloadResourceClaims on, EvictionRequestAPI off.
_GATED: Final = frozenset({
    "system:aggregate-to-edit", "system:aggregate-to-view", "system:controller:job-controller",
    "system:controller:resource-claim-controller", "system:controller:podgroup-protection-controller",
})  # fmt: skip
# Controller roles the golden files (default gates) lack: GenericWorkload's.
_EXTRA_CONTROLLERS: Final = ("podgroup-protection-controller",)

Obj = dict[str, Any]


def _items(gomod: Path, name: str) -> list[Obj]:
    data = yaml.safe_load((gomod / _TESTDATA / name).read_text())
    items: list[Obj] = data["items"]
    return items


def _meta(obj: Obj) -> Obj:
    """name, namespace and the labels beyond the common one; the annotations checked."""
    meta = obj["metadata"]
    assert meta.get("annotations") == _ANNOTATIONS, meta
    labels = dict(meta.get("labels") or {})
    assert labels.pop("kubernetes.io/bootstrapping") == "rbac-defaults", meta
    out: Obj = {"name": meta["name"]}
    if "namespace" in meta:
        out["namespace"] = meta["namespace"]
    if labels:
        out["labels"] = labels
    return out


def _recorded(old: Obj) -> tuple[dict[str, list[Obj]], dict[tuple[str, str], list[Obj]]]:
    """The recorded rules by name, of either the old (name -> rules) or this layout."""
    cr = old["clusterRoles"]
    cluster = {k: v for k, v in cr.items()} if isinstance(cr, dict) else {r["name"]: r["rules"] for r in cr}
    roles = {(r["namespace"], r["name"]): r["rules"] for r in old["roles"]}
    return cluster, roles


def build(gomod: Path, old: Obj) -> Obj:
    """The new data file's content."""
    rec_cluster, rec_roles = _recorded(old)
    default = {o["metadata"]["name"]: o for o in _items(gomod, "cluster-roles.yaml")}
    every = {o["metadata"]["name"]: o for o in _items(gomod, "cluster-roles-featuregates.yaml")}
    controllers = {o["metadata"]["name"]: o for o in _items(gomod, "controller-roles.yaml")}
    golden = {**default, **controllers}
    for c in _EXTRA_CONTROLLERS:
        golden[f"system:controller:{c}"] = {"metadata": {"name": f"system:controller:{c}",
                                                         "labels": _LABELS, "annotations": _ANNOTATIONS}}  # fmt: skip
    assert set(golden) == set(rec_cluster), set(golden) ^ set(rec_cluster)
    cluster_roles = []
    for name in sorted(golden):
        g, rules = golden[name], rec_cluster[name]
        entry = _meta(g)
        if "aggregationRule" in g:
            entry["aggregationRule"] = g["aggregationRule"]
        else:
            options = [g.get("rules") or [], (every.get(name) or g).get("rules") or []]
            assert rules in options or name in _GATED, name
        entry["rules"] = rules
        cluster_roles.append(entry)
    bindings = _items(gomod, "cluster-role-bindings.yaml") + _items(gomod, "controller-role-bindings.yaml")
    by_name = {b["metadata"]["name"]: b for b in bindings}
    for c in _EXTRA_CONTROLLERS:
        n = f"system:controller:{c}"
        by_name[n] = {"metadata": {"name": n, "labels": _LABELS, "annotations": _ANNOTATIONS},
                      "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": n},
                      "subjects": [{"kind": "ServiceAccount", "name": c, "namespace": "kube-system"}]}  # fmt: skip
    crbs = [_binding(by_name[n]) for n in sorted(by_name)]
    roles = []
    for r in sorted(_items(gomod, "namespace-roles.yaml"), key=_ns_name):
        entry = _meta(r)
        entry["rules"] = rec_roles[(entry["namespace"], entry["name"])]
        assert entry["rules"] == r["rules"], entry["name"]
        roles.append(entry)
    rbs = [_binding(b) for b in sorted(_items(gomod, "namespace-role-bindings.yaml"), key=_ns_name)]
    return {
        "_comment": (
            "kube-apiserver v1.37.2 bootstrap RBAC policy as its rbac post-start hook stores it "
            "(bootstrappolicy's golden files; rules for the live cluster's gates, aggregated "
            "ClusterRoles with the rules the aggregation controller gives them). Every object "
            "has the common labels and annotations; 'labels' lists the others. Written by "
            "tools/rbacpolicy/extract.py."
        ),
        "labels": _LABELS,
        "annotations": _ANNOTATIONS,
        "clusterRoles": cluster_roles,
        "clusterRoleBindings": crbs,
        "roles": roles,
        "roleBindings": rbs,
    }


def _ns_name(o: Obj) -> tuple[str, str]:
    return o["metadata"]["namespace"], o["metadata"]["name"]


def _binding(b: Obj) -> Obj:
    out = _meta(b)
    out["roleRef"] = b["roleRef"]
    if b.get("subjects"):
        out["subjects"] = b["subjects"]
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gomod", type=Path, default=Path.home() / ".cache" / "garhwal" / "gomod")
    args = ap.parse_args(argv)
    data = build(args.gomod, json.loads(OUT.read_text()))
    OUT.write_text(json.dumps(data, indent=0) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
