"""Helpers for the upstream-ported plugin tables (part B): pod and node wrappers after
``pkg/scheduler/testing`` (``st.MakePod``, ``st.MakeNode``) and a snapshot handle after
``cache.NewSnapshot`` plus ``plugintesting.SetupPluginWithInformers``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any, Self

from reference_impl.scheduler.cache import SchedulerCache
from reference_impl.scheduler.framework.interface import Status
from reference_impl.scheduler.framework.registry import SchedulerFeatures, SharedLister
from reference_impl.scheduler.framework.types import NodeInfo

Obj = dict[str, Any]
REQ, PREF, REQ_PREF = "required", "preferred", "required+preferred"
_names = count(1)


def sel_in(key: str, *vals: str) -> Obj:
    """``MakeLabelSelector().In``."""
    return {"matchExpressions": [{"key": key, "operator": "In", "values": list(vals)}]}


def sel_not_in(key: str, *vals: str) -> Obj:
    """``MakeLabelSelector().NotIn``."""
    return {"matchExpressions": [{"key": key, "operator": "NotIn", "values": list(vals)}]}


def sel_exists(key: str) -> Obj:
    """``MakeLabelSelector().Exists``."""
    return {"matchExpressions": [{"key": key, "operator": "Exists"}]}


def sel_not_exists(key: str) -> Obj:
    """``MakeLabelSelector().NotExist``."""
    return {"matchExpressions": [{"key": key, "operator": "DoesNotExist"}]}


def sel_labels(**labels: str) -> Obj:
    """A matchLabels selector."""
    return {"matchLabels": dict(labels)}


class PodW:
    """``st.PodWrapper``: an unnamed pod gets a unique name so the cache keys it."""

    def __init__(self, name: str = "") -> None:
        self.p: Obj = {"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name or f"anon-{next(_names)}", "uid": ""},
                       "spec": {"containers": [{"name": "c", "image": "i"}]}, "status": {}}
        self.p["metadata"]["uid"] = "uid-" + self.p["metadata"]["name"]

    def name(self, n: str) -> Self:
        self.p["metadata"]["name"] = n
        self.p["metadata"]["uid"] = "uid-" + n
        return self

    def uid(self, u: str) -> Self:
        self.p["metadata"]["uid"] = u
        return self

    def ns(self, ns: str) -> Self:
        if ns:
            self.p["metadata"]["namespace"] = ns
        return self

    def label(self, k: str, v: str) -> Self:
        self.p["metadata"].setdefault("labels", {})[k] = v
        return self

    def labels(self, labels: dict[str, str]) -> Self:
        for k, v in labels.items():
            self.label(k, v)
        return self

    def node(self, n: str) -> Self:
        self.p["spec"]["nodeName"] = n
        return self

    def node_selector(self, sel: dict[str, str]) -> Self:
        self.p["spec"]["nodeSelector"] = dict(sel)
        return self

    def _term(self, part: str, term: Obj, kind: str, weight: int) -> Self:
        aff = self.p["spec"].setdefault("affinity", {}).setdefault(part, {})
        if kind in (REQ, REQ_PREF):
            aff.setdefault("requiredDuringSchedulingIgnoredDuringExecution", []).append(term)
        if kind in (PREF, REQ_PREF):
            aff.setdefault("preferredDuringSchedulingIgnoredDuringExecution", []).append(
                {"weight": weight, "podAffinityTerm": term})
        return self

    def affinity(self, topology_key: str, selector: Obj | None, kind: str = REQ, weight: int = 1,
                 namespaces: Sequence[str] = (), ns_selector: Obj | None = None) -> Self:
        """``PodAffinity`` (weight 1 for preferred kinds, as upstream's wrapper)."""
        return self._term("podAffinity", _term(topology_key, selector, namespaces, ns_selector), kind, weight)

    def anti(self, topology_key: str, selector: Obj | None, kind: str = REQ, weight: int = 1,
             namespaces: Sequence[str] = (), ns_selector: Obj | None = None) -> Self:
        """``PodAntiAffinity``."""
        return self._term("podAntiAffinity", _term(topology_key, selector, namespaces, ns_selector),
                          kind, weight)

    def spread(self, max_skew: int, key: str, mode: str, selector: Obj | None,
               min_domains: int | None = None, node_affinity_policy: str | None = None,
               node_taints_policy: str | None = None, match_label_keys: Sequence[str] = ()) -> Self:
        """``SpreadConstraint``."""
        c: Obj = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": mode}
        if selector is not None:
            c["labelSelector"] = selector
        if min_domains is not None:
            c["minDomains"] = min_domains
        if node_affinity_policy is not None:
            c["nodeAffinityPolicy"] = node_affinity_policy
        if node_taints_policy is not None:
            c["nodeTaintsPolicy"] = node_taints_policy
        if match_label_keys:
            c["matchLabelKeys"] = list(match_label_keys)
        self.p["spec"].setdefault("topologySpreadConstraints", []).append(c)
        return self

    def spread_go(self, max_skew: int, key: str, mode: str, selector: Obj | None, min_domains: int | None,
                  node_affinity_policy: str | None, node_taints_policy: str | None,
                  match_label_keys: Sequence[str] | None) -> Self:
        """``SpreadConstraint`` with upstream's positional arguments."""
        return self.spread(max_skew, key, mode, selector, min_domains, node_affinity_policy, node_taints_policy,
                           match_label_keys or ())

    def toleration_go(self, key: str) -> Self:
        """``Toleration(key)``: operator Exists, any effect."""
        self.p["spec"].setdefault("tolerations", []).append({"key": key, "operator": "Exists"})
        return self

    def toleration(self, key: str, effect: str, value: str = "", op: str = "Equal") -> Self:
        t: Obj = {"key": key, "operator": op, "effect": effect}
        if op == "Equal":
            t["value"] = value
        self.p["spec"].setdefault("tolerations", []).append(t)
        return self

    def node_affinity_in(self, key: str, vals: Sequence[str]) -> Self:
        """``NodeAffinityIn`` (one required term, appended as one more expression)."""
        na = self.p["spec"].setdefault("affinity", {}).setdefault("nodeAffinity", {})
        req = na.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {"nodeSelectorTerms": [{}]})
        req["nodeSelectorTerms"][0].setdefault("matchExpressions", []).append(
            {"key": key, "operator": "In", "values": list(vals)})
        return self

    def node_affinity_not_in(self, key: str, vals: Sequence[str]) -> Self:
        """``NodeAffinityNotIn``."""
        na = self.p["spec"].setdefault("affinity", {}).setdefault("nodeAffinity", {})
        req = na.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {"nodeSelectorTerms": [{}]})
        req["nodeSelectorTerms"][0].setdefault("matchExpressions", []).append(
            {"key": key, "operator": "NotIn", "values": list(vals)})
        return self

    def terminating(self) -> Self:
        self.p["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        return self

    def obj(self) -> Obj:
        return self.p


def _term(topology_key: str, selector: Obj | None, namespaces: Sequence[str], ns_selector: Obj | None) -> Obj:
    t: Obj = {"topologyKey": topology_key}
    if selector is not None:
        t["labelSelector"] = selector
    if namespaces:
        t["namespaces"] = list(namespaces)
    if ns_selector is not None:
        t["namespaceSelector"] = ns_selector
    return t


class NodeW:
    """``st.MakeNode()``."""

    def __init__(self) -> None:
        self._name = ""
        self._labels: dict[str, str] = {}
        self._taints: list[Obj] = []

    def name(self, n: str) -> Self:
        self._name = n
        return self

    def label(self, k: str, v: str) -> Self:
        self._labels[k] = v
        return self

    def taints_(self) -> Self:
        """``Taints(taints)`` with the tests' unschedulable NoSchedule taint."""
        self._taints.append({"key": "node.kubernetes.io/unschedulable", "value": "", "effect": "NoSchedule"})
        return self

    def obj(self) -> Obj:
        return node(self._name, self._labels, self._taints)


class SelW:
    """``st.MakeLabelSelector()``."""

    def __init__(self) -> None:
        self._sel: Obj = {}

    def label(self, k: str, v: str) -> Self:
        self._sel.setdefault("matchLabels", {})[k] = v
        return self

    def in_(self, k: str, vals: Sequence[str]) -> Self:
        self._sel.setdefault("matchExpressions", []).append({"key": k, "operator": "In", "values": list(vals)})
        return self

    def exists(self, k: str) -> Self:
        self._sel.setdefault("matchExpressions", []).append({"key": k, "operator": "Exists"})
        return self

    def obj(self) -> Obj:
        return dict(self._sel)


def make_pod(name: str = "") -> PodW:
    """``st.MakePod()``."""
    return PodW(name)


def node(name: str, labels: dict[str, str] | None = None, taints: Sequence[Obj] = ()) -> Obj:
    """``st.MakeNode().Name(name).Labels(labels)``."""
    n: Obj = {"apiVersion": "v1", "kind": "Node",
              "metadata": {"name": name, "labels": dict(labels or {}), "uid": "uid-" + name},
              "spec": {}, "status": {"allocatable": {"cpu": "100", "memory": "100Gi", "pods": "1000"}}}
    if taints:
        n["spec"]["taints"] = list(taints)
    return n


def namespace(name: str, labels: dict[str, str] | None = None) -> Obj:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": dict(labels or {})}}


# -- a handle over a fixed snapshot -------------------------------------------------------


class _Informer:
    def __init__(self) -> None:
        self.cache: dict[str, Obj] = {}
        self.version = 0  # fixed contents: memos keyed by it stay valid

    def get(self, key: str) -> Obj | None:
        return self.cache.get(key)

    def items(self) -> Iterator[Obj]:
        for k in sorted(self.cache):
            yield self.cache[k]


class _Informers:
    def __init__(self, objs: Iterable[Obj]) -> None:
        self._by_kind: dict[str, _Informer] = {}
        for o in objs:
            meta = o["metadata"]
            key = f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else meta["name"]
            self.informer(o.get("apiVersion", "v1"), o["kind"]).cache[key] = o

    def informer(self, api_version: str, kind: str) -> _Informer:
        del api_version  # one version per kind is enough here
        return self._by_kind.setdefault(kind, _Informer())


@dataclass
class _Ctx:
    informers: _Informers
    gates: dict[str, bool] = field(default_factory=dict)


@dataclass
class SnapshotHandle:
    """What plugins read through ``Handle``: the snapshot and the informers."""

    ctx: _Ctx
    cache: SchedulerCache
    features: SchedulerFeatures = field(default_factory=SchedulerFeatures)

    def snapshot_shared_lister(self) -> SharedLister:
        return self.cache

    def get_waiting_pod(self, key: str) -> None:
        return None

    def iterate_over_waiting_pods(self) -> Iterator[Any]:
        return iter(())

    def node_info(self, name: str) -> NodeInfo:
        got = self.cache.get(name)
        assert got is not None, name
        return got

    def nodes(self) -> Sequence[NodeInfo]:
        return self.cache.node_infos()


def snapshot(pods: Iterable[Obj], nodes: Iterable[Obj], objs: Iterable[Obj] = (),
             features: SchedulerFeatures | None = None, gates: dict[str, bool] | None = None) -> SnapshotHandle:
    """``cache.NewSnapshot(pods, nodes)`` with ``objs`` (namespaces, PVCs ...) in informers."""
    c = SchedulerCache()
    for n in nodes:
        c.add_node(n)
    for p in pods:
        p = dict(p)
        p["spec"] = dict(p["spec"])
        p["spec"].setdefault("nodeName", "")
        c.add_pod(p)
    return SnapshotHandle(_Ctx(_Informers(objs), dict(gates or {})), c, features or SchedulerFeatures())


def code_reasons(s: Status) -> tuple[str, tuple[str, ...]]:
    """What upstream's ``cmp.Diff`` on a Status compares: the code and the reasons."""
    return s.code.name, tuple(s.reasons)
