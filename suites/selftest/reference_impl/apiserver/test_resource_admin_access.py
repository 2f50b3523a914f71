"""AuthorizedForAdminStatus: a /status write that first grants admin access is checked
against the namespace label too (pkg/registry/resource/utils.go)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace, make_resource_claim
from reference_impl.cluster import Cluster
from reference_impl.errors import Invalid

LABEL = "resource.kubernetes.io/admin-access"
RESULT = {"request": "gpu", "driver": "gpu.example.com", "pool": "p", "device": "d0", "adminAccess": True}


def _setup() -> tuple[Cluster, dict[str, Any]]:
    c = Cluster()
    c.apply(make_namespace("admin").label(LABEL, "true").build())
    claim = c.apply(make_resource_claim("c", "admin").request("gpu", "cls", admin_access=True).build())
    c.apply(make_namespace("admin").build())  # the label is removed after the claim exists
    return c, claim


def test_granting_admin_access_in_an_unlabelled_namespace_is_forbidden() -> None:
    c, claim = _setup()
    status = {"allocation": {"devices": {"results": [RESULT]}}}
    with pytest.raises(Invalid) as err:
        c.api.update_status({**claim, "status": status})
    assert "status.allocation.devices.results[0].adminAccess" in err.value.fields
    assert f"`{LABEL}: true` label" in str(err.value)


def test_an_allocation_granted_before_the_label_went_away_stays_writable() -> None:
    c, claim = _setup()
    c.apply(make_namespace("admin").label(LABEL, "true").build())
    status = {"allocation": {"devices": {"results": [RESULT]}}}
    stored = c.api.update_status({**claim, "status": status})
    c.apply(make_namespace("admin").build())
    consumer = {"resource": "pods", "name": "p", "uid": "u1"}
    out = c.api.update_status({**stored, "status": {**status, "reservedFor": [consumer]}})
    assert out["status"]["reservedFor"] == [consumer]
