"""DRA-backed extended resources: the special claim's requests and the pod's request
mappings, from upstream ``Test_createRequestsAndMappings_requests`` and
``Test_createRequestsAndMappings_mappings`` (``extendeddynamicresources_test.go``)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.plugins.extended_resources import requests_and_mappings

Obj = dict[str, Any]
GPU = "example.com/gpu"
IMPLICIT = "deviceclass.resource.kubernetes.io/classInit"


def _pod(*containers: tuple[str, dict[str, str]]) -> Obj:
    """st.MakePod with Res (regular, "con<i>"), InitReq ("init-con<i>") and SidecarReq
    ("sidecar-con<i>", an init container that always restarts), in call order."""
    spec: Obj = {"containers": [], "initContainers": []}
    for kind, reqs in containers:
        res = {"requests": dict(reqs)}
        if kind == "res":
            spec["containers"].append({"name": f"con{len(spec['containers'])}", "image": "i", "resources": res})
        else:
            c: Obj = {"name": f"{'init' if kind == 'init' else 'sidecar'}-con{len(spec['initContainers'])}",
                      "image": "i", "resources": res}
            if kind == "sidecar":
                c["restartPolicy"] = "Always"
            spec["initContainers"].append(c)
    return {"metadata": {"name": "my-pod", "namespace": "default", "uid": "1234"}, "spec": spec}


POD1 = _pod(("res", {GPU: "1", GPU + "1": "2"}))
POD2 = _pod(("res", {GPU: "1"}), ("res", {GPU + "1": "2"}))
POD_INIT = _pod(("res", {GPU: "1"}), ("init", {GPU + "init": "2"}))
POD_INIT2 = _pod(("res", {GPU: "1"}), ("init", {GPU + "init": "1"}), ("init", {GPU + "init": "2"}))
POD_INIT3 = _pod(("res", {GPU: "1"}), ("init", {GPU + "init": "1"}), ("sidecar", {GPU + "init": "1"}),
                 ("init", {GPU + "init": "2"}))
POD1_INIT_IMPLICIT = _pod(("init", {GPU + "init": "1", IMPLICIT: "2"}))
POD_INIT_IMPLICIT = _pod(("res", {GPU: "1"}), ("init", {GPU + "init": "1"}), ("init", {IMPLICIT: "2"}))

DEV_MAP = {GPU: "class"}
DEV_MAP2 = {GPU: "class", GPU + "1": "class1"}
DEV_MAP_INIT = {GPU: "class", GPU + "init": "classInit", IMPLICIT: "classInit"}

# (pod, extended resources, class mapping, [(request name, class, count)])
REQUESTS: dict[str, tuple[Obj, list[str], dict[str, str], list[tuple[str, str, int]]]] = {
    "nil": (POD1, [], {}, []),
    "one resource match": (POD1, [GPU], DEV_MAP, [("container-0-request-0", "class", 1)]),
    "one resource match, one resource not match": (
        POD1, [GPU, GPU + "1"], DEV_MAP, [("container-0-request-0", "class", 1)]),
    "two resources match": (POD1, [GPU, GPU + "1"], DEV_MAP2,
                            [("container-0-request-0", "class", 1), ("container-0-request-1", "class1", 2)]),
    "two containers match": (POD2, [GPU, GPU + "1"], DEV_MAP2,
                             [("container-0-request-0", "class", 1), ("container-1-request-0", "class1", 2)]),
    "one init container, one regular container": (
        POD_INIT, [GPU, GPU + "init"], DEV_MAP_INIT,
        [("container-0-request-0", "classInit", 2), ("container-1-request-0", "class", 1)]),
    "two init containers, one regular container": (
        POD_INIT2, [GPU, GPU + "init"], DEV_MAP_INIT,
        [("container-1-request-0", "classInit", 2), ("container-2-request-0", "class", 1)]),
    "three init containers, one sidecar, one regular container": (
        POD_INIT3, [GPU, GPU + "init"], DEV_MAP_INIT,
        [("container-1-request-0", "classInit", 1), ("container-2-request-0", "classInit", 2),
         ("container-3-request-0", "class", 1)]),
}

# (pod, extended resources, class mapping, [(request name, container, resource)] sorted)
MAPPINGS: dict[str, tuple[Obj, list[str], dict[str, str], list[tuple[str, str, str]]]] = {
    "one container, two requests": (
        POD1, [GPU, GPU + "1"], DEV_MAP2,
        [("container-0-request-0", "con0", GPU), ("container-0-request-1", "con0", GPU + "1")]),
    "one container, one explicit and one implicit request": (
        POD1_INIT_IMPLICIT, [GPU, GPU + "init", IMPLICIT], DEV_MAP_INIT,
        [("container-0-request-0", "init-con0", IMPLICIT), ("container-0-request-1", "init-con0", GPU + "init")]),
    "two containers, two requests": (
        POD2, [GPU, GPU + "1"], DEV_MAP2,
        [("container-0-request-0", "con0", GPU), ("container-1-request-0", "con1", GPU + "1")]),
    "one init container, one regular container, one request": (
        POD_INIT, [GPU, GPU + "init"], DEV_MAP_INIT,
        [("container-0-request-0", "init-con0", GPU + "init"), ("container-1-request-0", "con0", GPU)]),
    "three containers (two are init container), two requests": (
        POD_INIT2, [GPU, GPU + "init"], DEV_MAP_INIT,
        [("container-1-request-0", "init-con0", GPU + "init"), ("container-1-request-0", "init-con1", GPU + "init"),
         ("container-2-request-0", "con0", GPU)]),
    "three containers (two are init container), both explicit and implicit resources": (
        POD_INIT_IMPLICIT, [GPU, GPU + "init", IMPLICIT], DEV_MAP_INIT,
        [("container-0-request-0", "init-con0", GPU + "init"), ("container-1-request-0", "init-con1", IMPLICIT),
         ("container-2-request-0", "con0", GPU)]),
    "four containers (two are init container, one sidecar), three requests": (
        POD_INIT3, [GPU, GPU + "init"], DEV_MAP_INIT,
        [("container-1-request-0", "init-con0", GPU + "init"), ("container-1-request-0", "sidecar-con1", GPU + "init"),
         ("container-2-request-0", "init-con2", GPU + "init"), ("container-3-request-0", "con0", GPU)]),
}


@pytest.mark.parametrize("name", [pytest.param(n, id=n) for n in REQUESTS])
def test_create_requests_and_mappings_requests(name: str) -> None:
    pod, resources, mapping, want = REQUESTS[name]
    got, _ = requests_and_mappings(pod, resources, mapping)
    assert [(r["name"], r["exactly"]["deviceClassName"], r["exactly"]["count"]) for r in got] == want
    assert all(r["exactly"]["allocationMode"] == "ExactCount" for r in got)


@pytest.mark.parametrize("name", [pytest.param(n, id=n) for n in MAPPINGS])
def test_create_requests_and_mappings_mappings(name: str) -> None:
    pod, resources, mapping, want = MAPPINGS[name]
    _, got = requests_and_mappings(pod, resources, mapping)
    assert sorted((m["requestName"], m["containerName"], m["resourceName"]) for m in got) == want
