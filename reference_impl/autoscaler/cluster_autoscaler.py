"""Models kubernetes/autoscaler cluster-autoscaler's RunOnce loop (core/static_autoscaler.go):
scale-up for unschedulable pods (core/scaleup, expander/) and scale-down of empty nodes
(core/scaledown), with KEP-5030: CSI attach limits count in the simulation when the gate
VolumeLimitScaling is on.

Dormant until ConfigMap ``kube-system/garhwal-cluster-autoscaler`` exists (see config.py);
then every ``scanIntervalSeconds`` it:

* lists pods with ``PodScheduled=False/Unschedulable``; a pod that fits an existing node in
  the simulation is left to the scheduler (upstream's FilterOutSchedulable), otherwise it
  goes onto a node planned this loop or a new node of the group the expander picks
  (least-waste, priority or price; ties by name), up to the group's maxSize;
* creates each planned node ``<group>-<n>`` from the template, plus its CSINode (deviation:
  the kubelet's CSI plugin registration is not modelled, so the autoscaler writes it);
* deletes a group's node that has had no pods for ``scaleDownUnneededSeconds``, down to
  minSize.

With VolumeLimitScaling off the simulation ignores attach limits: a pod rejected only by
the scheduler's NodeVolumeLimits looks schedulable, so no node is added (the upstream bug).

DRA (``dra.py``): a pending pod's unallocated claims must also be allocatable, by the
structured allocator, on a node's published devices, or on the devices a group's template
would publish (``resourceSlices``), counting what this loop already planned there; so a
pod with a GPU claim scales up a GPU group and never a group without such devices. A
node's template slices are published when it appears (``dra_driver.py``), and a node
whose devices are allocated to a claim is not scaled down.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import parse_quantity
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.volumes import pod_csi_volumes
from reference_impl.autoscaler.config import (
    CONFIG_KEY,
    CONFIGMAP_NAME,
    CONFIGMAP_NAMESPACE,
    GROUP_LABEL,
    AutoscalerConfig,
    NodeGroup,
    parse_config,
)
from reference_impl.autoscaler.dra import DraSimulation, PodClaims, TemplateDevices
from reference_impl.autoscaler.dra_driver import TemplateDriver
from reference_impl.autoscaler.simulator import PodDemand, SimNode, fit_failures, pod_requests
from reference_impl.autoscaler.templates import (
    csinode_manifest,
    node_manifest,
    template_node,
    waste,
)
from reference_impl.clock import Duration, Instant, Timer, seconds
from reference_impl.errors import ApiError

__all__ = ["ClusterAutoscaler"]

Obj = dict[str, Any]
NAME: Final = "cluster-autoscaler"
GATE: Final = "VolumeLimitScaling"
_TERMINAL: Final = ("Succeeded", "Failed")


class ClusterAutoscaler:
    """Adds and removes nodes of configured node groups; see the module docstring."""

    name: Final = NAME

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self.config: AutoscalerConfig | None = None
        self.config_error = ""
        self._timer: Timer | None = None
        self._empty_since: dict[str, Instant] = {}
        self._dra = DraSimulation(ctx)
        self.driver = TemplateDriver(ctx, lambda: self.config)
        self._issued: set[str] = set()  # cloud instance names are never reused

    def start(self) -> None:
        """Watch for the ConfigMap; nothing else runs until it exists."""
        self.driver.start()
        cms = self._ctx.informers.informer("v1", "ConfigMap")
        cms.add_handler(self._on_configmap)
        cm = cms.get(f"{CONFIGMAP_NAMESPACE}/{CONFIGMAP_NAME}")
        if cm is not None:
            self._configure(cm)

    def _on_configmap(self, ev: ObjectEvent) -> None:
        meta = ev.obj["metadata"]
        if (meta.get("namespace"), meta["name"]) != (CONFIGMAP_NAMESPACE, CONFIGMAP_NAME):
            return
        if ev.type == "DELETED":
            self.config = None
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            return
        self._configure(ev.obj)

    def _configure(self, cm: Obj) -> None:
        try:
            self.config = parse_config(str((cm.get("data") or {}).get(CONFIG_KEY, "")))
            self.config_error = ""
        except (ValueError, TypeError, KeyError, AttributeError) as e:
            # A bad config keeps the autoscaler idle, as a crash-looping pod would be.
            self.config, self.config_error = None, str(e)
            self._ctx.trace.record(NAME, "ConfigInvalid", CONFIGMAP_NAME, str(e))
            return
        if self._timer is None:
            self._schedule(Duration(0))

    def _schedule(self, delay: Duration) -> None:
        self._timer = self._ctx.clock.call_later(delay, self._loop)

    def _loop(self) -> None:
        self._timer = None
        if self.config is None:
            return
        self.run_once(self.config)
        self._schedule(Duration(seconds(self.config.scan_interval_seconds)))

    # -- one iteration ------------------------------------------------------------------

    def run_once(self, cfg: AutoscalerConfig) -> list[str]:
        """One RunOnce: scale up for pending pods, else scale down; the nodes created."""
        nodes = self._snapshot()
        created = self._scale_up(cfg, nodes)
        if not created:
            self._scale_down(cfg, nodes)
        return created

    def _informer(self, api_version: str, kind: str) -> Any:
        return self._ctx.informers.informer(api_version, kind)

    def _snapshot(self) -> dict[str, SimNode]:
        limits: dict[str, dict[str, int | None]] = {}
        for csn in self._informer("storage.k8s.io/v1", "CSINode").items():
            limits[csn["metadata"]["name"]] = {
                str(d["name"]): (d.get("allocatable") or {}).get("count")
                for d in (csn.get("spec") or {}).get("drivers") or ()
            }
        out: dict[str, SimNode] = {}
        for node in sorted(
            self._informer("v1", "Node").items(), key=lambda n: n["metadata"]["name"]
        ):
            name = node["metadata"]["name"]
            if node["metadata"].get("deletionTimestamp") or (node.get("spec") or {}).get(
                "unschedulable"
            ):
                continue
            status = node.get("status") or {}
            alloc = status.get("allocatable") or status.get("capacity") or {}
            out[name] = SimNode(
                name=name,
                labels=dict(node["metadata"].get("labels") or {}),
                taints=tuple((node.get("spec") or {}).get("taints") or ()),
                allocatable={k: parse_quantity(v) for k, v in alloc.items()},
                attach_limits=limits.get(name, {}),
                group=(node["metadata"].get("labels") or {}).get(GROUP_LABEL, ""),
            )
        for pod in self._informer("v1", "Pod").items():
            node_name = pod["spec"].get("nodeName")
            if node_name in out and (pod.get("status") or {}).get("phase") not in _TERMINAL:
                out[node_name].place(self._demand(pod))
        return out

    def _demand(self, pod: Obj) -> PodDemand:
        ns = pod["metadata"].get("namespace", "default")
        demand = PodDemand(
            key=f"{ns}/{pod['metadata']['name']}",
            requests=pod_requests(pod),
            node_selector=dict(pod["spec"].get("nodeSelector") or {}),
            tolerations=tuple(pod["spec"].get("tolerations") or ()),
        )
        demand.volumes.update(pod_csi_volumes(self._ctx.informers, pod))
        return demand

    def _pending(self) -> list[Obj]:
        out = []
        for pod in self._informer("v1", "Pod").items():
            if pod["spec"].get("nodeName") or pod["metadata"].get("deletionTimestamp"):
                continue
            conds = (pod.get("status") or {}).get("conditions") or ()
            if any(
                c.get("type") == "PodScheduled"
                and c.get("status") == "False"
                and c.get("reason") == "Unschedulable"
                for c in conds
            ):
                out.append(pod)
        return sorted(
            out, key=lambda p: (p["metadata"].get("namespace", ""), p["metadata"]["name"])
        )

    # -- scale-up -----------------------------------------------------------------------

    def _scale_up(self, cfg: AutoscalerConfig, nodes: dict[str, SimNode]) -> list[str]:
        attach = self._ctx.gates.get(GATE, True)
        sizes = {
            g.name: sum(1 for n in nodes.values() if n.group == g.name) for g in cfg.node_groups
        }
        planned: list[tuple[NodeGroup, SimNode]] = []
        devices: dict[str, TemplateDevices] = {}
        for pod in self._pending():
            demand = self._demand(pod)
            claims = self._dra.claims(pod)
            if claims is None:
                continue  # a claim is still being generated: judge it next loop
            if any(self._fits_existing(demand, claims, n, attach) for n in nodes.values()):
                continue  # the scheduler can place it: not a scale-up trigger
            target, allocs = None, None
            for _, sim in planned:
                allocs = self._fits_template(demand, claims, sim, devices[sim.name], attach)
                if allocs is not None:
                    target = sim
                    break
            if target is None:
                group = self._expand(cfg, demand, claims, sizes, attach)
                if group is None:
                    self._ctx.trace.record(NAME, "NotTriggerScaleUp", demand.key)
                    continue
                sizes[group.name] += 1
                target = template_node(group, self._next_name(group, planned))
                devices[target.name] = self._dra.template(group, target.name, dict(target.labels))
                planned.append((group, target))
                allocs = self._fits_template(demand, claims, target, devices[target.name], attach)
            target.place(demand)
            self._dra.place(devices[target.name], allocs or [])
        created = []
        for group, sim in planned:
            if self._create(group, sim.name):
                created.append(sim.name)
        return created

    def _fits_existing(
        self, demand: PodDemand, claims: PodClaims, node: SimNode, attach: bool
    ) -> bool:
        if fit_failures(demand, node, attach):
            return False
        return not claims or self._dra.fits_existing(claims, node.name, dict(node.labels))

    def _fits_template(
        self,
        demand: PodDemand,
        claims: PodClaims,
        node: SimNode,
        tpl: TemplateDevices,
        attach: bool,
    ) -> list[Obj] | None:
        """The claim allocations planned on a new node, or None when the pod does not fit."""
        if fit_failures(demand, node, attach):
            return None
        return self._dra.plan_on(claims, tpl)

    def _expand(
        self,
        cfg: AutoscalerConfig,
        demand: PodDemand,
        claims: PodClaims,
        sizes: dict[str, int],
        attach: bool,
    ) -> NodeGroup | None:
        options = []
        for g in cfg.node_groups:
            if sizes[g.name] >= g.max_size:
                continue
            sim = template_node(g, f"{g.name}-template")
            tpl = self._dra.template(g, sim.name, dict(sim.labels))
            if self._fits_template(demand, claims, sim, tpl, attach) is not None:
                options.append(g)
        if not options:
            return None
        if cfg.expander == "priority":
            return min(options, key=lambda g: (-g.priority, g.name))
        if cfg.expander == "price":
            return min(options, key=lambda g: (g.price, g.name))
        return min(options, key=lambda g: (waste(g, demand), g.name))

    def _next_name(self, group: NodeGroup, planned: list[tuple[NodeGroup, SimNode]]) -> str:
        taken = {n["metadata"]["name"] for n in self._informer("v1", "Node").items()}
        taken |= {sim.name for _, sim in planned} | self._issued
        n = 1
        while f"{group.name}-{n}" in taken:
            n += 1
        return f"{group.name}-{n}"

    def _create(self, group: NodeGroup, name: str) -> bool:
        server = self._ctx.server
        try:
            server.create(node_manifest(group, name))
            if group.csi_drivers:
                server.create(csinode_manifest(group, name))
        except ApiError as e:
            self._ctx.trace.record(NAME, "ScaleUpFailed", name, str(e))
            return False
        self._issued.add(name)
        self._ctx.trace.record(NAME, "ScaleUp", name, group.name)
        return True

    # -- scale-down ---------------------------------------------------------------------

    def _scale_down(self, cfg: AutoscalerConfig, nodes: dict[str, SimNode]) -> None:
        now = self._ctx.clock.now()
        unneeded = seconds(cfg.scale_down_unneeded_seconds)
        sizes = {
            g.name: sum(1 for n in nodes.values() if n.group == g.name) for g in cfg.node_groups
        }
        mins = {g.name: g.min_size for g in cfg.node_groups}
        for name in list(self._empty_since):
            if name not in nodes or nodes[name].pods:
                del self._empty_since[name]
        for name, sim in nodes.items():
            if sim.group not in sizes or sim.pods:
                continue
            if self._dra.device_holders(name):
                self._empty_since.pop(name, None)  # its devices are in use: not unneeded
                continue
            since = self._empty_since.setdefault(name, now)
            if now - since >= unneeded and sizes[sim.group] > mins[sim.group]:
                sizes[sim.group] -= 1
                self._delete(name)

    def _delete(self, name: str) -> None:
        self._empty_since.pop(name, None)
        for api_version, kind in (("storage.k8s.io/v1", "CSINode"), ("v1", "Node")):
            try:
                self._ctx.server.delete(api_version, kind, name)
            except ApiError:
                pass  # already gone
        self._ctx.trace.record(NAME, "ScaleDown", name)
