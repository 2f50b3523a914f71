"""Per-kind defaulting and validation (the ``pkg/registry/<group>/<kind>/strategy.go`` role).

Importing this package registers every strategy with ``reference_impl.apiserver.registry``.
"""

from reference_impl.apiserver.strategies import (
    admission_policies,  # admission policies
    admission_webhooks,  # webhook configurations
    apiextensions,  # CustomResourceDefinition
    apiextensions_cel,  # CRD x-kubernetes-validations
    apiextensions_schema,  # CRD OpenAPI v3 schemas
    apiextensions_structural,  # CRD structural schemas, defaults
    apps,
    apps_daemonset,  # DaemonSet and ControllerRevision
    apps_deployment,  # Deployment strategy and counters
    apps_statefulset,  # StatefulSet defaults, spec/update/status rules
    autoscaling,
    batch,
    batch_cronjob,  # CronJob schedule, time zone, job template
    batch_gang,  # Job gangs: minCount vs parallelism, disruption vs policy
    batch_status,  # Job /status rules
    certificates,  # PODCERT, CTB
    certificates_csr,  # CSR update and /status rules
    certificates_names,  # signer names, CSR
    certificates_status,  # PODCERT status updates
    configmap,  # ConfigMap and Secret keys
    coordination,  # Lease spec, gated fields dropped
    coordination_candidates,  # LeaseCandidate spec and leaseName
    core,
    core_templates,  # ReplicationController and PodTemplate
    discovery,  # EndpointSlice
    endpoints,  # Endpoints subsets, port protocol default
    flowcontrol,  # APF, migrations, APIService
    job_util,  # Job/CronJob spec.scheduling dropped without WorkloadWithJob
    limit_range,  # LimitRange defaults and validation
    meta,
    namespace,  # Namespace defaults and spec.finalizers
    networking_ingress,  # Ingress rules, backends, TLS
    networking_ips,  # ServiceCIDR, IPAddress
    networking_policy,  # NetworkPolicy, IngressClass
    node,  # Node taints, quantities, declared features
    node_cidrs,  # Node podCIDRs
    node_preemption,  # Node spec.podPreemptionPolicy (KEP-5836)
    node_runtime,  # RuntimeClass handler, overhead, scheduling
    persistent_volume,  # PersistentVolume defaults, spec and update rules
    pod_affinity_keys,  # pod affinity matchLabelKeys merged into selectors on create
    pod_alpha_drops,  # pod-spec fields of alpha gates (off) dropped on write
    pod_beta_drops,  # pod-spec fields of on-by-default gates dropped when turned off
    pod_containers,  # container ports, env, dnsPolicy
    pod_ga_drops,  # pod-spec fields of locked GA gates (emulated off) dropped on write
    pod_status_drops,  # pods/status fields of disabled gates dropped
    pod_status_prepare,  # pods/status keeps qosClass, claim statuses, observedGeneration
    policy,  # PodDisruptionBudget
    pvc_status,  # PersistentVolumeClaim /status
    pvc_util,  # PVC gated fields dropped, data sources normalised
    rbac,  # RBAC, ServiceAccount, Event
    resource,  # DRA (resource.k8s.io)
    resource_admin,  # adminAccess needs the namespace label
    resource_extended,  # DeviceClass extendedResourceName format
    resource_gates,  # gated DRA fields dropped
    resource_pool_status,  # ResourcePoolStatusRequest (v1alpha3)
    resource_quota,  # ResourceQuota spec, scopes, selector, status
    resource_time,  # DeviceTaint.timeAdded
    scheduling,
    scheduling_claims,  # DRA-WLCLAIM resourceClaims
    scheduling_preemption,  # PodGroupPreemptionPolicy defaults
    service_fields,  # Service external IPs, source ranges, LB status, type-dependent fields
    service_ips,  # Service clusterIPs pre-check (the allocator's)
    service_ips_alloc,  # Service IP families and cluster IPs on create (after the pre-check)
    service_ports,  # Service healthCheckNodePort allocation and rules
    service_pvc,  # Service ports, PVC spec
    service_traffic,  # Service traffic policies, affinity, LB class, node ports
    status_counts,  # Deployment/ReplicaSet/Job/HPA status counters
    status_gates,  # gated /status fields, status reset on create
    storage,  # StorageClass, VolumeAttributesClass, CSIStorageCapacity, VolumeAttachment
    storage_csi,  # CSIDriver, CSINode
    storage_health,  # CSINode /status storageHealth
    storage_version,  # StorageVersion (internal.apiserver.k8s.io) status
)

__all__ = [
    "flowcontrol",
    "admission_policies",
    "admission_webhooks",
    "apiextensions",
    "apiextensions_cel",
    "apiextensions_schema",
    "apiextensions_structural",
    "rbac",
    "discovery",
    "networking_ips",
    "networking_ingress",
    "networking_policy",
    "apps",
    "apps_daemonset",
    "apps_deployment",
    "apps_statefulset",
    "autoscaling",
    "batch",
    "batch_cronjob",
    "batch_gang",
    "batch_status",
    "certificates",
    "certificates_csr",
    "certificates_names",
    "certificates_status",
    "configmap",
    "coordination",
    "coordination_candidates",
    "core",
    "core_templates",
    "endpoints",
    "limit_range",
    "meta",
    "namespace",
    "node",
    "node_cidrs",
    "node_preemption",
    "node_runtime",
    "persistent_volume",
    "pod_affinity_keys",
    "pod_alpha_drops",
    "pod_containers",
    "pod_status_prepare",
    "pod_status_drops",
    "pod_beta_drops",
    "pod_ga_drops",
    "policy",
    "pvc_status",
    "job_util",
    "pvc_util",
    "resource",
    "resource_admin",
    "resource_extended",
    "resource_gates",
    "resource_pool_status",
    "resource_quota",
    "resource_time",
    "scheduling",
    "service_ips",
    "service_ips_alloc",
    "service_ports",
    "service_pvc",
    "service_fields",
    "service_traffic",
    "scheduling_claims",
    "scheduling_preemption",
    "status_counts",
    "status_gates",
    "storage",
    "storage_csi",
    "storage_health",
    "storage_version",
]
