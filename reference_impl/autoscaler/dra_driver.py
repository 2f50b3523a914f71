"""The DRA driver of autoscaled nodes: publishes a new node's template ResourceSlices.

On a real cluster the driver's kubelet plugin starts on the new node and publishes its
ResourceSlices; the autoscaler only predicted them from the node group's template. The
kubelet plugin is not modelled, so this component does its part: when a Node of a
configured group appears, it creates the template's slices (one pool per driver, named
after the node, ``nodeName`` set), owned by the Node so the garbage collector removes
them with it. A node of a group without ``resourceSlices`` gets none.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.autoscaler.config import GROUP_LABEL, AutoscalerConfig
from reference_impl.autoscaler.templates import slice_manifests
from reference_impl.errors import AlreadyExists, ApiError

__all__ = ["TemplateDriver"]

NAME: Final = "autoscaler-dra-driver"


class TemplateDriver:
    """Publishes the template ResourceSlices of nodes the autoscaler's groups own."""

    name: Final = NAME

    def __init__(self, ctx: ComponentContext, config: Callable[[], AutoscalerConfig | None]):
        self._ctx = ctx
        self._config = config

    def start(self) -> None:
        """Watch Nodes."""
        self._ctx.informers.informer("v1", "Node").add_handler(self._on_node)

    def _on_node(self, ev: ObjectEvent) -> None:
        if ev.type != "ADDED":
            return
        meta = ev.obj["metadata"]
        cfg = self._config()
        group_name = (meta.get("labels") or {}).get(GROUP_LABEL)
        if cfg is None or not group_name:
            return
        group = next((g for g in cfg.node_groups if g.name == group_name), None)
        if group is None:
            return
        for sl in slice_manifests(group, meta["name"], meta.get("uid")):
            try:
                self._ctx.server.create(copy.deepcopy(sl))
            except AlreadyExists:
                pass
            except ApiError as e:  # a template the API refuses: say so, keep the node
                self._ctx.trace.record(NAME, "PublishFailed", sl["metadata"]["name"], str(e))
                continue
            self._ctx.trace.record(NAME, "Published", sl["metadata"]["name"], meta["name"])
