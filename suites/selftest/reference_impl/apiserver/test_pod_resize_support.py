"""pods/resize refusals of ``ValidatePodResize`` that need no kubelet to see: a running
container without reported resources (``isPodResizeRequestSupported``, checked live against
v1.37.2 on a KWOK node), static pods and Windows pods."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_namespace, make_node, make_pod, resized
from reference_impl.apiserver.pod_subresources import MIRROR_ANNOTATION
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import Invalid
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]


def _server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("default").build())
    s.create(make_node("n").capacity(cpu="4", memory="8Gi").build())  # PodResizeValidator's lookup
    return s


def _running(s: APIServer, pod: Obj, resources: bool) -> Obj:
    cs: Obj = {"name": pod["spec"]["containers"][0]["name"], "state": {"running": {}},
               "ready": True, "restartCount": 0, "image": "pause", "imageID": ""}
    if resources:
        cs["resources"] = {"requests": {"cpu": "1"}}
    return s.update_status({**pod, "status": {"phase": "Running", "containerStatuses": [cs]}})


def _message(err: pytest.ExceptionInfo[Invalid]) -> dict[str, str]:
    return {c.field: c.message for c in err.value.causes}


def test_a_running_container_without_resources_refuses_a_resize() -> None:
    s = _server()
    pod = _running(s, s.create(make_pod("p").req(cpu="1").node("n").build()), resources=False)
    with pytest.raises(Invalid) as err:
        s.resize(resized(pod, cpu="2"))
    assert _message(err) == {
        "spec": "Forbidden: Pod running on node without support for resize"
    }


def test_a_running_container_with_resources_or_none_running_may_be_resized() -> None:
    s = _server()
    pod = _running(s, s.create(make_pod("p").req(cpu="1").node("n").build()), resources=True)
    assert s.resize(resized(pod, cpu="2"))["spec"]["containers"][0]["resources"]["requests"][
        "cpu"
    ] == "2"
    pending = s.create(make_pod("q").req(cpu="1").build())
    s.resize(resized(pending, cpu="2"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # A mirror pod names its node (ValidatePodCreate).
        (lambda p: (p["metadata"].setdefault("annotations", {}).update({MIRROR_ANNOTATION: "x"}),
                    p["spec"].update(nodeName="n1")),
         "Forbidden: static pods cannot be resized"),
        (lambda p: p["spec"].update(os={"name": "windows"}),
         "Forbidden: windows pods cannot be resized"),
    ],
    ids=["static", "windows"],
)
def test_static_and_windows_pods_cannot_be_resized(change: Any, message: str) -> None:
    s = _server()
    manifest = make_pod("p").req(cpu="1").build()
    change(manifest)
    pod = s.create(manifest)
    with pytest.raises(Invalid) as err:
        s.resize(resized(pod, cpu="2"))
    # field.NewPath("") prints as "[]", which is what the v1.37.2 apiserver answers.
    assert _message(err) == {"[]": message}
