"""A StatefulSet pod's identity and storage (``stateful_set_utils.go``).

Pods are named ``<set>-<ordinal>`` and claims ``<template>-<set>-<ordinal>``; the
ordinal range is ``[start, start + replicas)`` with ``start`` from ``.spec.ordinals``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, Final

from reference_impl.clock import Instant
from reference_impl.controllers.controller_utils import (
    is_pod_available,
    is_pod_ready,
    pod_from_template,
)

__all__ = [
    "POD_INDEX_LABEL",
    "POD_NAME_LABEL",
    "REVISION_LABEL",
    "get_ordinal",
    "get_parent_name_and_ordinal",
    "identity_matches",
    "new_stateful_set_pod",
    "new_versioned_stateful_set_pod",
    "storage_matches",
    "update_identity",
    "update_storage",
]

Obj = dict[str, Any]
POD_NAME_LABEL: Final = "statefulset.kubernetes.io/pod-name"  # apps.StatefulSetPodNameLabel
POD_INDEX_LABEL: Final = "apps.kubernetes.io/pod-index"  # apps.PodIndexLabel
REVISION_LABEL: Final = "controller-revision-hash"  # apps.StatefulSetRevisionLabel
_STATEFUL_POD: Final = re.compile(r"^(.*)-([0-9]+)$")
_INT32_MAX: Final = 2**31 - 1


def get_parent_name_and_ordinal(pod: Mapping[str, Any]) -> tuple[str, int]:
    """``getParentNameAndOrdinal``: ("", -1) for a name without a numeric suffix; an
    ordinal past int32 parses as -1 (ParseInt's range error) but keeps the parent."""
    m = _STATEFUL_POD.match(str(pod["metadata"].get("name") or ""))
    if m is None:
        return "", -1
    value = int(m.group(2))
    return m.group(1), value if value <= _INT32_MAX else -1


def get_ordinal(pod: Mapping[str, Any]) -> int:
    """``getOrdinal``."""
    return get_parent_name_and_ordinal(pod)[1]


def get_start_ordinal(ss: Mapping[str, Any]) -> int:
    """``getStartOrdinal``: ``.spec.ordinals.start``, else 0."""
    ordinals = ss["spec"].get("ordinals")
    return int(ordinals.get("start") or 0) if isinstance(ordinals, dict) else 0


def replicas_of(ss: Mapping[str, Any]) -> int:
    """``*set.Spec.Replicas`` (defaulted to 1 by the apiserver)."""
    replicas = ss["spec"].get("replicas")
    return 1 if replicas is None else int(replicas)


def get_end_ordinal(ss: Mapping[str, Any]) -> int:
    """``getEndOrdinal``: the last ordinal in range."""
    return get_start_ordinal(ss) + replicas_of(ss) - 1


def pod_in_ordinal_range(pod: Mapping[str, Any], ss: Mapping[str, Any]) -> bool:
    """``podInOrdinalRange``."""
    return get_start_ordinal(ss) <= get_ordinal(pod) <= get_end_ordinal(ss)


def get_pod_name(ss: Mapping[str, Any], ordinal: int) -> str:
    """``getPodName``."""
    return f"{ss['metadata']['name']}-{ordinal}"


def get_claim_name(ss: Mapping[str, Any], claim: Mapping[str, Any], ordinal: int) -> str:
    """``getPersistentVolumeClaimName``."""
    return f"{claim['metadata']['name']}-{ss['metadata']['name']}-{ordinal}"


def is_member_of(ss: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """``isMemberOf``: the pod's parent name is the set's."""
    return get_parent_name_and_ordinal(pod)[0] == str(ss["metadata"]["name"])


def identity_matches(ss: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """``identityMatches``: name, namespace and the pod-name label agree with the set."""
    parent, ordinal = get_parent_name_and_ordinal(pod)
    meta = pod["metadata"]
    return (
        ordinal >= 0
        and ss["metadata"]["name"] == parent
        and meta.get("name") == get_pod_name(ss, ordinal)
        and (meta.get("namespace") or "") == (ss["metadata"].get("namespace") or "")
        and (meta.get("labels") or {}).get(POD_NAME_LABEL) == meta.get("name")
    )


def _claim_templates(ss: Mapping[str, Any]) -> list[Obj]:
    out: list[Obj] = ss["spec"].get("volumeClaimTemplates") or []
    return out


def storage_matches(ss: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """``storageMatches``: each claim template has a same-named volume using its claim."""
    ordinal = get_ordinal(pod)
    if ordinal < 0:
        return False
    volumes = {v.get("name"): v for v in pod.get("spec", {}).get("volumes") or []}
    for claim in _claim_templates(ss):
        source = (volumes.get(claim["metadata"]["name"]) or {}).get("persistentVolumeClaim")
        if not source or source.get("claimName") != get_claim_name(ss, claim, ordinal):
            return False
    return True


def get_persistent_volume_claims(ss: Mapping[str, Any], pod: Mapping[str, Any]) -> dict[str, Obj]:
    """``getPersistentVolumeClaims``: the pod's claims keyed by template name, labelled
    with the set's matchLabels (over the template's own labels)."""
    ordinal = get_ordinal(pod)
    match_labels = (ss["spec"].get("selector") or {}).get("matchLabels")
    out: dict[str, Obj] = {}
    for template in _claim_templates(ss):
        claim = copy.deepcopy(template)
        meta = claim.setdefault("metadata", {})
        meta["name"] = get_claim_name(ss, template, ordinal)
        meta["namespace"] = ss["metadata"].get("namespace")
        if meta.get("labels") is not None:
            meta["labels"].update(match_labels or {})
        elif match_labels is not None:
            meta["labels"] = dict(match_labels)
        claim.setdefault("apiVersion", "v1")
        claim.setdefault("kind", "PersistentVolumeClaim")
        out[template["metadata"]["name"]] = claim
    return out


def update_storage(ss: Mapping[str, Any], pod: Obj) -> None:
    """``updateStorage``: a volume per claim template (template order; upstream's map
    order is random) followed by the pod's other volumes."""
    spec = pod.setdefault("spec", {})
    claims = get_persistent_volume_claims(ss, pod)
    volumes: list[Obj] = [
        {"name": name, "persistentVolumeClaim": {"claimName": claim["metadata"]["name"]}}
        for name, claim in claims.items()
    ]
    volumes += [v for v in spec.get("volumes") or [] if v.get("name") not in claims]
    spec["volumes"] = volumes


def update_identity(ss: Mapping[str, Any], pod: Obj) -> None:
    """``updateIdentity``: name, namespace, and the pod-name and pod-index labels."""
    ordinal = get_ordinal(pod)
    meta = pod["metadata"]
    meta["name"] = get_pod_name(ss, ordinal)
    meta["namespace"] = ss["metadata"].get("namespace")
    labels = meta.get("labels")
    if labels is None:
        labels = meta["labels"] = {}
    labels[POD_NAME_LABEL] = meta["name"]
    labels[POD_INDEX_LABEL] = str(ordinal)


def init_identity(ss: Mapping[str, Any], pod: Obj) -> None:
    """``initIdentity``: ``update_identity`` plus hostname and subdomain."""
    update_identity(ss, pod)
    spec = pod.setdefault("spec", {})
    spec["hostname"] = pod["metadata"]["name"]
    if ss["spec"].get("serviceName"):
        spec["subdomain"] = ss["spec"]["serviceName"]
    else:
        spec.pop("subdomain", None)


def _phase(pod: Mapping[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def is_running_and_ready(pod: Mapping[str, Any]) -> bool:
    """``isRunningAndReady``."""
    return _phase(pod) == "Running" and is_pod_ready(pod)


def is_running_and_available(pod: Mapping[str, Any], min_ready: int, now: Instant) -> bool:
    """``isRunningAndAvailable``: ``podutil.IsPodAvailable`` (no phase check upstream)."""
    return is_pod_available(pod, min_ready, now)


def is_created(pod: Mapping[str, Any]) -> bool:
    """``isCreated``: the apiserver gave it a phase."""
    return _phase(pod) != ""


def is_pending(pod: Mapping[str, Any]) -> bool:
    """``isPending``."""
    return _phase(pod) == "Pending"


def is_terminal_phase(pod: Mapping[str, Any]) -> bool:
    """``isTerminalPhase``."""
    return _phase(pod) in ("Failed", "Succeeded")


def is_terminating(pod: Mapping[str, Any]) -> bool:
    """``isTerminating``."""
    return bool(pod["metadata"].get("deletionTimestamp"))


def is_unavailable(pod: Mapping[str, Any], min_ready: int, now: Instant) -> bool:
    """``isUnavailable``: not available, or terminating."""
    return not is_pod_available(pod, min_ready, now) or is_terminating(pod)


def allows_burst(ss: Mapping[str, Any]) -> bool:
    """``allowsBurst``: Parallel pod management."""
    return str(ss["spec"].get("podManagementPolicy")) == "Parallel"


def set_pod_revision(pod: Obj, revision: str) -> None:
    """``setPodRevision``."""
    labels = pod["metadata"].get("labels")
    if labels is None:
        labels = pod["metadata"]["labels"] = {}
    labels[REVISION_LABEL] = revision


def get_pod_revision(pod: Mapping[str, Any]) -> str:
    """``getPodRevision``."""
    return str((pod["metadata"].get("labels") or {}).get(REVISION_LABEL, ""))


def new_stateful_set_pod(ss: Mapping[str, Any], ordinal: int) -> Obj:
    """``newStatefulSetPod``: the template's pod with the set's identity and storage."""
    pod = pod_from_template(ss["spec"].get("template") or {}, ss, f"{ss['metadata']['name']}-")
    pod["metadata"]["ownerReferences"] = [controller_ref_to(ss, "apps/v1", "StatefulSet")]
    pod["metadata"]["name"] = get_pod_name(ss, ordinal)
    init_identity(ss, pod)
    update_storage(ss, pod)
    return pod


def new_versioned_stateful_set_pod(
    current: Mapping[str, Any], update: Mapping[str, Any], current_rev: str, update_rev: str,
    ordinal: int,
) -> Obj:
    """``newVersionedStatefulSetPod``: below the partition (or, with no rollingUpdate,
    below start + currentReplicas) a pod is made at the current revision."""
    strategy = current["spec"].get("updateStrategy") or {}
    ru = strategy.get("rollingUpdate")
    start = get_start_ordinal(current)
    # Go's && binds tighter than ||: the partition clause applies whatever the type.
    old = (
        strategy.get("type") == "RollingUpdate"
        and ru is None
        and ordinal < start + int((current.get("status") or {}).get("currentReplicas") or 0)
    ) or (ru is not None and ordinal < start + int(ru.get("partition") or 0))
    if old:
        pod = new_stateful_set_pod(current, ordinal)
        set_pod_revision(pod, current_rev)
        return pod
    pod = new_stateful_set_pod(update, ordinal)
    set_pod_revision(pod, update_rev)
    return pod


def controller_ref_to(owner: Mapping[str, Any], api_version: str, kind: str) -> Obj:
    """``metav1.NewControllerRef(owner, gvk)``."""
    return {
        "apiVersion": api_version,
        "kind": kind,
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"].get("uid", ""),
        "controller": True,
        "blockOwnerDeletion": True,
    }
