"""The Endpoints controller in a whole reference cluster: what it writes passes the
apiserver's own Endpoints validation, follows pods through readiness and deletion, and goes
when its Service goes."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.cluster import Cluster
from reference_impl.errors import NotFound

Obj = dict[str, Any]
NS = "default"


def _pod(name: str, **spec: Any) -> Obj:
    spec.setdefault("containers", [{"name": "c", "image": "nginx",
                                    "ports": [{"name": "http", "containerPort": 8080}]}])  # fmt: skip
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NS, "labels": {"app": "web"}}, "spec": spec}  # fmt: skip


def _service(**spec: Any) -> Obj:
    spec.setdefault("selector", {"app": "web"})
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "web", "namespace": NS, "labels": {"tier": "front"}}, "spec": spec}  # fmt: skip


def _failures(c: Cluster) -> list[str]:
    return [r.event for r in c.trace.records if r.component == "endpoints-controller"
            and r.event.startswith("Failed")]  # fmt: skip


def _ips(ep: Obj, field: str) -> list[str]:
    return sorted(a["ip"] for s in ep.get("subsets") or [] for a in s.get(field) or [])


def test_endpoints_follow_pods_and_pass_validation() -> None:
    c = Cluster()
    c.create(_service(ports=[{"name": "http", "port": 80, "targetPort": "http"},
                             {"name": "dns", "port": 53, "protocol": "UDP"}]))  # fmt: skip
    for i in range(3):
        c.create(_pod(f"web-{i}", hostname=f"h{i}", subdomain="web"))
    c.advance(30)
    ep = c.get("v1", "Endpoints", "web", NS)
    assert _failures(c) == []
    assert ep["metadata"]["labels"] == {"tier": "front",
                                        "endpoints.kubernetes.io/managed-by": "endpoint-controller"}  # fmt: skip
    [subset] = ep["subsets"]
    assert len(subset["addresses"]) == 3 and "notReadyAddresses" not in subset
    assert {a["hostname"] for a in subset["addresses"]} == {"h0", "h1", "h2"}
    assert all(a["nodeName"] and a["targetRef"]["uid"] for a in subset["addresses"])
    assert sorted((p["name"], p["port"], p["protocol"]) for p in subset["ports"]) == [
        ("dns", 53, "UDP"), ("http", 8080, "TCP")]  # fmt: skip
    assert "endpoints.kubernetes.io/last-change-trigger-time" in ep["metadata"]["annotations"]
    c.delete("v1", "Pod", "web-0", NS, grace_period_seconds=0)
    c.advance(10)
    assert len(_ips(c.get("v1", "Endpoints", "web", NS), "addresses")) == 2
    c.delete("v1", "Service", "web", NS)
    c.advance(5)
    with pytest.raises(NotFound):
        c.get("v1", "Endpoints", "web", NS)


def test_headless_publish_not_ready_and_no_selector() -> None:
    c = Cluster()
    c.create(_service(clusterIP="None", publishNotReadyAddresses=True))
    c.create(
        {
            **_service(),
            "metadata": {"name": "manual", "namespace": NS},
            "spec": {"ports": [{"port": 80}]},
        }
    )
    c.create(_pod("web-0"))
    c.advance(30)
    ep = c.get("v1", "Endpoints", "web", NS)
    assert _failures(c) == []
    assert ep["metadata"]["labels"]["service.kubernetes.io/headless"] == ""
    assert len(_ips(ep, "addresses")) == 1 and "ports" not in ep["subsets"][0]
    with pytest.raises(NotFound):  # a Service without selector gets no Endpoints from it
        c.get("v1", "Endpoints", "manual", NS)
