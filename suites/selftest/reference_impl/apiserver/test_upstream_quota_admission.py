"""The ResourceQuota admission plugin, after upstream's
``plugin/pkg/admission/resourcequota/admission_test.go`` (one case per test function or
table row).

Each row calls the plugin's ``validate`` as upstream calls ``handler.Validate``: the
quotas are what the informer holds (never validated, as with upstream's fake clientset),
and the plugin's quota status writes are recorded, as upstream reads the fake client's
``update-resourcequotas-status`` actions. A row asserts the last written quota's name and
``status.used`` exactly, or that nothing was written, or the Forbidden message.
"""

from __future__ import annotations

import copy
from typing import Any, cast

import pytest

from reference_impl.api import make_namespace
from reference_impl.api.resources import ResourceInfo, lookup
from reference_impl.apiserver.admission.resource_quota import (
    ResourceQuotaAdmission,
    check_request,
    install,
)
from reference_impl.apiserver.quota import registry
from reference_impl.apiserver.quota.types import Env
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import Instant, SimClock
from reference_impl.errors import Forbidden
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
LIMITED = "limitedResources/limitedScopes (AdmissionConfiguration) are not modelled: kube-apiserver's default has none"


class FakeServer:
    """What the plugin needs of the apiserver: a clock, and status writes (recorded)."""

    def __init__(self) -> None:
        self.clock = SimClock()
        self.writes: list[Obj] = []

    def update_status(self, obj: Obj) -> Obj:
        self.writes.append(obj)
        return obj


def admit(quotas: list[Obj], op: Operation, obj: Obj, old: Obj | None = None,
          subresource: str = "", kind: str = "Pod") -> list[Obj]:  # fmt: skip
    """``handler.Validate``; the quotas written, in order."""
    server = FakeServer()
    plugin = ResourceQuotaAdmission(cast("APIServer", server))

    def list_(api_version: str, k: str, ns: str | None) -> list[Obj]:
        if k != "ResourceQuota":
            return []
        return [copy.deepcopy(o) for o in quotas if ns is None or o["metadata"]["namespace"] == ns]

    def get(api_version: str, k: str, name: str, ns: str | None) -> Obj | None:
        return next((o for o in list_(api_version, k, ns) if o["metadata"]["name"] == name), None)

    ctx = Context(FeatureGates(), get, list_, subresource=subresource)
    info = lookup("v1", kind)
    assert isinstance(info, ResourceInfo)
    plugin.validate(op, info, obj, old, ctx)
    return server.writes


def rq(name: str, hard: dict[str, str], used: dict[str, str], ns: str = "test", **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": name, "namespace": ns, "resourceVersion": "124"},
            "spec": spec, "status": {"hard": hard, "used": used}}  # fmt: skip


def valid_pod(name: str, n: int = 1, requests: Obj | None = None, limits: Obj | None = None,
              **spec: Any) -> Obj:  # fmt: skip
    """``validPod``: ``n`` unnamed containers sharing the resources."""
    res = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    cs = [{"image": f"foo:V{i}", "resources": res} for i in range(n)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "test"},
            "spec": {"containers": cs, **spec}}  # fmt: skip


def valid_pvc(name: str, storage: str, vac: str | None = None, **status: Any) -> Obj:
    """``validPersistentVolumeClaim``."""
    spec: Obj = {"resources": {"requests": {"storage": storage}}}
    if vac is not None:
        spec["volumeAttributesClassName"] = vac
    pvc: Obj = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": name, "namespace": "test"}, "spec": spec}  # fmt: skip
    if status:
        pvc["status"] = status
    return pvc


def service(svc_type: str, rv: str = "", ports: bool = False) -> Obj:
    meta = {"name": "service", "namespace": "test", **({"resourceVersion": rv} if rv else {})}
    spec: Obj = {"type": svc_type, **({"ports": [{"port": 1234}]} if ports else {})}
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": spec}


def with_rv(obj: Obj, rv: str = "1") -> Obj:
    out = copy.deepcopy(obj)
    out["metadata"]["resourceVersion"] = rv
    return out


def cpu_mem(cpu: str, mem: str) -> dict[str, str]:
    return {k: v for k, v in (("cpu", cpu), ("memory", mem)) if v}


HARD = {"cpu": "3", "memory": "100Gi", "pods": "5"}
USED = {"cpu": "1", "memory": "50Gi", "pods": "3"}
SVC_HARD = {"services": "10", "services.loadbalancers": "10", "services.nodeports": "10"}
SVC_USED = {"services": "1", "services.loadbalancers": "1", "services.nodeports": "0"}
PVC_HARD = {"persistentvolumeclaims": "3", "requests.storage": "100Gi"}
PVC_USED = {"persistentvolumeclaims": "1", "requests.storage": "10Gi"}
ADS = 30


def vac_quota(name: str, cls: str, hard: dict[str, str] = PVC_HARD,
              used: dict[str, str] = PVC_USED) -> Obj:  # fmt: skip
    sel = {"matchExpressions": [
        {"scopeName": "VolumeAttributesClass", "operator": "In", "values": [cls]}]}  # fmt: skip
    return rq(name, hard, used, scopeSelector=sel)


GOLD, SILVER, COPPER = vac_quota("quota-gold", "gold"), vac_quota("quota-silver", "silver"), \
    vac_quota("quota-copper", "copper")  # fmt: skip
VAC_USED = {"persistentvolumeclaims": "2", "requests.storage": "11Gi"}

# (quotas, op, new, old, subresource, kind, written quota name or None, its used)
Row = tuple[list[Obj], Operation, Obj, Obj | None, str, str, str | None, dict[str, str] | None]


def row(quotas: list[Obj], op: Operation, new: Obj, old: Obj | None = None, sub: str = "",
        kind: str = "Pod", name: str | None = None, used: dict[str, str] | None = None) -> Row:  # fmt: skip
    return (quotas, op, new, old, sub, kind, name, used)


C, U = Operation.CREATE, Operation.UPDATE
PVC = "PersistentVolumeClaim"
BOUND = {"phase": "Bound"}


def claim(vac: str | None, current: str | None = None, target: str | None = None) -> Obj:
    status: Obj = dict(BOUND)
    if current is not None:
        status["currentVolumeAttributesClassName"] = current
    if target is not None:
        status["modifyVolumeStatus"] = {"targetVolumeAttributesClassName": target}
    return valid_pvc("allowed-pvc", "1Gi", vac, **status)


EXCEEDED_SILVER = vac_quota("quota-silver", "silver",
                            {"persistentvolumeclaims": "1", "requests.storage": "10Gi"},
                            {"persistentvolumeclaims": "1", "requests.storage": "10Gi"})  # fmt: skip


@pytest.mark.parametrize(("quotas", "op", "new", "old", "sub", "kind", "name", "used"), [
    pytest.param(*row([rq("quota", HARD, USED)], Operation.DELETE, valid_pod("name")),
                 id="TestAdmissionIgnoresDelete"),
    pytest.param(*row([rq("quota", {"memory": "2Gi"}, {"memory": "1Gi"})], C,
                      valid_pod("123", 1, cpu_mem("100m", "2Gi")), sub="subresource"),
                 id="TestAdmissionIgnoresSubresources (subresource create)"),
    pytest.param(*row([rq("quota", HARD, USED)], C, valid_pod("allowed-pod", 1, cpu_mem("100m", "2Gi")),
                      name="quota", used={"cpu": "1100m", "memory": "52Gi", "pods": "4"}),
                 id="TestAdmitBelowQuotaLimit"),
    pytest.param(*row([rq("quota", SVC_HARD, SVC_USED)], U, service("NodePort", ports=True),
                      service("LoadBalancer", "1"), kind="Service", name="quota",
                      used={"services": "1", "services.loadbalancers": "1", "services.nodeports": "1"}),
                 id="TestAdmitHandlesOldObjects"),
    pytest.param(*row([rq("quota", PVC_HARD, PVC_USED)], U, valid_pvc("pvc-to-update", "5Gi"),
                      with_rv(valid_pvc("pvc-to-update", "10Gi")), kind=PVC),
                 id="TestAdmitHandlesNegativePVCUpdates"),
    pytest.param(*row([rq("quota", PVC_HARD, PVC_USED)], U, valid_pvc("pvc-to-update", "15Gi"),
                      with_rv(valid_pvc("pvc-to-update", "10Gi")), kind=PVC, name="quota",
                      used={"persistentvolumeclaims": "1", "requests.storage": "15Gi"}),
                 id="TestAdmitHandlesPVCUpdates"),
    pytest.param(*row([rq("quota", HARD, USED, ns="other")], C,
                      valid_pod("allowed-pod", 1, cpu_mem("100m", "2Gi"), cpu_mem("200m", ""))),
                 id="TestAdmitPodInNamespaceWithoutQuota"),
    pytest.param(*row([rq("quota-non-terminating", HARD, USED, scopes=["NotTerminating"]),
                       rq("quota-terminating", HARD, USED, scopes=["Terminating"])], C,
                      valid_pod("allowed-pod", 1, cpu_mem("100m", "2Gi"), activeDeadlineSeconds=ADS),
                      name="quota-terminating", used={"cpu": "1100m", "memory": "52Gi", "pods": "4"}),
                 id="TestAdmitBelowTerminatingQuotaLimit"),
    pytest.param(*row([rq("quota-non-terminating", HARD, USED, scopes=["NotTerminating"]),
                       rq("quota-terminating", HARD, USED, scopes=["Terminating"])], U,
                      valid_pod("allowed-pod", 1, cpu_mem("100m", "2Gi"), activeDeadlineSeconds=ADS),
                      with_rv(valid_pod("allowed-pod", 1, cpu_mem("100m", "2Gi"))),
                      name="quota-terminating", used={"cpu": "1100m", "memory": "52Gi", "pods": "4"}),
                 id="TestAdmitBelowTerminatingQuotaLimitWhenPodScopeUpdated"),
    pytest.param(*row([GOLD, SILVER], C, valid_pvc("allowed-pvc", "1Gi", "gold"), kind=PVC,
                      name="quota-gold", used=VAC_USED),
                 id="TestAdmitBelowVolumeAttributesClassQuotaLimit"),
    pytest.param(*row([GOLD, SILVER, COPPER], U, claim("gold"), with_rv(claim(None)), kind=PVC,
                      name="quota-gold", used=VAC_USED),
                 id="WhenPVCScopeUpdated/update the desired class of a pvc from nil to gold"),
    pytest.param(*row([GOLD, SILVER, COPPER], U, claim("gold", target="gold"), with_rv(claim("gold")),
                      "status", PVC),
                 id="WhenPVCScopeUpdated/update the target class of a pvc to gold "),
    pytest.param(*row([GOLD, SILVER, COPPER], U, claim("gold", current="gold"),
                      with_rv(claim("gold", target="gold")), "status", PVC),
                 id="WhenPVCScopeUpdated/update the current class of a pvc from nil to gold"),
    pytest.param(*row([GOLD, SILVER, COPPER], U, claim("silver", current="gold"),
                      with_rv(claim("gold", current="gold")), kind=PVC, name="quota-silver",
                      used=VAC_USED),
                 id="WhenPVCScopeUpdated/update the desired class of a pvc from gold to silver"),
    pytest.param(*row([GOLD, SILVER, COPPER], U, claim("silver", current="gold", target="silver"),
                      with_rv(claim("silver", current="gold")), "status", PVC),
                 id="WhenPVCScopeUpdated/update the target class of a pvc to silver"),
    pytest.param(*row([GOLD, SILVER, COPPER], U, claim("copper", current="gold", target="silver"),
                      with_rv(claim("silver", current="gold", target="silver")), kind=PVC,
                      name="quota-copper", used=VAC_USED),
                 id="WhenPVCScopeUpdated/update the desired class of a pvc from silver to copper"),
    pytest.param(*row([GOLD, EXCEEDED_SILVER], U, claim("gold", current="silver", target="gold"),
                      with_rv(claim("gold", current="gold")), "status", PVC, name="quota-silver",
                      used=VAC_USED),
                 id="WhenPVCScopeUpdated/allow update pvc status when a quota is exceeded"),
    pytest.param(*row([rq("quota-besteffort", {"pods": "5"}, {"pods": "3"}, scopes=["BestEffort"]),
                       rq("quota-not-besteffort", {"pods": "5"}, {"pods": "3"}, scopes=["NotBestEffort"])],
                      C, valid_pod("allowed-pod"), name="quota-besteffort", used={"pods": "4"}),
                 id="TestAdmitBelowBestEffortQuotaLimit"),
    pytest.param(*row([rq("quota-besteffort", {"pods": "5"}, {"pods": "3"}, scopes=["BestEffort"])],
                      C, valid_pod("allowed-pod", 1, cpu_mem("100m", "1Gi"))),
                 id="TestAdmitBestEffortQuotaLimitIgnoresBurstable"),
    pytest.param(*row([rq("quota", PVC_HARD, PVC_USED)], C, valid_pvc("not-allowed-pvc", "1Gi"),
                      kind=PVC, name="quota",
                      used={"persistentvolumeclaims": "2", "requests.storage": "11Gi"}),
                 id="TestAdmitRejectsNegativeUsage (non-negative accepted)"),
    pytest.param(*row([rq("quota", {"services": "3", "pods": "4"}, {"services": "4", "pods": "1"})], C,
                      valid_pod("allowed-pod"), name="quota", used={"services": "4", "pods": "2"}),
                 id="TestAdmitWhenUnrelatedResourceExceedsQuota"),
])  # fmt: skip
def test_admitted(quotas: list[Obj], op: Operation, new: Obj, old: Obj | None, sub: str,
                  kind: str, name: str | None, used: dict[str, str] | None) -> None:  # fmt: skip
    """Admitted; the last quota written (``name``) has exactly ``used``, or none is."""
    writes = admit(quotas, op, new, old, sub, kind)
    if name is None:
        assert writes == []
        return
    assert writes, "expected update-resourcequotas-status"
    assert writes[-1]["metadata"]["name"] == name
    assert writes[-1]["status"]["used"] == used
    assert writes[-1]["status"]["hard"] == next(
        q for q in quotas if q["metadata"]["name"] == name
    )["status"]["hard"]


@pytest.mark.parametrize(("quotas", "op", "new", "old", "kind", "message"), [
    pytest.param([rq("quota", {"memory": "2Gi"}, {"memory": "1Gi"})], C,
                 valid_pod("123", 1, cpu_mem("100m", "2Gi")), None, "Pod",
                 'pods "123" is forbidden: exceeded quota: quota, requested: memory=2Gi, '
                 "used: memory=1Gi, limited: memory=2Gi",
                 id="TestAdmissionIgnoresSubresources (main resource)"),
    pytest.param([rq("quota", HARD, USED)], C, valid_pod("not-allowed-pod", 1, cpu_mem("3", "2Gi")),
                 None, "Pod", 'pods "not-allowed-pod" is forbidden: exceeded quota: quota, '
                 "requested: cpu=3, used: cpu=1, limited: cpu=3", id="TestAdmitExceedQuotaLimit"),
    pytest.param([rq("quota", {**HARD, "limits.memory": "200Gi"}, {**USED, "limits.memory": "100Gi"})],
                 C, valid_pod("not-allowed-pod", 1, cpu_mem("100m", "2Gi"), cpu_mem("200m", "")), None,
                 "Pod", 'pods "not-allowed-pod" is forbidden: failed quota: quota: '
                 "must specify limits.memory for: ", id="TestAdmitEnforceQuotaConstraints"),
    pytest.param([rq("quota", PVC_HARD, PVC_USED)], C, valid_pvc("not-allowed-pvc", "-1Gi"), None, PVC,
                 'persistentvolumeclaims "not-allowed-pvc" is forbidden: quota usage is negative for '
                 "resource(s): requests.storage", id="TestAdmitRejectsNegativeUsage (negative refused)"),
    pytest.param([rq("quota", SVC_HARD, SVC_USED)], U, service("NodePort", ports=True), None,
                 "Service", 'services "service" is forbidden: unable to get previous usage since '
                 "prior version of object was not found",
                 id="CheckRequest: an update without its old object"),
])  # fmt: skip
def test_refused(quotas: list[Obj], op: Operation, new: Obj, old: Obj | None, kind: str,
                 message: str) -> None:  # fmt: skip
    with pytest.raises(Forbidden) as e:
        admit(quotas, op, new, old, kind=kind)
    assert str(e.value) == message


def test_negative_usage_refused_without_a_matching_quota() -> None:
    """CheckRequest measures the object even when no quota matches it."""
    with pytest.raises(Forbidden, match="quota usage is negative for resource"):
        admit([rq("quota", {"pods": "5"}, {"pods": "3"})], C, valid_pvc("c", "-1Gi"), kind=PVC)


def test_admit_handles_creating_updates() -> None:
    """TestAdmitHandlesCreatingUpdates, on ``CheckRequest`` itself: an old object without a
    resourceVersion (a create-on-update) is ignored and the new one charged in full. The
    apiserver's plugin always has the stored object as the old one."""
    quotas = [rq("quota", SVC_HARD, SVC_USED)]
    ev = registry.evaluator_for("services", Env(Context(FeatureGates(), _none, _empty), Instant(0)))
    out = check_request(quotas, U, "", service("NodePort", ports=True), service("LoadBalancer"), ev)
    used = {"services": "2", "services.loadbalancers": "1", "services.nodeports": "1"}
    assert out[0]["status"]["used"] == used
    stored = check_request(quotas, U, "", service("NodePort", ports=True),
                           service("LoadBalancer"), ev, old_stored=True)  # fmt: skip
    assert stored[0]["status"]["used"] == {**used, "services": "1"}


def _none(api_version: str, kind: str, name: str, ns: str | None) -> Obj | None:
    return None


def _empty(api_version: str, kind: str, ns: str | None) -> list[Obj]:
    return []


def test_admission_sets_missing_namespace() -> None:
    """TestAdmissionSetsMissingNamespace: the request's namespace is the object's (here the
    apiserver sets it before admission) and the quota there is charged."""
    clock = SimClock()
    server = APIServer(MVCCStore(), clock, Rng(1).child("apiserver"), FeatureGates())
    install(server)
    server.create(make_namespace("default").build())
    stored = server.create({"apiVersion": "v1", "kind": "ResourceQuota",
                            "metadata": {"name": "quota", "namespace": "default"},
                            "spec": {"hard": {"pods": "3"}}})  # fmt: skip
    server.update_status({**stored, "status": {"hard": {"pods": "3"}, "used": {"pods": "1"}}})
    pod = valid_pod("pod-without-namespace", 1, cpu_mem("1", "2Gi"))
    del pod["metadata"]["namespace"]
    pod["spec"]["containers"][0]["name"] = "c"
    created = server.create(pod)
    assert created["metadata"]["namespace"] == "default"
    assert server.get("v1", "ResourceQuota", "quota", "default")["status"]["used"] == {"pods": "2"}


_Skip = pytest.mark.skip(reason=LIMITED)


@pytest.mark.parametrize("name", [
    pytest.param("TestAdmitLimitedResourceNoQuota", marks=_Skip),
    pytest.param("TestAdmitLimitedResourceNoQuotaIgnoresNonMatchingResources", marks=_Skip),
    pytest.param("TestAdmitLimitedResourceWithQuota", marks=_Skip),
    pytest.param("TestAdmitLimitedResourceWithMultipleQuota", marks=_Skip),
    pytest.param("TestAdmitLimitedResourceWithQuotaThatDoesNotCover", marks=_Skip),
    pytest.param("TestAdmitLimitedScopeWithCoverQuota (20 rows)", marks=_Skip),
    pytest.param("TestAdmitZeroDeltaUsageWithoutCoveringQuota", marks=_Skip),
    pytest.param("TestAdmitRejectIncreaseUsageWithoutCoveringQuota", marks=_Skip),
    pytest.param("TestAdmitAllowDecreaseUsageWithoutCoveringQuota", marks=_Skip),
    pytest.param("TestAdmitDryRun", marks=pytest.mark.skip(reason="dry-run requests are not modelled")),
])  # fmt: skip
def test_not_modelled(name: str) -> None:
    raise AssertionError(name)

