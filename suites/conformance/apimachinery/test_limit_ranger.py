"""LimitRanger admission (on by default in kube-apiserver 1.37): a namespace's LimitRanges
default container resources on pod create and hold pods and claims to their bounds.

Every test makes its LimitRange before the first pod or claim in its namespace, so the
apiserver's live lookup finds it even before its informer has it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fixtures import Target
from reference_impl.errors import Conflict, Forbidden, Invalid

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
ANNOTATION = "kubernetes.io/limit-ranger"
IMAGE = "registry.k8s.io/pause:3.10"


def _limit_range(namespace: str, *items: Obj, name: str = "limits") -> Obj:
    return {"apiVersion": "v1", "kind": "LimitRange",
            "metadata": {"name": name, "namespace": namespace}, "spec": {"limits": list(items)}}  # fmt: skip


def _container(name: str, requests: Obj | None = None, limits: Obj | None = None, **extra: Any) -> Obj:
    c: Obj = {"name": name, "image": IMAGE, **extra}
    res = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    if res:
        c["resources"] = res
    return c


def _pod(name: str, namespace: str, *containers: Obj, init: tuple[Obj, ...] = ()) -> Obj:
    # A selector no node matches: the pods stay API objects.
    spec: Obj = {"containers": list(containers), "nodeSelector": {"garhwal.io/no-such-node": "x"}}
    if init:
        spec["initContainers"] = list(init)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}, "spec": spec}  # fmt: skip


def _claim(name: str, namespace: str, storage: str) -> Obj:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "",
                     "resources": {"requests": {"storage": storage}}}}  # fmt: skip


def _resources(pod: Obj, i: int = 0, part: str = "containers") -> Obj:
    return dict(pod["spec"][part][i].get("resources") or {})


def _update(target: Target, namespace: str, name: str, change: Callable[[Obj], None], *, resize: bool = False) -> Obj:
    """Read, change and write the pod; the scheduler's status writes may race the read,
    so a Conflict reads again."""
    out: list[Obj] = []

    def attempt() -> bool:
        pod = target.get("v1", "Pod", name, namespace)
        change(pod)
        try:
            out.append(target.resize(pod) if resize else target.apply(pod))
        except Conflict:
            return False
        return True

    target.wait_until(attempt, timeout=30, what=f"{name} written without a conflict")
    return out[0]


def test_container_defaults_fill_only_what_is_missing(target: Target, namespace: str) -> None:
    """Defaults.

    A LimitRange Container item's ``default`` MUST become the limit, and its
    ``defaultRequest`` the request, of every container and init container created
    without them; what a container sets MUST be kept; the pod MUST be annotated
    ``kubernetes.io/limit-ranger`` with what was set, as upstream words it.
    """
    target.apply(_limit_range(namespace, {"type": "Container",
        "default": {"cpu": "500m", "memory": "200Mi"}, "defaultRequest": {"cpu": "100m", "memory": "100Mi"}}))  # fmt: skip
    bare = target.apply(_pod("bare", namespace, _container("app")))
    assert _resources(bare) == {"limits": {"cpu": "500m", "memory": "200Mi"},
                                "requests": {"cpu": "100m", "memory": "100Mi"}}  # fmt: skip
    assert bare["metadata"]["annotations"][ANNOTATION] == (
        "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app"
    )
    assert bare["status"]["qosClass"] == "Burstable"
    some = target.apply(_pod("some", namespace, _container("app", requests={"memory": "150Mi"}),
                             init=(_container("setup", limits={"cpu": "300m"}),)))  # fmt: skip
    assert _resources(some) == {"limits": {"cpu": "500m", "memory": "200Mi"},
                                "requests": {"cpu": "100m", "memory": "150Mi"}}  # fmt: skip
    # The apiserver's defaulting copied the init container's limit into its request first.
    assert _resources(some, 0, "initContainers") == {"limits": {"cpu": "300m", "memory": "200Mi"},
                                                     "requests": {"cpu": "300m", "memory": "100Mi"}}  # fmt: skip
    assert some["metadata"]["annotations"][ANNOTATION] == (
        "LimitRanger plugin set: cpu request for container app; cpu, memory limit for container app; "
        "memory request for init container setup; memory limit for init container setup"
    )
    full = target.apply(_pod("full", namespace, _container("app", {"cpu": "200m", "memory": "100Mi"},
                                                           {"cpu": "200m", "memory": "100Mi"})))  # fmt: skip
    assert ANNOTATION not in (full["metadata"].get("annotations") or {})
    assert full["status"]["qosClass"] == "Guaranteed"


def test_a_container_max_is_the_default_limit(target: Target, namespace: str) -> None:
    """Item defaults.

    A Container item with only ``max`` and ``min`` MUST be stored with ``default`` taken
    from ``max`` and ``defaultRequest`` from ``default``, then ``min``; a pod created
    without resources then MUST get them.
    """
    stored = target.apply(_limit_range(namespace, {"type": "Container", "max": {"cpu": "800m"}, "min": {"memory": "64Mi"}}))  # fmt: skip
    item = stored["spec"]["limits"][0]
    assert item["default"] == {"cpu": "800m"}
    assert item["defaultRequest"] == {"cpu": "800m", "memory": "64Mi"}
    pod = target.apply(_pod("p", namespace, _container("app")))
    assert _resources(pod) == {"limits": {"cpu": "800m"}, "requests": {"cpu": "800m", "memory": "64Mi"}}


def test_container_bounds_are_forbidden(target: Target, namespace: str) -> None:
    """Container bounds.

    A container above a Container item's ``max``, below its ``min``, or past its
    ``maxLimitRequestRatio`` MUST be refused with 403 Forbidden, in upstream's words.
    """
    target.apply(_limit_range(namespace, {"type": "Container", "max": {"cpu": "1"}, "min": {"memory": "10Mi"},
                                          "maxLimitRequestRatio": {"cpu": "4"}}))  # fmt: skip
    cases = [
        ({"memory": "20Mi"}, {"cpu": "2"}, "maximum cpu usage per Container is 1, but limit is 2"),
        ({"memory": "5Mi"}, {"cpu": "1"}, "minimum memory usage per Container is 10Mi, but request is 5Mi"),
        ({"cpu": "100m", "memory": "20Mi"}, {"cpu": "1"},
         "cpu max limit to request ratio per Container is 4, but provided ratio is 10.000000"),
    ]  # fmt: skip
    for i, (requests, limits, why) in enumerate(cases):
        with pytest.raises(Forbidden) as err:
            target.apply(_pod(f"p{i}", namespace, _container("app", requests, limits)))
        assert err.value.code == 403
        assert err.value.message == f'pods "p{i}" is forbidden: {why}'
    ok = target.apply(_pod("ok", namespace, _container("app", {"cpu": "500m", "memory": "20Mi"}, {"cpu": "1"})))
    assert _resources(ok)["limits"] == {"cpu": "1"}


def test_pod_bounds_count_init_containers_and_sidecars(target: Target, namespace: str) -> None:
    """Pod bounds.

    A Pod item bounds the pod's total: containers summed, sidecars (init containers with
    ``restartPolicy: Always``) added, other init containers as a maximum. A pod over it
    MUST be Forbidden, naming the total; one within it MUST be created.
    """
    target.apply(_limit_range(namespace, {"type": "Pod", "max": {"cpu": "1500m", "memory": "1Gi"}}))
    main = _container("app", limits={"cpu": "1", "memory": "256Mi"})
    with pytest.raises(Forbidden) as err:
        target.apply(_pod("sidecar", namespace, main,
                          init=(_container("proxy", limits={"cpu": "1", "memory": "256Mi"}, restartPolicy="Always"),)))  # fmt: skip
    assert err.value.message == 'pods "sidecar" is forbidden: maximum cpu usage per Pod is 1500m, but limit is 2'
    with pytest.raises(Forbidden) as err:
        target.apply(_pod("init", namespace, main, init=(_container("setup", limits={"cpu": "1", "memory": "1.5Gi"}),)))
    assert err.value.message == 'pods "init" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 1536Mi'
    fits = target.apply(_pod("fits", namespace, main, init=(_container("setup", limits={"cpu": "1500m", "memory": "1Gi"}),)))  # fmt: skip
    assert fits["metadata"]["name"] == "fits"


def test_pod_level_resources_stand_for_the_total(target: Target, namespace: str) -> None:
    """Pod-level resources.

    With ``spec.resources`` (PodLevelResources, beta and on in 1.37) a Pod item MUST
    bound the pod-level cpu and memory instead of the containers' total: pod-level
    requests above the containers' MUST satisfy a ``min``, pod-level limits above the
    ``max`` MUST be Forbidden.
    """
    target.apply(_limit_range(namespace, {"type": "Pod", "min": {"cpu": "100m"}, "max": {"cpu": "400m"}},
                              {"type": "Container", "default": {"cpu": "20m"}, "defaultRequest": {"cpu": "10m"}}))  # fmt: skip
    pod = _pod("level", namespace, _container("a"), _container("b"))
    pod["spec"]["resources"] = {"requests": {"cpu": "150m"}, "limits": {"cpu": "300m"}}
    stored = target.apply(pod)
    assert _resources(stored, 1) == {"limits": {"cpu": "20m"}, "requests": {"cpu": "10m"}}
    over = _pod("over", namespace, _container("a"))
    over["spec"]["resources"] = {"limits": {"cpu": "500m"}}
    with pytest.raises(Forbidden) as err:
        target.apply(over)
    # Without pod-level requests the containers' total (the defaults) is held to the min.
    assert err.value.message == (
        'pods "over" is forbidden: [minimum cpu usage per Pod is 100m, but request is 10m, '
        "maximum cpu usage per Pod is 400m, but limit is 500m]"
    )


def test_claim_storage_bounds(target: Target, namespace: str) -> None:
    """Claim bounds.

    A PersistentVolumeClaim item's ``min`` and ``max`` MUST bound a claim's storage
    request: outside them the create is Forbidden, inside it is created.
    """
    target.apply(_limit_range(namespace, {"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}, "max": {"storage": "2Gi"}}))  # fmt: skip
    with pytest.raises(Forbidden) as err:
        target.apply(_claim("big", namespace, "3Gi"))
    assert err.value.message == (
        'persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 3Gi'
    )
    with pytest.raises(Forbidden) as err:
        target.apply(_claim("small", namespace, "500Mi"))
    assert err.value.message.endswith("minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi")
    assert target.apply(_claim("ok", namespace, "1Gi"))["spec"]["resources"]["requests"] == {"storage": "1Gi"}


def test_every_violation_of_a_limit_range_is_reported(target: Target, namespace: str) -> None:
    """Aggregation.

    The violations of one LimitRange MUST be reported together (bracketed, in item order,
    min before max), and one repeated by several containers only once.
    """
    target.apply(_limit_range(namespace, {"type": "Container", "max": {"cpu": "1"}, "min": {"memory": "10Mi"}},
                              {"type": "Pod", "max": {"cpu": "1500m"}}))  # fmt: skip
    with pytest.raises(Forbidden) as err:
        target.apply(_pod("two", namespace, _container("a", {"memory": "5Mi"}, {"cpu": "1500m"}), _container("b", {"memory": "5Mi"}, {"cpu": "1500m"})))  # fmt: skip
    assert err.value.message == (
        'pods "two" is forbidden: [minimum memory usage per Container is 10Mi, but request is 5Mi, '
        "maximum cpu usage per Container is 1, but limit is 1500m, maximum cpu usage per Pod is 1500m, but limit is 3]"
    )


def test_pod_updates_and_resizes(target: Target, namespace: str) -> None:
    """Updates.

    An update of a pod MUST NOT be defaulted nor checked against a LimitRange created
    after it; a pods/resize past a Container ``max`` MUST be Forbidden.
    """
    target.apply(_pod("old", namespace, _container("app", {"cpu": "100m"}, {"cpu": "2"})))
    target.apply(_limit_range(namespace, {"type": "Container", "max": {"cpu": "1"}}))
    updated = _update(target, namespace, "old", lambda pod: pod["metadata"].update(labels={"touched": "yes"}))
    assert updated["metadata"]["labels"] == {"touched": "yes"}
    assert ANNOTATION not in (updated["metadata"].get("annotations") or {})
    target.apply(_pod("rz", namespace, _container("app", {"cpu": "500m"}, {"cpu": "500m"})))

    def grow(pod: Obj) -> None:
        pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "2"}, "limits": {"cpu": "2"}}

    with pytest.raises(Forbidden) as err:
        _update(target, namespace, "rz", grow, resize=True)
    assert err.value.message == 'pods "rz" is forbidden: maximum cpu usage per Container is 1, but limit is 2'


def test_a_resize_is_defaulted(target: Target, namespace: str) -> None:
    """Resize defaults.

    A pods/resize of a pod made before the LimitRange MUST get the Container item's
    defaults for what its containers and init containers lack, as a create does, but
    MUST NOT be annotated (the resize keeps only container resources).
    """
    target.apply(_pod("rz", namespace, _container("app", {"cpu": "100m"}), init=(_container("setup"),)))
    target.apply(_limit_range(namespace, {"type": "Container", "default": {"cpu": "1", "memory": "200Mi"},
                                          "defaultRequest": {"cpu": "50m", "memory": "100Mi"}}))  # fmt: skip
    grown = _update(target, namespace, "rz", lambda pod: pod["spec"]["containers"][0].update(resources={"requests": {"cpu": "200m"}}), resize=True)  # fmt: skip
    assert _resources(grown) == {"limits": {"cpu": "1", "memory": "200Mi"}, "requests": {"cpu": "200m", "memory": "100Mi"}}  # fmt: skip
    assert _resources(grown, 0, "initContainers") == {"limits": {"cpu": "1", "memory": "200Mi"},
                                                      "requests": {"cpu": "50m", "memory": "100Mi"}}  # fmt: skip
    assert ANNOTATION not in (grown["metadata"].get("annotations") or {})


def test_invalid_limit_ranges(target: Target, namespace: str) -> None:
    """LimitRange validation.

    A LimitRange whose min exceeds its max, whose defaults lie outside them, whose ratio
    is below 1, with defaults on a Pod item, a claim item bounding no storage, or a
    repeated type MUST be Invalid, with upstream's field paths.
    """
    with pytest.raises(Invalid) as err:
        target.apply(_limit_range(namespace,
            {"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "2"}, "maxLimitRequestRatio": {"cpu": "500m"}},
            {"type": "Pod", "default": {"cpu": "1"}}, {"type": "PersistentVolumeClaim", "max": {"cpu": "1"}},
            {"type": "Container"}))  # fmt: skip
    assert [(c.field, c.message) for c in err.value.causes] == [
        ("spec.limits[0].min[cpu]", 'Invalid value: "2": min value 2 is greater than max value 1'),
        ("spec.limits[0].defaultRequest[cpu]", 'Invalid value: "1": min value 2 is greater than default request value 1'),
        ("spec.limits[0].default[cpu]", 'Invalid value: "2": min value 2 is greater than default value 1'),
        ("spec.limits[0].maxLimitRequestRatio[cpu]", 'Invalid value: "500m": ratio 500m is less than 1'),
        ("spec.limits[1].default", "Forbidden: may not be specified when `type` is 'Pod'"),
        ("spec.limits[2].limits", "Required value: either minimum or maximum storage value is required, but neither was provided"),
        ("spec.limits[3].type", 'Duplicate value: "Container"'),
    ]  # fmt: skip
