"""Upstream's cluster-event tables against reference_impl/scheduler/framework/events.py.

Ported (pkg/scheduler/framework/events_test.go): ``TestNodeAllocatableChange``,
``TestNodeLabelsChange``, ``TestNodeTaintsChange``, ``TestNodeConditionsChange``,
``TestNodeSchedulingPropertiesChange``, ``TestExtractNodeFeaturesChange`` and
``Test_podSchedulingPropertiesChange``; (framework/types_test.go) ``TestClusterEventMatching``.
The single-field extractors are checked through ``node_update_events``: the row's action
must (or must not) be among the returned events.
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.events import node_update_events, pod_update_events
from reference_impl.scheduler.framework.interface import ActionType, ClusterEvent, EventResource

Obj = dict[str, Any]
A = ActionType
R = EventResource


def _node(meta: Obj | None = None, spec: Obj | None = None, status: Obj | None = None) -> Obj:
    return {"metadata": {"name": "", **(meta or {})}, "spec": spec or {}, "status": status or {}}


def _actions(old: Obj, new: Obj) -> list[ActionType]:
    return [e.action for e in node_update_events(old, new)]


# -- the single-field node extractors ---------------------------------------------------


@pytest.mark.parametrize(
    ("changed", "old", "new"),
    [
        pytest.param(False, {"memory": "1024"}, {"memory": "1024"},
                     id="no allocatable resources changed"),
        pytest.param(True, {"memory": "1024"}, {"memory": "1024", "storage": "1024"},
                     id="new node has more allocatable resources"),
    ],
)
def test_node_allocatable_change(changed: bool, old: Obj, new: Obj) -> None:
    got = A.UPDATE_NODE_ALLOCATABLE in _actions(
        _node(status={"allocatable": old}), _node(status={"allocatable": new})
    )
    assert got is changed


@pytest.mark.parametrize(
    ("changed", "old", "new"),
    [
        pytest.param(False, {"foo": "bar"}, {"foo": "bar"}, id="no labels changed"),
        pytest.param(True, {"foo": "bar"}, {"foo": "bar", "test": "value"},
                     id="new object has more labels"),
    ],
)
def test_node_labels_change(changed: bool, old: Obj, new: Obj) -> None:
    got = A.UPDATE_NODE_LABEL in _actions(_node({"labels": old}), _node({"labels": new}))
    assert got is changed


@pytest.mark.parametrize(
    ("changed", "old", "new"),
    [
        pytest.param(False, [{"key": "key", "value": "value"}], [{"key": "key", "value": "value"}],
                     id="no taint changed"),
        pytest.param(True, [{"key": "key", "value": "value1"}], [{"key": "key", "value": "value2"}],
                     id="taint value changed"),
    ],
)
def test_node_taints_change(changed: bool, old: list[Obj], new: list[Obj]) -> None:
    got = A.UPDATE_NODE_TAINT in _actions(_node(spec={"taints": old}), _node(spec={"taints": new}))
    assert got is changed


def _cond(t: str, s: str, beat: str | None = None) -> Obj:
    c = {"type": t, "status": s}
    if beat is not None:
        c["lastHeartbeatTime"] = beat
    return c


@pytest.mark.parametrize(
    ("changed", "old", "new"),
    [
        pytest.param(False, [_cond("DiskPressure", "True")], [_cond("DiskPressure", "True")],
                     id="no condition changed"),
        pytest.param(False, [_cond("DiskPressure", "True", "1970-01-01T00:00:01Z")],
                     [_cond("DiskPressure", "True", "1970-01-01T00:00:02Z")],
                     id="only LastHeartbeatTime changed"),
        pytest.param(True, [], [_cond("Ready", "True")], id="new node has more healthy conditions"),
        pytest.param(True, [_cond("DiskPressure", "True")], [],
                     id="new node has less unhealthy conditions"),
        pytest.param(True, [_cond("Ready", "False")], [_cond("Ready", "True")],
                     id="condition status changed"),
    ],
)
def test_node_conditions_change(changed: bool, old: list[Obj], new: list[Obj]) -> None:
    got = A.UPDATE_NODE_CONDITION in _actions(
        _node(status={"conditions": old}), _node(status={"conditions": new})
    )
    assert got is changed


# -- NodeSchedulingPropertiesChange -----------------------------------------------------


def _cap(foo: str) -> Obj:
    # st.MakeNode().Capacity sets both capacity and allocatable.
    rl = {"cpu": "1000m", "memory": "100m", "example.com/foo": foo}
    return _node(status={"capacity": rl, "allocatable": dict(rl)})


def _taint(value: str) -> list[Obj]:
    return [{"key": "node.kubernetes.io/unschedulable", "value": value, "effect": "NoSchedule"}]


_READY = _cond("Ready", "True")


@pytest.mark.parametrize(
    ("new", "old", "want"),
    [
        pytest.param(_node(spec={"unschedulable": False}), _node(spec={"unschedulable": False}), [],
                     id="no specific changed applied"),
        pytest.param(_node(spec={"unschedulable": False}), _node(spec={"unschedulable": True}),
                     [A.UPDATE_NODE_TAINT], id="only node spec unavailable changed"),
        pytest.param(_cap("1"), _cap("2"), [A.UPDATE_NODE_ALLOCATABLE],
                     id="only node allocatable changed"),
        pytest.param(_node({"labels": {"foo": "bar"}}), _node({"labels": {"foo": "fuz"}}),
                     [A.UPDATE_NODE_LABEL], id="only node label changed"),
        pytest.param(_node(spec={"taints": _taint("")}), _node(spec={"taints": _taint("foo")}),
                     [A.UPDATE_NODE_TAINT], id="only node taint changed"),
        pytest.param(_node({"annotations": {"foo": "bar"}}), _node({"annotations": {"foo": "fuz"}}),
                     [A.UPDATE_NODE_ANNOTATION], id="only node annotation changed"),
        pytest.param(_node(), _node(status={"conditions": [_READY]}), [A.UPDATE_NODE_CONDITION],
                     id="only node condition changed"),
        pytest.param(_node({"labels": {"foo": "bar"}}, {"taints": _taint("")}),
                     _node(spec={"taints": _taint("foo")}),
                     [A.UPDATE_NODE_LABEL, A.UPDATE_NODE_TAINT],
                     id="both node label and node taint changed"),
    ],
)
def test_node_scheduling_properties_change(new: Obj, old: Obj, want: list[ActionType]) -> None:
    events = node_update_events(old, new)
    assert [(e.resource, e.action) for e in events] == [(R.NODE, a) for a in want]


def test_cordoning_is_no_event() -> None:
    """Only un-cordoning counts (``extractNodeSpecUnschedulableChange``)."""
    assert node_update_events(_node(), _node(spec={"unschedulable": True})) == []


@pytest.mark.parametrize(
    ("old", "new", "changed"),
    [
        pytest.param(["featA", "featB"], ["featA", "featB"], False, id="no features changed"),
        pytest.param(["featA"], ["featA", "featB"], True, id="features added"),
        pytest.param(["featA", "featB"], ["featA"], True, id="features removed"),
        pytest.param(["featA"], ["featC"], True, id="features different"),
        pytest.param(None, ["featA"], True, id="old features nil, new has features"),
        pytest.param([], ["featA"], True, id="old features empty, new has features"),
        pytest.param(["featA"], None, True, id="old has features, new is nil"),
        pytest.param(None, None, False, id="both nil"),
    ],
)
def test_extract_node_features_change(
    old: list[str] | None, new: list[str] | None, changed: bool
) -> None:
    def node(f: list[str] | None) -> Obj:
        return _node(status={} if f is None else {"declaredFeatures": f})

    want = [A.UPDATE_NODE_DECLARED_FEATURE] if changed else []
    assert _actions(node(old), node(new)) == want


# -- PodSchedulingPropertiesChange ------------------------------------------------------


def _pod(
    labels: Obj | None = None, *, node: str = "", cpu: str | None = None,
    annotations: Obj | None = None, gates: list[str] | None = None,
    tolerations: list[str] | None = None, status: Obj | None = None,
) -> Obj:
    meta: Obj = {"name": "", "namespace": ""}
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    spec: Obj = {"containers": []}
    st: Obj = dict(status or {})
    if cpu is not None:
        spec["containers"] = [{"name": "app", "resources": {"requests": {"cpu": cpu}}}]
        st["containerStatuses"] = [{"name": "app", "allocatedResources": {"cpu": cpu}}]
    if node:
        spec["nodeName"] = node
    if gates is not None:
        spec["schedulingGates"] = [{"name": g} for g in gates]
    if tolerations is not None:
        spec["tolerations"] = [{"key": k, "operator": "Exists"} for k in tolerations]
    return {"metadata": meta, "spec": spec, "status": st}


_CLAIM_A = {"name": "my-claim", "resourceClaimName": "claim"}
_CLAIM_B = {"name": "my-claim-2", "resourceClaimName": "claim-2"}
_MAPPING = [{"requestName": "request", "containerName": "c", "resourceName": "example.com/gpu"}]
_EXT_A = {"requestMappings": _MAPPING, "resourceClaimName": "claim"}
_EXT_B = {"requestMappings": _MAPPING, "resourceClaimName": "claim-2"}


def _claims(*c: Obj) -> Obj:
    return _pod(status={"resourceClaimStatuses": list(c)})


def _ext(e: Obj) -> Obj:
    return _pod(status={"extendedResourceClaimStatus": e})


UPD = A.UPDATE_OTHER  # upstream's general Update: no fine-grained kind applies
U, T, AP = R.UNSCHEDULED_POD, R.TARGET_POD, R.ASSIGNED_POD
BIG, SMALL = _pod(cpu="101m"), _pod(cpu="100m")


@pytest.mark.parametrize(
    ("new", "old", "target", "dra", "want"),
    [
        pytest.param(_pod({"foo": "bar"}, node="node"), _pod({"foo": "bar2"}, node="node"),
                     False, True, [(AP, A.UPDATE_POD_LABEL)], id="assigned pod is updated"),
        pytest.param(_pod({"foo": "bar"}), _pod({"foo": "bar2"}), False, True,
                     [(U, A.UPDATE_POD_LABEL)], id="unscheduled pod label is updated"),
        pytest.param(SMALL, BIG, False, True, [(U, A.UPDATE_POD_SCALE_DOWN)],
                     id="pod's resource request is scaled down"),
        pytest.param(BIG, SMALL, False, True, [(U, A.UPDATE_POD_SCALE_UP)],
                     id="pod's resource request is scaled up"),
        pytest.param(_pod({"foo": "bar"}, cpu="100m"), BIG, False, True,
                     [(U, A.UPDATE_POD_LABEL), (U, A.UPDATE_POD_SCALE_DOWN)],
                     id="both pod's resource request and label are updated"),
        pytest.param(_pod(annotations={"foo": "bar"}), _pod(annotations={"foo": "bar2"}),
                     False, True, [(U, UPD)], id="untracked properties of pod is updated"),
        pytest.param(_pod(gates=[]), _pod(gates=["foo"]), True, True,
                     [(T, A.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)],
                     id="scheduling gate is eliminated"),
        pytest.param(_pod(gates=["foo"]), _pod(gates=["foo", "bar"]), True, True, [(T, UPD)],
                     id="scheduling gate is removed, but not completely eliminated"),
        pytest.param(_pod(tolerations=["key", "key2"]), _pod(tolerations=["key"]), True, True,
                     [(T, A.UPDATE_POD_TOLERATIONS)], id="pod's tolerations are updated"),
        pytest.param(_claims(_CLAIM_A), _pod(), True, False, [(T, UPD)],
                     id="pod claim statuses change, feature disabled"),
        pytest.param(_claims(_CLAIM_A), _pod(), True, True,
                     [(T, A.UPDATE_POD_GENERATED_RESOURCE_CLAIM)],
                     id="pod claim statuses change, feature enabled"),
        pytest.param(_claims(_CLAIM_A, _CLAIM_B), _claims(_CLAIM_B, _CLAIM_A), True, True,
                     [(T, A.UPDATE_POD_GENERATED_RESOURCE_CLAIM)],
                     id="pod claim statuses swapped"),
        pytest.param(_ext(_EXT_A), _pod(), True, False, [(T, UPD)],
                     id="pod extended resource claim status change, feature disabled"),
        pytest.param(_ext(_EXT_A), _pod(), True, True,
                     [(T, A.UPDATE_POD_GENERATED_RESOURCE_CLAIM)],
                     id="pod extended resource claim status change, feature enabled"),
        pytest.param(_ext(_EXT_B), _ext(_EXT_A), True, True,
                     [(T, A.UPDATE_POD_GENERATED_RESOURCE_CLAIM)],
                     id="pod extended resource claim status swapped"),
        pytest.param(_pod(gates=[], node="node"), _pod(gates=["foo"], node="node"), True, True,
                     [(AP, A.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)],
                     id="scheduling gate is eliminated for an assigned pod, it takes precedence "
                        "over target pod resource type"),
    ],
)
def test_pod_scheduling_properties_change(
    new: Obj, old: Obj, target: bool, dra: bool, want: list[tuple[EventResource, ActionType]]
) -> None:
    resource = R.TARGET_POD if target else R.UNSCHEDULED_POD
    got = pod_update_events(resource, old, new, dra=dra)
    assert [(e.resource, e.action) for e in got] == want


# -- MatchClusterEvents -----------------------------------------------------------------


def _ev(r: EventResource, a: ActionType) -> ClusterEvent:
    return ClusterEvent(r, a)


NL, NT = A.UPDATE_NODE_LABEL, A.UPDATE_NODE_TAINT


@pytest.mark.parametrize(
    ("event", "coming", "want"),
    [
        pytest.param(_ev(R.WILDCARD, A.ALL), _ev(R.POD, NL), True,
                     id="wildcard event matches with all kinds of coming events"),
        pytest.param(_ev(R.POD, NL | NT), _ev(R.POD, NL), True,
                     id="event with resource = 'Pod' matching with coming events carries matching "
                        "actionType"),
        pytest.param(_ev(R.POD, NL | NT), _ev(U, NL), True,
                     id="event with resource = 'Pod' also matches event with 'UnscheduledPod' "
                        "resource and matching actionType"),
        pytest.param(_ev(R.WILDCARD, NL), _ev(R.POD, NL), True,
                     id="event with resource = '*' matching with coming events carries same "
                        "actionType"),
        pytest.param(_ev(R.WILDCARD, NL), _ev(R.POD, A.UPDATE_NODE_ALLOCATABLE), False,
                     id="event with resource = '*' matching with coming events carries different "
                        "actionType"),
        pytest.param(_ev(R.POD, NL), _ev(R.WILDCARD, NL), False,
                     id="event matching with coming events carries '*' resources"),
        pytest.param(_ev(R.WILDCARD, NL), _ev(R.POD, A.UPDATE), False,
                     id="event with resource = '*' matching with coming events carrying a too broad "
                        "actionType"),
        pytest.param(_ev(R.WILDCARD, A.UPDATE), _ev(R.POD, NL), True,
                     id="event with resource = '*' matching with coming events carrying a more "
                        "specific actionType"),
        pytest.param(_ev(R.POD, NL), _ev(AP, NL), True,
                     id="event with resource = 'Pod' also matches event with AssignedPod resource "
                        "and same actionType"),
        pytest.param(_ev(R.POD, NT), _ev(T, NT), True,
                     id="event with resource = 'Pod' also matches event with 'TargetPod' resource "
                        "and same actionType"),
        pytest.param(_ev(AP, A.ADD), _ev(U, A.ADD), False,
                     id="event with resource 'AssignedPod' does not match event with "
                        "'UnscheduledPod' resource and same actionType"),
        pytest.param(_ev(AP, A.UPDATE), _ev(T, A.UPDATE), False,
                     id="event with resource 'AssignedPod' does not match event with 'TargetPod' "
                        "resource and same actionType"),
        pytest.param(_ev(T, A.UPDATE), _ev(AP, A.UPDATE), False,
                     id="event with resource 'TargetPod' does not match event with 'AssignedPod' "
                        "resource and same actionType"),
        pytest.param(_ev(AP, A.ADD), _ev(R.POD, A.ADD), False,
                     id="event with resource 'AssignedPod' does not match with broad 'Pod' resource "
                        "and same actionType"),
        pytest.param(_ev(AP, A.ADD), _ev(R.WILDCARD, A.ADD), False,
                     id="event with resource 'AssignedPod' does not match with 'WildCard' resource "
                        "and same actionType"),
        pytest.param(_ev(U, A.ADD), _ev(R.POD, A.ADD), False,
                     id="event with resource 'UnscheduledPod' does not match with broad 'Pod' "
                        "resource and same actionType"),
        pytest.param(_ev(U, A.ADD), _ev(R.WILDCARD, A.ADD), False,
                     id="event with resource 'UnscheduledPod' does not match with 'WildCard' "
                        "resource and same actionType"),
        pytest.param(_ev(R.WILDCARD, A.ALL), _ev(T, A.UPDATE), True,
                     id="WildCard matches with a pod sub-type resource 'TargetPod' and any "
                        "actionType"),
    ],
)
def test_cluster_event_matching(event: ClusterEvent, coming: ClusterEvent, want: bool) -> None:
    assert event.matches(coming) is want
