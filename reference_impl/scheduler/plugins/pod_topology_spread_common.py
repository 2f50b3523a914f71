"""Models pkg/scheduler/framework/plugins/podtopologyspread/common.go and helper/spread.go.

Constraints are compiled once per cycle: the label selector (with ``matchLabelKeys``
merged from the pod's labels), minDomains (default 1) and the node inclusion policies
(nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore by default). Pods without their own
constraints get the plugin's default constraints, selecting by the Services,
ReplicationController, ReplicaSet or StatefulSet that own or select them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.meta import Requirement, Selector, selector_from_label_selector
from reference_impl.api.owners import get_controller_of
from reference_impl.api.taints import (
    Toleration,
    find_untolerated,
    parse_tolerations,
)
from reference_impl.scheduler.framework.types import NodeInfo, PodInfo
from reference_impl.scheduler.plugins.helper import NodeSelector
from reference_impl.scheduler.plugins.node_affinity import required_node_selector
from reference_impl.scheduler.plugins.taint_toleration import DO_NOT_SCHEDULE

if TYPE_CHECKING:
    from reference_impl.apiserver.component import ComponentContext
    from reference_impl.apiserver.informers import SharedInformer

__all__ = [
    "HOSTNAME",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "Constraint",
    "DefaultSelectors",
    "NodeFilter",
    "PodTopologySpreadArgs",
    "count_matching",
    "default_selector",
    "filter_constraints",
    "node_has_all_keys",
    "pod_services",
]

Obj = dict[str, Any]
HOSTNAME: Final = "kubernetes.io/hostname"
ZONE: Final = "topology.kubernetes.io/zone"
SYSTEM_DEFAULT_CONSTRAINTS: Final[tuple[Obj, ...]] = (
    {"topologyKey": HOSTNAME, "whenUnsatisfiable": "ScheduleAnyway", "maxSkew": 3},
    {"topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway", "maxSkew": 5},
)


@dataclass(frozen=True, slots=True)
class PodTopologySpreadArgs:
    """``PodTopologySpreadArgs``: upstream's default is ``defaultingType: System``."""

    default_constraints: tuple[Obj, ...] = ()
    defaulting_type: str = "System"


@dataclass(frozen=True, slots=True)
class Constraint:
    """``topologySpreadConstraint``."""

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int
    honor_node_affinity: bool
    honor_node_taints: bool


def filter_constraints(raw: Iterable[Obj], pod_labels: Mapping[str, str], action: str) -> list[Constraint]:
    """``filterTopologySpreadConstraints``: those with ``whenUnsatisfiable == action``."""
    out = []
    for c in raw:
        if c.get("whenUnsatisfiable") != action:
            continue
        selector = selector_from_label_selector(c.get("labelSelector"))
        keys = [k for k in c.get("matchLabelKeys") or () if k in pod_labels]
        if keys and not selector.nothing:
            extra = tuple(Requirement(k, "=", (pod_labels[k],)) for k in sorted(keys))
            selector = Selector(extra + selector.requirements)
        out.append(Constraint(
            int(c.get("maxSkew") or 0), str(c.get("topologyKey") or ""), selector,
            int(c["minDomains"]) if c.get("minDomains") is not None else 1,
            (c.get("nodeAffinityPolicy") or "Honor") == "Honor",
            (c.get("nodeTaintsPolicy") or "Ignore") == "Honor",
        ))
    return out


def pod_services(ctx: ComponentContext, pod: Obj) -> list[Obj]:
    """``helper.GetPodServices``: the Services of the pod's namespace whose selector matches
    its labels, by name; a Service without a selector matches nothing, not everything."""
    ns = pod["metadata"].get("namespace") or "default"
    labels = pod["metadata"].get("labels") or {}
    out = []
    for svc in ctx.informers.informer("v1", "Service").items():
        sel = (svc.get("spec") or {}).get("selector")
        if svc["metadata"].get("namespace") != ns or sel is None:
            continue
        if all(labels.get(k) == v for k, v in sel.items()):
            out.append(svc)
    return sorted(out, key=lambda s: str(s["metadata"]["name"]))


def default_selector(ctx: ComponentContext, pod: Obj) -> Selector:
    """``helper.DefaultSelector``: Services selecting the pod, then its controller's selector."""
    ns = pod["metadata"].get("namespace") or "default"
    merged: dict[str, str] = {}
    for svc in pod_services(ctx, pod):
        merged.update(svc["spec"]["selector"])
    reqs = tuple(Requirement(k, "=", (v,)) for k, v in sorted(merged.items()))
    owner = get_controller_of(pod)
    if owner is None:
        return Selector(reqs)
    api, kind, name = owner.get("apiVersion"), owner.get("kind"), owner.get("name")
    if (api, kind) == ("v1", "ReplicationController"):
        rc = ctx.informers.informer("v1", "ReplicationController").get(f"{ns}/{name}")
        if rc is not None:
            merged.update((rc.get("spec") or {}).get("selector") or {})
            reqs = tuple(Requirement(k, "=", (v,)) for k, v in sorted(merged.items()))
    elif api == "apps/v1" and kind in ("ReplicaSet", "StatefulSet"):
        got = ctx.informers.informer("apps/v1", kind).get(f"{ns}/{name}")
        if got is not None:
            other = selector_from_label_selector((got.get("spec") or {}).get("selector"))
            if not other.nothing:
                reqs = reqs + other.requirements
    return Selector(reqs)


_SELECTING: Final = (("v1", "Service"), ("v1", "ReplicationController"), ("apps/v1", "ReplicaSet"),
                     ("apps/v1", "StatefulSet"))
_MEMO_LIMIT: Final = 4096


class DefaultSelectors:
    """``default_selector`` per (namespace, labels, controller), the only inputs it reads
    from the pod, kept while no Service, ReplicationController, ReplicaSet or StatefulSet
    changes (a Python speed-up: PreScore builds it for every pod without constraints)."""

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self._informers: tuple[SharedInformer, ...] = ()
        self._stamp: tuple[int, ...] = ()
        self._memo: dict[tuple[object, ...], Selector] = {}

    def get(self, pod: Obj) -> Selector:
        """The pod's default selector."""
        if not self._informers:
            self._informers = tuple(self._ctx.informers.informer(a, k) for a, k in _SELECTING)
        stamp = tuple(inf.version for inf in self._informers)
        if stamp != self._stamp or len(self._memo) > _MEMO_LIMIT:
            self._stamp, self._memo = stamp, {}
        meta = pod["metadata"]
        owner = get_controller_of(pod)
        key = (meta.get("namespace") or "default", tuple(sorted((meta.get("labels") or {}).items())),
               None if owner is None else (owner.get("apiVersion"), owner.get("kind"), owner.get("name")))
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = default_selector(self._ctx, pod)
        return hit


def is_empty(selector: Selector) -> bool:
    """``labels.Selector.Empty()``: no requirements (Nothing is not empty)."""
    return not selector.nothing and not selector.requirements


def count_matching(pods: Iterable[PodInfo], selector: Selector, ns: str) -> int:
    """``countPodsMatchSelector``: live pods of ``ns`` whose labels match; 0 for an empty selector."""
    if is_empty(selector) or selector.nothing:
        return 0
    n = 0
    for p in pods:
        meta = p.pod["metadata"]
        if meta.get("deletionTimestamp") or (meta.get("namespace") or "default") != ns:
            continue
        if selector.matches(meta.get("labels") or {}):
            n += 1
    return n


def node_has_all_keys(labels: Mapping[str, str], constraints: Sequence[Constraint]) -> bool:
    """``nodeLabelsMatchSpreadConstraints``."""
    return all(c.topology_key in labels for c in constraints)


class NodeFilter:
    """``matchNodeInclusionPolicies`` with the pod's required node affinity and tolerations."""

    __slots__ = ("_selector", "_tolerations")

    def __init__(self, pod: Obj) -> None:
        self._selector: NodeSelector | None = required_node_selector(pod)
        self._tolerations: tuple[Toleration, ...] = parse_tolerations(pod)

    def includes(self, c: Constraint, ni: NodeInfo) -> bool:
        """Whether ``ni`` counts for constraint ``c``."""
        if c.honor_node_affinity and self._selector is not None \
                and not self._selector.matches(ni.labels, ni.name):
            return False
        return not (
            c.honor_node_taints
            and find_untolerated(ni.taints, self._tolerations, DO_NOT_SCHEDULE) is not None
        )
