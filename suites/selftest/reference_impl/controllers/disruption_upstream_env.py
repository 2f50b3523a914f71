"""A small harness for the disruption controller's upstream rows (``disruption_test.go``).

Objects live in a real APIServer; only the DisruptionController runs (no workload
controllers, no kubelet), so pods keep exactly the labels, owners and Ready conditions a
row gives them. ``sync`` mirrors upstream's ``dc.sync(ctx, pdbName)``: it settles the event
handlers, then syncs the PDB once more by hand (the reference does not watch controllers,
so a scale change reaches it only this way, as in upstream's rows).
"""

from __future__ import annotations

from typing import Any

from reference_impl.api import make_namespace, make_pod
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.controllers.disruption import DisruptionController
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NS = "default"
PDB_NAME = "foobar"
KEY = f"{NS}/{PDB_NAME}"
FOO_BAR = {"foo": "bar"}
READY: Obj = {"type": "Ready", "status": "True"}


class Env:
    """One row's apiserver and a started disruption controller."""

    def __init__(self) -> None:
        self.clock = SimClock()
        rng = Rng(1)
        gates = FeatureGates()
        self.server = APIServer(MVCCStore(), self.clock, rng.child("apiserver"), gates)
        self.server.create(make_namespace(NS).build())
        self.trace = Trace(self.clock)
        ctx = ComponentContext(self.server, InformerFactory(self.server), self.clock, rng, gates, self.trace)
        self.ctrl = DisruptionController(ctx)
        self.ctrl.start()
        self.clock.settle()

    # -- objects ------------------------------------------------------------------------

    def pdb(self, *, min_available: int | str | None = None, max_unavailable: int | str | None = None,
            selector: Obj | None = None, status: Obj | None = None) -> Obj:  # fmt: skip
        """``newMinAvailablePodDisruptionBudget`` / ``newMaxUnavailablePodDisruptionBudget``."""
        spec: Obj = {"selector": {"matchLabels": dict(FOO_BAR)} if selector is None else selector}
        if min_available is not None:
            spec["minAvailable"] = min_available
        if max_unavailable is not None:
            spec["maxUnavailable"] = max_unavailable
        m = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
             "metadata": {"name": PDB_NAME, "namespace": NS}, "spec": spec}  # fmt: skip
        pdb = self.server.create(m)
        if status is not None:
            pdb = self.server.update_status({**pdb, "status": status})
        return pdb

    def workload(self, kind: str, replicas: int, *, name: str = "foobar",
                 labels: dict[str, str] | None = None, owner: Obj | None = None) -> Obj:  # fmt: skip
        """``newReplicaSet`` and friends: a workload selecting ``labels`` (foo=bar)."""
        labels = dict(labels or FOO_BAR)
        template = {"metadata": {"labels": labels}, "spec": make_pod("x").build()["spec"]}
        if kind == "ReplicationController":
            api, spec = "v1", {"replicas": replicas, "selector": labels, "template": template}
        else:
            api, spec = "apps/v1", {"replicas": replicas, "selector": {"matchLabels": labels},
                                    "template": template}  # fmt: skip
            if kind == "StatefulSet":
                spec["serviceName"] = "svc"
        meta: Obj = {"name": name, "namespace": NS, "labels": labels}
        if owner is not None:
            meta["ownerReferences"] = [owner]
        return self.server.create({"apiVersion": api, "kind": kind, "metadata": meta, "spec": spec})

    def scale(self, obj: Obj, replicas: int) -> None:
        """Change a workload's spec.replicas."""
        live = self.server.get(obj["apiVersion"], obj["kind"], obj["metadata"]["name"], NS)
        self.server.update({**live, "spec": {**live["spec"], "replicas": replicas}})

    def pod(self, name: str, *, labels: dict[str, str] | None = None, owner: Obj | None = None,
            ready: bool = True, owner_ref: Obj | None = None) -> Obj:  # fmt: skip
        """``newPod``: Ready, labelled foo=bar, optionally owned by ``owner``."""
        b = make_pod(name, NS)
        for k, v in (labels or FOO_BAR).items():
            b.label(k, v)
        if owner is not None:
            b.owner(owner)
        m = b.build()
        if owner_ref is not None:
            m["metadata"]["ownerReferences"] = [owner_ref]
        pod = self.server.create(m)
        return self.set_ready(pod, ready)

    def set_ready(self, pod: Obj, ready: bool) -> Obj:
        """Give the pod the Ready condition, or no conditions at all."""
        live = self.server.get("v1", "Pod", pod["metadata"]["name"], NS)
        status = {**(live.get("status") or {}), "conditions": [dict(READY)] if ready else []}
        return self.server.update_status({**live, "status": status})

    # -- sync and checks ----------------------------------------------------------------

    def sync(self) -> None:
        """``dc.sync(ctx, pdbName)``."""
        self.clock.settle()
        self.ctrl._sync(KEY)
        self.clock.settle()

    def status(self) -> Obj:
        """The stored PDB's status."""
        return dict(self.server.get("policy/v1", "PodDisruptionBudget", PDB_NAME, NS).get("status") or {})

    def verify(self, allowed: int, healthy: int, desired: int, expected: int,
               disrupted: dict[str, str] | None = None) -> None:  # fmt: skip
        """``VerifyPdbStatus``: the counters, disruptedPods and DisruptionAllowed's status."""
        st = self.status()
        got = (st.get("disruptionsAllowed", 0), st.get("currentHealthy", 0), st.get("desiredHealthy", 0),
               st.get("expectedPods", 0), st.get("disruptedPods") or {})  # fmt: skip
        assert got == (allowed, healthy, desired, expected, disrupted or {})
        cond = next(c for c in st["conditions"] if c["type"] == "DisruptionAllowed")
        assert cond["status"] == ("True" if allowed > 0 else "False")

    def allowed(self) -> int:
        """``VerifyDisruptionAllowed``'s number."""
        return int(self.status().get("disruptionsAllowed", 0))

    def events(self, reason: str) -> list[str]:
        """The controller's events with ``reason`` (the trace stands in for the recorder)."""
        return [r.detail for r in self.trace.records if r.event == reason]
