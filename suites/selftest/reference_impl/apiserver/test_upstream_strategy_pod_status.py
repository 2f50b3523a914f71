"""Rows of pkg/registry/core/pod/strategy_test.go (v1.37.2) TestStatusPrepareForUpdate on
the reference's pods/status preparer (``pod_status_prepare.preserve_pod_status_fields``)
and, for the owner references, ``status_meta.status_metadata``; one row more writes
through the APIServer to show the rule end to end.

Upstream's rows set feature gates; DynamicResourceAllocation, InPlacePodVerticalScaling
and PodObservedGenerationTracking are GA and locked on in 1.37, and the preserving rules
themselves are ungated, so the rows whose expectation does not depend on a gate run with
the defaults.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.registry import Context
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.status_meta import status_metadata
from reference_impl.apiserver.strategies.pod_status_prepare import preserve_pod_status_fields
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NOW = "2026-01-01T00:00:00Z"
_LOCKED = (
    "DynamicResourceAllocation is GA and locked on in 1.37; upstream turns it off through "
    "an emulation version (1.34), which the reference's FeatureGates does not model"
)


def _pod(status: Obj | None = None, **meta: Any) -> Obj:
    pod: Obj = {"metadata": {"name": "pod", **meta}, "spec": {}}
    if status is not None:
        pod["status"] = status
    return pod


def _cond(type_: str, gen: int = 0) -> Obj:
    c: Obj = {"type": type_, "status": "True"}
    if gen:
        c["observedGeneration"] = gen
    return c


_OLD_CONDS = [
    _cond("old=without,new=without"),
    _cond("old=with,new=without", 20),
    _cond("old=without,new=with"),
    _cond("old=with,new=with", 20),
    _cond("removed-condition", 1),
    _cond("duplicate type"),
    _cond("duplicate type", 1),
    _cond("duplicate type", 2),
]
_NEW_CONDS = [
    _cond("old=without,new=without"),
    _cond("old=with,new=without"),
    _cond("old=without,new=with", 20),
    _cond("old=with,new=with", 20),
    _cond("new-condition", 1),
    _cond("duplicate type", 1),
    _cond("duplicate type"),
    _cond("duplicate type", 2),
]
_WANT_CONDS = [
    _cond("old=without,new=without"),
    _cond("old=with,new=without", 20),
    _cond("old=without,new=with", 20),
    _cond("old=with,new=with", 20),
    _cond("new-condition", 1),
    _cond("duplicate type", 1),
    _cond("duplicate type", 1),
    _cond("duplicate type", 2),
]
_CLAIMS = {"resourceClaimStatuses": [{"name": "my-claim", "resourceClaimName": "pod-my-claim"}]}
_EXT = {"extendedResourceClaimStatus": {"resourceClaimName": "pod-ext-claim"}}
_NODE = {"nodeAllocatableResourceClaimStatuses": [{"resourceClaimName": "pod-node-claim"}]}
_DELETING = {"deletionTimestamp": "0001-01-01T00:00:00Z"}
_DROP_STATUS = {
    "resourceClaimStatuses": [{"name": "my-claim", "resourceClaimName": "pod-my-claim"}],
    "containerStatuses": [{"resources": {}}],
}


# TestStatusPrepareForUpdate: (old pod, new pod, gates, expected new pod).
@pytest.mark.parametrize(
    ("old", "new", "gates", "want"),
    [
        pytest.param(
            _pod({"qosClass": "Guaranteed"}), _pod(), {}, _pod({"qosClass": "Guaranteed"}),
            id="preserve old qos if empty",
        ),
        pytest.param(
            _pod({}), _pod(_DROP_STATUS), {"InPlacePodVerticalScaling": False},
            _pod({"containerStatuses": [{}]}),
            id="drop disabled status fields/InPlacePodVerticalScaling=false",
            marks=pytest.mark.skip(reason=_LOCKED),
        ),
        pytest.param(
            _pod({}), _pod(_DROP_STATUS), {}, _pod({"containerStatuses": [{"resources": {}}]}),
            id="drop disabled status fields/InPlacePodVerticalScaling=true",
            marks=pytest.mark.skip(reason=_LOCKED),
        ),
        pytest.param(
            _pod({"observedGeneration": 20}), _pod(), {}, _pod({"observedGeneration": 20}),
            id="preserve old status.observedGeneration if empty/PodObservedGenerationTracking=false",
        ),
        pytest.param(
            _pod({"observedGeneration": 20}), _pod(), {}, _pod({"observedGeneration": 20}),
            id="preserve old status.observedGeneration if empty/PodObservedGenerationTracking=true",
        ),
        pytest.param(
            _pod({"conditions": _OLD_CONDS}), _pod({"conditions": _NEW_CONDS}), {},
            _pod({"conditions": _WANT_CONDS}),
            id="preserve old conditions.observedGeneration if empty/PodObservedGenerationTracking=false",
        ),
        pytest.param(
            _pod({"conditions": _OLD_CONDS}), _pod({"conditions": _NEW_CONDS}), {},
            _pod({"conditions": _WANT_CONDS}),
            id="preserve old conditions.observedGeneration if empty/PodObservedGenerationTracking=true",
        ),
        pytest.param(
            _pod(_CLAIMS, **_DELETING), _pod({}), {}, _pod(_CLAIMS),
            id="preserve old ResourceClaimStatuses when misbehaving client clears them on terminating pod",
        ),
        pytest.param(
            _pod(_CLAIMS), _pod({}), {}, _pod(_CLAIMS),
            id="preserve old ResourceClaimStatuses when omitted on non-terminating pod",
        ),
        pytest.param(
            _pod(_CLAIMS), _pod({"resourceClaimStatuses": []}), {},
            _pod({"resourceClaimStatuses": []}),
            id="allow explicit empty-slice removal of ResourceClaimStatuses on non-terminating pod",
        ),
        pytest.param(
            _pod(_EXT, **_DELETING), _pod({}), {"DRAExtendedResource": True}, _pod(_EXT),
            id="preserve old ExtendedResourceClaimStatus when misbehaving client clears it on terminating pod",
        ),
        pytest.param(
            _pod(_EXT), _pod({}), {"DRAExtendedResource": True}, _pod(_EXT),
            id="preserve old ExtendedResourceClaimStatus when omitted on non-terminating pod",
        ),
        pytest.param(
            _pod(_NODE, **_DELETING), _pod({}), {"DRANodeAllocatableResources": True}, _pod(_NODE),
            id="preserve old NodeAllocatableResourceClaimStatuses when misbehaving client clears them on terminating pod",
        ),
        pytest.param(
            _pod(_NODE), _pod({}), {"DRANodeAllocatableResources": True}, _pod(_NODE),
            id="preserve old NodeAllocatableResourceClaimStatuses when omitted on non-terminating pod",
        ),
        pytest.param(
            _pod(_NODE), _pod({"nodeAllocatableResourceClaimStatuses": []}),
            {"DRANodeAllocatableResources": True},
            _pod({"nodeAllocatableResourceClaimStatuses": []}),
            id="allow explicit empty-slice removal of NodeAllocatableResourceClaimStatuses on non-terminating pod",
        ),
    ],
)  # fmt: skip
def test_status_prepare_for_update(old: Obj, new: Obj, gates: dict[str, bool], want: Obj) -> None:
    old, new = copy.deepcopy(old), copy.deepcopy(new)
    ctx = Context(gates=FeatureGates().with_overrides(gates), get=lambda *_: None, list=lambda *_: [])
    preserve_pod_status_fields(new, old, NOW, ctx)
    assert new == want


def test_status_prepare_for_update_owner_references() -> None:
    """TestStatusPrepareForUpdate "preserve old owner references": the status write keeps
    the stored owners (``status_metadata``, the metadata half of the status strategy)."""
    owner = {"apiVersion": "v1", "kind": "ReplicaSet", "name": "rs-1"}
    old = _pod(ownerReferences=[owner])
    body = {"name": "pod", "ownerReferences": [{**owner, "name": "rs-2"}]}
    assert status_metadata("Pod", body, old)["ownerReferences"] == [owner]


def test_status_write_through_apiserver_keeps_server_set_fields() -> None:
    """End to end: a pods/status write that omits the QoS class and observed generations
    (an old kubelet's) stores the ones the pod had."""
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("ns").build())
    pod = s.create(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "pod", "namespace": "ns"},
            "spec": {"containers": [{"name": "c", "image": "image"}]},
        }
    )
    assert pod["status"]["qosClass"] == "BestEffort"
    status = {"observedGeneration": 1, "conditions": [_cond("a", 1)]}
    pod = s.update_status({**pod, "status": status})
    pod = s.update_status({**pod, "status": {"conditions": [_cond("a")]}})
    assert pod["status"] == {
        "qosClass": "BestEffort",
        "observedGeneration": 1,
        "conditions": [_cond("a", 1)],
    }
