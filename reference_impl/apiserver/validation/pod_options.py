"""Pieces of ``GetValidationOptionsFromPodSpecAndMeta`` (``pkg/api/pod/util.go``, 1.37.2):
the ratchets that let an update keep what the stored pod already had, and the "in use"
predicates behind them. Validation reads them where the reference models the rule."""

from __future__ import annotations

from typing import Any

from reference_impl.api.meta import label_key_errors, label_value_errors
from reference_impl.features import FeatureGates

__all__ = [
    "allow_container_restart_policy_rules",
    "allow_invalid_label_value_in_required_node_affinity",
    "allow_invalid_pod_deletion_cost",
    "allow_invalid_topology_spread_constraint_label_selector",
    "allow_non_local_projected_token_path",
    "allow_restart_all_containers",
    "allow_sidecar_resize_policy",
    "allow_sys_admin_when_privilege_escalation_false",
    "allow_taint_toleration_comparison_operators",
    "container_restart_rules_in_use",
    "deletion_cost_valid",
    "has_restart_container_for_non_sidecar_init_container",
    "has_user_namespaces_with_volume_devices",
    "old_pod_violates_match_label_keys",
    "pod_file_key_ref_in_use",
    "taint_toleration_comparison_operators_in_use",
]

Obj = dict[str, Any]
DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
_ALL = ("initContainers", "containers", "ephemeralContainers")


def _dicts(value: Any) -> list[Obj]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _containers(spec: Obj | None) -> list[Obj]:
    return [c for f in _ALL for c in _dicts((spec or {}).get(f))]


def has_restart_container_for_non_sidecar_init_container(spec: Obj | None) -> bool:
    """``hasRestartContainerForNonSidecarInitContainer``: a non-sidecar init container
    with a RestartContainer resize policy (AllowExistingRestartContainerFor...)."""
    return any(
        rp.get("restartPolicy") == "RestartContainer"
        for c in _dicts((spec or {}).get("initContainers"))
        if c.get("restartPolicy") != "Always"
        for rp in _dicts(c.get("resizePolicy"))
    )


def _sys_admin_without_escalation(sc: Any) -> bool:
    """``hasSysAdminAndPrivilegeEscalationFalse``: unset counts as not true."""
    if not isinstance(sc, dict) or sc.get("allowPrivilegeEscalation") is True:
        return False
    caps = sc.get("capabilities")
    return isinstance(caps, dict) and "CAP_SYS_ADMIN" in (caps.get("add") or [])


def allow_sys_admin_when_privilege_escalation_false(old_spec: Obj | None) -> bool:
    """``useAllowSysAdminWhenPrivilegeEscalationFalse``; False on create."""
    return any(_sys_admin_without_escalation(c.get("securityContext")) for c in _containers(old_spec))  # noqa: E501


def has_user_namespaces_with_volume_devices(spec: Obj) -> bool:
    """``hasUserNamespacesWithVolumeDevices``: hostUsers false and a volumeDevice."""
    if spec.get("hostUsers") is not False:
        return False
    return any(c.get("volumeDevices") for c in _containers(spec))


def taint_toleration_comparison_operators_in_use(spec: Obj | None) -> bool:
    """``taintTolerationComparisonOperatorsInUse``: a Lt or Gt toleration."""
    return any(t.get("operator") in ("Lt", "Gt") for t in _dicts((spec or {}).get("tolerations")))  # noqa: E501


def allow_taint_toleration_comparison_operators(old_spec: Obj | None, gates: FeatureGates) -> bool:  # noqa: E501
    """``allowTaintTolerationComparisonOperators``."""
    return gates.enabled("TaintTolerationComparisonOperators") or (
        taint_toleration_comparison_operators_in_use(old_spec)
    )


def pod_file_key_ref_in_use(spec: Obj | None) -> bool:
    """``podFileKeyRefInUse``: an env var from a ``fileKeyRef``."""
    return any(
        isinstance(e.get("valueFrom"), dict) and e["valueFrom"].get("fileKeyRef") is not None
        for c in _containers(spec)
        for e in _dicts(c.get("env"))
    )


def deletion_cost_valid(value: str) -> bool:
    """``GetDeletionCostFromPodAnnotations``: a 32-bit integer, no "+" or leading zeros."""
    first_ok = value[:1] == "-" or "1" <= value[:1] <= "9" or value == "0"
    body = value[1:] if value[:1] == "-" else value
    if not value or not first_ok or not body.isascii() or not body.isdigit():
        return False
    return -(2**31) <= int(value) < 2**31


def allow_invalid_pod_deletion_cost(old_meta: Obj | None, gates: FeatureGates) -> bool:
    """``AllowInvalidPodDeletionCost``: always without PodDeletionCost; on update, when
    the stored pod's annotation is already invalid."""
    if not gates.enabled("PodDeletionCost"):
        return True
    if old_meta is None:
        return False
    ann = old_meta.get("annotations") or {}
    return DELETION_COST in ann and not deletion_cost_valid(str(ann[DELETION_COST]))


def _constraints(spec: Obj | None) -> list[Obj]:
    return _dicts((spec or {}).get("topologySpreadConstraints"))


def allow_invalid_topology_spread_constraint_label_selector(old_spec: Obj | None) -> bool:
    """``hasInvalidTopologySpreadConstraintLabelSelector`` of the old spec (strict values)."""
    from reference_impl.apiserver.strategies.policy import label_selector_causes  # noqa: PLC0415

    return any(label_selector_causes(c.get("labelSelector"), "") for c in _constraints(old_spec))


def _legacy_match_label_keys_invalid(c: Obj) -> bool:
    """``ValidateMatchLabelKeysInTopologySpread`` finds an error."""
    keys = [str(k) for k in c.get("matchLabelKeys") or []]
    if not keys:
        return False
    sel = c.get("labelSelector")
    if not isinstance(sel, dict):
        return True
    taken = set(sel.get("matchLabels") or {}) | {
        str(e.get("key")) for e in _dicts(sel.get("matchExpressions"))
    }
    return any(label_key_errors(k) or k in taken for k in keys)


def old_pod_violates_match_label_keys(old_spec: Obj | None, gates: FeatureGates) -> tuple[bool, bool]:  # noqa: E501
    """(OldPodViolatesMatchLabelKeysValidation, OldPodViolatesLegacyMatchLabelKeysValidation):
    with MatchLabelKeysInPodTopologySpread on, the merge-era rule when
    ...SelectorMerge is on too, else the legacy one; both False on create."""
    from reference_impl.apiserver.validation.pod_spec_rules import (  # noqa: PLC0415
        _match_label_keys,
    )

    if old_spec is None or not gates.enabled("MatchLabelKeysInPodTopologySpread"):
        return False, False
    if gates.enabled("MatchLabelKeysInPodTopologySpreadSelectorMerge"):
        return any(
            _match_label_keys("", [str(k) for k in c.get("matchLabelKeys") or []], [], c.get("labelSelector"))  # noqa: E501
            for c in _constraints(old_spec)
        ), False
    return False, any(_legacy_match_label_keys_invalid(c) for c in _constraints(old_spec))


def allow_non_local_projected_token_path(old_spec: Obj | None) -> bool:
    """``hasNonLocalProjectedTokenPath``: a service account token path that
    ValidateLocalNonReservedPath refuses."""
    from reference_impl.apiserver.validation.pod_volumes import local_path_causes  # noqa: PLC0415

    return any(
        local_path_causes(str(s["serviceAccountToken"].get("path") or ""), "")
        for v in _dicts((old_spec or {}).get("volumes"))
        if isinstance(v.get("projected"), dict)
        for s in _dicts(v["projected"].get("sources"))
        if isinstance(s.get("serviceAccountToken"), dict)
    )


def allow_invalid_label_value_in_required_node_affinity(old_spec: Obj | None) -> bool:
    """``hasInvalidLabelValueInRequiredNodeAffinity`` (``HasInvalidLabelValueInNodeSelectorTerms``)."""  # noqa: E501
    na = ((old_spec or {}).get("affinity") or {}).get("nodeAffinity") or {}
    required = na.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    return any(
        label_value_errors(str(v))
        for t in _dicts(required.get("nodeSelectorTerms"))
        for e in _dicts(t.get("matchExpressions"))
        for v in e.get("values") or []
    )


def container_restart_rules_in_use(old_spec: Obj | None) -> bool:
    """``containerRestartRulesInUse``."""
    spec = old_spec or {}
    for c in _dicts(spec.get("initContainers")):
        if c.get("restartPolicy") not in (None, "Always") or c.get("restartPolicyRules"):
            return True
    return any(c.get("restartPolicy") is not None for c in _dicts(spec.get("containers")))


def allow_container_restart_policy_rules(old_spec: Obj | None, gates: FeatureGates) -> bool:
    """``AllowContainerRestartPolicyRules``: ContainerRestartRules, or in use on update."""
    return gates.enabled("ContainerRestartRules") or (
        old_spec is not None and container_restart_rules_in_use(old_spec)
    )


def _restart_all_in_use(old_spec: Obj) -> bool:
    """``restartAllContainersActionInUse`` (a sidecar's rules count too)."""
    def restart_all(c: Obj) -> bool:
        return any(r.get("action") == "RestartAllContainers" for r in _dicts(c.get("restartPolicyRules")))  # noqa: E501

    if any(restart_all(c) for c in _dicts(old_spec.get("containers"))):
        return True
    return any(
        restart_all(c) or (c.get("restartPolicy") == "Always" and bool(c.get("restartPolicyRules")))
        for c in _dicts(old_spec.get("initContainers"))
    )


def allow_restart_all_containers(old_spec: Obj | None, gates: FeatureGates) -> bool:
    """``AllowRestartAllContainers``: RestartAllContainersOnContainerExits, or in use."""
    return gates.enabled("RestartAllContainersOnContainerExits") or (
        old_spec is not None and _restart_all_in_use(old_spec)
    )


def allow_sidecar_resize_policy(old_spec: Obj | None, gates: FeatureGates) -> bool:
    """``AllowSidecarResizePolicy``: InPlacePodVerticalScaling, or on update a sidecar
    (restartable init container) with a resize policy (``hasRestartableInitContainerResizePolicy``)."""  # noqa: E501
    return gates.enabled("InPlacePodVerticalScaling") or any(
        c.get("restartPolicy") == "Always" and c.get("resizePolicy")
        for c in _dicts((old_spec or {}).get("initContainers"))
    )
