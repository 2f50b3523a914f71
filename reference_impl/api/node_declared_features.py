"""Models component-helpers ``nodedeclaredfeatures`` (v0.37.2): the registry of node
declared features, the kubelet's discovery and the pod requirement inference that the
kubelet's admit handler and the scheduler's NodeDeclaredFeatures plugin share.

A feature is a name, a discovery rule (feature gates, container runtime support), an
inference rule for scheduling (what a new pod needs) and one for updates (what a pod
update needs), and an optional max version past which every node has it (then it is
neither declared nor inferred).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.api.quantity import quantity_value
from reference_impl.features import GATES

__all__ = [
    "ALL_FEATURES",
    "DEFAULT_FRAMEWORK",
    "GATE_DEFAULTS",
    "DeclaredFeature",
    "Framework",
    "NodeConfiguration",
    "RuntimeFeatures",
    "Version",
    "discover_gates",
    "infer_for_scheduling",
    "infer_for_update",
    "parse_version",
]

Obj = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Version:
    """``k8s.io/apimachinery/pkg/util/version``: major.minor.patch and a pre-release."""

    major: int
    minor: int
    patch: int
    pre_release: str = ""

    def greater_than(self, other: Version) -> bool:
        """``GreaterThan``: a pre-release sorts before its release."""
        a, b = (self.major, self.minor, self.patch), (other.major, other.minor, other.patch)
        if a != b:
            return a > b
        if not self.pre_release or not other.pre_release:
            return not self.pre_release and bool(other.pre_release)
        return self.pre_release > other.pre_release

    def add_minor(self, n: int) -> Version:
        """``AddMinor``."""
        return Version(self.major, self.minor + n, 0)


_VERSION_RE: Final = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$")


def parse_version(text: str) -> Version:
    """``version.Parse`` (generic): ``v1.37.2``, ``1.39.0-alpha.2.39+049eafd``."""
    m = _VERSION_RE.match(text)
    if m is None:
        raise ValueError(f"could not parse {text!r} as version")
    return Version(int(m[1]), int(m[2]), int(m[3] or 0), m[4] or "")


@dataclass(frozen=True, slots=True)
class RuntimeFeatures:
    """``types.RuntimeFeatures``: what the container runtime reports (CRI status)."""

    user_namespaces_host_network: bool = False
    mount_options: bool = False


@dataclass(frozen=True, slots=True)
class NodeConfiguration:
    """``types.NodeConfiguration``: the gates, the kubelet version and runtime features."""

    gates: Callable[[str], bool]
    version: Version | None = None
    runtime: RuntimeFeatures = RuntimeFeatures()


def _never(*_pods: Obj) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class DeclaredFeature:
    """``types.Feature``. ``gates``/``runtime`` are ``Requirements()``; ``discover``
    defaults to "every gate on and every runtime feature present"."""

    name: str
    gates: tuple[str, ...] = ()
    runtime: tuple[str, ...] = ()  # RuntimeFeatures field names
    for_scheduling: Callable[[Obj], bool] = _never
    for_update: Callable[[Obj, Obj], bool] = _never
    max_version: Version | None = None
    discover_rule: Callable[[NodeConfiguration], bool] | None = None

    def discover(self, cfg: NodeConfiguration) -> bool:
        """``Discover``."""
        if self.discover_rule is not None:
            return self.discover_rule(cfg)
        return all(cfg.gates(g) for g in self.gates) and all(
            getattr(cfg.runtime, r) for r in self.runtime
        )


def _spec(pod: Obj) -> Obj:
    return pod.get("spec") or {}


def _restart_all(pod: Obj) -> bool:
    """restartallcontainers ``InferForScheduling``: a container or init container rule
    with action RestartAllContainers."""
    spec = _spec(pod)
    every = [*(spec.get("containers") or ()), *(spec.get("initContainers") or ())]
    return any(
        r.get("action") == "RestartAllContainers" for c in every for r in c.get("restartPolicyRules") or ()
    )


def _userns_host_network(pod: Obj) -> bool:
    """usernamespaceshostnetwork ``InferForScheduling``: hostNetwork and hostUsers false."""
    spec = _spec(pod)
    return bool(spec.get("hostNetwork")) and spec.get("hostUsers") is False


def _bind_mount_options(pod: Obj) -> bool:
    """volumebindmountoptions ``InferForScheduling``: any mount with bindMountOptions."""
    spec = _spec(pod)
    every = [
        *(spec.get("containers") or ()),
        *(spec.get("initContainers") or ()),
        *(spec.get("ephemeralContainers") or ()),
    ]
    return any(m.get("bindMountOptions") for c in every for m in c.get("volumeMounts") or ())


def _res_list_equal(a: Obj | None, b: Obj | None) -> bool:
    a, b = a or {}, b or {}
    if a.keys() != b.keys():
        return False
    return all(quantity_value(a[k]) == quantity_value(b[k]) for k in a)


def _semantic_resources_equal(a: Obj | None, b: Obj | None) -> bool:
    # apiequality.Semantic.DeepEqual: nil and empty differ at the top level only.
    if (a is None) != (b is None):
        return False
    a, b = a or {}, b or {}
    if not all(_res_list_equal(a.get(k), b.get(k)) for k in ("requests", "limits")):
        return False
    return (a.get("claims") or None) == (b.get("claims") or None)


def _pod_level_resize(old: Obj, new: Obj) -> bool:
    """inplacepodresize ``podLevelResourcesResizeFeature.InferForUpdate``."""
    before, after = _spec(old).get("resources"), _spec(new).get("resources")
    if before is None and after is None:
        return False
    return not _semantic_resources_equal(before, after)


def _plain(resources: Obj | None) -> dict[str, Any]:
    # reflect.DeepEqual of v1.ResourceRequirements: absent and empty lists compare equal
    # once decoded from the wire (both nil), so drop empty entries.
    return {k: v for k, v in (resources or {}).items() if v}


def _init_container_resize(old: Obj, new: Obj) -> bool:
    """inplacepodresize ``nonSidecarInitContainerResizeFeature.InferForUpdate``: a
    non-sidecar init container's resources changed (matched by position)."""
    after = _spec(new).get("initContainers") or []
    for i, c in enumerate(_spec(old).get("initContainers") or ()):
        if c.get("restartPolicy") == "Always" or i >= len(after):
            continue
        if _plain(c.get("resources")) != _plain(after[i].get("resources")):
            return True
    return False


def _memory_backed_resize(old: Obj, new: Obj) -> bool:
    """inplacepodresize ``memoryBackedVolumesResizeFeature.InferForUpdate``: a
    memory-backed emptyDir (same name, same position) changed its sizeLimit."""
    before, after = _spec(old).get("volumes") or [], _spec(new).get("volumes") or []
    if len(before) != len(after):
        return False
    for o, n in zip(before, after, strict=True):
        if o.get("name") != n.get("name"):
            continue
        nd = n.get("emptyDir")
        if nd is None or nd.get("medium") != "Memory":
            continue
        new_limit, old_limit = nd.get("sizeLimit"), (o.get("emptyDir") or {}).get("sizeLimit")
        if new_limit is None or old_limit is None:
            continue
        if quantity_value(new_limit) != quantity_value(old_limit):
            return True
    return False


# features.AllFeatures, in the registry's order (the framework sorts them by name).
ALL_FEATURES: Final[tuple[DeclaredFeature, ...]] = (
    DeclaredFeature(
        "RestartAllContainersOnContainerExits",
        ("RestartAllContainersOnContainerExits",),
        for_scheduling=_restart_all,
    ),
    DeclaredFeature(
        "InPlacePodLevelResourcesVerticalScaling",
        ("InPlacePodLevelResourcesVerticalScaling",),
        for_update=_pod_level_resize,
    ),
    DeclaredFeature("ExtendWebSocketsToKubelet", ("ExtendWebSocketsToKubelet",)),
    DeclaredFeature(
        "InPlacePodVerticalScalingInitContainers",
        ("InPlacePodVerticalScalingInitContainers",),
        for_update=_init_container_resize,
    ),
    DeclaredFeature(
        "InPlacePodVerticalScalingMemoryBackedVolumes",
        ("InPlacePodVerticalScalingMemoryBackedVolumes",),
        for_update=_memory_backed_resize,
    ),
    DeclaredFeature(
        "UserNamespacesHostNetworkSupport",
        ("UserNamespacesHostNetworkSupport",),
        ("user_namespaces_host_network",),
        for_scheduling=_userns_host_network,
    ),
    DeclaredFeature("DRANodeAllocatableResources", ("DRANodeAllocatableResources",)),
    DeclaredFeature(
        "VolumeBindMountOptions",
        ("VolumeBindMountOptions",),
        ("mount_options",),
        for_scheduling=_bind_mount_options,
    ),
    DeclaredFeature("DRAOptionalNodeOperations", ("DRAOptionalNodeOperations",)),
)

# v1.37.2 defaults of the gates the registry reads (the reference's 1.37.2 gate registry).
GATE_DEFAULTS: Final[Mapping[str, bool]] = {
    g: GATES[g].default for f in ALL_FEATURES for g in f.gates
}


def discover_gates(known: Mapping[str, bool]) -> Callable[[str], bool]:
    """The gate lookup a kubelet with the cluster's gates ``known`` uses: a gate the
    cluster does not set keeps its v1.37.2 default."""
    return lambda g: known[g] if g in known else GATES[g].default


@dataclass(frozen=True, slots=True)
class Framework:
    """``nodedeclaredfeatures.Framework``: the registry sorted by name. Feature sets are
    frozensets of registered names (upstream's bitmap over the sorted names)."""

    registry: tuple[DeclaredFeature, ...]
    names: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.registry, key=lambda f: f.name))
        object.__setattr__(self, "registry", ordered)
        object.__setattr__(self, "names", tuple(f.name for f in ordered))

    def discover_node_features(self, cfg: NodeConfiguration) -> list[str]:
        """``DiscoverNodeFeatures``: the discovered features, sorted, without those past
        their max version."""
        v = cfg.version
        return [
            f.name
            for f in self.registry
            if f.discover(cfg) and not (v is not None and f.max_version is not None and v.greater_than(f.max_version))
        ]

    def _live(self, target: Version | None) -> Iterable[DeclaredFeature]:
        if target is None:
            raise ValueError("target version cannot be nil")
        return (f for f in self.registry if f.max_version is None or not target.greater_than(f.max_version))

    def infer_for_pod_scheduling(self, pod: Obj, target: Version | None) -> frozenset[str]:
        """``InferForPodScheduling``; ValueError for a nil target version."""
        return frozenset(f.name for f in self._live(target) if f.for_scheduling(pod))

    def infer_for_pod_update(self, old: Obj, new: Obj, target: Version | None) -> frozenset[str]:
        """``InferForPodUpdate``; ValueError for a nil target version."""
        return frozenset(f.name for f in self._live(target) if f.for_update(old, new))

    def map_sorted(self, features: Sequence[str]) -> frozenset[str]:
        """``MapSorted``: ValueError ``unknown feature X`` for an unregistered name."""
        for name in features:
            if name not in self.names:
                raise ValueError(f"unknown feature {name}")
        return frozenset(features)

    def try_map(self, features: Iterable[str]) -> frozenset[str]:
        """``TryMap``: unknown names are dropped."""
        return frozenset(n for n in features if n in self.names)

    def unmap(self, features: Collection[str]) -> list[str] | None:
        """``Unmap``: the names in registry order; None (Go's nil) for an empty set."""
        out = [n for n in self.names if n in features]
        return out or None

    def match_node_feature_set(self, required: Collection[str], declared: Collection[str]) -> list[str]:
        """``MatchNodeFeatureSet``: the unsatisfied requirements in name order (empty:
        a match)."""
        return [n for n in self.names if n in required and n not in declared]

    def match_node(self, required: Collection[str], node: Obj | None) -> list[str]:
        """``MatchNode``: against the node's ``status.declaredFeatures``."""
        if node is None:
            raise ValueError("node cannot be nil")
        declared = ((node.get("status") or {}).get("declaredFeatures")) or ()
        return self.match_node_feature_set(required, self.try_map(declared))


DEFAULT_FRAMEWORK: Final = Framework(ALL_FEATURES)
# The target version the kubelet and the scheduler pass (both run v1.37.2 here).
_V1_37_2: Final = Version(1, 37, 2)
# The features some pod can need for scheduling (the others only matter to updates).
_SCHEDULING: Final = tuple(f for f in DEFAULT_FRAMEWORK.registry if f.for_scheduling is not _never)


def infer_for_scheduling(pod: Obj) -> frozenset[str]:
    """``DefaultFramework.InferForPodScheduling`` at v1.37.2 (no feature has a max version)."""
    return frozenset(f.name for f in _SCHEDULING if f.for_scheduling(pod))


def infer_for_update(old: Obj, new: Obj) -> frozenset[str]:
    """``DefaultFramework.InferForPodUpdate`` at v1.37.2."""
    return DEFAULT_FRAMEWORK.infer_for_pod_update(old, new, _V1_37_2)
