"""DefaultStorageClass admission, after upstream's
``plugin/pkg/admission/storage/storageclass/setdefault/admission_test.go`` table: only a
claim that asks for no class gets the default; "" and a named class are kept; of several
defaults the newest wins, then the smaller name."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace, make_storage_class
from reference_impl.apiserver.admission import default_storage_class
from reference_impl.apiserver.admission.default_storage_class import default_class
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock, seconds
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
DEFAULT = "storageclass.kubernetes.io/is-default-class"
BETA_DEFAULT = "storageclass.beta.kubernetes.io/is-default-class"


def _class(name: str, annotations: dict[str, str] | None = None) -> Obj:
    sc = make_storage_class(name, "example.com/csi")
    if annotations is not None:
        sc["metadata"]["annotations"] = annotations
    return sc


# The upstream table's classes: two defaults, "false", missing and empty annotations.
DEFAULT1 = _class("default1", {DEFAULT: "true"})
DEFAULT2 = _class("default2", {DEFAULT: "true"})
NON_DEFAULTS = [_class("nondefault1", {DEFAULT: "false"}), _class("nondefault2"),
                _class("nondefault3", {DEFAULT: ""})]  # fmt: skip


def _claim(storage_class: str | None = None, annotations: dict[str, str] | None = None) -> Obj:
    spec: Obj = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    if storage_class is not None:
        spec["storageClassName"] = storage_class
    meta: Obj = {"name": "claim", "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}


def _server(classes: list[Obj]) -> APIServer:
    srv = APIServer(MVCCStore(), SimClock(), Rng(0), FeatureGates())
    default_storage_class.install(srv)
    srv.create(make_namespace("default").build())
    for sc in classes:
        srv.create(sc)
    return srv


@pytest.mark.parametrize(
    ("classes", "storage_class", "expected"),
    [
        pytest.param(NON_DEFAULTS, None, None, id="no default, no modification of PVCs"),
        pytest.param([DEFAULT1, *NON_DEFAULTS], None, "default1", id="one default, modify PVC with class=nil"),
        pytest.param([DEFAULT1, *NON_DEFAULTS], "", "", id="one default, no modification of PVC with class=''"),
        pytest.param([DEFAULT1, *NON_DEFAULTS], "foo", "foo", id="one default, no modification of PVC with class='foo'"),
        pytest.param([DEFAULT1, DEFAULT2, *NON_DEFAULTS], "", "", id="two defaults, no modification of PVC with class=''"),
        pytest.param([DEFAULT1, DEFAULT2, *NON_DEFAULTS], "foo", "foo", id="two defaults, no modification of PVC with class='foo'"),
        pytest.param([DEFAULT2, DEFAULT1, *NON_DEFAULTS], None, "default1", id="two defaults with same creation time, choose the one with smaller name"),
    ],
)  # fmt: skip
def test_upstream_table(
    classes: list[Obj], storage_class: str | None, expected: str | None
) -> None:
    stored = _server(classes).create(_claim(storage_class))
    assert stored["spec"].get("storageClassName") == expected


def test_two_defaults_the_newer_wins() -> None:
    """Upstream's "choose the one with newer creation time" (its classes 1 ns apart; the
    apiserver stores seconds, so here they are a second apart)."""
    srv = _server([])
    srv.create(_class("b-older", {DEFAULT: "true"}))
    srv.clock.run_until(srv.clock.now() + seconds(1))
    srv.create(_class("a-newer-later", {DEFAULT: "true"}))
    srv.clock.run_until(srv.clock.now() + seconds(1))
    srv.create(_class("z-newest", {BETA_DEFAULT: "true"}))
    assert srv.create(_claim())["spec"]["storageClassName"] == "z-newest"


def test_default_class_orders_by_time_then_name() -> None:
    def at(name: str, ts: str) -> Obj:
        return {
            "metadata": {"name": name, "creationTimestamp": ts, "annotations": {DEFAULT: "true"}}
        }

    t0, t1 = "2022-01-01T00:00:00Z", "2022-01-01T00:00:01Z"
    assert default_class([at("b", t0), at("a", t0)]) == at("a", t0)
    assert default_class([at("a", t0), at("b", t1)]) == at("b", t1)
    assert default_class([{"metadata": {"name": "x"}}]) is None


def test_a_beta_class_annotation_on_the_claim_counts_as_a_class() -> None:
    claim = _claim(annotations={"volume.beta.kubernetes.io/storage-class": "slow"})
    assert "storageClassName" not in _server([DEFAULT1]).create(claim)["spec"]


def test_updates_are_not_defaulted() -> None:
    """``NewHandler(admission.Create)``: a claim created before any default stays classless."""
    srv = _server([])
    stored = srv.create(_claim())
    srv.create(DEFAULT1)
    stored["metadata"]["labels"] = {"touched": "yes"}
    assert "storageClassName" not in srv.update(stored)["spec"]
