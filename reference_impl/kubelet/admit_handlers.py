"""The kubelet's pod admit handlers around the predicate handler, in ``NewMainKubelet``'s
order (v1.37.2): the eviction manager, the sysctl allowlist, (the container manager's
resource allocation: not modelled), the predicate handler (``admission.py``), AppArmor,
pod features, node declared features (``declared_features.py``) and the node shutdown
manager.
``canAdmitPod`` stops at the first rejection.

The eviction manager's observed pressure and the shutdown state are per-node facts the
fake kubelet holds (``Kubelet.set_pressure``, ``Kubelet.set_shutting_down``); the
eviction manager's own cycles (``eviction_manager.py``) record theirs here too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.api.taints import Taint, parse_tolerations, tolerated
from reference_impl.apiserver.quota.pod_resources import get_pod_qos
from reference_impl.clock import seconds
from reference_impl.kubelet.admission import AdmitResult, is_static_pod
from reference_impl.kubelet.config import KubeletConfig
from reference_impl.kubelet.declared_features import DEFAULT_DECLARED, declared_features_admit
from reference_impl.kubelet.sysctl import Allowlist, safe_sysctl_allowlist

__all__ = [
    "PRESSURE_CONDITIONS",
    "AdmitState",
    "NodeAdmission",
    "apparmor_admit",
    "apparmor_profile",
    "eviction_admit",
    "is_critical_pod",
    "pod_features_admit",
    "run_admit_handlers",
    "shutdown_admit",
    "validate_apparmor",
]

Obj = dict[str, Any]

# eviction.Reason and nodeConditionMessageFmt
EVICTED: Final = "Evicted"
MEMORY_PRESSURE: Final = "MemoryPressure"
# the order the node status lists them; Admit's message lists the manager's conditions
# (a Go map's order upstream when there are several)
PRESSURE_CONDITIONS: Final = (MEMORY_PRESSURE, "DiskPressure", "PIDPressure")
TAINT_MEMORY_PRESSURE: Final = "node.kubernetes.io/memory-pressure"
MIRROR_ANNOTATION: Final = "kubernetes.io/config.mirror"
SYSTEM_CRITICAL_PRIORITY: Final = 2 * 1_000_000_000  # scheduling.SystemCriticalPriority
NODE_SHUTDOWN: Final = "NodeShutdown"
NODE_SHUTDOWN_MESSAGE: Final = "Pod was rejected as the node is shutting down."
APPARMOR: Final = "AppArmor"
APPARMOR_PREFIX: Final = "container.apparmor.security.beta.kubernetes.io/"
POD_LEVEL_NOT_SUPPORTED: Final = "PodLevelResourcesNotSupported"


def is_critical_pod(pod: Mapping[str, Any]) -> bool:
    """``kubelettypes.IsCriticalPod``: static, mirror, or priority at least
    system-critical."""
    obj = dict(pod)
    if is_static_pod(obj):
        return True
    if MIRROR_ANNOTATION in ((pod.get("metadata") or {}).get("annotations") or {}):
        return True
    prio = (pod.get("spec") or {}).get("priority")
    return prio is not None and int(prio) >= SYSTEM_CRITICAL_PRIORITY


def eviction_admit(
    pod: Mapping[str, Any],
    conditions: Sequence[str],
    *,
    pod_level: bool = True,
    fix_kubelet_qos: bool = True,
    compare_taints: bool = False,
) -> AdmitResult:
    """``eviction managerImpl.Admit``: no pressure admits; critical pods are admitted;
    under MemoryPressure alone only BestEffort pods that do not tolerate the
    memory-pressure taint are rejected; any other pressure rejects every pod."""
    if not conditions:
        return AdmitResult(True)
    if is_critical_pod(pod):
        return AdmitResult(True)
    obj = dict(pod)
    if list(conditions) == [MEMORY_PRESSURE]:
        qos = get_pod_qos(obj, pod_level=pod_level, fix_kubelet_qos=fix_kubelet_qos)
        if qos != "BestEffort":
            return AdmitResult(True)
        taint = Taint(TAINT_MEMORY_PRESSURE, "", "NoSchedule")
        if tolerated(taint, parse_tolerations(obj, compare_taints)):
            return AdmitResult(True)
    return AdmitResult(False, EVICTED, f"The node had condition: [{' '.join(conditions)}]. ")


def _all_containers(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    # podutil.VisitContainers with AllContainers: init, regular, then ephemeral
    return [
        c
        for f in ("initContainers", "containers", "ephemeralContainers")
        for c in spec.get(f) or ()
    ]


def _apparmor_required(pod: Mapping[str, Any]) -> bool:
    """``apparmor.isRequired``."""
    spec = pod.get("spec") or {}
    prof = (spec.get("securityContext") or {}).get("appArmorProfile")
    if prof is not None and prof.get("type") != "Unconfined":
        return True
    for c in _all_containers(spec):
        prof = (c.get("securityContext") or {}).get("appArmorProfile")
        if prof is not None and prof.get("type") != "Unconfined":
            return True
    ann = (pod.get("metadata") or {}).get("annotations") or {}
    # a Go map upstream: the first key found decides; sorted here to stay deterministic
    for key in sorted(ann):
        if key.startswith(APPARMOR_PREFIX):
            return bool(ann[key] != "unconfined")
    return False


def apparmor_profile(pod: Mapping[str, Any], c: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``apparmor.GetProfile``: the container's field, its beta annotation, the pod's."""
    prof = (c.get("securityContext") or {}).get("appArmorProfile")
    if prof is not None:
        return dict(prof)
    ann = (pod.get("metadata") or {}).get("annotations") or {}
    val = ann.get(APPARMOR_PREFIX + str(c.get("name") or ""))
    if val is not None:
        if val == "runtime/default":
            return {"type": "RuntimeDefault"}
        if val == "unconfined":
            return {"type": "Unconfined"}
        if val.startswith("localhost/"):
            return {"type": "Localhost", "localhostProfile": val[len("localhost/") :]}
    pod_prof = ((pod.get("spec") or {}).get("securityContext") or {}).get("appArmorProfile")
    return dict(pod_prof) if pod_prof is not None else None


def _go_quote(s: str) -> str:
    """Go's ``%q`` (strconv.Quote) for printable text and the common escapes."""
    esc = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    return '"' + "".join(esc.get(ch, ch) for ch in s) + '"'


def validate_apparmor(pod: Mapping[str, Any], host_enabled: bool = True) -> str | None:
    """``apparmor validator.Validate``: the error text, or None. A pod that needs AppArmor
    on a host without it (``validateHost``), or with an empty Localhost profile name."""
    if not _apparmor_required(pod):
        return None
    if not host_enabled:
        return "AppArmor is not enabled on the host"
    for c in _all_containers(pod.get("spec") or {}):
        prof = apparmor_profile(pod, c)
        if prof is None or prof.get("type") != "Localhost":
            continue
        name = prof.get("localhostProfile")
        if name is None or not str(name).strip():
            # %q of the *AppArmorProfile: its generated String(), quoted
            shown = "nil" if name is None else f"*{name}"
            text = f"&AppArmorProfile{{Type:Localhost,LocalhostProfile:{shown},}}"
            return f"invalid empty AppArmor profile name: {_go_quote(text)}"
    return None


def apparmor_admit(pod: Mapping[str, Any], host_enabled: bool = True) -> AdmitResult:
    """``appArmorAdmitHandler.Admit``: only a Pending pod is validated."""
    if (pod.get("status") or {}).get("phase") != "Pending":
        return AdmitResult(True)
    err = validate_apparmor(pod, host_enabled)
    if err is None:
        return AdmitResult(True)
    return AdmitResult(False, APPARMOR, f"Cannot enforce AppArmor: {err}")


def _pod_level_resources_set(pod: Mapping[str, Any]) -> bool:
    """``resource.IsPodLevelResourcesSet``: cpu, memory or hugepages at pod level."""
    res = (pod.get("spec") or {}).get("resources") or {}
    names = [*(res.get("requests") or {}), *(res.get("limits") or {})]
    return any(n in ("cpu", "memory") or n.startswith("hugepages-") for n in names)


def pod_features_admit(pod: Mapping[str, Any], pod_level_gate: bool) -> AdmitResult:
    """``podFeaturesAdmitHandler.Admit`` (``isPodLevelResourcesSupported``, Linux)."""
    if _pod_level_resources_set(pod) and not pod_level_gate:
        return AdmitResult(False, POD_LEVEL_NOT_SUPPORTED, "PodLevelResources feature gate is disabled")
    return AdmitResult(True)


def shutdown_admit(shutting_down: bool) -> AdmitResult:
    """The node shutdown manager's ``Admit``."""
    if shutting_down:
        return AdmitResult(False, NODE_SHUTDOWN, NODE_SHUTDOWN_MESSAGE)
    return AdmitResult(True)


@dataclass(slots=True)
class AdmitState:
    """One node's admit-handler inputs: the eviction manager's node conditions, the
    shutdown state, the sysctl allowlist and whether the host has AppArmor.

    ``observed`` are the pressures whose signals are past their thresholds now;
    ``cleared_at`` when each other one was last seen (simulated ns); ``pressure`` the
    manager's ``nodeConditions`` as ``update_pressure`` last computed them.
    ``last_observed`` is the eviction manager's ``nodeConditionsLastObservedAt`` when
    it computes them from stats (``eviction_manager.py``)."""

    pressure: list[str] = field(default_factory=list)
    observed: set[str] = field(default_factory=set)
    cleared_at: dict[str, int] = field(default_factory=dict)
    last_observed: dict[str, int] = field(default_factory=dict)
    shutting_down: bool = False
    sysctls: Allowlist = field(default_factory=lambda: Allowlist.of(safe_sysctl_allowlist(None)))
    apparmor_enabled: bool = True
    # The kubelet's node declared features (its declaredFeaturesAdmitHandler's set).
    declared_features: tuple[str, ...] = DEFAULT_DECLARED

    def observe(self, condition: str, active: bool, now: int) -> bool:
        """A signal crossed (or fell back below) its threshold at ``now``; True when a
        pressure stopped being observed (it lasts the transition period more)."""
        if active:
            self.observed.add(condition)
            self.cleared_at.pop(condition, None)
            return False
        if condition not in self.observed:
            return False
        self.observed.discard(condition)
        self.cleared_at[condition] = now
        return True

    def update_pressure(self, now: int, period: int) -> list[str]:
        """``synchronize``'s node conditions (``nodeConditionsLastObservedAt`` and
        ``nodeConditionsObservedSince``): those observed now or less than ``period``
        (``--eviction-pressure-transition-period``) ago."""
        self.pressure = [
            c
            for c in PRESSURE_CONDITIONS
            if c in self.observed
            or (c in self.cleared_at and now - self.cleared_at[c] < period)
            or (c in self.last_observed and now - self.last_observed[c] < period)
        ]
        return self.pressure

    def observe_since(self, last_observed: Mapping[str, int]) -> None:
        """The eviction manager's ``nodeConditionsLastObservedAt`` after a cycle."""
        self.last_observed = dict(last_observed)


def run_admit_handlers(
    pod: Mapping[str, Any],
    state: AdmitState,
    predicate: Callable[[], AdmitResult],
    *,
    pod_level: bool = True,
    fix_kubelet_qos: bool = True,
    compare_taints: bool = False,
) -> AdmitResult:
    """``allocation manager.canAdmitPod`` for an add: each handler in kubelet order, the
    first rejection wins; ``predicate`` is the predicate handler's check."""
    steps: tuple[Callable[[], AdmitResult], ...] = (
        lambda: eviction_admit(
            pod, state.pressure, pod_level=pod_level, fix_kubelet_qos=fix_kubelet_qos,
            compare_taints=compare_taints,
        ),
        lambda: state.sysctls.admit(pod),
        predicate,
        lambda: apparmor_admit(pod, state.apparmor_enabled),
        lambda: pod_features_admit(pod, pod_level),
        lambda: declared_features_admit(pod, state.declared_features),
        lambda: shutdown_admit(state.shutting_down),
    )
    for step in steps:
        result = step()
        if not result.admit:
            return result
    return AdmitResult(True)


@dataclass(slots=True)
class NodeAdmission:
    """The admit handlers as the fake kubelet runs them: one ``AdmitState`` per node,
    from the kubelet config; ``now`` is the simulated clock (ns), ``gate`` a feature
    gate's state."""

    config: KubeletConfig
    now: Callable[[], int]
    gate: Callable[[str], bool]
    states: dict[str, AdmitState] = field(default_factory=dict)
    declared_features: tuple[str, ...] = DEFAULT_DECLARED

    def state(self, node: str) -> AdmitState:
        """``node``'s state, created on first use."""
        state = self.states.get(node)
        if state is None:
            allow = Allowlist.of(
                safe_sysctl_allowlist(self.config.kernel_version)
                + list(self.config.allowed_unsafe_sysctls)
            )
            state = AdmitState(
                sysctls=allow,
                apparmor_enabled=self.config.apparmor_enabled,
                declared_features=self.declared_features,
            )
            self.states[node] = state
        return state

    def set_pressure(self, node: str, condition: str, active: bool) -> bool:
        """Observe a pressure on ``node`` or its end; True when it ended (it lasts the
        transition period more, so the node must be looked at again then)."""
        if condition not in PRESSURE_CONDITIONS:
            raise ValueError(f"unknown pressure condition {condition!r}")
        return self.state(node).observe(condition, active, self.now())

    def pressure(self, node: str) -> list[str]:
        """The eviction manager's node conditions on ``node`` now."""
        period = seconds(self.config.pressure_transition_seconds)
        return self.state(node).update_pressure(self.now(), period)

    def admit(self, node: str, pod: Mapping[str, Any], predicate: Callable[[], AdmitResult]) -> AdmitResult:
        """``canAdmitPod`` on ``node`` with ``predicate`` as the predicate handler."""
        self.pressure(node)
        return run_admit_handlers(
            pod,
            self.state(node),
            predicate,
            pod_level=self.gate("PodLevelResources"),
            fix_kubelet_qos=self.gate("PodLevelResourcesFixKubeletQOSClass"),
            compare_taints=self.gate("TaintTolerationComparisonOperators"),
        )
