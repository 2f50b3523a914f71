"""Ports imagelocality/image_locality_test.go: TestImageLocalityPriority and
TestNormalizedImageName (TestImageSignature covers pod signing, which the reference lacks)."""

from __future__ import annotations

import hashlib
from typing import Any, cast

import pytest

from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.registry import Handle, SharedLister
from reference_impl.scheduler.plugins.image_locality import ImageLocality, normalized_image_name

Obj = dict[str, Any]
MB = 1024 * 1024


class _Handle:
    def __init__(self, lister: SchedulerCache) -> None:
        self._lister = lister

    def snapshot_shared_lister(self) -> SharedLister:
        return self._lister


def images(*groups: tuple[int, tuple[str, ...]]) -> list[Obj]:
    return [{"names": list(names), "sizeBytes": size * MB} for size, names in groups]


N403002000 = images((40, ("gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1")),
                    (300, ("gcr.io/300:latest", "gcr.io/300:v1")), (2000, ("gcr.io/2000:latest",)))
N25010 = images((250, ("gcr.io/250:latest",)), (10, ("gcr.io/10:latest", "gcr.io/10:v1")))
N60040900 = images((600, ("gcr.io/600:latest",)), (40, ("gcr.io/40:latest",)), (900, ("gcr.io/900:latest",)))
N300600900 = images((300, ("gcr.io/300:latest",)), (600, ("gcr.io/600:latest",)), (900, ("gcr.io/900:latest",)))
N400030 = images((4000, ("gcr.io/4000:latest",)), (30, ("gcr.io/30:latest",)))
N203040 = images((20, ("gcr.io/20:latest",)), (30, ("gcr.io/30:latest",)), (40, ("gcr.io/40:latest",)))
NONE: list[Obj] = []


def spec(*containers: str, init: tuple[str, ...] = (), volume: str = "") -> Obj:
    out: Obj = {"containers": [{"name": f"c{i}", "image": c} for i, c in enumerate(containers)]}
    if init:
        out["initContainers"] = [{"name": f"i{i}", "image": c} for i, c in enumerate(init)]
    if volume:
        out["volumes"] = [{"name": "imageVolume", "image": {"reference": volume}}]
    return out


@pytest.mark.parametrize(
    ("pod_spec", "nodes", "want"),
    [
        pytest.param(spec("gcr.io/40", "gcr.io/250"), [N403002000, N25010], [0, 5],
                     id="two images spread on two nodes, prefer the larger image one"),
        pytest.param(spec("gcr.io/40", "gcr.io/300"), [N403002000, N25010], [7, 0],
                     id="two images on one node, prefer this node"),
        pytest.param(spec("gcr.io/10", "gcr.io/4000"), [N400030, N25010], [100, 0], id="if exceed limit, use limit"),
        pytest.param(spec("gcr.io/10", "gcr.io/4000"), [N400030, N25010, NONE], [66, 0, 0],
                     id="if exceed limit, use limit (with node which has no images present)"),
        pytest.param(spec("gcr.io/300", "gcr.io/600", "gcr.io/900"), [N60040900, N300600900, NONE], [32, 36, 0],
                     id="pod with multiple large images, node2 is preferred"),
        pytest.param(spec("gcr.io/30", "gcr.io/40"), [N203040, N400030], [1, 0], id="pod with multiple small images"),
        pytest.param(spec("gcr.io/30", volume="gcr.io/300"), [N300600900, N400030], [6, 0], id="pod with ImageVolume"),
        pytest.param(spec("gcr.io/30", "gcr.io/300"), [N300600900, N400030], [6, 0],
                     id="same images as ImageVolume pod but as regular container images"),
        pytest.param(spec("gcr.io/30", init=("gcr.io/300",)), [N403002000, N203040], [6, 0],
                     id="include InitContainers: two images spread on two nodes, prefer the larger image one"),
    ],
)
def test_image_locality_priority(pod_spec: Obj, nodes: list[list[Obj]], want: list[int]) -> None:
    cache = SchedulerCache()
    for i, imgs in enumerate(nodes, 1):
        cache.add_node({"metadata": {"name": f"node{i}"}, "status": {"images": imgs}})
    plugin = ImageLocality(cast(Handle, _Handle(cache)))
    pod = {"metadata": {"name": "p", "namespace": "default"}, "spec": pod_spec}
    state = CycleState()
    got = []
    for ni in cache.node_infos():
        score, st = plugin.score(state, pod, ni)
        assert st.is_success()
        got.append(score)
    assert got == want


_DIGEST = "sha256:" + hashlib.sha256(b"root").hexdigest()


@pytest.mark.parametrize(
    ("given", "want"),
    [
        pytest.param("root", "root:latest", id="add :latest postfix 1"),
        pytest.param("gcr.io:5000/root", "gcr.io:5000/root:latest", id="add :latest postfix 2"),
        pytest.param("root:tag", "root:tag", id="keep it as is 1"),
        pytest.param("root@" + _DIGEST, "root@" + _DIGEST, id="keep it as is 2"),
    ],
)
def test_normalized_image_name(given: str, want: str) -> None:
    assert normalized_image_name(given) == want
