"""``pkg/api/node/util.go``: deprecated node labels (``GetNodeLabelDeprecatedMessage``), the
RuntimeClass strategy's warnings and the node-selector helpers other kinds share; and the
Node strategy's ``nodeWarnings`` (``pkg/registry/core/node/strategy.go``)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.formats import label_value_errors
from reference_impl.apiserver.registry import Context, warner
from reference_impl.apiserver.warnings.util import cidr_warnings

__all__ = [
    "DEPRECATED_NODE_LABELS",
    "node_selector_term_warnings",
    "node_selector_warnings",
    "node_warnings",
    "runtime_class_warnings",
]

Obj = dict[str, Any]

DEPRECATED_NODE_LABELS: Final[dict[str, str]] = {
    "beta.kubernetes.io/arch": 'deprecated since v1.14; use "kubernetes.io/arch" instead',
    "beta.kubernetes.io/os": 'deprecated since v1.14; use "kubernetes.io/os" instead',
    "failure-domain.beta.kubernetes.io/region":
        'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
    "failure-domain.beta.kubernetes.io/zone":
        'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    "beta.kubernetes.io/instance-type":
        'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
    "app.kubernetes.io/created-by": "deprecated since v1.9",
    "scheduler.alpha.kubernetes.io/preferAvoidPods":
        "deprecated since v1.22; use Taints and Tolerations instead",
    "node-role.kubernetes.io/master": 'use "node-role.kubernetes.io/control-plane" instead',
}  # fmt: skip


@warner("RuntimeClass")
def runtime_class_warnings(rc: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """``GetWarningsForRuntimeClass`` (create and update): the path names no key."""
    selector = (rc.get("scheduling") or {}).get("nodeSelector") or {}
    return [f"scheduling.nodeSelector: {DEPRECATED_NODE_LABELS[k]}"
            for k in selector if k in DEPRECATED_NODE_LABELS]  # fmt: skip


def node_selector_warnings(selector: Obj | None, path: str) -> list[str]:
    """``GetWarningsForNodeSelector`` over a metav1 LabelSelector; matchLabels keys join
    the path as a child (``Child(label)``), not as a key."""
    if selector is None:
        return []
    out = []
    for i, expr in enumerate(selector.get("matchExpressions") or []):
        key = expr.get("key", "")
        if key in DEPRECATED_NODE_LABELS:
            out.append(f"{path}.matchExpressions[{i}].key: {key} is {DEPRECATED_NODE_LABELS[key]}")
    for label in selector.get("matchLabels") or {}:
        if label in DEPRECATED_NODE_LABELS:
            out.append(f"{path}.matchLabels.{label}: {DEPRECATED_NODE_LABELS[label]}")
    return out


def node_selector_term_warnings(term: Obj, check_label_value: bool, path: str) -> list[str]:
    """``GetWarningsForNodeSelectorTerm``: deprecated keys, and (preferred terms) values
    that are not valid label values."""
    out = []
    for i, expr in enumerate(term.get("matchExpressions") or []):
        key = expr.get("key", "")
        if key in DEPRECATED_NODE_LABELS:
            out.append(f"{path}.matchExpressions[{i}].key: {key} is {DEPRECATED_NODE_LABELS[key]}")
        if check_label_value:
            for j, value in enumerate(expr.get("values") or []):
                for msg in label_value_errors(value):
                    out.append(f"{path}.matchExpressions[{i}].values[{j}]: {value} is invalid, {msg}")
    return out


@warner("Node")
def node_warnings(node: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """``nodeWarnings`` (create and update)."""
    spec = node.get("spec") or {}
    out = []
    if spec.get("configSource") is not None:
        out.append("spec.configSource: the feature is removed")
    if spec.get("externalID"):
        out.append("spec.externalID: this field is deprecated, and is unused by Kubernetes")
    for i, cidr in enumerate(spec.get("podCIDRs") or []):
        out += cidr_warnings(f"spec.podCIDRs[{i}]", cidr)
    return out
