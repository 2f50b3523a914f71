"""Upstream's dry-run integration test on the reference apiserver: ``TestDryRun``
(k8s.io/kubernetes@v1.37.2 ``test/integration/dryrun/dryrun_test.go``), one row per
resource of ``test/integration/etcd/data.go``'s stubs (``etcd_storage_stubs.json``, its
``image`` and ``namespace`` filled in) that the reference serves at the default gates, as
upstream runs the resources discovery lists.

Each row runs upstream's steps: DryRunCreateTest, a real create, DryRunUpdateTest,
DryRunPatchTest (a merge patch is an update of the patched current object, as
``patch.go``'s patcher applies it), DryRunScalePatchTest and DryRunScaleUpdateTest for the
kinds with ``/scale``, DryRunDeleteCollectionTest where discovery lists deletecollection
(all but namespaces), DryRunDeleteTest and the real delete.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from reference_impl.api.builders import make_namespace
from reference_impl.api.resources import ResourceInfo, lookup_plural
from reference_impl.apiserver.lookups import resolve
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import NotFound
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS = "dryrunnamespace"  # "do not change this"
STUBS: dict[str, Obj] = json.loads((Path(__file__).parent / "etcd_storage_stubs.json").read_text())
# TestDryRun's own override: the event's involvedObject in the test's namespace.
STUBS["v1/events"] = {"involvedObject": {"namespace": NS}, "message": "some data here",
                      "metadata": {"name": "event1"}}  # fmt: skip
SCALED = {"Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"}


def _served(gvr: str) -> ResourceInfo | None:
    api_version, plural = gvr.rsplit("/", 1)
    info = lookup_plural(api_version, plural)
    if info is None:
        return None
    try:
        return resolve(api_version, info.kind, FeatureGates())
    except NotFound:  # gated off: discovery would not list it
        return None


def _gvr_string(gvr: str) -> str:
    """``GroupVersionResource.String()``, the subtest's name: "apps/v1, Resource=deployments"."""
    *gv, resource = gvr.split("/")
    group, version = (gv[0], gv[1]) if len(gv) == 2 else ("", gv[0])
    return f"{group}/{version}, Resource={resource}"


# Stubs with a field their kind lacks: upstream's default fieldValidation (Warn) drops it.
_STRICT = "the reference decodes every write with fieldValidation=Strict; no Warn/Ignore mode"
SKIP = {
    "discovery.k8s.io/v1/endpointslices": _STRICT,  # ports[0].protocol at the slice's top
    "rbac.authorization.k8s.io/v1/clusterrolebindings": _STRICT,  # subjects[0].apiVersion
    "rbac.authorization.k8s.io/v1/rolebindings": _STRICT,  # subjects[0].apiVersion
    "scheduling.k8s.io/v1/priorityclasses": _STRICT,  # "Value", not "value"
}
ROWS = [
    pytest.param(gvr, id=_gvr_string(gvr),
                 marks=[pytest.mark.skip(reason=SKIP[gvr])] if gvr in SKIP else [])
    for gvr in sorted(STUBS)
    if _served(gvr)
]  # fmt: skip


def test_rows_cover_the_served_resources() -> None:
    """Most of upstream's resources are served at the default gates (a guard on ``_served``)."""
    assert len(ROWS) >= 60, len(ROWS)


def _server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace(NS).build())
    return s


def _stub(gvr: str, info: ResourceInfo) -> Obj:
    """``etcd.JSONToUnstructured``: the stub with its apiVersion and kind, namespaced ones
    in the test namespace."""
    obj = copy.deepcopy(STUBS[gvr])
    obj["apiVersion"], obj["kind"] = gvr.rsplit("/", 1)[0], info.kind
    if info.namespaced:
        obj["metadata"]["namespace"] = NS
    return obj


def _annotated(obj: Obj, key: str) -> Obj:
    out = copy.deepcopy(obj)
    out["metadata"]["annotations"] = {**(out["metadata"].get("annotations") or {}), key: "true"}
    return out


@pytest.mark.parametrize("gvr", ROWS)
def test_TestDryRun(gvr: str) -> None:
    info = _served(gvr)
    assert info is not None
    s, obj = _server(), _stub(gvr, info)
    av, kind, name = obj["apiVersion"], obj["kind"], obj["metadata"]["name"]
    ns = NS if info.namespaced else None

    def get() -> Obj:
        return s.get(av, kind, name, ns)

    # DryRunCreateTest
    created = s.create(copy.deepcopy(obj), dry_run=True)
    assert (created["apiVersion"], created["kind"]) == (av, kind)
    if kind != "Namespace" or name != NS:
        with pytest.raises(NotFound):
            get()
    s.create(copy.deepcopy(obj))
    # DryRunUpdateTest
    out = s.update(_annotated(get(), "update"), dry_run=True)
    assert out["metadata"]["annotations"]["update"] == "true"
    assert "update" not in (get()["metadata"].get("annotations") or {})
    # DryRunPatchTest
    out = s.update(_annotated(get(), "patch"), dry_run=True)
    assert out["metadata"]["annotations"]["patch"] == "true"
    assert "patch" not in (get()["metadata"].get("annotations") or {})
    if kind in SCALED:
        replicas = s.get_scale(av, kind, name, ns)["spec"].get("replicas", 0)
        # DryRunScalePatchTest
        patched = s.patch_scale(av, kind, name, ns, {"spec": {"replicas": 10}}, dry_run=True)
        assert patched["spec"]["replicas"] == 10
        assert s.get_scale(av, kind, name, ns)["spec"].get("replicas", 0) == replicas
        # DryRunScaleUpdateTest
        scale = s.get_scale(av, kind, name, ns)
        scale["spec"]["replicas"] = 10
        assert s.update_scale(av, kind, scale, dry_run=True)["spec"]["replicas"] == 10
        assert s.get_scale(av, kind, name, ns)["spec"].get("replicas", 0) == replicas
    if kind != "Namespace":  # HasDeleteCollection: namespaces' REST has no DeleteCollection
        # DryRunDeleteCollectionTest
        s.delete_collection(av, kind, ns, dry_run=True)
        assert not get()["metadata"].get("deletionTimestamp")
    # DryRunDeleteTest
    before = get()
    s.delete(av, kind, name, ns, dry_run=True)
    assert not get()["metadata"].get("deletionTimestamp")
    assert get() == before
    s.delete(av, kind, name, ns, grace_period_seconds=0)
