"""The public API surface suites may use: manifest builders, selectors and the served kinds."""

from reference_impl.api.autoscaling_builders import HPABuilder, make_hpa
from reference_impl.api.builders import (
    ManifestBuilder,
    NodeBuilder,
    PodBuilder,
    make_configmap,
    make_deployment,
    make_job,
    make_namespace,
    make_node,
    make_pod,
    make_replicaset,
)
from reference_impl.api.certificates_builders import (
    KEY_TYPES,
    ca_certificate_pem,
    make_ctb,
    make_pcr,
)
from reference_impl.api.dra_builders import (
    DRA_API,
    ClaimBuilder,
    DeviceClassBuilder,
    DeviceTaintRuleBuilder,
    ResourceSliceBuilder,
    make_claim_template,
    make_device,
    make_device_class,
    make_device_taint_rule,
    make_resource_claim,
    make_resource_slice,
)
from reference_impl.api.dra_ext_builders import (
    EXTENDED_RESOURCE_CLAIM_ANNOTATION,
    timestamp_seconds,
)
from reference_impl.api.gang_builders import (
    make_child_pod_group,
    make_composite_pod_group,
    make_composite_workload,
    make_gang_job,
)
from reference_impl.api.meta import condition, parse_quantity, parse_selector
from reference_impl.api.resize_builders import resized, with_resize_policy
from reference_impl.api.resources import RESOURCES, ResourceInfo, lookup, served_versions
from reference_impl.api.scheduling_builders import (
    POOL_KEY,
    make_pdb,
    make_pod_group,
    make_pool_node,
    make_pool_pod,
    make_priority_class,
    make_workload,
)
from reference_impl.api.storage_builders import (
    make_csi_driver,
    make_csi_storage_capacity,
    make_pvc,
    make_storage_class,
)
from reference_impl.api.watch import WatchEvent

__all__ = [
    "KEY_TYPES",
    "DRA_API",
    "ClaimBuilder",
    "DeviceClassBuilder",
    "DeviceTaintRuleBuilder",
    "ResourceSliceBuilder",
    "make_claim_template",
    "make_device",
    "make_device_class",
    "make_device_taint_rule",
    "EXTENDED_RESOURCE_CLAIM_ANNOTATION",
    "timestamp_seconds",
    "make_resource_claim",
    "make_resource_slice",
    "RESOURCES",
    "HPABuilder",
    "ManifestBuilder",
    "NodeBuilder",
    "PodBuilder",
    "ResourceInfo",
    "WatchEvent",
    "ca_certificate_pem",
    "condition",
    "lookup",
    "make_configmap",
    "make_ctb",
    "make_deployment",
    "make_hpa",
    "make_job",
    "make_namespace",
    "make_node",
    "make_pcr",
    "make_pod",
    "make_replicaset",
    "parse_quantity",
    "parse_selector",
    "served_versions",
    "make_pdb",
    "make_pod_group",
    "make_priority_class",
    "make_workload",
    "POOL_KEY",
    "make_pool_node",
    "make_pool_pod",
    "make_child_pod_group",
    "make_composite_pod_group",
    "make_composite_workload",
    "make_gang_job",
    "resized",
    "with_resize_policy",
    "make_csi_driver",
    "make_csi_storage_capacity",
    "make_pvc",
    "make_storage_class",
]

from reference_impl.api.certificates_checks import (  # noqa: E402 - appended export
    ChainFacts,
    chain_facts,
    cluster_trust_bundle_volume,
    credential_bundle_matches,
    pem_certificate_count,
    pod_certificate_volume,
)

__all__ += [
    "ChainFacts",
    "chain_facts",
    "cluster_trust_bundle_volume",
    "credential_bundle_matches",
    "pem_certificate_count",
    "pod_certificate_volume",
]

from reference_impl.api.autoscaler_builders import (  # noqa: E402
    AUTOSCALER_CONFIGMAP,
    AUTOSCALER_GROUP_LABEL,
    make_autoscaler_config,
    make_bound_pvc,
    make_csi_pv,
    make_csinode,
    make_node_group,
)

__all__ += [
    "AUTOSCALER_CONFIGMAP",
    "AUTOSCALER_GROUP_LABEL",
    "make_autoscaler_config",
    "make_bound_pvc",
    "make_csi_pv",
    "make_csinode",
    "make_node_group",
]
