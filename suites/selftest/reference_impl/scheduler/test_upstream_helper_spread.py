"""Upstream's spread-helper tables against pod_topology_spread_common.

Ported (plugins/helper/spread_test.go): ``TestGetPodServices`` (``pod_services``) and
``TestDefaultSelector`` (``default_selector``). Upstream fills fake informer stores; here a
dict-backed stand-in answers the two informer calls the helpers make. As upstream's
DefaultSelector rows share one informer factory, the objects a row adds stay for the rows
after it. Selectors compare as upstream's ``String()`` (requirements sorted by key).
"""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.api import make_pod
from reference_impl.api.meta import Selector
from reference_impl.scheduler.plugins.pod_topology_spread_common import (
    default_selector,
    pod_services,
)

Obj = dict[str, Any]
NS = "test"


class _Store:
    def __init__(self) -> None:
        self.objs: dict[str, Obj] = {}

    def items(self) -> list[Obj]:
        return list(self.objs.values())

    def get(self, key: str) -> Obj | None:
        return self.objs.get(key)


class _Informers:
    def __init__(self) -> None:
        self.stores: dict[tuple[str, str], _Store] = {}

    def informer(self, api: str, kind: str) -> _Store:
        return self.stores.setdefault((api, kind), _Store())

    def add(self, api: str, kind: str, obj: Obj) -> None:
        meta = obj["metadata"]
        self.informer(api, kind).objs[f"{meta['namespace']}/{meta['name']}"] = obj


class _Ctx:
    def __init__(self) -> None:
        self.informers = _Informers()


def _meta(name: str) -> Obj:
    return {"name": name, "namespace": NS}


def _pod(name: str, labels: dict[str, str], owner: tuple[str, str, str] | None = None) -> Obj:
    b = make_pod(name)
    for k, v in labels.items():
        b = b.label(k, v)
    pod = b.build()
    pod["metadata"]["namespace"] = NS
    if owner is not None:
        api, kind, oname = owner
        # st.PodWrapper.OwnerReference marks the reference as the controller.
        pod["metadata"]["ownerReferences"] = [
            {"apiVersion": api, "kind": kind, "name": oname, "controller": True}
        ]
    return pod


def _string(sel: Selector) -> str:
    assert not sel.nothing
    parts = []
    for r in sorted(sel.requirements, key=lambda r: r.key):
        assert r.op in ("=", "==", "in") and len(r.values) == 1, r
        parts.append(f"{r.key}={r.values[0]}")
    return ",".join(parts)


# -- TestGetPodServices -------------------------------------------------------------------

_SERVICES_CTX = _Ctx()
for _i in range(3):
    _SERVICES_CTX.informers.add("v1", "Service", {
        "metadata": _meta(f"service-{_i}"), "spec": {"selector": {"app": f"test-{_i}"}},
    })


@pytest.mark.parametrize(
    ("i", "want"),
    [
        pytest.param(0, ["service-0"], id="GetPodServices for pod-0"),
        pytest.param(1, ["service-1"], id="GetPodServices for pod-1"),
        pytest.param(2, ["service-2"], id="GetPodServices for pod-2"),
        pytest.param(3, [], id="GetPodServices for pod-3"),
        pytest.param(4, [], id="GetPodServices for pod-4"),
    ],
)
def test_get_pod_services(i: int, want: list[str]) -> None:
    pod = _pod(f"test-pod-{i}", {"app": f"test-{i}", "label": f"label-{i}"})
    got = pod_services(_SERVICES_CTX, pod)  # type: ignore[arg-type]
    assert [s["metadata"]["name"] for s in got] == want


def test_service_without_selector_matches_nothing() -> None:
    # GetPodServices: "services with nil selectors match nothing, not everything".
    ctx = _Ctx()
    ctx.informers.add("v1", "Service", {"metadata": _meta("headless"), "spec": {}})
    assert pod_services(ctx, _pod("p", {"app": "x"})) == []  # type: ignore[arg-type]


# -- TestDefaultSelector ------------------------------------------------------------------

POD_KEY, POD_VAL = "podLabelKey", "podLabelVal"
RS_KEY, RS_VAL = "replicaSetLabelKey", "replicaSetLabelVal"
RC_KEY, RC_VAL = "replicationLabelKey", "replicationLabelVal"
SS_KEY, SS_VAL = "statefulSetLabelKey", "statefulSetLabelVal"
SERVICE = ("v1", "Service", {"metadata": _meta("test-service"),
                             "spec": {"selector": {POD_KEY: POD_VAL}}})
RS = ("apps/v1", "ReplicaSet", {"metadata": _meta("test-replicaset"),
                                "spec": {"selector": {"matchLabels": {RS_KEY: RS_VAL}}}})
RC = ("v1", "ReplicationController", {"metadata": _meta("test-replicationcontroller"),
                                      "spec": {"selector": {RC_KEY: RC_VAL}}})
SS = ("apps/v1", "StatefulSet", {"metadata": _meta("test-statefulset"),
                                 "spec": {"selector": {"matchLabels": {SS_KEY: SS_VAL}}}})
_Res = tuple[str, str, Obj]

# (name, owner (apiVersion, kind, name) or None, resources added first, want)
_DEFAULT_ROWS: list[tuple[str, tuple[str, str, str] | None, list[_Res], str]] = [
    ("DefaultSelector for default case", None, [], ""),
    ("DefaultSelector for no OwnerReference pod case", None, [SERVICE], f"{POD_KEY}={POD_VAL}"),
    ("DefaultSelector for ReplicaSet OwnerReference pod case",
     ("apps/v1", "ReplicaSet", "test-replicaset"), [SERVICE, RS],
     f"{POD_KEY}={POD_VAL},{RS_KEY}={RS_VAL}"),
    ("DefaultSelector for ReplicationController OwnerReference pod case",
     ("v1", "ReplicationController", "test-replicationcontroller"), [SERVICE, RC],
     f"{POD_KEY}={POD_VAL},{RC_KEY}={RC_VAL}"),
    ("DefaultSelector for StatefulSet OwnerReference pod case",
     ("apps/v1", "StatefulSet", "test-statefulset"), [SERVICE, SS],
     f"{POD_KEY}={POD_VAL},{SS_KEY}={SS_VAL}"),
]


def test_default_selector() -> None:
    """One case walking the rows in order: upstream's rows share the informer stores."""
    ctx = _Ctx()
    for name, owner, resources, want in _DEFAULT_ROWS:
        for api, kind, obj in resources:
            ctx.informers.add(api, kind, obj)
        pod = _pod("test-pod", {POD_KEY: POD_VAL}, owner)
        got = default_selector(ctx, pod)  # type: ignore[arg-type]
        assert _string(got) == want, name


@pytest.mark.parametrize(
    ("owner", "resources", "want"), [pytest.param(*r[1:], id=r[0]) for r in _DEFAULT_ROWS]
)
def test_default_selector_row_alone(
    owner: tuple[str, str, str] | None, resources: list[_Res], want: str
) -> None:
    # Each row also holds with only its own objects in the stores.
    ctx = _Ctx()
    for api, kind, obj in resources:
        ctx.informers.add(api, kind, obj)
    got = default_selector(ctx, _pod("test-pod", {POD_KEY: POD_VAL}, owner))  # type: ignore[arg-type]
    assert _string(got) == want
