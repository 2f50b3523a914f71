"""LimitRanger admission, after upstream's ``plugin/pkg/admission/limitranger/admission_test.go``:
the defaults merge and its annotation, the TestPodLimitFunc and
TestPersistentVolumeClaimLimitFunc tables, and the handler cases (updates, subresources,
resize, terminating pods); then the same through the apiserver, with upstream's messages."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl import Cluster
from reference_impl.apiserver.admission.limit_ranger import (
    ANNOTATION,
    LimitRanger,
    pod_mutate,
    pod_validate,
    pvc_validate,
)
from reference_impl.apiserver.registry import Operation
from reference_impl.errors import Forbidden, Invalid

Obj = dict[str, Any]
NS = "test"


def compute(cpu: str = "", memory: str = "") -> Obj:
    """``getComputeResourceList``."""
    return {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}


def local(ephemeral: str = "") -> Obj:
    """``getLocalStorageResourceList``."""
    return {"ephemeral-storage": ephemeral} if ephemeral else {}


def storage(amount: str = "") -> Obj:
    """``getStorageResourceList``."""
    return {"storage": amount} if amount else {}


def req(requests: Obj, limits: Obj) -> Obj:
    """``getResourceRequirements``."""
    return {"requests": dict(requests), "limits": dict(limits)}


def limit_range(
    limit_type: str, lo: Obj, hi: Obj, default: Obj | None = None,
    default_request: Obj | None = None, ratio: Obj | None = None,
) -> Obj:  # fmt: skip
    """``createLimitRange``: one item, not defaulted (a conversion, as upstream's)."""
    item: Obj = {"type": limit_type, "min": lo, "max": hi, "default": default or {},
                 "defaultRequest": default_request or {}, "maxLimitRequestRatio": ratio or {}}  # fmt: skip
    return {"metadata": {"name": "abc", "namespace": NS}, "spec": {"limits": [item]}}


def valid_limit_range() -> Obj:
    return {"metadata": {"name": "abc", "namespace": NS}, "spec": {"limits": [
        {"type": "Pod", "max": compute("200m", "4Gi"), "min": compute("50m", "2Mi")},
        {"type": "Container", "max": compute("100m", "2Gi"), "min": compute("25m", "1Mi"),
         "default": compute("75m", "10Mi"), "defaultRequest": compute("50m", "5Mi")},
    ]}}  # fmt: skip


def valid_limit_range_no_defaults() -> Obj:
    lr = valid_limit_range()
    for item in lr["spec"]["limits"]:
        item.pop("default", None)
        item.pop("defaultRequest", None)
    return lr


def valid_pod(name: str, n: int, resources: Obj, pod_resources: Obj | None = None) -> Obj:
    """``validPod`` (``validPodWithPodLevelResources`` with ``pod_resources``)."""
    containers = [{"name": f"foo-{i}", "image": f"foo:V{i}", "resources": _copy(resources)} for i in range(n)]  # fmt: skip
    spec: Obj = {"containers": containers}
    if pod_resources is not None:
        spec["resources"] = pod_resources
    return {"metadata": {"name": name, "namespace": NS}, "spec": spec}


def _copy(res: Obj) -> Obj:
    return {k: dict(v) for k, v in res.items()}


def with_init(pod: Obj, *resources: Obj) -> Obj:
    """``validPodInit``."""
    inits = pod["spec"].setdefault("initContainers", [])
    inits += [{"name": f"foo-{i}", "image": f"foo:V{i}", "resources": _copy(r)} for i, r in enumerate(resources)]  # fmt: skip
    return pod


def with_sidecar(requests: Obj, limits: Obj, pod: Obj) -> Obj:
    """``withRestartableInitContainer``."""
    inits = pod["spec"].setdefault("initContainers", [])
    n = len(inits)
    inits.append({"name": f"foo-{n}", "image": f"foo:V{n}", "restartPolicy": "Always",
                  "resources": req(requests, limits)})  # fmt: skip
    return pod


E: Obj = {}


def C(lo: Obj, hi: Obj, ratio: Obj | None = None) -> Obj:  # noqa: N802 - a table shorthand
    return limit_range("Container", lo, hi, ratio=ratio)


def P(lo: Obj, hi: Obj, ratio: Obj | None = None) -> Obj:  # noqa: N802 - a table shorthand
    return limit_range("Pod", lo, hi, ratio=ratio)


def _resources(c: Obj) -> Obj:
    return {k: v for k, v in c["resources"].items() if v}


# -- defaults -------------------------------------------------------------------------


def test_merge_pod_resource_requirements() -> None:
    """``TestMergePodResourceRequirements``: only what is missing is filled, and noted."""
    lr = valid_limit_range()
    pod = valid_pod("empty-resources", 1, req(E, E))
    pod_mutate(lr, pod)
    assert _resources(pod["spec"]["containers"][0]) == req(compute("50m", "5Mi"), compute("75m", "10Mi"))
    assert pod["metadata"]["annotations"][ANNOTATION] == (
        "LimitRanger plugin set: cpu, memory request for container foo-0; cpu, memory limit for container foo-0"
    )

    some = req(compute("", "512Mi"), E)
    pod = with_init(valid_pod("limit-memory", 1, some), some)
    pod_mutate(lr, pod)
    want = req(compute("50m", "512Mi"), compute("75m", "10Mi"))
    assert [_resources(c) for c in pod["spec"]["containers"] + pod["spec"]["initContainers"]] == [want, want]
    # Upstream's own expectation names only the container: both carry the name foo-0.
    assert pod["metadata"]["annotations"][ANNOTATION] == (
        "LimitRanger plugin set: cpu request for container foo-0; cpu, memory limit for container foo-0; "
        "cpu request for init container foo-0; cpu, memory limit for init container foo-0"
    )

    full = req(compute("100m", "512Mi"), compute("200m", "1G"))
    init = req(compute("200m", "1G"), compute("400m", "2G"))
    pod = with_init(valid_pod("limit-memory", 1, full), init)
    pod_mutate(lr, pod)
    assert _resources(pod["spec"]["containers"][0]) == full
    assert _resources(pod["spec"]["initContainers"][0]) == init
    assert ANNOTATION not in (pod["metadata"].get("annotations") or {})


def test_pod_limit_func_apply_default() -> None:
    """``TestPodLimitFuncApplyDefault``: containers and init containers get the defaults."""
    pod = with_init(valid_pod("foo", 1, req(E, E)), req(E, E))
    pod_mutate(valid_limit_range(), pod)
    for c in pod["spec"]["containers"] + pod["spec"]["initContainers"]:
        assert c["resources"] == req(compute("50m", "5Mi"), compute("75m", "10Mi"))


# -- TestPodLimitFunc -----------------------------------------------------------------

SUCCESS = [
    ("ctr-min-cpu-request", valid_pod("", 1, req(compute("100m"), E)), C(compute("50m"), E)),
    ("ctr-min-cpu-request-limit", valid_pod("", 1, req(compute("100m"), compute("200m"))), C(compute("50m"), E)),
    ("ctr-min-memory-request", valid_pod("", 1, req(compute("", "60Mi"), E)), C(compute("", "50Mi"), E)),
    ("ctr-min-memory-request-limit", valid_pod("", 1, req(compute("", "60Mi"), compute("", "100Mi"))), C(compute("", "50Mi"), E)),
    ("ctr-max-cpu-request-limit", valid_pod("", 1, req(compute("500m"), compute("1"))), C(E, compute("2"))),
    ("ctr-max-cpu-limit", valid_pod("", 1, req(E, compute("1"))), C(E, compute("2"))),
    ("ctr-max-mem-request-limit", valid_pod("", 1, req(compute("", "250Mi"), compute("", "500Mi"))), C(E, compute("", "1Gi"))),
    ("ctr-max-cpu-ratio", valid_pod("", 1, req(compute("500m"), compute("750m"))), C(E, E, compute("1.5"))),
    ("ctr-max-mem-limit", valid_pod("", 1, req(E, compute("", "500Mi"))), C(E, compute("", "1Gi"))),
    ("pod-min-cpu-request", valid_pod("", 2, req(compute("75m"), E)), P(compute("100m"), E)),
    ("pod-min-cpu-request-limit", valid_pod("", 2, req(compute("75m"), compute("200m"))), P(compute("100m"), E)),
    ("pod-min-memory-request", valid_pod("", 2, req(compute("", "60Mi"), E)), P(compute("", "100Mi"), E)),
    ("pod-min-memory-request-limit", valid_pod("", 2, req(compute("", "60Mi"), compute("", "100Mi"))), P(compute("", "100Mi"), E)),
    ("pod-init-min-memory-request", with_init(valid_pod("", 2, req(compute("", "60Mi"), E)), req(compute("", "100Mi"), E)), P(compute("", "100Mi"), E)),
    ("pod-init-min-memory-request-limit", with_init(valid_pod("", 2, req(compute("", "60Mi"), compute("", "100Mi"))), req(compute("", "80Mi"), compute("", "100Mi"))), P(compute("", "100Mi"), E)),
    ("pod-max-cpu-request-limit", valid_pod("", 2, req(compute("500m"), compute("1"))), P(E, compute("2"))),
    ("pod-max-cpu-limit", valid_pod("", 2, req(E, compute("1"))), P(E, compute("2"))),
    ("pod-init-max-cpu-request-limit", with_init(valid_pod("", 2, req(compute("500m"), compute("1"))), req(compute("1"), compute("2")), req(compute("1"), compute("1"))), P(E, compute("2"))),
    ("pod-init-max-cpu-limit", with_init(valid_pod("", 2, req(E, compute("1"))), req(E, compute("2")), req(E, compute("2"))), P(E, compute("2"))),
    ("pod-max-mem-request-limit", valid_pod("", 2, req(compute("", "250Mi"), compute("", "500Mi"))), P(E, compute("", "1Gi"))),
    ("pod-max-mem-limit", valid_pod("", 2, req(E, compute("", "500Mi"))), P(E, compute("", "1Gi"))),
    ("pod-max-mem-ratio", valid_pod("", 3, req(compute("", "300Mi"), compute("", "450Mi"))), P(E, compute("", "2Gi"), compute("", "1.5"))),
    ("ctr-1-min-local-ephemeral-storage-request", valid_pod("", 1, req(local("60Mi"), E)), C(local("50Mi"), E)),
    ("ctr-1-min-local-ephemeral-storage-request-limit", valid_pod("", 1, req(local("60Mi"), local("100Mi"))), C(local("50Mi"), E)),
    ("ctr-1-max-local-ephemeral-storage-request-limit", valid_pod("", 1, req(local("250Mi"), local("500Mi"))), C(E, local("1Gi"))),
    ("ctr-1-max-local-ephemeral-storage-limit", valid_pod("", 1, req(E, local("500Mi"))), C(E, local("1Gi"))),
    ("ctr-2-min-local-ephemeral-storage-request", valid_pod("", 2, req(local("60Mi"), E)), C(local("50Mi"), E)),
    ("ctr-2-min-local-ephemeral-storage-request-limit", valid_pod("", 2, req(local("60Mi"), local("100Mi"))), C(local("50Mi"), E)),
    ("ctr-2-max-local-ephemeral-storage-request-limit", valid_pod("", 2, req(local("250Mi"), local("500Mi"))), C(E, local("600Mi"))),
    ("ctr-2-max-local-ephemeral-storage-limit", valid_pod("", 2, req(E, local("500Mi"))), C(E, local("600Mi"))),
    ("pod-min-local-ephemeral-storage-request", valid_pod("", 2, req(local("60Mi"), E)), P(local("100Mi"), E)),
    ("pod-min-local-ephemeral-storage-request-limit", valid_pod("", 2, req(local("60Mi"), local("100Mi"))), P(local("100Mi"), E)),
    ("pod-init-min-local-ephemeral-storage-request", with_init(valid_pod("", 2, req(local("60Mi"), E)), req(local("100Mi"), E)), P(local("100Mi"), E)),
    ("pod-init-min-local-ephemeral-storage-request-limit", with_init(valid_pod("", 2, req(local("60Mi"), local("100Mi"))), req(local("80Mi"), local("100Mi"))), P(local("100Mi"), E)),
    ("pod-max-local-ephemeral-storage-request-limit", valid_pod("", 2, req(local("250Mi"), local("500Mi"))), P(E, local("1Gi"))),
    ("pod-max-local-ephemeral-storage-limit", valid_pod("", 2, req(E, local("500Mi"))), P(E, local("1Gi"))),
    ("pod-max-local-ephemeral-storage-ratio", valid_pod("", 3, req(local("300Mi"), local("450Mi"))), P(E, local("2Gi"), local("1.5"))),
    ("pod-level-resources-with-min-max", valid_pod("", 3, req(compute("100m", "60Mi"), compute("200m", "100Mi")), req(compute("200m", "180Mi"), compute("400m", "200Mi"))), P(E, compute("400m", "200Mi"))),
    ("pod-level-requests-with-min", valid_pod("", 3, req(compute("50m", "60Mi"), E), req(compute("160m", "200Mi"), E)), P(compute("160m", "200Mi"), E)),
    ("pod-level-limits-with-max", valid_pod("", 3, req(E, compute("50m", "60Mi")), req(E, compute("160m", "200Mi"))), P(E, compute("160m", "200Mi"))),
]  # fmt: skip

ERRORS = [
    ("ctr-min-cpu-request", valid_pod("", 1, req(compute("40m"), E)), C(compute("50m"), E)),
    ("ctr-min-cpu-request-limit", valid_pod("", 1, req(compute("40m"), compute("200m"))), C(compute("50m"), E)),
    ("ctr-min-cpu-no-request-limit", valid_pod("", 1, req(E, E)), C(compute("50m"), E)),
    ("ctr-min-memory-request", valid_pod("", 1, req(compute("", "40Mi"), E)), C(compute("", "50Mi"), E)),
    ("ctr-min-memory-request-limit", valid_pod("", 1, req(compute("", "40Mi"), compute("", "100Mi"))), C(compute("", "50Mi"), E)),
    ("ctr-min-memory-no-request-limit", valid_pod("", 1, req(E, E)), C(compute("", "50Mi"), E)),
    ("ctr-max-cpu-request-limit", valid_pod("", 1, req(compute("500m"), compute("2500m"))), C(E, compute("2"))),
    ("ctr-max-cpu-limit", valid_pod("", 1, req(E, compute("2500m"))), C(E, compute("2"))),
    ("ctr-max-cpu-no-request-limit", valid_pod("", 1, req(E, E)), C(E, compute("2"))),
    ("ctr-max-cpu-ratio", valid_pod("", 1, req(compute("1250m"), compute("2500m"))), C(E, E, compute("1"))),
    ("ctr-max-mem-request-limit", valid_pod("", 1, req(compute("", "250Mi"), compute("", "2Gi"))), C(E, compute("", "1Gi"))),
    ("ctr-max-mem-limit", valid_pod("", 1, req(E, compute("", "2Gi"))), C(E, compute("", "1Gi"))),
    ("ctr-max-mem-no-request-limit", valid_pod("", 1, req(E, E)), C(E, compute("", "1Gi"))),
    ("pod-min-cpu-request", valid_pod("", 1, req(compute("75m"), E)), P(compute("100m"), E)),
    ("pod-min-cpu-request-limit", valid_pod("", 1, req(compute("75m"), compute("200m"))), P(compute("100m"), E)),
    ("pod-min-memory-request", valid_pod("", 1, req(compute("", "60Mi"), E)), P(compute("", "100Mi"), E)),
    ("pod-min-memory-request-limit", valid_pod("", 1, req(compute("", "60Mi"), compute("", "100Mi"))), P(compute("", "100Mi"), E)),
    ("pod-max-cpu-request-limit", valid_pod("", 3, req(compute("500m"), compute("1"))), P(E, compute("2"))),
    ("pod-max-cpu-limit", valid_pod("", 3, req(E, compute("1"))), P(E, compute("2"))),
    ("pod-max-mem-request-limit", valid_pod("", 3, req(compute("", "250Mi"), compute("", "500Mi"))), P(E, compute("", "1Gi"))),
    ("pod-max-mem-limit", valid_pod("", 3, req(E, compute("", "500Mi"))), P(E, compute("", "1Gi"))),
    ("pod-init-max-mem-limit", with_init(valid_pod("", 1, req(E, compute("", "500Mi"))), req(E, compute("", "1.5Gi"))), P(E, compute("", "1Gi"))),
    ("pod-max-mem-ratio", valid_pod("", 3, req(compute("", "250Mi"), compute("", "500Mi"))), P(E, compute("", "2Gi"), compute("", "1.5"))),
    ("ctr-1-min-local-ephemeral-storage-request", valid_pod("", 1, req(local("40Mi"), E)), C(local("50Mi"), E)),
    ("ctr-1-min-local-ephemeral-storage-request-limit", valid_pod("", 1, req(local("40Mi"), local("100Mi"))), C(local("50Mi"), E)),
    ("ctr-1-min-local-ephemeral-storage-no-request-limit", valid_pod("", 1, req(E, E)), C(local("50Mi"), E)),
    ("ctr-1-max-local-ephemeral-storage-request-limit", valid_pod("", 1, req(local("250Mi"), local("2Gi"))), C(E, local("1Gi"))),
    ("ctr-1-max-local-ephemeral-storage-limit", valid_pod("", 1, req(E, local("2Gi"))), C(E, local("1Gi"))),
    ("ctr-1-max-local-ephemeral-storage-no-request-limit", valid_pod("", 1, req(E, E)), C(E, local("1Gi"))),
    ("ctr-2-min-local-ephemeral-storage-request", valid_pod("", 2, req(local("40Mi"), E)), C(local("50Mi"), E)),
    ("ctr-2-min-local-ephemeral-storage-request-limit", valid_pod("", 2, req(local("40Mi"), local("100Mi"))), C(local("50Mi"), E)),
    ("ctr-2-min-local-ephemeral-storage-no-request-limit", valid_pod("", 2, req(E, E)), C(local("50Mi"), E)),
    ("ctr-2-max-local-ephemeral-storage-request-limit", valid_pod("", 2, req(local("250Mi"), local("2Gi"))), C(E, local("1Gi"))),
    ("ctr-2-max-local-ephemeral-storage-limit", valid_pod("", 2, req(E, local("2Gi"))), C(E, local("1Gi"))),
    ("ctr-2-max-local-ephemeral-storage-no-request-limit", valid_pod("", 2, req(E, E)), C(E, local("1Gi"))),
    ("pod-min-local-ephemeral-storage-request", valid_pod("", 1, req(local("60Mi"), E)), P(local("100Mi"), E)),
    ("pod-min-local-ephemeral-storage-request-limit", valid_pod("", 1, req(local("60Mi"), local("100Mi"))), P(local("100Mi"), E)),
    ("pod-max-local-ephemeral-storage-request-limit", valid_pod("", 3, req(local("250Mi"), local("500Mi"))), P(E, local("1Gi"))),
    ("pod-max-local-ephemeral-storage-limit", valid_pod("", 3, req(E, local("500Mi"))), P(E, local("1Gi"))),
    ("pod-init-max-local-ephemeral-storage-limit", with_init(valid_pod("", 1, req(E, local("500Mi"))), req(E, local("1.5Gi"))), P(E, local("1Gi"))),
    ("pod-max-local-ephemeral-storage-ratio", valid_pod("", 3, req(local("250Mi"), local("500Mi"))), P(E, local("2Gi"), local("1.5"))),
    ("ctr-max-cpu-limit-restartable-init-container", with_sidecar(compute("1500m"), E, valid_pod("", 1, req(compute("1000m"), compute("1500m")))), P(E, compute("2"))),
    ("pod-level-resources-exceeding-max", valid_pod("", 3, req(compute("100m", "60Mi"), compute("200m", "100Mi")), req(compute("200m", "180Mi"), compute("500m", "280Mi"))), P(E, compute("400m", "200Mi"))),
    ("pod-level-requests-less-than-min", valid_pod("", 3, req(compute("50m", "60Mi"), E), req(compute("100m", "200Mi"), E)), P(compute("160m", "200Mi"), E)),
    ("pod-level-limits-exceeding-max", valid_pod("", 3, req(E, compute("50m", "60Mi")), req(E, compute("160m", "300Mi"))), P(E, compute("160m", "200Mi"))),
]  # fmt: skip


@pytest.mark.parametrize(("pod", "lr"), [pytest.param(p, lr, id=n) for n, p, lr in SUCCESS])
def test_pod_limit_func_success(pod: Obj, lr: Obj) -> None:
    pod_mutate(lr, pod)
    assert pod_validate(lr, pod) == []


@pytest.mark.parametrize(("pod", "lr"), [pytest.param(p, lr, id=n) for n, p, lr in ERRORS])
def test_pod_limit_func_error(pod: Obj, lr: Obj) -> None:
    pod_mutate(lr, pod)
    assert pod_validate(lr, pod) != []


@pytest.mark.parametrize(
    ("pod", "lr", "message"),
    [
        (valid_pod("", 1, req(compute("500m"), compute("2500m"))), C(E, compute("2")),
         "maximum cpu usage per Container is 2, but limit is 2500m"),
        (valid_pod("", 1, req(E, E)), C(E, compute("", "1Gi")),
         "maximum memory usage per Container is 1Gi.  No limit is specified"),
        (valid_pod("", 1, req(E, E)), C(compute("50m"), E),
         "minimum cpu usage per Container is 50m.  No request is specified"),
        (valid_pod("", 1, req(compute("40m"), compute("200m"))), C(compute("50m"), E),
         "minimum cpu usage per Container is 50m, but request is 40m"),
        (valid_pod("", 1, req(compute("1250m"), compute("2500m"))), C(E, E, compute("1")),
         "cpu max limit to request ratio per Container is 1, but provided ratio is 2.000000"),
        (valid_pod("", 3, req(compute("", "250Mi"), compute("", "500Mi"))), P(E, compute("", "1Gi")),
         "maximum memory usage per Pod is 1Gi, but limit is 1500Mi"),
        (with_init(valid_pod("", 1, req(E, compute("", "500Mi"))), req(E, compute("", "1.5Gi"))), P(E, compute("", "1Gi")),
         "maximum memory usage per Pod is 1Gi, but limit is 1536Mi"),
        (with_sidecar(compute("1500m"), E, valid_pod("", 1, req(compute("1000m"), compute("1500m")))), P(E, compute("2")),
         "maximum cpu usage per Pod is 2, but request is 2500m"),
    ],
)  # fmt: skip
def test_pod_limit_messages(pod: Obj, lr: Obj, message: str) -> None:
    """Upstream's wording and Quantity.String() forms."""
    assert pod_validate(lr, pod) == [message]


# -- TestPersistentVolumeClaimLimitFunc ----------------------------------------------


def _pvc(amount: str) -> Obj:
    return {"metadata": {"name": "pvc", "namespace": NS}, "spec": {"resources": {"requests": storage(amount)}}}  # fmt: skip


@pytest.mark.parametrize(
    ("amount", "lr", "ok"),
    [
        pytest.param("1Gi", limit_range("PersistentVolumeClaim", storage("1Gi"), E), True, id="pvc-is-min-storage-request"),
        pytest.param("1Gi", limit_range("PersistentVolumeClaim", E, storage("1Gi")), True, id="pvc-is-max-storage-request"),
        pytest.param("100Gi", limit_range("PersistentVolumeClaim", E, E), True, id="pvc-no-minmax-storage-request"),
        pytest.param("5Gi", limit_range("PersistentVolumeClaim", storage("1Gi"), storage("10Gi")), True, id="pvc-within-minmax-storage-request"),
        pytest.param("500Mi", limit_range("PersistentVolumeClaim", storage("1Gi"), E), False, id="pvc-below-min-storage-request"),
        pytest.param("100Gi", limit_range("PersistentVolumeClaim", storage("1Gi"), storage("1Gi")), False, id="pvc-exceeds-max-storage-request"),
    ],
)  # fmt: skip
def test_persistent_volume_claim_limit_func(amount: str, lr: Obj, ok: bool) -> None:
    assert (pvc_validate(lr, _pvc(amount)) == []) is ok


# -- the handler, through the apiserver ------------------------------------------------


def _cluster(lr: Obj) -> Cluster:
    c = Cluster()
    c.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    c.apply({"apiVersion": "v1", "kind": "LimitRange", **lr})
    return c


def _manifest(pod: Obj) -> Obj:
    pod["metadata"]["name"] = pod["metadata"]["name"] or "pod"
    for c in pod["spec"]["containers"]:
        c["image"] = "registry.k8s.io/pause:3.10"
    return {"apiVersion": "v1", "kind": "Pod", **pod}


def test_admit_pod_create_is_forbidden_update_and_status_are_not() -> None:
    """``TestLimitRangerAdmitPod``/``IgnoresSubresource``: a bare pod breaks a Pod min
    (which nothing defaults); a later update and a /status write are not checked."""
    c = Cluster()
    c.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    c.apply(_manifest(valid_pod("testpod", 1, req(E, E))))  # before the LimitRange
    c.apply({"apiVersion": "v1", "kind": "LimitRange", **limit_range("Pod", compute("50m"), E)})
    with pytest.raises(Forbidden, match=r'^pods "other" is forbidden: minimum cpu usage per Pod is 50m.  No request is specified$'):
        c.apply(_manifest(valid_pod("other", 1, req(E, E))))
    pod = c.get("v1", "Pod", "testpod", NS)
    pod["metadata"]["labels"] = {"updated": "yes"}
    updated = c.apply(pod)
    assert updated["metadata"]["labels"] == {"updated": "yes"}
    assert ANNOTATION not in (updated["metadata"].get("annotations") or {})  # no defaulting on update
    status = dict(updated, status={**updated["status"], "message": "hi"})
    assert c.patch_status(status)["status"]["message"] == "hi"


def test_pod_resize_is_validated() -> None:
    """``TestLimitRangerAllowPodResize``: the pods/resize subresource is held to the max."""
    c = _cluster(limit_range("Container", E, compute("1")))
    c.apply(_manifest(valid_pod("p", 1, req(compute("500m"), compute("500m")))))
    pod = c.get("v1", "Pod", "p", NS)
    pod["spec"]["containers"][0]["resources"] = req(compute("2"), compute("2"))
    with pytest.raises(Forbidden, match=r'^pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2$'):
        c.resize(pod)
    pod = c.get("v1", "Pod", "p", NS)
    pod["spec"]["containers"][0]["resources"] = req(compute("800m"), compute("800m"))
    assert c.resize(pod)["spec"]["containers"][0]["resources"]["limits"] == {"cpu": "800m"}


def test_pod_resize_is_defaulted() -> None:
    """pods/resize gets the defaults (containers and init containers), without the
    annotation; a limit sent without a request is the request too, as decoding defaults."""
    c = Cluster()
    c.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    pod = with_init(valid_pod("p", 1, req(compute("100m"), E)), req(E, E))
    pod["spec"]["initContainers"][0].update(name="setup", image="registry.k8s.io/pause:3.10")
    c.apply(_manifest(pod))
    c.apply({"apiVersion": "v1", "kind": "LimitRange", **limit_range("Container", E, E, compute("1", "200Mi"), compute("50m", "100Mi"))})  # fmt: skip
    pod = c.get("v1", "Pod", "p", NS)
    pod["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "500m"}}
    out = c.resize(pod)
    assert out["spec"]["containers"][0]["resources"] == req(compute("500m", "100Mi"), compute("500m", "200Mi"))
    assert out["spec"]["initContainers"][0]["resources"] == req(compute("50m", "100Mi"), compute("1", "200Mi"))
    assert ANNOTATION not in (out["metadata"].get("annotations") or {})


def test_terminating_pod_is_never_blocked() -> None:
    """An object marked for deletion passes, whatever the LimitRange says (a claim here:
    pod updates are never checked)."""
    c = _cluster(limit_range("PersistentVolumeClaim", storage("1Gi"), E))
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "claim", "namespace": NS, "finalizers": ["example.com/hold"]},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}  # fmt: skip
    c.apply(claim)
    c.api.delete("v1", "PersistentVolumeClaim", "claim", NS)
    c.apply({"apiVersion": "v1", "kind": "LimitRange",
             **{**limit_range("PersistentVolumeClaim", storage("5Gi"), E), "metadata": {"name": "big", "namespace": NS}}})  # fmt: skip
    held = c.get("v1", "PersistentVolumeClaim", "claim", NS)
    held["metadata"]["labels"] = {"still": "here"}
    assert c.apply(held)["metadata"]["labels"] == {"still": "here"}  # below the new min, but going


def test_claim_updates_are_checked() -> None:
    """Claims are validated on update too (pods are not): growing past the max is Forbidden."""
    lr = limit_range("PersistentVolumeClaim", E, storage("2Gi"))
    lr["spec"]["limits"] += limit_range("Container", E, compute("1"))["spec"]["limits"]
    c = _cluster(lr)
    ctx = c.api._context()
    info = c.api.resource("v1", "PersistentVolumeClaim")
    old = {"metadata": {"name": "claim", "namespace": NS}, "spec": {"resources": {"requests": storage("1Gi")}}}
    new = {"metadata": {"name": "claim", "namespace": NS}, "spec": {"resources": {"requests": storage("3Gi")}}}
    with pytest.raises(Forbidden, match=r"maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 3Gi$"):
        LimitRanger().validate(Operation.UPDATE, info, new, old, ctx)
    pod_info = c.api.resource("v1", "Pod")
    pod = _manifest(valid_pod("p", 1, req(E, compute("5"))))
    assert LimitRanger().validate(Operation.UPDATE, pod_info, pod, pod, ctx) == []


def test_defaults_come_from_the_stored_limit_range_and_set_qos() -> None:
    """A Container item's max becomes its default and defaultRequest (SetDefaults_LimitRangeItem);
    the defaulted pod's QoS class is computed after admission."""
    c = _cluster(limit_range("Container", compute("", "10Mi"), compute("1", "1Gi")))
    stored = c.get("v1", "LimitRange", "abc", NS)["spec"]["limits"][0]
    assert stored["default"] == compute("1", "1Gi")
    assert stored["defaultRequest"] == compute("1", "1Gi")
    pod = c.apply(_manifest(valid_pod("p", 1, req(E, E))))
    assert pod["spec"]["containers"][0]["resources"] == req(compute("1", "1Gi"), compute("1", "1Gi"))
    assert pod["status"]["qosClass"] == "Guaranteed"


def test_generated_name_in_the_message_and_repeats_dropped() -> None:
    """The message names the generated pod; identical violations print once, unbracketed."""
    c = _cluster(limit_range("Container", E, compute("1")))
    pod = _manifest(valid_pod("", 2, req(E, compute("2"))))
    pod["metadata"] = {"generateName": "gen-", "namespace": NS}
    with pytest.raises(Forbidden) as err:
        c.apply(pod)
    assert err.value.code == 403
    assert err.value.message.startswith('pods "gen-')
    assert err.value.message.endswith('" is forbidden: maximum cpu usage per Container is 1, but limit is 2')


def test_an_invalid_pod_is_invalid_not_forbidden() -> None:
    """Validating admission runs only for an object that passed validation."""
    c = _cluster(limit_range("Container", E, compute("1")))
    pod = _manifest(valid_pod("p", 1, req(E, compute("2"))))
    pod["spec"]["containers"][0]["name"] = "Not_A_Name"
    with pytest.raises(Invalid):
        c.apply(pod)
