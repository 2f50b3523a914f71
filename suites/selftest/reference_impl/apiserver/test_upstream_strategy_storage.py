"""Rows of pkg/registry/storage/{csinode,volumeattachment}/strategy_test.go (v1.37.2),
through the APIServer (storage.k8s.io/v1): csinode TestPrepareForUpdate (upstream asks
as v1beta1, which the reference does not serve; the allocatable rule is the same),
volumeattachment TestCreatePreventsStatusWrite and TestUpdatePreventsStatusWrite.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
_V1 = "storage.k8s.io/v1"


def _server() -> APIServer:
    return APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())


def _csinode(count: int | None) -> Obj:
    driver: Obj = {
        "name": "valid-driver-name",
        "nodeID": "valid-node",
        "topologyKeys": ["company.com/zone1", "company.com/zone2"],
    }
    if count is not None:
        driver["allocatable"] = {"count": count}
    return {"apiVersion": _V1, "kind": "CSINode", "metadata": {"name": "foo"},
            "spec": {"drivers": [driver]}}  # fmt: skip


# csinode TestPrepareForUpdate: (old allocatable count, new one = expected).
@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(None, None, id="allow empty allocatable when it's not set"),
        pytest.param(10, 20, id="allow valid allocatable when it's already set"),
        pytest.param(None, 10, id="allow valid allocatable when it's not set"),
    ],
)
def test_csinode_prepare_for_update(old: int | None, new: int | None) -> None:
    s = _server()
    s.create(_csinode(old))
    got = s.update(_csinode(new))
    assert got["spec"] == _csinode(new)["spec"]


def _attachment() -> Obj:
    return {
        "apiVersion": _V1,
        "kind": "VolumeAttachment",
        "metadata": {"name": "valid-attachment"},
        "spec": {
            "attacher": "valid-attacher",
            "source": {"persistentVolumeName": "valid-attachment"},
            "nodeName": "valid-node",
        },
    }


def test_create_prevents_status_write() -> None:
    s = _server()
    got = s.create({**_attachment(), "status": {"attached": True}})
    assert not (got.get("status") or {}).get("attached")


def test_update_prevents_status_write() -> None:
    s = _server()
    va = s.create(_attachment())
    got = s.update({**va, "metadata": {**va["metadata"], "labels": {"a": "b"}}, "status": {"attached": True}})
    assert got["metadata"]["labels"] == {"a": "b"}
    assert not (got.get("status") or {}).get("attached")
