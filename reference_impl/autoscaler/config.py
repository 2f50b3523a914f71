"""The autoscaler's configuration: node groups with templates, read from a ConfigMap.

Models cluster-autoscaler's cloud-provider node groups (``NodeGroup`` with min/max size and
``TemplateNodeInfo``) and its ``--expander`` / ``--scale-down-unneeded-time`` flags. The
reference reads them from ConfigMap ``kube-system/garhwal-cluster-autoscaler``, key
``config.yaml``::

    expander: least-waste          # least-waste | priority | price
    scanIntervalSeconds: 10
    scaleDownUnneededSeconds: 600
    nodeGroups:
    - name: cpu
      minSize: 0
      maxSize: 5
      priority: 10                 # the priority expander prefers higher
      price: 1.0                   # the price expander prefers lower
      template:
        labels: {node.kubernetes.io/instance-type: m5.2xlarge}
        taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
        capacity: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "1"}
        csiDrivers: [{name: ebs.csi.aws.com, allocatable: 25}]   # the CSINode it registers
        resourceSlices:            # DRA: what the node's driver publishes (one pool per node)
        - driver: gpu.garhwal.dev
          devices: [{name: gpu-0, attributes: {type: {string: gpu}}}]   # v1 Device shape
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import yaml

from reference_impl.api.autoscaler_builders import AUTOSCALER_CONFIGMAP, AUTOSCALER_GROUP_LABEL

__all__ = [
    "CONFIGMAP_NAME",
    "CONFIGMAP_NAMESPACE",
    "CONFIG_KEY",
    "EXPANDERS",
    "GROUP_LABEL",
    "AutoscalerConfig",
    "NodeGroup",
    "parse_config",
]

CONFIGMAP_NAMESPACE, CONFIGMAP_NAME = AUTOSCALER_CONFIGMAP
CONFIG_KEY: Final = "config.yaml"
# The label the autoscaler puts on nodes it creates, naming their group.
GROUP_LABEL: Final = AUTOSCALER_GROUP_LABEL
EXPANDERS: Final = ("least-waste", "priority", "price")
_DEFAULT_CAPACITY: Final = {"cpu": "8", "memory": "32Gi", "pods": "110"}


@dataclass(frozen=True, slots=True)
class NodeGroup:
    """One node group: size bounds, expander inputs and the template of its nodes."""

    name: str
    min_size: int = 0
    max_size: int = 10
    priority: int = 0
    price: float = 1.0
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Mapping[str, str], ...] = ()
    capacity: Mapping[str, str] = field(default_factory=lambda: dict(_DEFAULT_CAPACITY))
    # CSI driver name -> allocatable.count on the group's nodes (None = unlimited).
    csi_drivers: Mapping[str, int | None] = field(default_factory=dict)
    # DRA: per driver, the resource.k8s.io/v1 ``spec.devices`` of the node's ResourceSlice.
    resource_slices: tuple[tuple[str, tuple[Mapping[str, Any], ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class AutoscalerConfig:
    """The whole configuration; groups are kept sorted by name (deterministic order)."""

    node_groups: tuple[NodeGroup, ...]
    expander: str = "least-waste"
    scan_interval_seconds: float = 10.0
    scale_down_unneeded_seconds: float = 600.0


def _group(raw: Any, i: int) -> NodeGroup:
    where = f"nodeGroups[{i}]"
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"]:
        raise ValueError(f"{where}.name: a non-empty string is required")
    lo, hi = int(raw.get("minSize", 0)), int(raw.get("maxSize", 10))
    if lo < 0 or hi < lo:
        raise ValueError(f"{where}: need 0 <= minSize <= maxSize, got {lo}..{hi}")
    tpl = raw.get("template") or {}
    drivers: dict[str, int | None] = {}
    for d in tpl.get("csiDrivers") or ():
        count = d.get("allocatable")
        drivers[str(d["name"])] = None if count is None else int(count)
    return NodeGroup(
        resource_slices=_slices(tpl.get("resourceSlices") or (), where),
        name=raw["name"],
        min_size=lo,
        max_size=hi,
        priority=int(raw.get("priority", 0)),
        price=float(raw.get("price", 1.0)),
        labels={str(k): str(v) for k, v in (tpl.get("labels") or {}).items()},
        taints=tuple({str(k): str(v) for k, v in t.items()} for t in tpl.get("taints") or ()),
        capacity={str(k): str(v) for k, v in (tpl.get("capacity") or _DEFAULT_CAPACITY).items()},
        csi_drivers=drivers,
    )


def _slices(raw: Any, where: str) -> tuple[tuple[str, tuple[Mapping[str, Any], ...]], ...]:
    out: list[tuple[str, tuple[Mapping[str, Any], ...]]] = []
    for j, sl in enumerate(raw):
        at = f"{where}.template.resourceSlices[{j}]"
        if not isinstance(sl, dict) or not isinstance(sl.get("driver"), str) or not sl["driver"]:
            raise ValueError(f"{at}.driver: a non-empty string is required")
        devices = sl.get("devices") or []
        if not isinstance(devices, list) or not devices:
            raise ValueError(f"{at}.devices: a non-empty list of devices is required")
        names = [d.get("name") if isinstance(d, dict) else None for d in devices]
        for k, name in enumerate(names):
            if not isinstance(name, str) or not name:
                raise ValueError(f"{at}.devices[{k}].name: a non-empty string is required")
        if len(set(names)) != len(names):
            raise ValueError(f"{at}.devices: device names must be unique")
        if any(d == sl["driver"] for d, _ in out):
            raise ValueError(f"{at}.driver: {sl['driver']!r} is listed twice")
        out.append((sl["driver"], tuple(dict(d) for d in devices)))
    return tuple(out)


def parse_config(text: str) -> AutoscalerConfig:
    """Parse ``config.yaml``; ValueError naming the bad field."""
    raw = yaml.safe_load(text) or {}
    if not isinstance(raw, dict):
        raise ValueError("config.yaml: a mapping is required")
    expander = str(raw.get("expander", "least-waste"))
    if expander not in EXPANDERS:
        raise ValueError(f"expander: {expander!r} is not one of {', '.join(EXPANDERS)}")
    groups = [_group(g, i) for i, g in enumerate(raw.get("nodeGroups") or ())]
    if len({g.name for g in groups}) != len(groups):
        raise ValueError("nodeGroups: names must be unique")
    return AutoscalerConfig(
        node_groups=tuple(sorted(groups, key=lambda g: g.name)),
        expander=expander,
        scan_interval_seconds=float(raw.get("scanIntervalSeconds", 10.0)),
        scale_down_unneeded_seconds=float(raw.get("scaleDownUnneededSeconds", 600.0)),
    )
