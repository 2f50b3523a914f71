"""``PodValidationOptions`` (``pkg/apis/core/validation/validation.go``, 1.37.2) and the
two builders that fill it: ``GetValidationOptionsFromPodSpecAndMeta`` and
``GetValidationOptionsFromPodTemplate`` (``pkg/api/pod/util.go``). The predicates are
``pod_options``'; validation reads the options where upstream's ValidatePodSpec does."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference_impl.apiserver.validation import pod_options as po
from reference_impl.apiserver.validation.pod_security import host_sysctl_error
from reference_impl.features import FeatureGates
from reference_impl.features.gate_memo import per_gates

__all__ = [
    "PodValidationOptions",
    "options_from_pod_spec_and_meta",
    "options_from_pod_template",
]

Obj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class PodValidationOptions:
    """Upstream's struct, field for field; the zero value is ``PodValidationOptions{}``
    (what RuntimeClass hands ValidateTolerations)."""

    allow_invalid_pod_deletion_cost: bool = False
    allow_invalid_label_value_in_selector: bool = False
    allow_indivisible_huge_pages_values: bool = False
    allow_invalid_topology_spread_constraint_label_selector: bool = False
    allow_non_local_projected_token_path: bool = False
    allow_namespaced_sysctls_for_host_net_and_host_ipc: bool = False
    resource_is_pod: bool = False
    allow_relaxed_environment_variable_validation: bool = False
    allow_only_recursive_selinux_change_policy: bool = False
    pod_level_resources_enabled: bool = False
    in_place_pod_level_resources_vertical_scaling_enabled: bool = False
    in_place_pod_vertical_scaling_memory_backed_volumes_enabled: bool = False
    allow_sidecar_resize_policy: bool = False
    allow_invalid_label_value_in_required_node_affinity: bool = False
    allow_match_label_keys_in_pod_topology_spread: bool = False
    allow_match_label_keys_in_pod_topology_spread_selector_merge: bool = False
    old_pod_violates_match_label_keys_validation: bool = False
    old_pod_violates_legacy_match_label_keys_validation: bool = False
    allow_env_files_validation: bool = False
    allow_container_restart_policy_rules: bool = False
    allow_existing_restart_container_for_non_sidecar_init_container: bool = False
    allow_user_namespaces_with_volume_devices: bool = False
    allow_taint_toleration_comparison_operators: bool = False
    allow_user_namespaces_host_network_support: bool = False
    allow_restart_all_containers: bool = False
    allow_image_volume_with_digest: bool = False
    allow_empty_image_volume_reference: bool = False
    allow_sys_admin_when_privilege_escalation_false: bool = False


def _obj(value: Any) -> Obj:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[Obj]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _invalid_affinity_selector(old_spec: Obj) -> bool:
    """``hasInvalidLabelValueInAffinitySelector``: ``ValidatePodAffinityTermSelector``
    (strict values) finds an error in a pod (anti-)affinity term of the old spec."""
    from reference_impl.apiserver.strategies.policy import label_selector_causes  # noqa: PLC0415

    aff = _obj(old_spec.get("affinity"))
    for kind in ("podAffinity", "podAntiAffinity"):
        pa = _obj(aff.get(kind))
        terms = _dicts(pa.get("requiredDuringSchedulingIgnoredDuringExecution"))
        terms += [
            t["podAffinityTerm"]
            for t in _dicts(pa.get("preferredDuringSchedulingIgnoredDuringExecution"))
            if isinstance(t.get("podAffinityTerm"), dict)
        ]
        for t in terms:
            if label_selector_causes(t.get("labelSelector"), "") or label_selector_causes(
                t.get("namespaceSelector"), ""
            ):
                return True
    return False


def _user_namespaces_host_network(old_spec: Obj | None, gates: FeatureGates) -> bool:
    """``useAllowUserNamespacesHostNetworkSupport``."""
    if gates.enabled("UserNamespacesHostNetworkSupport"):
        return True
    if old_spec is None or old_spec.get("hostUsers") is None:
        return False
    return bool(old_spec.get("hostNetwork")) and old_spec.get("hostUsers") is False


def _selinux_change_policy_in_use(old_spec: Obj | None) -> bool:
    sc = (old_spec or {}).get("securityContext")
    return isinstance(sc, dict) and sc.get("seLinuxChangePolicy") is not None


def _host_sysctl_in_use(old_spec: Obj) -> bool:
    """A sysctl of the old spec that ``ValidateHostSysctl`` refuses."""
    sysctls = _dicts(_obj(old_spec.get("securityContext")).get("sysctls"))
    return any(host_sysctl_error(str(s.get("name") or ""), old_spec) for s in sysctls)


def _empty_image_volume_reference(old_spec: Obj) -> bool:
    """``hasEmptyImageVolumeReference``."""
    return any(
        isinstance(v.get("image"), dict) and not v["image"].get("reference")
        for v in _dicts(old_spec.get("volumes"))
    )


def options_from_pod_spec_and_meta(
    spec: Obj | None,
    old_spec: Obj | None,
    meta: Obj | None,
    old_meta: Obj | None,
    gates: FeatureGates,
) -> PodValidationOptions:
    """``GetValidationOptionsFromPodSpecAndMeta``: gate defaults, then the ratchets an
    update earns from what the old spec (``old_spec`` not None) already had. Only the old
    pod and the gates are read, so a create's options are the gates' alone."""
    if old_spec is None and old_meta is None:
        return _create_options(gates)
    return _options(old_spec, old_meta, gates)


def _options(old_spec: Obj | None, old_meta: Obj | None, gates: FeatureGates) -> PodValidationOptions:
    on = gates.enabled
    merge = on("MatchLabelKeysInPodTopologySpreadSelectorMerge")
    old = old_spec or {}
    update = old_spec is not None
    # A ratchet reads one field of the old spec and is False without it, so a predicate
    # is asked only when its field is there (a status write asks these on every pod).
    violates, violates_legacy = (
        po.old_pod_violates_match_label_keys(old_spec, gates)
        if "topologySpreadConstraints" in old else (False, False)
    )
    return PodValidationOptions(
        allow_invalid_pod_deletion_cost=po.allow_invalid_pod_deletion_cost(old_meta, gates),
        allow_invalid_label_value_in_selector=(
            update and "affinity" in old and _invalid_affinity_selector(old)
        ),
        allow_indivisible_huge_pages_values=False,  # the reference checks no hugepage ratchet
        allow_invalid_topology_spread_constraint_label_selector=(
            "topologySpreadConstraints" in old
            and po.allow_invalid_topology_spread_constraint_label_selector(old)
        ),
        allow_non_local_projected_token_path=(
            "volumes" in old and po.allow_non_local_projected_token_path(old)
        ),
        allow_namespaced_sysctls_for_host_net_and_host_ipc=(
            "securityContext" in old and _host_sysctl_in_use(old)
        ),
        resource_is_pod=False,
        # RelaxedEnvironmentVariableValidation is GA and locked on in 1.37.
        allow_relaxed_environment_variable_validation=True,
        allow_only_recursive_selinux_change_policy=(
            not on("SELinuxMount") and not _selinux_change_policy_in_use(old_spec)
        ),
        pod_level_resources_enabled=on("PodLevelResources"),
        in_place_pod_level_resources_vertical_scaling_enabled=on(
            "InPlacePodLevelResourcesVerticalScaling"
        ),
        in_place_pod_vertical_scaling_memory_backed_volumes_enabled=on(
            "InPlacePodVerticalScalingMemoryBackedVolumes"
        ),
        allow_sidecar_resize_policy=po.allow_sidecar_resize_policy(old_spec, gates),
        allow_invalid_label_value_in_required_node_affinity=(
            "affinity" in old and po.allow_invalid_label_value_in_required_node_affinity(old)
        ),
        allow_match_label_keys_in_pod_topology_spread=on("MatchLabelKeysInPodTopologySpread"),
        allow_match_label_keys_in_pod_topology_spread_selector_merge=merge,
        old_pod_violates_match_label_keys_validation=violates,
        old_pod_violates_legacy_match_label_keys_validation=violates_legacy,
        allow_env_files_validation=on("EnvFiles") or po.pod_file_key_ref_in_use(old_spec),
        allow_container_restart_policy_rules=po.allow_container_restart_policy_rules(old_spec, gates),
        allow_existing_restart_container_for_non_sidecar_init_container=(
            "initContainers" in old
            and po.has_restart_container_for_non_sidecar_init_container(old_spec)
        ),
        allow_user_namespaces_with_volume_devices=(
            update and po.has_user_namespaces_with_volume_devices(old)
        ),
        allow_taint_toleration_comparison_operators=(
            po.allow_taint_toleration_comparison_operators(old_spec, gates)
        ),
        allow_user_namespaces_host_network_support=_user_namespaces_host_network(old_spec, gates),
        allow_restart_all_containers=po.allow_restart_all_containers(old_spec, gates),
        allow_image_volume_with_digest=on("ImageVolumeWithDigest"),
        allow_empty_image_volume_reference="volumes" in old and _empty_image_volume_reference(old),
        allow_sys_admin_when_privilege_escalation_false=(
            po.allow_sys_admin_when_privilege_escalation_false(old_spec)
        ),
    )


@per_gates
def _create_options(gates: FeatureGates) -> PodValidationOptions:
    """The options with no old pod (a create), once per gate map (they are frozen)."""
    return _options(None, None, gates)


def options_from_pod_template(
    template: Obj | None, old_template: Obj | None, gates: FeatureGates
) -> PodValidationOptions:
    """``GetValidationOptionsFromPodTemplate``: a template's spec and metadata, the old
    template's when there is one (an update)."""

    def parts(t: Obj | None) -> tuple[Obj | None, Obj | None]:
        if t is None:
            return None, None
        spec, meta = t.get("spec"), t.get("metadata")
        return (spec if isinstance(spec, dict) else {}), (meta if isinstance(meta, dict) else {})

    spec, meta = parts(template)
    old_spec, old_meta = parts(old_template)
    return options_from_pod_spec_and_meta(spec, old_spec, meta, old_meta, gates)
