"""The kubelet status manager's rules for pod status writes (upstream
pkg/kubelet/status/status_manager.go, v1.37.2), as pure functions on v1 wire dicts.

The manager's cache, channels and API client are not modelled; what is kept is what
decides the written status: ``mergePodStatus``, ``isPodStatusByKubeletEqual``,
``normalizeStatus``, ``updateLastTransitionTime``, ``checkContainerStateTransition``,
``TerminatePod`` (with ``hasPodInitialized``/``initializedContainers``) and
``canBeDeleted``. Feature gates are at their v1.37 defaults (all used ones on).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from reference_impl.api.pod_conditions import update_pod_condition
from reference_impl.kubelet.pod_conditions import all_containers_could_restart, matching_rule_action

__all__ = [
    "KUBELET_CONDITIONS",
    "MAX_POD_TERMINATION_MESSAGE_LOG_LENGTH",
    "can_be_deleted",
    "check_container_state_transition",
    "has_pod_initialized",
    "initialized_containers",
    "is_pod_status_by_kubelet_equal",
    "merge_pod_status",
    "needs_reconcile",
    "normalize_status",
    "pod_condition_by_kubelet",
    "pod_condition_shared_by_kubelet",
    "terminate_pod_status",
    "update_last_transition_time",
    "update_status",
]

Obj = dict[str, Any]

# kubecontainer.MaxPodTerminationMessageLogLength
MAX_POD_TERMINATION_MESSAGE_LOG_LENGTH = 1024 * 12
_UNKNOWN_REASON = "ContainerStatusUnknown"
_UNKNOWN_MESSAGE = "The container could not be located when the pod was terminated"
_TERMINAL = ("Succeeded", "Failed")
# types.PodConditionsByKubelet plus the GA PodReadyToStartContainers and the beta
# (default-on) AllContainersRestarting.
KUBELET_CONDITIONS: Final = frozenset({
    "PodScheduled", "Ready", "Initialized", "ContainersReady", "PodResizeInProgress",
    "PodResizePending", "PodReadyToStartContainers", "AllContainersRestarting",
})  # fmt: skip
# status fields the kubelet neither owns nor writes (DRA's claim statuses)
_NOT_OWNED = (
    "resourceClaimStatuses",
    "extendedResourceClaimStatus",
    "nodeAllocatableResourceClaimStatuses",
)
_FRACTION = re.compile(r"\.\d+(?=(Z|[+-]\d\d:\d\d)$)")
_OFFSET = re.compile(r"[+-]\d\d:\d\d$")


def pod_condition_by_kubelet(ctype: str) -> bool:
    """types.PodConditionByKubelet."""
    return ctype in KUBELET_CONDITIONS


def pod_condition_shared_by_kubelet(ctype: str) -> bool:
    """types.PodConditionSharedByKubelet: only DisruptionTarget."""
    return ctype == "DisruptionTarget"


def _cond(status: Mapping[str, Any], ctype: str) -> Obj | None:
    for c in status.get("conditions") or []:
        if c.get("type") == ctype:
            return dict(c)
    return None


def _set_cond(status: Obj, cond: Obj) -> None:
    conds = list(status.get("conditions") or [])
    for i, c in enumerate(conds):
        if c.get("type") == cond["type"]:
            conds[i] = cond
            break
    else:
        conds.append(cond)
    status["conditions"] = conds


def update_last_transition_time(status: Obj, old: Mapping[str, Any], ctype: str, now: str) -> None:
    """updateLastTransitionTime: ``now`` unless the old condition had the same status."""
    cond = _cond(status, ctype)
    if cond is None:
        return
    prev = _cond(old, ctype)
    if prev is not None and prev.get("status") == cond.get("status"):
        stamp = prev.get("lastTransitionTime")
    else:
        stamp = now
    if stamp is None:
        cond.pop("lastTransitionTime", None)
    else:
        cond["lastTransitionTime"] = stamp
    _set_cond(status, cond)


def _terminal_ready(pod: Mapping[str, Any], ctype: str, phase: str) -> Obj:
    """generate{ContainersReady,PodReady}ConditionForTerminalPhase (observedGeneration
    is the pod's generation: PodObservedGenerationTracking is GA)."""
    c: Obj = {"type": ctype, "status": "False"}
    gen = int((pod.get("metadata") or {}).get("generation") or 0)
    if gen:
        c["observedGeneration"] = gen
    if phase == "Failed":
        c["reason"] = "PodFailed"
    elif phase == "Succeeded":
        c["reason"] = "PodCompleted"
    return c


def merge_pod_status(
    pod: Mapping[str, Any],
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    could_have_running_containers: bool,
    now: str,
) -> Obj:
    """mergePodStatus: keep others' conditions, take the kubelet's own, add
    DisruptionTarget only with the terminal phase, hold a terminal phase back while
    containers may run, and force Ready/ContainersReady False once terminal."""
    out: Obj = copy.deepcopy(dict(new))
    conds = [copy.deepcopy(c) for c in old.get("conditions") or [] if not pod_condition_by_kubelet(c["type"])]
    old_phase, new_phase = old.get("phase"), out.get("phase")
    to_terminal = old_phase not in _TERMINAL and new_phase in _TERMINAL
    for c in new.get("conditions") or []:
        if pod_condition_by_kubelet(c["type"]):
            conds.append(copy.deepcopy(c))
        elif pod_condition_shared_by_kubelet(c["type"]) and to_terminal and not could_have_running_containers:
            # sent late, so its transition time is refreshed here
            update_last_transition_time(out, old, c["type"], now)
            fresh = _cond(out, c["type"])
            if fresh is not None:
                holder: Obj = {"conditions": conds}
                _set_cond(holder, fresh)
                conds = holder["conditions"]
    out["conditions"] = conds
    for field in _NOT_OWNED:
        if field in old:
            out[field] = copy.deepcopy(old[field])
        else:
            out.pop(field, None)
    if to_terminal and could_have_running_containers:
        for field in ("phase", "reason", "message"):
            if field in old:
                out[field] = old[field]
            else:
                out.pop(field, None)
    if out.get("phase") in _TERMINAL:
        ready, cready = _cond(out, "Ready"), _cond(out, "ContainersReady")
        if (ready or {}).get("status") == "True" or (cready or {}).get("status") == "True":
            phase = str(out["phase"])
            update_pod_condition(out, _terminal_ready(pod, "ContainersReady", phase), now)
            update_pod_condition(out, _terminal_ready(pod, "Ready", phase), now)
    if not out["conditions"]:
        del out["conditions"]
    return out


def is_pod_status_by_kubelet_equal(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """isPodStatusByKubeletEqual: the kubelet's (and shared) conditions compare on
    status/reason/message only; others' conditions and the claim statuses are ignored."""

    def mine(s: Mapping[str, Any]) -> dict[str, Obj]:
        return {
            c["type"]: c
            for c in s.get("conditions") or []
            if pod_condition_by_kubelet(c["type"]) or pod_condition_shared_by_kubelet(c["type"])
        }

    new_c, old_c = mine(new), mine(old)
    if len(new_c) != len(old_c):
        return False
    for t, c in new_c.items():
        o = old_c.get(t)
        if o is None or any(o.get(k, "") != c.get(k, "") for k in ("status", "message", "reason")):
            return False
    skip = ("conditions", *_NOT_OWNED)
    a = {k: v for k, v in old.items() if k not in skip and v not in (None, [], {}, "", 0)}
    b = {k: v for k, v in new.items() if k not in skip and v not in (None, [], {}, "", 0)}
    return a == b


def _to_seconds(stamp: Any) -> Any:
    # metav1.Time.Rfc3339Copy: drop sub-second precision; on the wire a metav1.Time is
    # always written in UTC
    if not isinstance(stamp, str):
        return stamp
    out = _FRACTION.sub("", stamp)
    if out.endswith("Z") or not _OFFSET.search(out):
        return out
    try:
        when = datetime.fromisoformat(out)
    except ValueError:
        return out
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _truncate(msg: str, limit: int) -> str:
    """``Message[:bytesPerStatus]``: a byte cut; the bytes of a character cut in two are
    invalid UTF-8, which encoding/json writes as one U+FFFD each."""
    raw = msg.encode()
    if len(raw) <= limit:
        return msg
    cut = raw[:limit].decode(errors="surrogateescape")
    return "".join("\ufffd" if "\udc80" <= ch <= "\udcff" else ch for ch in cut)


def normalize_status(pod: Mapping[str, Any], status: Obj) -> Obj:
    """normalizeStatus (in place, and returned): second-precision timestamps,
    terminated messages cut to an equal share of 12 KiB per container, container
    statuses sorted by name and init container statuses in spec order."""
    spec = pod.get("spec") or {}
    n = sum(len(spec.get(f) or []) for f in ("containers", "initContainers", "ephemeralContainers"))
    per = MAX_POD_TERMINATION_MESSAGE_LOG_LENGTH // n if n else MAX_POD_TERMINATION_MESSAGE_LOG_LENGTH

    def state(s: Obj | None) -> None:
        if not s:
            return
        if s.get("running"):
            s["running"]["startedAt"] = _to_seconds(s["running"].get("startedAt"))
        term = s.get("terminated")
        if term is not None:
            for k in ("startedAt", "finishedAt"):
                if k in term:
                    term[k] = _to_seconds(term[k])
            if isinstance(term.get("message"), str):
                term["message"] = _truncate(term["message"], per)

    if "startTime" in status:
        status["startTime"] = _to_seconds(status["startTime"])
    for c in status.get("conditions") or []:
        for k in ("lastProbeTime", "lastTransitionTime"):
            if k in c:
                c[k] = _to_seconds(c[k])
    for field in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        for cs in status.get(field) or []:
            state(cs.get("state"))
            state(cs.get("lastState"))
    for field in ("containerStatuses", "ephemeralContainerStatuses"):
        if status.get(field):
            status[field] = sorted(status[field], key=lambda cs: str(cs.get("name", "")))
    inits = status.get("initContainerStatuses")
    if inits:
        # types.SortInitContainerStatuses: spec order first, the rest after, as found
        cur = 0
        for c in spec.get("initContainers") or []:
            for j in range(cur, len(inits)):
                if inits[j].get("name") == c.get("name"):
                    inits[cur], inits[j] = inits[j], inits[cur]
                    cur += 1
                    break
    return status


def _container_should_restart(container: Mapping[str, Any], spec: Mapping[str, Any], exit_code: int) -> bool:
    """podutil.ContainerShouldRestart (ContainerRestartRules and
    RestartAllContainersOnContainerExits on)."""
    policy = container.get("restartPolicy")
    if policy is not None:
        if matching_rule_action(container, exit_code) in ("Restart", "RestartAllContainers"):
            return True
        if policy == "Always":
            return True
        if policy == "OnFailure":
            return exit_code != 0
        if policy == "Never":
            return False
    pod_policy = spec.get("restartPolicy", "Always")
    if pod_policy == "OnFailure":
        return exit_code != 0
    return bool(pod_policy != "Never")


def _terminated(cs: Mapping[str, Any]) -> Obj | None:
    t = (cs.get("state") or {}).get("terminated")
    return dict(t) if t is not None else None


def check_container_state_transition(
    old: Mapping[str, Any], new: Mapping[str, Any], spec: Mapping[str, Any]
) -> str | None:
    """checkContainerStateTransition: the error upstream logs when a terminated
    container would leave the terminated state; None when the update is legal."""
    if spec.get("restartPolicy", "Always") == "Always" or all_containers_could_restart(spec):
        return None
    on_failure = spec.get("restartPolicy") == "OnFailure"

    def stuck(cs: Mapping[str, Any], specs: Sequence[Mapping[str, Any]]) -> bool:
        term = _terminated(cs)
        if term is None:
            return False
        code = int(term.get("exitCode") or 0)
        if code != 0 and on_failure:
            return False
        return not any(
            c.get("name") == cs.get("name") and _container_should_restart(c, spec, code) for c in specs
        )

    containers = spec.get("containers") or []
    for o in old.get("containerStatuses") or []:
        if stuck(o, containers):
            for n in new.get("containerStatuses") or []:
                if n.get("name") == o.get("name") and _terminated(n) is None:
                    return f"terminated container {n['name']} attempted illegal transition to non-terminated state"
    inits = spec.get("initContainers") or []
    for i, o in enumerate(old.get("initContainerStatuses") or []):
        c = _init_by_index(inits, old.get("initContainerStatuses") or [], i)
        if c is None:
            return f"found mismatch between pod spec and status, container: {o.get('name')}"
        if c.get("restartPolicy") == "Always":
            continue
        if stuck(o, inits):
            for n in new.get("initContainerStatuses") or []:
                if n.get("name") == o.get("name") and _terminated(n) is None:
                    return (
                        f"terminated init container {n['name']} attempted illegal transition "
                        "to non-terminated state"
                    )
    return None


def _init_by_index(
    specs: Sequence[Mapping[str, Any]], statuses: Sequence[Mapping[str, Any]], i: int
) -> Mapping[str, Any] | None:
    # kubeutil.GetContainerByIndex: the spec at i must carry the status's name
    if i < 0 or i >= len(specs) or i >= len(statuses):
        return None
    return specs[i] if specs[i].get("name") == statuses[i].get("name") else None


def _waiting(cs: Mapping[str, Any]) -> bool:
    return (cs.get("state") or {}).get("waiting") is not None


def _last_terminated(cs: Mapping[str, Any]) -> Obj | None:
    t = (cs.get("lastState") or {}).get("terminated")
    return dict(t) if t is not None else None


def has_pod_initialized(pod: Mapping[str, Any]) -> bool:
    """hasPodInitialized, on the pod's (API) status."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    inits = spec.get("initContainers") or []
    if not inits:
        return True
    for cs in status.get("containerStatuses") or []:
        if _last_terminated(cs) is not None or not _waiting(cs):
            return True
    istat = status.get("initContainerStatuses") or []
    if istat:
        c = _init_by_index(inits, istat, len(istat) - 1)
        if c is None:
            return False
        last = istat[-1]
        if c.get("restartPolicy") == "Always":
            return bool((last.get("state") or {}).get("running") is not None and last.get("started"))
        for t in (_last_terminated(last), _terminated(last)):
            if t is not None and int(t.get("exitCode") or 0) == 0:
                return True
    return False


def initialized_containers(statuses: Sequence[Mapping[str, Any]]) -> int:
    """initializedContainers, as a prefix length: all but the trailing never-started
    (waiting, no last termination) statuses, and at least the first."""
    for i in range(len(statuses) - 1, -1, -1):
        if not _waiting(statuses[i]) or _last_terminated(statuses[i]) is not None:
            return i + 1
    return 1 if statuses else 0


def _unknown() -> Obj:
    return {"terminated": {"exitCode": 137, "reason": _UNKNOWN_REASON, "message": _UNKNOWN_MESSAGE}}


def terminate_pod_status(pod: Mapping[str, Any], cached: Mapping[str, Any] | None = None) -> Obj:
    """TerminatePod's status: every container without a terminated state becomes
    ContainerStatusUnknown/137 (init containers only up to the last started one, and
    regular ones only once the pod initialized); a non-terminal phase becomes Failed
    (not for static pods). ``cached`` is the manager's last status when it has one."""
    status: Obj = copy.deepcopy(dict(cached if cached is not None else pod.get("status") or {}))
    if has_pod_initialized(pod):
        for cs in status.get("containerStatuses") or []:
            if _terminated(cs) is None:
                cs["state"] = _unknown()
    inits = status.get("initContainerStatuses") or []
    for cs in inits[: initialized_containers(inits)]:
        if _terminated(cs) is None:
            cs["state"] = _unknown()
    if not _is_static(pod) and status.get("phase") not in _TERMINAL:
        status["phase"] = "Failed"
    return status


def _is_static(pod: Mapping[str, Any]) -> bool:
    # kubetypes.IsStaticPod: the config source is not the API server
    ann = (pod.get("metadata") or {}).get("annotations") or {}
    return bool(ann.get("kubernetes.io/config.source", "api") != "api")


def needs_reconcile(pod: Mapping[str, Any], cached: Mapping[str, Any]) -> bool:
    """needsReconcile: the stored (API) status, normalized, differs from the cached one
    in something the kubelet owns. (Static pods compare their mirror pod; the caller
    passes that.)"""
    stored = normalize_status(pod, copy.deepcopy(dict(pod.get("status") or {})))
    return not is_pod_status_by_kubelet_equal(stored, cached)


_STAMPED = (
    "ContainersReady",
    "Ready",
    "Initialized",
    "PodReadyToStartContainers",
    "PodScheduled",
    "DisruptionTarget",
    "AllContainersRestarting",
)


def update_status(
    pod: Mapping[str, Any],
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    now: str,
    cached: bool = True,
    force: bool = False,
) -> Obj | None:
    """updateStatusInternal's status: None when the update is aborted (an illegal
    container transition) or, for a cached pod without ``force``, when nothing the
    kubelet owns changed; else the new status with its conditions' transition times,
    the old start time, volume health and a non-decreasing observedGeneration."""
    if check_container_state_transition(old, new, pod.get("spec") or {}) is not None:
        return None
    status: Obj = copy.deepcopy(dict(new))
    for ctype in _STAMPED:
        update_last_transition_time(status, old, ctype, now)
    if old.get("startTime"):
        status["startTime"] = old["startTime"]
    elif not status.get("startTime"):
        status["startTime"] = now
    if old.get("volumeHealth") and not status.get("volumeHealth"):
        status["volumeHealth"] = copy.deepcopy(old["volumeHealth"])
    if int(old.get("observedGeneration") or 0) > int(status.get("observedGeneration") or 0):
        status["observedGeneration"] = old["observedGeneration"]
    normalize_status(pod, status)
    if cached and not force and is_pod_status_by_kubelet_equal(old, status):
        return None
    return status


def can_be_deleted(pod: Mapping[str, Any], pod_is_finished: bool) -> bool:
    """canBeDeleted: a deleting, non-mirror pod whose API phase is terminal, once
    TerminatePod (``pod_is_finished``) ran."""
    meta = pod.get("metadata") or {}
    if meta.get("deletionTimestamp") is None:
        return False
    if "kubernetes.io/config.mirror" in (meta.get("annotations") or {}):
        return False
    if (pod.get("status") or {}).get("phase") not in _TERMINAL:
        return False
    return pod_is_finished
