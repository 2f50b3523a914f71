"""pkg/controlplane/controller/defaultservicecidr/default_servicecidr_controller_test.go
(v1.37.2): TestControllerSync and TestControllerSyncConversions. Each row's client
actions are read off the stored "kubernetes" ServiceCIDR after one ``sync``: created,
its status written (Ready=True), its spec updated, or left as it was."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver import default_service_cidr
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NET = "networking.k8s.io/v1"
V4, V6 = "10.16.0.0/16", "2001:db8::/64"
K = default_service_cidr.DEFAULT_SERVICE_CIDR_NAME


def _cidr(name: str, *cidrs: str) -> Obj:
    return {"apiVersion": NET, "kind": "ServiceCIDR", "metadata": {"name": name},
            "spec": {"cidrs": list(cidrs)}}  # fmt: skip


def _server(flags: tuple[str, ...], existing: Obj | None, ready: str | None = None,
            deleting: bool = False) -> APIServer:  # fmt: skip
    """``newController``: the flags, and the row's ServiceCIDR in place of the one the
    apiserver made as it started."""
    s = APIServer(MVCCStore(), SimClock(), Rng(5), FeatureGates(), flags)
    s.delete(NET, "ServiceCIDR", K)
    if existing is None:
        return s
    if deleting:
        existing = {
            **existing,
            "metadata": {**existing["metadata"], "finalizers": ["example.com/hold"]},
        }
    obj = s.create(existing)
    if ready is not None:
        cond = {"type": "Ready", "status": ready, "reason": "SomeReason", "message": "",
                "lastTransitionTime": "2026-09-01T00:00:00Z"}  # fmt: skip
        s.update_status({**obj, "status": {"conditions": [cond]}})
    if deleting:
        s.delete(NET, "ServiceCIDR", existing["metadata"]["name"])
    return s


def _actions(s: APIServer, before: Obj | None) -> list[str]:
    """What one sync did to "kubernetes": "create", "status" (Ready set), "update"."""
    after = s.try_get(NET, "ServiceCIDR", K)
    out: list[str] = []
    if before is None and after is not None:
        out.append("create")
    if after is not None and before is not None and after["spec"] != before["spec"]:
        out.append("update")
    ready = [
        c for c in (after or {}).get("status", {}).get("conditions", []) if c["type"] == "Ready"
    ]
    old = [
        c for c in (before or {}).get("status", {}).get("conditions", []) if c["type"] == "Ready"
    ]
    if ready != old:
        assert ready[0]["status"] == "True"
        assert ready[0]["message"] == "Kubernetes default Service CIDR is ready"
        out.append("status")
    return out


_SYNC_CASES: list[tuple[str, Obj | None, str | None, bool, list[str]]] = [
    ("no existing service CIDRs", None, None, False, ["create", "status"]),
    ("existing default service CIDR update Ready condition", _cidr(K, V4, V6), None, False, ["status"]),
    ("existing default service CIDR not matching cidrs", _cidr(K, "fd00::/112"), None, False, []),
    ("existing default service CIDR not ready", _cidr(K, V4, V6), "False", False, []),
    ("existing default service CIDR being deleted", _cidr(K, V4, V6), None, True, []),
    ("existing service CIDRs but not default", _cidr("non-default-cidr", V4, V6), None, False,
     ["create", "status"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("existing", "ready", "deleting", "want"),
    [c[1:] for c in _SYNC_CASES],
    ids=[c[0] for c in _SYNC_CASES],
)
def test_controller_sync(
    existing: Obj | None, ready: str | None, deleting: bool, want: list[str]
) -> None:
    """TestControllerSync, flags 10.16.0.0/16 and 2001:db8::/64."""
    s = _server((V4, V6), existing, ready, deleting)
    before = s.try_get(NET, "ServiceCIDR", K)
    default_service_cidr.sync(s)
    assert _actions(s, before) == want


_CONVERSION_CASES: list[tuple[str, tuple[str, ...], Obj, str | None, bool, list[str]]] = [
    ("flags match ServiceCIDRs", (V4, V6), _cidr(K, V4, V6), None, False, ["status"]),
    ("existing Ready=False condition, cidrs match -> no patch", (V4, V6), _cidr(K, V4, V6), "False", False, []),
    ("existing Ready=True condition -> no patch", (V4, V6), _cidr(K, V4, V6), "True", False, []),
    ("ServiceCIDR being deleted -> no patch", (V4, V6), _cidr(K, V4, V6), None, True, []),
    ("IPv4 to IPv4 IPv6 is ok", (V4, V6), _cidr(K, V4), None, False, ["update"]),
    ("IPv4 to IPv6 IPv4 - switching primary IP family leaves in inconsistent state",
     (V6, V4), _cidr(K, V4), None, False, []),
    ("IPv6 to IPv6 IPv4", (V6, V4), _cidr(K, V6), None, False, ["update"]),
    ("IPv6 to IPv4 IPv6 - switching primary IP family leaves in inconsistent state",
     (V4, V6), _cidr(K, V6), None, False, []),
    ("IPv6 IPv4 to IPv4 IPv6 - switching primary IP family leaves in inconsistent state",
     (V4, V6), _cidr(K, V6, V4), None, False, []),
    ("IPv4 IPv6 to IPv4 - needs operator attention for the IPv6 remaining Services",
     (V4,), _cidr(K, V4, V6), None, False, []),
]  # fmt: skip


@pytest.mark.parametrize(
    ("flags", "existing", "ready", "deleting", "want"),
    [c[1:] for c in _CONVERSION_CASES],
    ids=[c[0] for c in _CONVERSION_CASES],
)
def test_controller_sync_conversions(
    flags: tuple[str, ...], existing: Obj, ready: str | None, deleting: bool, want: list[str]
) -> None:
    """TestControllerSyncConversions."""
    s = _server(flags, existing, ready, deleting)
    before = s.try_get(NET, "ServiceCIDR", K)
    default_service_cidr.sync(s)
    assert _actions(s, before) == want


def test_apiserver_start_makes_default_ready() -> None:
    """Start: the apiserver's first sync leaves "kubernetes" with the flags' CIDRs
    (masked, primary first) and Ready=True."""
    s = APIServer(MVCCStore(), SimClock(), Rng(5), FeatureGates(), ("10.16.0.1/16",))
    got = s.get(NET, "ServiceCIDR", K)
    assert got["spec"]["cidrs"] == ["10.16.0.0/16"]
    assert [(c["type"], c["status"]) for c in got["status"]["conditions"]] == [("Ready", "True")]
