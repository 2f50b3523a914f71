"""DaemonSet helpers (``pkg/controller/daemon/util/daemonset_util.go``).

The template generation, the tolerations every daemon pod gets, the pod template with
the generation and hash labels, surge and unavailability counts, whether a pod is
updated, and the node-name affinity a daemon pod is pinned with.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from reference_impl.controllers.deployment.util import scaled_value

__all__ = [
    "HASH_LABEL",
    "TEMPLATE_GENERATION_ANNOTATION",
    "TEMPLATE_GENERATION_LABEL",
    "TargetNodeError",
    "add_or_update_daemon_pod_tolerations",
    "allows_surge",
    "create_pod_template",
    "get_target_node_name",
    "get_template_generation",
    "is_pod_updated",
    "replace_daemonset_pod_node_name_node_affinity",
    "surge_count",
    "unavailable_count",
]

Obj = dict[str, Any]
# apps.DeprecatedTemplateGeneration, extensions.DaemonSetTemplateGenerationKey and
# apps.DefaultDaemonSetUniqueLabelKey (= ControllerRevisionHashLabelKey).
TEMPLATE_GENERATION_ANNOTATION: Final = "deprecated.daemonset.template.generation"
TEMPLATE_GENERATION_LABEL: Final = "pod-template-generation"
HASH_LABEL: Final = "controller-revision-hash"
_OBJECT_NAME_FIELD: Final = "metadata.name"  # metav1.ObjectNameField
_INT64: Final = (-(2**63), 2**63)


def get_template_generation(ds: Mapping[str, Any]) -> int | None:
    """``GetTemplateGeneration``: the annotation as an int64; None when absent.

    Raises ValueError when it does not parse (strconv.ParseInt)."""
    value = (ds["metadata"].get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION)
    if value is None:
        return None
    text = str(value)
    digits = text[1:] if text[:1] in "+-" else text
    if not digits.isascii() or not digits.isdigit():
        raise ValueError(f'strconv.ParseInt: parsing "{text}": invalid syntax')
    n = int(text)
    if not _INT64[0] <= n < _INT64[1]:
        raise ValueError(f'strconv.ParseInt: parsing "{text}": value out of range')
    return n


def generation_or_none(ds: Mapping[str, Any]) -> int | None:
    """The template generation, None when absent or unparsable (callers ignore the error)."""
    try:
        return get_template_generation(ds)
    except ValueError:
        return None


def _add_or_update_toleration(spec: Obj, toleration: Obj) -> None:
    """``v1helper.AddOrUpdateTolerationInPodSpec``: replace one with the same key,
    operator and effect (``MatchToleration``), else append."""
    tolerations = spec.get("tolerations") or []
    out: list[Obj] = []
    updated = False
    for t in tolerations:
        same = (
            t.get("key", "") == toleration["key"]
            and (t.get("operator") or "") == toleration["operator"]
            and (t.get("value") or "") == toleration.get("value", "")
            and (t.get("effect") or "") == toleration["effect"]
        )
        if same:
            if t == toleration:
                return  # semantic equality: nothing to do
            out.append(dict(toleration))
            updated = True
        else:
            out.append(t)
    if not updated:
        out.append(dict(toleration))
    spec["tolerations"] = out


def add_or_update_daemon_pod_tolerations(spec: Obj) -> None:
    """``AddOrUpdateDaemonPodTolerations``: daemon pods survive node problems (not-ready
    and unreachable NoExecute) and tolerate the condition taints; hostNetwork pods also
    tolerate network-unavailable."""
    taints = [
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ]
    if spec.get("hostNetwork"):
        taints.append(("node.kubernetes.io/network-unavailable", "NoSchedule"))
    for key, effect in taints:
        _add_or_update_toleration(spec, {"key": key, "operator": "Exists", "effect": effect})


def create_pod_template(template: Mapping[str, Any], generation: int | None, hash_: str) -> Obj:
    """``CreatePodTemplate``: a copy with the daemon tolerations and the generation and
    hash labels."""
    out: Obj = copy.deepcopy(dict(template))
    spec = out.setdefault("spec", {})
    add_or_update_daemon_pod_tolerations(spec)
    meta = out.setdefault("metadata", {})
    labels = meta.get("labels") or {}
    meta["labels"] = labels
    if generation is not None:
        labels[TEMPLATE_GENERATION_LABEL] = str(generation)
    if hash_:
        labels[HASH_LABEL] = hash_
    return out


def _rolling(ds: Mapping[str, Any]) -> Obj | None:
    strategy = ds["spec"].get("updateStrategy") or {}
    if strategy.get("type") != "RollingUpdate":
        return None
    ru: Obj | None = strategy.get("rollingUpdate")
    return ru


def surge_count(ds: Mapping[str, Any], number_to_schedule: int) -> int:
    """``SurgeCount``: maxSurge scaled up, 0 unless RollingUpdate sets it (ValueError for a
    bad percentage)."""
    ru = _rolling(ds)
    if ru is None or ru.get("maxSurge") is None:
        return 0
    return scaled_value(ru["maxSurge"], number_to_schedule, True)


def unavailable_count(ds: Mapping[str, Any], number_to_schedule: int) -> int:
    """``UnavailableCount``: maxUnavailable scaled up, 0 unless RollingUpdate."""
    ru = _rolling(ds)
    if ru is None:
        return 0
    if ru.get("maxUnavailable") is None:
        raise ValueError("nil value for IntOrString")
    return scaled_value(ru["maxUnavailable"], number_to_schedule, True)


def allows_surge(ds: Mapping[str, Any]) -> bool:
    """``AllowsSurge``: a valid maxSurge above 0 (out of one)."""
    try:
        return surge_count(ds, 1) > 0
    except ValueError:
        return False


def is_pod_updated(pod: Mapping[str, Any], hash_: str, generation: int | None) -> bool:
    """``IsPodUpdated``: the hash label equals ``hash_``, or the generation label does."""
    labels = pod["metadata"].get("labels") or {}
    template_matches = generation is not None and labels.get(TEMPLATE_GENERATION_LABEL) == str(generation)
    hash_matches = bool(hash_) and labels.get(HASH_LABEL) == hash_
    return hash_matches or template_matches


def _name_term(node_name: str) -> Obj:
    req = {"key": _OBJECT_NAME_FIELD, "operator": "In", "values": [node_name]}
    return {"matchFields": [req]}


def replace_daemonset_pod_node_name_node_affinity(affinity: Obj | None, node_name: str) -> Obj:
    """``ReplaceDaemonSetPodNodeNameNodeAffinity``: the required node affinity becomes one
    term matching ``metadata.name`` to ``node_name``; other affinity is kept."""
    selector = {"nodeSelectorTerms": [_name_term(node_name)]}
    if affinity is None:
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": selector}}
    node_affinity = affinity.get("nodeAffinity")
    if node_affinity is None:
        affinity["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": selector}
        return affinity
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = selector
        return affinity
    required["nodeSelectorTerms"] = [_name_term(node_name)]
    return affinity


class TargetNodeError(ValueError):
    """``GetTargetNodeName`` found no node name."""


def get_target_node_name(pod: Mapping[str, Any]) -> str:
    """``GetTargetNodeName``: spec.nodeName, else the single ``metadata.name`` value of
    the first In matchFields requirement of the required node affinity."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return str(spec["nodeName"])
    meta = pod["metadata"]
    ref = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    if required is None:
        raise TargetNodeError(
            f"no spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution for pod {ref}"
        )
    terms = required.get("nodeSelectorTerms") or []
    if not terms:
        raise TargetNodeError(
            f"no nodeSelectorTerms in requiredDuringSchedulingIgnoredDuringExecution of pod {ref}"
        )
    for term in terms:
        for exp in term.get("matchFields") or []:
            if exp.get("key") == _OBJECT_NAME_FIELD and exp.get("operator") == "In":
                values = exp.get("values") or []
                if len(values) != 1:
                    raise TargetNodeError(
                        f"the matchFields value of '{_OBJECT_NAME_FIELD}' is not unique for pod {ref}"
                    )
                return str(values[0])
    raise TargetNodeError(f"no node name found for pod {ref}")
