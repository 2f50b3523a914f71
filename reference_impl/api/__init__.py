"""The public API surface suites may use: manifest builders, selectors and the served kinds."""

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
from reference_impl.api.meta import condition, parse_quantity, parse_selector
from reference_impl.api.resources import RESOURCES, ResourceInfo, lookup, served_versions
from reference_impl.api.watch import WatchEvent

__all__ = [
    "RESOURCES",
    "ManifestBuilder",
    "NodeBuilder",
    "PodBuilder",
    "ResourceInfo",
    "WatchEvent",
    "condition",
    "lookup",
    "make_configmap",
    "make_deployment",
    "make_job",
    "make_namespace",
    "make_node",
    "make_pod",
    "make_replicaset",
    "parse_quantity",
    "parse_selector",
    "served_versions",
]
