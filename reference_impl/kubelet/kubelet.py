"""A KWOK-like fake kubelet for every managed node (``pkg/kubelet`` as KWOK stages model it).

Pods bound to a managed node go Pending → Running after the start delay plus image pull,
→ Ready after model load, and (restartPolicy Never/OnFailure with ``run-seconds``) →
Succeeded or Failed. A pod marked for deletion is stopped after
``min(deletionGracePeriodSeconds, termination_seconds)`` and deleted with grace 0. Every
transition is a deadline per pod; timers only wake the work queue, whose sync compares
deadlines with the clock, so the kubelet runs as ordered clock events.

A pod first seen not yet terminal is admitted (``admit_handlers.py``: eviction, sysctls,
the predicate handler of ``admission.py``, AppArmor, pod features, node declared
features, node shutdown) against
the pods already admitted on its node; a rejected pod is written Failed with the
handler's reason and "Pod was rejected: <message>" and never started. Every status goes
through the status manager's ``normalizeStatus`` before it is merged and written.

Where eviction thresholds are configured (or a test set stats), each node's eviction
manager (``eviction_manager.py``) runs every monitoring period over the summary stats
(``eviction_stats.SummaryStats``): it reports the pressure conditions and evicts one
pod per cycle, which is written Failed with reason Evicted.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.api.meta import parse_quantity, parse_selector
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.quota.pod_resources import get_pod_qos
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.clock import Duration, Instant, Priority, rfc3339, seconds
from reference_impl.errors import AlreadyExists, BadRequest, Conflict, NotFound
from reference_impl.kubelet import admission
from reference_impl.kubelet import config as cfg
from reference_impl.kubelet import declared_features as ndf
from reference_impl.kubelet.admit_handlers import NodeAdmission
from reference_impl.kubelet.allocation import AllocationManager, resource_info
from reference_impl.kubelet.checkpoint import GATE, CheckpointStore, unimplemented
from reference_impl.kubelet.eviction_helpers import parse_threshold_config
from reference_impl.kubelet.eviction_manager import Eviction, EvictionManager, evicted_status
from reference_impl.kubelet.eviction_stats import PodUsage, SummaryStats
from reference_impl.kubelet.ipam import NodeAddresses
from reference_impl.kubelet.node_status import initialized_status, lease_manifest, micro_time
from reference_impl.kubelet.pod_status import Placement, running_status, terminated_status
from reference_impl.kubelet.projected import ProjectedVolumes
from reference_impl.kubelet.resize import (
    ResizeState,
    apply_resize,
    manager_gates,
    new_manager,
    restarted_containers,
)
from reference_impl.kubelet.status_manager import (
    check_container_state_transition,
    merge_pod_status,
    normalize_status,
)

__all__ = ["Kubelet"]

Obj = dict[str, Any]
_TERMINAL: Final = ("Succeeded", "Failed")
_SANDBOX_RETRY_S: Final = 10.0  # a failed RunPodSandbox is retried on the next sync


@dataclass(slots=True)
class _PodState:
    """Stage deadlines for one pod, fixed when the kubelet first sees it bound."""

    uid: str
    node: str
    accepted: Instant
    start_at: Instant
    ready_at: Instant
    complete_at: Instant | None
    stop_at: Instant | None = None
    wake_at: Instant | None = None
    resize: ResizeState | None = None
    admitted: bool = True  # False: rejected at admission (Failed, never started)


def _ann_seconds(pod: Obj, key: str, default: float) -> float:
    raw = (pod["metadata"].get("annotations") or {}).get(key)
    try:
        return float(raw) if raw is not None else default
    except ValueError:
        return default


def _by_creation(pod: Obj) -> tuple[str, str]:
    return (str(pod["metadata"].get("creationTimestamp") or ""), object_key(pod))


class Kubelet:
    """Runs the pod and node lifecycles of every managed node."""

    name: Final = "kubelet"

    def __init__(self, ctx: ComponentContext, config: cfg.KubeletConfig | None = None) -> None:
        self._ctx = ctx
        self._server = ctx.server
        self.config = config or cfg.KubeletConfig()
        self._selector = parse_selector(self.config.node_label_selector)
        self._queue = WorkQueue(ctx.clock, self._sync_pod, name="kubelet", priority=Priority.LATE)
        self._nodes_q = WorkQueue(
            ctx.clock, self._sync_node, name="kubelet-nodes", priority=Priority.LATE
        )
        self._states: dict[str, _PodState] = {}  # pod key -> state
        self._paused: set[str] = set()
        self._paused_at: dict[str, Instant] = {}  # node -> when its heartbeat stopped
        # Told when a node's heartbeat stops or resumes (the node lifecycle controller).
        self.heartbeat_listeners: list[Callable[[str], None]] = []
        # Per node: kl.allocationManager (allocations, resize conditions, pending queue).
        self._managers: dict[str, AllocationManager] = {}
        # The admit handlers' per-node state (pressure, shutdown, sysctls, AppArmor).
        known = {g: ctx.gates.enabled(g) for g in ctx.gates}
        # NodeDeclaredFeatures (GA): discovered once at start, as NewMainKubelet does.
        self.declared_features = declared = ndf.discover_node_declared_features(known, self.config)
        self.admission = NodeAdmission(self.config, ctx.clock.now, self._gate, declared_features=declared)
        self._gates = manager_gates({g: ctx.gates.enabled(g) for g in ctx.gates})
        self._actuation = Duration(seconds(self.config.resize_actuation_seconds))
        self.addresses = NodeAddresses()
        self.volumes = ProjectedVolumes(ctx, self._queue.add)  # podCertificate, CTB
        self.checkpoints = CheckpointStore()  # CRI CheckpointPod/RestorePod archives
        # The eviction manager per node and the summary stats it reads.
        self.stats = SummaryStats()
        c = self.config
        self._thresholds = parse_threshold_config(
            c.enforce_node_allocatable, dict(c.eviction_hard), dict(c.eviction_soft),
            dict(c.eviction_soft_grace_period), dict(c.eviction_minimum_reclaim),
        )  # fmt: skip
        self._evictions: dict[str, EvictionManager] = {}
        self._evicting: set[str] = set()  # pod keys being killed (not active any more)
        self._pods: SharedInformer | None = None
        self._nodes: SharedInformer | None = None

    def start(self) -> None:
        """Register the Node and Pod informers and take over existing nodes and pods."""
        self._nodes = self._ctx.informers.informer("v1", "Node")
        self._pods = self._ctx.informers.informer("v1", "Pod")
        self._nodes.add_handler(self._on_node)
        self._pods.add_handler(self._on_pod)
        self.volumes.start()
        for node in self._nodes.items():
            self._nodes_q.add(object_key(node))
        # HandlePodAdditions admits a batch oldest first (PodsByCreationTime).
        for pod in sorted(self._pods.items(), key=_by_creation):
            self._queue.add(object_key(pod))

    # -- node selection ---------------------------------------------------------------

    def manages(self, node_name: str) -> bool:
        """Whether ``node_name`` exists and is run by this fake kubelet."""
        assert self._nodes is not None
        node = self._nodes.get(node_name)
        if node is None or node_name in self._paused:
            return False
        meta = node["metadata"]
        if not self._selector.matches(meta.get("labels")):
            return False
        if self.config.managed_nodes is cfg.ManagedNodes.ALL:
            return True
        return (meta.get("labels") or {}).get("type") == "kwok" or (
            meta.get("annotations") or {}
        ).get(cfg.KWOK_NODE_ANNOTATION) == "fake"

    def pause_node(self, name: str) -> None:
        """Stop running ``name`` (a crashed or partitioned kubelet): no node status, lease
        or pod status is written for it; its pods stay as they were."""
        if name not in self._paused:
            self._paused_at[name] = self._ctx.clock.now()
        self._paused.add(name)
        for fn in list(self.heartbeat_listeners):
            fn(name)

    def last_heartbeat(self, name: str) -> Instant | None:
        """When ``name`` last renewed: now while it runs (its lease is kept fresh), the
        pause instant once it stopped, None for a node this model does not run (its own
        status and lease, if any, are all there is)."""
        if name in self._paused_at:
            return self._paused_at[name]
        return self._ctx.clock.now() if self.manages(name) else None

    def resume_node(self, name: str) -> None:
        """Run ``name`` again; its node and pods are re-synced."""
        self._paused.discard(name)
        self._paused_at.pop(name, None)
        for fn in list(self.heartbeat_listeners):
            fn(name)
        self._nodes_q.add(name)
        assert self._pods is not None
        for pod in sorted(self._pods.items(), key=_by_creation):
            if pod["spec"].get("nodeName") == name:
                self._queue.add(object_key(pod))

    def set_pressure(self, node: str, condition: str, active: bool = True) -> None:
        """Have the eviction manager of ``node`` observe (or stop observing) a resource
        pressure (MemoryPressure, DiskPressure, PIDPressure): the node condition follows
        and the eviction admit handler rejects pods; a cleared pressure lasts the
        transition period more. (No pod is evicted for it: evictions come from the
        stats, ``set_pod_usage``/``set_node_stats`` and the configured thresholds.)"""
        if self.admission.set_pressure(node, condition, active):
            self._nodes_q.add_after(node, seconds(self.config.pressure_transition_seconds))
        self._nodes_q.add(node)

    def set_pod_usage(
        self,
        namespace: str,
        name: str,
        *,
        memory: str | None = None,
        rootfs: str | None = None,
        logs: str | None = None,
        processes: int | None = None,
        volumes: dict[str, str] | None = None,
    ) -> None:
        """Have the stats provider report this usage for a pod (quantities); its node's
        eviction manager starts monitoring."""
        def q(v: str | None) -> int | None:
            return None if v is None else int(parse_quantity(v))

        vols = {k: int(parse_quantity(v)) for k, v in (volumes or {}).items()}
        key = f"{namespace}/{name}"
        self.stats.pods[key] = PodUsage(q(memory), q(rootfs), q(logs), processes, vols)
        pod = self._pods.get(key) if self._pods is not None else None
        node = (pod or {}).get("spec", {}).get("nodeName")
        if node:
            self._ensure_eviction(str(node))

    def set_node_stats(self, node: str, **fields: int | None) -> None:
        """Override ``NodeStats`` fields of ``node``'s summary (e.g. ``max_pid``,
        ``memory_available``); its eviction manager starts monitoring."""
        self.stats.node_overrides.setdefault(node, {}).update(fields)
        self._ensure_eviction(node)

    def set_shutting_down(self, node: str, active: bool = True) -> None:
        """The node shutdown manager of ``node`` has (not) seen a shutdown begin: new pods
        are rejected NodeShutdown (the running pods are not killed here)."""
        self.admission.state(node).shutting_down = active

    def actuate_resize(self, pod: Obj) -> None:
        """Re-check an in-place resize (``pods/resize``) of ``pod`` now (see ``resize.py``)."""
        self._queue.add(object_key(pod))

    def checkpoint_pod(self, namespace: str, name: str) -> Obj:
        """CRI ``CheckpointPod``: archive a running pod (state, memory, warm-up done)."""
        self._require_checkpoint("CheckpointPod")
        key = f"{namespace}/{name}"
        pod = self._server.get("v1", "Pod", name, namespace)
        st = self._states.get(key)
        if st is None or st.uid != pod["metadata"]["uid"]:
            raise BadRequest(
                f"rpc error: code = FailedPrecondition desc = pod {key} has no sandbox on a "
                "node this kubelet runs"
            )
        now = self._ctx.clock.now()
        load = _ann_seconds(pod, cfg.ANN_MODEL_LOAD, 0.0)
        warm = now >= st.ready_at
        archive = self.checkpoints.record(pod, st.node, warm=warm, load_seconds=load, now=rfc3339(now))
        self._ctx.trace.record(self.name, "checkpoint", key, archive["name"])
        return archive

    def restore_manifest(self, archive: Obj, pod: Obj) -> Obj:
        """CRI ``RestorePod`` (admission half): ``pod`` marked to start from ``archive``."""
        self._require_checkpoint("RestorePod")
        return self.checkpoints.restore_manifest(archive, pod)

    def _require_checkpoint(self, method: str) -> None:
        if not self._ctx.gates.enabled(GATE) or not self.config.checkpoint_supported:
            raise unimplemented(method)

    def _on_pod(self, ev: ObjectEvent) -> None:
        self._queue.add(object_key(ev.obj))
        if ev.old is not None and ev.type == "MODIFIED":
            self._check_update_features(ev.old, ev.obj)
        phase = (ev.obj.get("status") or {}).get("phase")
        if ev.type == "DELETED" or phase in _TERMINAL:
            # Room freed on a node: HandlePodRemoves (and a terminated pod) retry the
            # pending resizes there, in sortPendingResizes order.
            node = ev.obj["spec"].get("nodeName")
            mgr = self._managers.get(node) if node else None
            if mgr is not None:
                uid = ev.obj["metadata"]["uid"]
                if ev.type == "DELETED":
                    mgr.remove_pod(uid)
                mgr.pending = [u for u in mgr.pending if u != uid]
                self._retry_pending(node)

    def _check_update_features(self, old: Obj, new: Obj) -> None:
        """``HandlePodUpdates``: a Warning event for an update needing undeclared features."""
        key = object_key(new)
        if key not in self._states or old.get("spec") == new.get("spec"):
            return
        msg = ndf.update_check_message(old, new, self.declared_features)
        if msg is not None:
            self._ctx.trace.record(self.name, ndf.FAILED_CHECK, key, msg)  # Warning event

    def _manager(self, node: str) -> AllocationManager:
        mgr = self._managers.get(node)
        if mgr is None:
            mgr = new_manager(
                self.config,
                self._gates,
                lambda: self._active_pods(node),
                lambda uid: self._pod_by_uid(node, uid),
                lambda: rfc3339(self._ctx.clock.now()),
            )
            mgr.handlers = lambda pod, fits: self._resize_handlers(node, pod, fits)
            self._managers[node] = mgr
        assert self._nodes is not None
        found = self._nodes.get(node) or {}
        mgr.allocatable = dict((found.get("status") or {}).get("allocatable") or {})
        return mgr

    def _resize_handlers(
        self, node: str, pod: Obj, fits: Callable[[], tuple[bool, str, str]]
    ) -> tuple[bool, str, str]:
        """``canAdmitPod`` for a resize: the chain around the allocation manager's fit
        (a rejection other than Infeasible leaves the resize Deferred)."""
        result = self.admission.admit(node, pod, lambda: admission.AdmitResult(*fits()))
        return result.admit, result.reason, result.message

    def _active_pods(self, node: str) -> list[Obj]:
        """``GetActivePods`` on ``node``: the pods it runs that have not terminated."""
        assert self._pods is not None
        out = []
        for key, st in sorted(self._states.items()):
            pod = self._pods.get(key)
            if st.node != node or pod is None or pod["metadata"]["uid"] != st.uid or not st.admitted:
                continue
            if (pod.get("status") or {}).get("phase") not in _TERMINAL:
                out.append(pod)
        return out

    def _pod_by_uid(self, node: str, uid: str) -> Obj | None:
        return next((p for p in self._active_pods(node) if p["metadata"]["uid"] == uid), None)

    def _key_of(self, uid: str) -> str | None:
        return next((k for k, st in sorted(self._states.items()) if st.uid == uid), None)

    def _retry_pending(self, node: str) -> None:
        """``RetryPendingResizes``: allocated resizes start actuating; pods whose resize
        was allocated or whose conditions changed are synced."""
        mgr = self._manager(node)
        before = {uid: copy.deepcopy(mgr.allocated.get(uid)) for uid in mgr.pending}
        mgr.retry_pending_resizes()
        for uid, old in before.items():
            key = self._key_of(uid)
            if key is None:
                continue
            new = mgr.allocated.get(uid)
            if new is not None and new != old:
                self._start_actuation(key, old or {}, new)
                self._queue.add(key)
        for uid in mgr.synced:
            key = self._key_of(uid)
            if key is not None:
                self._queue.add(key)
        mgr.synced.clear()
        for kind, reason, message in mgr.events:
            self._ctx.trace.record(self.name, reason, kind, message)
        mgr.events.clear()

    def _start_actuation(self, key: str, old: Obj, new: Obj) -> None:
        """The runtime applies a new allocation ``actuation`` from now, restarting the
        containers whose resizePolicy asks for it."""
        st = self._states[key]
        assert st.resize is not None and self._pods is not None
        pod = self._pods.get(key) or {}
        for name in restarted_containers(pod, old, new):
            st.resize.restarts[name] = st.resize.restarts.get(name, 0) + 1
        st.resize.done_at = Instant(self._ctx.clock.now() + self._actuation)

    def _resize(self, key: str, pod: Obj, st: _PodState, status: Obj, now: Instant) -> Instant | None:
        """Hand a requested resize to the allocation manager, finish an actuation that is
        due, and write the allocation and resize conditions into ``status``; returns when
        the kubelet must look again (an actuation in flight), or None."""
        assert st.resize is not None
        mgr = self._manager(st.node)
        uid = st.uid
        if uid not in mgr.allocated:
            mgr.set_allocated_resources(pod)
        conds = mgr.conditions_of(uid)
        gen = int(pod["metadata"].get("generation", 1))
        _, requested = mgr.update_pod_from_allocation(pod)
        if requested:
            # A spec update (pod config ignores status-only updates) requests it anew.
            if gen != st.resize.seen_generation:
                st.resize.seen_generation = gen
                mgr.push_pending_resize(uid)
                self._retry_pending(st.node)
        else:
            # A reverted resize (or none): handlePodResourcesResize clears Pending.
            mgr.pending = [u for u in mgr.pending if u != uid]
            conds.clear_pending()
        alloc = mgr.allocated[uid]
        if st.resize.done_at is not None and now >= st.resize.done_at:
            st.resize.actual = copy.deepcopy(alloc)
            st.resize.done_at = None
        if st.resize.done_at is None and st.resize.actual == alloc:
            conds.clear_in_progress()  # isPodResizeInProgress is false: actual matches
        apply_resize(status, alloc, st.resize, conds.conditions())
        return st.resize.done_at

    # -- nodes ------------------------------------------------------------------------

    def _on_node(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED":
            self._nodes_q.add(object_key(ev.obj))

    def _sync_node(self, name: str) -> None:
        assert self._nodes is not None
        node = self._nodes.get(name)
        if node is None or not self.manages(name):
            return
        self.addresses.register(name, (node.get("spec") or {}).get("podCIDR"))
        now = rfc3339(self._ctx.clock.now())
        pressure, events = self.admission.pressure(name), list[str]()
        status = initialized_status(
            node, self.addresses.host_ip(name), self.config, now, pressure, events, self.declared_features
        )
        for event in events:
            self._ctx.trace.record(self.name, event, name, "Normal")
        if self._thresholds:
            self._ensure_eviction(name)
        if status != node.get("status"):
            self._server.update_status({**node, "status": status})
        if self.config.node_lease:
            self._renew_lease(node, now)

    def _renew_lease(self, node: Obj, now: str) -> None:
        name = str(node["metadata"]["name"])
        lease = self._server.try_get("coordination.k8s.io/v1", "Lease", name, "kube-node-lease")
        try:
            if lease is None:
                self._server.create(lease_manifest(node, now))
            elif self.config.lease_renew_seconds is not None:
                lease["spec"]["renewTime"] = micro_time(now)
                self._server.update(lease)
        except (NotFound, AlreadyExists, Conflict):
            return  # no kube-node-lease namespace, or a race: leases are best effort
        if self.config.lease_renew_seconds is not None:
            self._nodes_q.add_after(name, seconds(self.config.lease_renew_seconds))

    # -- the eviction manager -----------------------------------------------------------

    def _ensure_eviction(self, node: str) -> None:
        """Start ``node``'s eviction manager: a cycle now, then every monitoring period."""
        if node in self._evictions:
            return
        c = self.config
        self._evictions[node] = EvictionManager(
            list(self._thresholds),
            self.admission.state(node),
            seconds(c.pressure_transition_seconds),
            max_pod_grace_seconds=c.eviction_max_pod_grace_period,
            local_storage_isolation=c.local_storage_capacity_isolation,
            pod_level=self._gate("PodLevelResources"),
        )
        self._ctx.clock.call_later(Duration(0), lambda: self._eviction_cycle(node), priority=Priority.LATE)

    def _eviction_cycle(self, node: str) -> None:
        """``synchronize`` on ``node``: the node status follows a condition change; the
        evicted pod is killed. A deleted node's manager stops; a paused one skips."""
        assert self._nodes is not None
        found = self._nodes.get(node)
        mgr = self._evictions.get(node)
        if found is None or mgr is None:
            self._evictions.pop(node, None)
            return
        if self.manages(node):
            now = self._ctx.clock.now()
            before = list(mgr.admit.pressure)
            pods = {
                object_key(p): p
                for p in self._active_pods(node)
                if not p["metadata"].get("deletionTimestamp") and object_key(p) not in self._evicting
            }
            evictions = mgr.synchronize(list(pods.values()), lambda: self.stats.summary(found, pods, now), now)
            for reason, message in mgr.events:
                self._ctx.trace.record(self.name, reason, node, message)  # Warning events
            mgr.events.clear()
            if mgr.node_conditions(now) != before:
                self._nodes_q.add(node)
            for ev in evictions:
                self._evict(object_key(dict(ev.pod)), ev)
        period = Duration(seconds(self.config.eviction_monitoring_seconds))
        self._ctx.clock.call_later(period, lambda: self._eviction_cycle(node), priority=Priority.LATE)

    def _evict(self, key: str, ev: Eviction) -> None:
        """``killPodNow``: the containers stop after the grace period (capped as any
        stop is, by ``termination_seconds``), then the pod is Failed/Evicted."""
        st = self._states.get(key)
        if st is None:
            return
        self._evicting.add(key)
        uid = st.uid
        delay = seconds(min(float(ev.grace_seconds), self.config.termination_seconds))
        self._ctx.clock.call_later(
            Duration(delay), lambda: self._finish_eviction(key, uid, ev), priority=Priority.LATE
        )

    def _finish_eviction(self, key: str, uid: str, ev: Eviction) -> None:
        self._evicting.discard(key)
        assert self._pods is not None
        pod = self._pods.get(key)
        st = self._states.get(key)
        if pod is None or st is None or st.uid != uid:
            return
        if (pod.get("status") or {}).get("phase") in _TERMINAL:
            return
        now = rfc3339(self._ctx.clock.now())
        self._write(key, pod, evicted_status(pod, self._placement(pod, st), ev, now), "evict")

    # -- pods -------------------------------------------------------------------------

    def _sync_pod(self, key: str) -> None:
        assert self._pods is not None
        pod = self._pods.get(key)
        st = self._states.get(key)
        if pod is None or (st is not None and st.uid != pod["metadata"]["uid"]):
            if st is not None:
                self.addresses.release(st.node, st.uid)
                del self._states[key]
                self.volumes.forget(key)
                mgr = self._managers.get(st.node)
                if mgr is not None:
                    mgr.remove_pod(st.uid)
                    mgr.conditions.pop(st.uid, None)
                    mgr.pending = [u for u in mgr.pending if u != st.uid]
            if pod is None:
                return
        node = pod["spec"].get("nodeName")
        if not node or not self.manages(node):
            return
        st = self._states.get(key) or self._admit(key, pod, node)
        now = self._ctx.clock.now()
        if pod["metadata"].get("deletionTimestamp"):
            self._terminate(key, pod, st, now)
            return
        phase = (pod.get("status") or {}).get("phase", "Pending")
        if phase in _TERMINAL or not st.admitted:
            return
        mounted, refresh_at = self.volumes.ready(key, pod, self._nodes.get(node) if self._nodes else None)
        if refresh_at is not None:
            self._wake(key, st, refresh_at)
        if not mounted:
            return  # ContainerCreating until every projected source can be mounted
        self._advance(key, pod, st, now)

    def _gate(self, name: str) -> bool:
        gates = self._ctx.gates
        return name in gates and gates.enabled(name)

    def _admit(self, key: str, pod: Obj, node: str) -> _PodState:
        """``HandlePodAdditions``: a pod not yet terminal goes through the admit handlers
        (``allocationManager.AddPod``, ``admit_handlers.py``) against the other admitted
        pods at their allocations; a rejected pod is failed (``rejectPod``) and never
        started."""
        if (pod.get("status") or {}).get("phase") in _TERMINAL:
            return self._accept(key, pod, node)
        assert self._nodes is not None
        mgr = self._manager(node)
        uid = pod["metadata"]["uid"]
        others = [
            mgr.update_pod_from_allocation(p)[0]
            for p in self._active_pods(node)
            if p["metadata"]["uid"] != uid and p["metadata"]["uid"] in mgr.allocated
        ]
        found = self._nodes.get(node)
        # The fake kubelet reports no capacity of its own: a node whose allocatable nobody
        # set is not checked for room (upstream's kubelet always publishes it).
        sized = bool(((found or {}).get("status") or {}).get("allocatable"))
        result = self.admission.admit(
            node,
            pod,
            lambda: admission.admit(
                pod,
                others,
                lambda _use_cache: self._nodes.get(node) if self._nodes else None,
                pod_level=self._gate("PodLevelResources"),
                dra_extended=self._gate("DRAExtendedResource"),
                compare_taints=self._gate("TaintTolerationComparisonOperators"),
                resources=sized,
            ),
        )
        if result.admit:
            return self._accept(key, pod, node)
        now = self._ctx.clock.now()
        st = _PodState(uid, node, now, now, now, None, admitted=False)
        self._states[key] = st
        qos = get_pod_qos(
            pod,
            pod_level=self._gate("PodLevelResources"),
            fix_kubelet_qos=self._gate("PodLevelResourcesFixKubeletQOSClass"),
        )
        self._ctx.trace.record(self.name, result.reason, key, result.message)  # Warning event
        self._write(key, pod, admission.rejected_status(pod, result, qos, rfc3339(now)), "reject")
        return st

    def _accept(self, key: str, pod: Obj, node: str) -> _PodState:
        now = self._ctx.clock.now()
        start = _ann_seconds(pod, cfg.ANN_START, self.config.pod_start_seconds)
        pull = _ann_seconds(pod, cfg.ANN_IMAGE_PULL, 0.0)
        load = _ann_seconds(pod, cfg.ANN_MODEL_LOAD, 0.0)
        archive = self.checkpoints.restored_from(pod)
        if archive is not None:
            # Restored from a checkpoint: the rootfs comes with the archive (no pull), and
            # a warm-up already done is not repeated.
            pull, load = 0.0, 0.0 if archive["warmUpDone"] else load
        start_at = Instant(now + seconds(start) + seconds(pull))
        complete_at = None
        run = (pod["metadata"].get("annotations") or {}).get(cfg.ANN_RUN)
        if run is not None and pod["spec"].get("restartPolicy") in ("Never", "OnFailure"):
            complete_at = Instant(start_at + seconds(float(run)))
        self._manager(node).set_allocated_resources(pod)  # admitted at its spec
        st = _PodState(
            pod["metadata"]["uid"],
            node,
            now,
            start_at,
            Instant(start_at + seconds(load)),
            complete_at,
            resize=ResizeState(resource_info(pod, self._gates)),
        )
        self._states[key] = st
        self._ctx.trace.record(self.name, "accept", key, node)
        return st

    def _placement(self, pod: Obj, st: _PodState) -> Placement:
        return Placement(
            self.addresses.host_ip(st.node),
            self.addresses.pod_ip(st.node, st.uid),
            rfc3339(st.accepted),
            rfc3339(st.start_at),
        )

    def _advance(self, key: str, pod: Obj, st: _PodState, now: Instant) -> None:
        stamp = rfc3339(now)
        if st.complete_at is not None and now >= st.complete_at:
            code = int(_ann_seconds(pod, cfg.ANN_EXIT_CODE, 0))
            self._write(
                key, pod, terminated_status(pod, self._placement(pod, st), code, stamp), "complete"
            )
            return
        if now >= st.start_at:
            placement = self._placement(pod, st)
            if not placement.pod_ip:  # no sandbox without an address: retried, as kubelet does
                self._wake(key, st, Instant(now + seconds(_SANDBOX_RETRY_S)))
                return
            ready = now >= st.ready_at
            status = running_status(pod, placement, ready, stamp)
            resize_at = self._resize(key, pod, st, status, now)
            self._write(key, pod, status, "ready" if ready else "running")
        else:
            resize_at = None
        pending = [
            t
            for t in (st.start_at, st.ready_at, st.complete_at, resize_at)
            if t is not None and t > now
        ]
        if pending:
            self._wake(key, st, min(pending))

    def _terminate(self, key: str, pod: Obj, st: _PodState, now: Instant) -> None:
        if st.stop_at is None:
            grace = int(pod["metadata"].get("deletionGracePeriodSeconds") or 0)
            st.stop_at = Instant(now + seconds(min(float(grace), self.config.termination_seconds)))
        if now < st.stop_at:
            self._wake(key, st, st.stop_at)
            return
        phase = (pod.get("status") or {}).get("phase", "Pending")
        if phase not in _TERMINAL and st.admitted:
            # TerminatePod: a pod is made terminal before canBeDeleted lets it go.
            status = terminated_status(pod, self._placement(pod, st), 143, rfc3339(now))
            pod = self._write(key, pod, status, "stop") or pod
        meta = pod["metadata"]
        try:
            # While finalizers remain this is a no-op; the next update retries it.
            self._server.delete(
                "v1",
                "Pod",
                meta["name"],
                meta["namespace"],
                grace_period_seconds=0,
                uid=meta["uid"],
            )
        except (NotFound, Conflict):
            pass

    def _wake(self, key: str, st: _PodState, when: Instant) -> None:
        if st.wake_at is not None and self._ctx.clock.now() < st.wake_at <= when:
            return
        st.wake_at = when
        delay = Duration(when - self._ctx.clock.now())
        self._ctx.clock.call_later(delay, lambda: self._queue.add(key), priority=Priority.LATE)

    def _write(self, key: str, pod: Obj, status: Obj, stage: str) -> Obj | None:
        old = pod.get("status") or {}
        # updateStatusInternal normalizes what it caches (second-precision stamps,
        # terminated messages cut, container statuses sorted) and drops an update that
        # would restart a terminated container (checkContainerStateTransition) or leave
        # a terminal phase.
        status = normalize_status(pod, copy.deepcopy(status))
        if check_container_state_transition(old, status, pod.get("spec") or {}) is not None:
            return None
        if old.get("phase") in _TERMINAL and status.get("phase") not in _TERMINAL:
            return None
        # syncPod's mergePodStatus; terminal statuses are only written once every
        # container has stopped, so none could still be running.
        status = merge_pod_status(pod, old, status, False, rfc3339(self._ctx.clock.now()))
        if status == old:
            return None
        self._ctx.trace.record(self.name, stage, key, status.get("phase", ""))
        return self._server.update_status({**pod, "status": status})
