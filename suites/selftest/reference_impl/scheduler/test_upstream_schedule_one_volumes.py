"""``TestSchedulerWithVolumeBinding`` (pkg/scheduler/schedule_one_test.go) against the
reference Scheduler with the VolumeBinding plugin. Upstream drives a FakeVolumeBinder; here
real claims and volumes give the same Find results, and the binder's methods are made to
fail where upstream injects errors. The FailedScheduling error is the PodScheduled=False
condition's message."""

from __future__ import annotations

from typing import Any

import pytest
from upstream_schedule_one_env import env

from reference_impl.api import make_node, make_pod
from reference_impl.clock import Instant, seconds
from reference_impl.scheduler.plugins import names
from reference_impl.scheduler.plugins.volume_binder import BinderError

Obj = dict[str, Any]

WAIT_SC: Obj = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                "metadata": {"name": "wait-sc"}, "provisioner": "kubernetes.io/no-provisioner",
                "volumeBindingMode": "WaitForFirstConsumer"}


def _pv(name: str, claim: str = "", node: str = "") -> Obj:
    spec: Obj = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                 "hostPath": {"path": "/" + name}, "storageClassName": "wait-sc"}
    if claim:
        spec["claimRef"] = {"namespace": "default", "name": claim}
    if node:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec}


def _pvc(name: str, volume: str = "") -> Obj:
    meta: Obj = {"name": name, "namespace": "default"}
    spec: Obj = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                 "storageClassName": "wait-sc"}
    if volume:  # bound by the PV controller
        meta["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
        spec["volumeName"] = volume
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}


# claims: "bound" (its PV fits node1), "bad" (bound, PV pinned elsewhere), "none" (unbound,
# no PV), "match" (unbound, a free PV fits).
VOLUME_ROWS = [
    pytest.param(("bound",), "", True, "", id="all bound"),
    pytest.param(("bad",), "", False,
                 "0/1 nodes are available: 1 node(s) didn't match PersistentVolume's node affinity.",
                 id="bound/invalid pv affinity"),
    pytest.param(("none",), "", False,
                 "0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind.",
                 id="unbound/no matches"),
    pytest.param(("bad", "none"), "", False,
                 "0/1 nodes are available: 1 node(s) didn't find available persistent volumes to "
                 "bind, 1 node(s) didn't match PersistentVolume's node affinity.",
                 id="bound and unbound unsatisfied"),
    pytest.param(("match",), "", True, "", id="unbound/found matches/bind succeeds"),
    pytest.param(("match",), "find_pod_volumes", False,
                 'running "VolumeBinding" filter plugin: find err', id="predicate error"),
    pytest.param(("match",), "assume_pod_volumes", False,
                 'running Reserve plugin "VolumeBinding": assume err', id="assume error"),
    pytest.param(("match",), "bind_api_update", False,
                 'running PreBind plugin "VolumeBinding": bind err', id="bind error"),
]
_INJECTED = {"find_pod_volumes": "find err", "assume_pod_volumes": "assume err",
             "bind_api_update": "bind err"}


@pytest.mark.parametrize(("claims", "fail", "want_bound", "want_error"), VOLUME_ROWS)
def test_scheduler_with_volume_binding(
    claims: tuple[str, ...], fail: str, want_bound: bool, want_error: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    e = env(extra=(names.VOLUME_BINDING,))
    s = e.server
    s.create(WAIT_SC)
    s.create(make_node("node1").label("kubernetes.io/hostname", "node1").build())
    objs = {"bound": (_pv("pv-bound", "bound"), _pvc("bound", "pv-bound")),
            "bad": (_pv("pv-bad", "bad", node="other"), _pvc("bad", "pv-bad")),
            "none": (_pvc("none"),),
            "match": (_pv("pv-free"), _pvc("match"))}
    for claim in claims:
        for obj in objs[claim]:
            s.create(obj)
            if obj["kind"] == "PersistentVolume":  # the PV controller's phase
                pv = s.get("v1", "PersistentVolume", obj["metadata"]["name"], None)
                phase = "Bound" if obj["spec"].get("claimRef") else "Available"
                s.update_status({**pv, "status": {"phase": phase}})
    e.clock.settle()
    plugin = next(p for p in e.sched.framework.plugins if p.name() == names.VOLUME_BINDING)
    binder = getattr(plugin, "binder")  # noqa: B009 - the plugin's VolumeBinder
    # No PV controller runs here: FakeVolumeBinder's BindPodVolumes just succeeds.
    monkeypatch.setattr(binder, "check_bindings", lambda *_a: True)
    if fail:
        def boom(*_a: Any) -> Any:
            raise BinderError(_INJECTED[fail])

        monkeypatch.setattr(binder, fail, boom)
    pod = make_pod("foo", "default").build()
    pod["spec"]["volumes"] = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in claims]
    s.create(pod)
    e.clock.run_until(Instant(e.clock.now() + seconds(5)))  # PreBind polls each second
    e.clock.settle()
    assert e.pod()["spec"].get("nodeName", "") == ("node1" if want_bound else "")
    if want_bound:
        assert e.events() == [("Bound", "node1")]
        return
    cond = e.condition()
    assert cond is not None and cond["message"] == want_error
    reason = "SchedulerError" if fail else "Unschedulable"
    assert e.events()[0] == (reason, want_error)  # the first attempt (errors retry sooner)
