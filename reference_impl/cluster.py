"""The composition root: one simulated Kubernetes 1.37 control plane in-process.

``Cluster`` wires storage, the apiserver, controllers, the scheduler and the kubelet model
onto one SimClock and one seed. Every write settles the reactions due at the same instant
before returning, so a caller sees a consistent state; anything that takes simulated time
(pod start-up, backoff, tolerationSeconds) happens only through ``advance``, ``run_until``
or ``watch(..., timeout=...)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from reference_impl.api.builders import make_namespace, make_node
from reference_impl.api.resources import lookup
from reference_impl.api.runtime_config import APIResourceConfig
from reference_impl.api.watch import WatchEvent
from reference_impl.apiserver import kubernetes_service, repair_ip
from reference_impl.apiserver.admission import (
    default_storage_class,
    default_toleration_seconds,
    install_priority,
    limit_ranger,
    mutating_admission_policy,
    pod_security,
    pod_topology_labels,
    podgroup_protection,
    resource_quota,
    runtime_class,
    service_account,
    storage_object_in_use_protection,
    taint_nodes_by_condition,
    validating_admission_policy,
)
from reference_impl.apiserver.component import ComponentContext, Trace
from reference_impl.apiserver.crd_status import start_crd_controllers
from reference_impl.apiserver.field_selectors import field_filter
from reference_impl.apiserver.informers import InformerFactory
from reference_impl.apiserver.list_options import ListOptions
from reference_impl.apiserver.lookups import check_served
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.watch_caches import WatchCaches, served_resources
from reference_impl.autoscaler import ClusterAutoscaler
from reference_impl.clock import Duration, Instant, Priority, SimClock, seconds
from reference_impl.cloud import SpotMarket
from reference_impl.controllers import Controller, start_controllers
from reference_impl.controllers.node_lifecycle import NodeLifecycleController
from reference_impl.errors import ServiceUnavailable, Timeout
from reference_impl.features import FeatureGates
from reference_impl.kubelet import Kubelet, KubeletConfig
from reference_impl.rng import Rng
from reference_impl.scheduler import Scheduler
from reference_impl.storage.mvcc import MVCCStore
from reference_impl.storage.range_stream import EtcdServer

__all__ = ["Cluster", "ClusterConfig", "etcd_unavailable_as_timeout"]

Obj = dict[str, Any]
_Answer = TypeVar("_Answer")  # a write's answer: the object, or None for a delete
SYSTEM_NAMESPACES: Final = ("default", "kube-node-lease", "kube-public", "kube-system")


@dataclass(frozen=True, slots=True)
class ClusterConfig:
    """Knobs of the simulated control plane; the defaults follow upstream's."""

    kubelet: KubeletConfig = field(default_factory=KubeletConfig)
    # Fake nodes registered at start, like the KWOK nodes of the local live cluster.
    nodes: int = 3
    node_capacity: Mapping[str, str] = field(
        default_factory=lambda: {"cpu": "32", "memory": "256Gi", "pods": "110"}
    )
    # The etcd member's version: below 3.7 RangeStream answers Unimplemented.
    etcd_version: str = "3.7.3"
    # kube-apiserver --etcd-compaction-interval (5m)
    compaction_interval_seconds: float = 300.0
    # The kube-proxy configuration (kubeproxy.config.k8s.io/v1alpha1) a node would run;
    # mode unset like a default kube-proxy (the KPROXY probe reads it).
    kube_proxy: Mapping[str, Any] = field(
        default_factory=lambda: {
            "apiVersion": "kubeproxy.config.k8s.io/v1alpha1",
            "kind": "KubeProxyConfiguration",
            "mode": "",
        }
    )
    # kube-apiserver --runtime-config (parse_runtime_config output): which beta and alpha
    # group/versions clients may use; upstream serves only the stable ones by default.
    runtime_config: Mapping[str, str] = field(default_factory=dict)
    # kube-controller-manager --controllers ("*": all; "-name" leaves one out).
    controllers: tuple[str, ...] = ("*",)
    # kube-apiserver --disable-admission-plugins (upstream's plugin names).
    disable_admission_plugins: frozenset[str] = frozenset()


# The admission plugins by upstream name, in kube-apiserver's order (AllOrderedPlugins).
_ADMISSION: Final[tuple[tuple[str, Callable[[APIServer], None]], ...]] = (
    ("LimitRanger", limit_ranger.install),
    ("ServiceAccount", service_account.install),
    ("TaintNodesByCondition", taint_nodes_by_condition.install),
    ("PodSecurity", pod_security.install),
    ("Priority", install_priority),
    ("DefaultTolerationSeconds", default_toleration_seconds.install),
    ("DefaultStorageClass", default_storage_class.install),
    ("StorageObjectInUseProtection", storage_object_in_use_protection.install),
    ("PodGroupProtection", podgroup_protection.install),
    ("RuntimeClass", runtime_class.install),
    ("PodTopologyLabels", pod_topology_labels.install),
    ("MutatingAdmissionPolicy", mutating_admission_policy.install),
    ("ValidatingAdmissionPolicy", validating_admission_policy.install),
    ("ResourceQuota", resource_quota.install),
)


ETCD_DEADLINE_MESSAGE: Final = (
    "request did not complete within requested timeout - context deadline exceeded"
)


@contextmanager
def etcd_unavailable_as_timeout() -> Iterator[None]:
    """A client request while etcd is down ends as kube-apiserver ends it: 504 Timeout,
    "context deadline exceeded" (the reference answers at once where the real apiserver
    answers when its request deadline passes, ~34 s on the local cluster)."""
    try:
        yield
    except ServiceUnavailable as exc:
        if not str(exc).startswith("etcdserver:"):
            raise
        raise Timeout(ETCD_DEADLINE_MESSAGE) from None


class Cluster:
    """A seeded, deterministic 1.37 control plane: ``apply``, ``get``, ``list``, ``advance``..."""

    def __init__(
        self,
        feature_gates: Mapping[str, bool] | None = None,
        seed: int = 0,
        config: ClusterConfig | None = None,
    ) -> None:
        self.feature_gates = FeatureGates(feature_gates)
        self.seed = seed
        self.config = config or ClusterConfig()
        self.api_resources = APIResourceConfig.from_overrides(self.config.runtime_config)
        self.clock = SimClock()
        self.rng = Rng(seed)
        self.store = MVCCStore()
        self.etcd = EtcdServer(self.store, self.config.etcd_version)
        self.trace = Trace(self.clock)
        self.api = APIServer(
            self.store, self.clock, self.rng.child("apiserver"), self.feature_gates
        )
        # The apiserver's cachers list every resource before it serves (KEP-5966:
        # through RangeStream when the gate is on and etcd has it), and again after an
        # etcd restart when their watch cannot resume (its revision was compacted).
        self.watch_caches = WatchCaches(
            self.etcd,
            served_resources(self.feature_gates),
            self.feature_gates,
            self.clock,
            log=lambda gr, msg: self.trace.record("kube-apiserver", "StorageList", gr, msg),
        )
        self.watch_caches.start()
        for ns in SYSTEM_NAMESPACES:
            self.api.create(make_namespace(ns).build())
        unknown = self.config.disable_admission_plugins - {name for name, _ in _ADMISSION}
        if unknown:  # as kube-apiserver refuses to start
            raise ValueError(f"--disable-admission-plugins: unknown plugins {sorted(unknown)}")
        for plugin, install in _ADMISSION:
            if plugin not in self.config.disable_admission_plugins:
                install(self.api)
        # Post-start hooks: default/kubernetes and its endpoints, the ClusterIP repair loop.
        kubernetes_service.start(self.api)
        repair_ip.install(self.api, repair_ip.trace_recorder(self.trace))
        self.informers = InformerFactory(self.api)
        self._last_rev = 0
        self.external_metrics: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
        self.pod_metrics: dict[tuple[str, str, str], float] = {}
        # The apiserver's warnings of the last write (a delete or eviction included)
        # through this API that succeeded, taken before settling (controllers' own
        # writes reset ``api.warnings``).
        self.write_warnings: tuple[str, ...] = ()
        # The deprecation warnings of the last get or list through this API that succeeded.
        self.read_warnings: tuple[str, ...] = ()
        ctx = ComponentContext(
            self.api, self.informers, self.clock, self.rng, self.feature_gates, self.trace
        )
        self.context = ctx
        # The apiextensions apiserver's own CRD status controllers (not kube-controller-manager's).
        self.crd_controllers = start_crd_controllers(ctx)
        self.controllers: list[Controller] = start_controllers(
            ctx, self.external_metrics, self.pod_metrics, self.config.controllers
        )
        self.scheduler = Scheduler(ctx)
        self.scheduler.start()
        self.kubelet = Kubelet(ctx, self.config.kubelet)
        self.kubelet.start()
        # Node health comes from the kubelet model's heartbeat (see node_lifecycle).
        self.node_lifecycle = NodeLifecycleController(ctx, self.kubelet.last_heartbeat)
        self.kubelet.heartbeat_listeners.append(self.node_lifecycle.heartbeat_changed)
        self.node_lifecycle.start()
        # Spot instances: a reclaim notice, then the instance (kubelet and Node) is gone.
        self.spot = SpotMarket(ctx, self.kubelet.pause_node)
        # Dormant until its ConfigMap kube-system/garhwal-cluster-autoscaler exists.
        self.autoscaler = ClusterAutoscaler(ctx)
        self.autoscaler.start()
        for i in range(self.config.nodes):
            self.api.create(
                make_node(f"kwok-node-{i}").capacity(**self.config.node_capacity).build()
            )
        self._schedule_compaction()
        self.settle()

    # -- the Target-facing API ----------------------------------------------------------

    @property
    def now(self) -> Instant:
        """The simulated time, in nanoseconds since the cluster started."""
        return self.clock.now()

    def apply(self, manifest: Obj) -> Obj:
        """Create or update ``manifest``; returns the object as stored."""
        self._served(manifest)
        with etcd_unavailable_as_timeout():
            return self._settled(self.api.apply(manifest))

    def create(self, manifest: Obj) -> Obj:
        """Create ``manifest``; AlreadyExists when the name is taken."""
        self._served(manifest)
        with etcd_unavailable_as_timeout():
            return self._settled(self.api.create(manifest))

    def update(self, manifest: Obj) -> Obj:
        """Replace an existing object (optimistic concurrency on resourceVersion)."""
        self._served(manifest)
        with etcd_unavailable_as_timeout():
            return self._settled(self.api.update(manifest))

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj:
        """The stored object; NotFound when absent."""
        self._served({"apiVersion": api_version, "kind": kind})
        with etcd_unavailable_as_timeout():
            out = self.api.get(api_version, kind, name, namespace)
        self.read_warnings = tuple(self.api.read_warnings)
        return out

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> list[Obj]:
        """Objects of a kind, optionally in one namespace and matching a label selector
        and a field selector (BadRequest for a field label the version does not support)."""
        self._served({"apiVersion": api_version, "kind": kind})
        fields = self._field_filter(api_version, kind, field_selector)
        with etcd_unavailable_as_timeout():
            items = self.api.list(api_version, kind, namespace, label_selector, fields)
        self.read_warnings = tuple(self.api.read_warnings)
        return items

    def list_page(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        *,
        field_selector: str | None = None,
        limit: int = 0,
        continue_: str = "",
        resource_version: str = "",
        resource_version_match: str = "",
    ) -> Obj:
        """The list object (items and ListMeta) with the list options upstream serves."""
        self._served({"apiVersion": api_version, "kind": kind})
        fields = self._field_filter(api_version, kind, field_selector)
        opts = ListOptions(limit, continue_, resource_version, resource_version_match)
        with etcd_unavailable_as_timeout():
            page = self.api.list_page(api_version, kind, namespace, label_selector, fields,
                                      options=opts)  # fmt: skip
        self.read_warnings = tuple(self.api.read_warnings)
        return page

    def _field_filter(
        self, api_version: str, kind: str, field_selector: str | None
    ) -> Callable[[Obj], bool] | None:
        # The list/watch handlers convert the text before storage sees it.
        return field_filter(self.api.resource(api_version, kind), field_selector)

    def delete(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        propagation_policy: str = "Background",
        grace_period_seconds: int | None = None,
    ) -> None:
        """Delete (gracefully for bound pods; dependents go through the garbage collector)."""
        self.delete_with_options(
            api_version,
            kind,
            name,
            namespace,
            propagation_policy=propagation_policy,
            grace_period_seconds=grace_period_seconds,
        )

    def delete_with_options(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        propagation_policy: str | None = "Background",
        grace_period_seconds: int | None = None,
        uid: str | None = None,
        resource_version: str | None = None,
    ) -> Obj | None:
        """``delete`` with the rest of its DeleteOptions (the preconditions); the object as
        the delete left it (marked), or None when it is gone."""
        self._served({"apiVersion": api_version, "kind": kind})
        with etcd_unavailable_as_timeout():
            out = self.api.delete(
                api_version,
                kind,
                name,
                namespace,
                propagation_policy=propagation_policy,
                grace_period_seconds=grace_period_seconds,
                uid=uid,
                resource_version=resource_version,
            )
        return self._settled(out)

    def patch_status(self, manifest: Obj) -> Obj:
        """Write ``status`` through the /status subresource."""
        self._served(manifest)
        with etcd_unavailable_as_timeout():
            return self._settled(self.api.update_status(manifest))

    def get_scale(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj:
        """GET the parent's ``/scale`` subresource (autoscaling/v1 Scale)."""
        self._served({"apiVersion": api_version, "kind": kind})
        with etcd_unavailable_as_timeout():
            return self.api.get_scale(api_version, kind, name, namespace)

    def update_scale(self, api_version: str, kind: str, scale: Obj) -> Obj:
        """PUT the parent's ``/scale`` subresource; ``scale`` names the parent (its
        resourceVersion, if any, is a precondition). Returns the new Scale."""
        self._served({"apiVersion": api_version, "kind": kind})
        with etcd_unavailable_as_timeout():
            return self._settled(self.api.update_scale(api_version, kind, scale))

    def evict(self, name: str, namespace: str, eviction: Obj | None = None) -> Obj:
        """POST pods/{name}/eviction (policy/v1 Eviction); TooManyRequests when a
        PodDisruptionBudget does not allow it now. Returns the Success Status."""
        body = eviction or {"apiVersion": "policy/v1", "kind": "Eviction",
                            "metadata": {"name": name, "namespace": namespace}}  # fmt: skip
        with etcd_unavailable_as_timeout():
            out = self.api.evict(namespace, name, body)
        self.write_warnings = tuple(self.api.warnings)
        self.settle()
        return out

    def resize(self, pod: Obj) -> Obj:
        """Write container resources through the pods/resize subresource."""
        with etcd_unavailable_as_timeout():
            return self._settled(self.api.resize(pod))

    def watch(
        self,
        api_version: str,
        kind: str,
        since: str | None = None,
        namespace: str | None = None,
        timeout: float | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        allow_bookmarks: bool = False,
        send_initial_events: bool | None = None,
        resource_version_match: str = "",
    ) -> Iterator[WatchEvent]:
        """Events of a kind. Without ``timeout`` it yields what has happened and stops;
        with one it runs simulated time until events arrive, up to ``timeout`` seconds
        (also the watch's timeoutSeconds, which times its last bookmark)."""
        self._served({"apiVersion": api_version, "kind": kind})
        it = self.api.watch(
            api_version, kind, since, namespace, label_selector=label_selector,
            field_selector=self._field_filter(api_version, kind, field_selector),
            allow_bookmarks=allow_bookmarks, send_initial_events=send_initial_events,
            resource_version_match=resource_version_match, timeout_seconds=timeout,
        )  # fmt: skip
        deadline = Instant(self.clock.now() + seconds(timeout or 0))
        return self._watch_loop(it, deadline, timeout is not None)

    def _watch_loop(self, it: Any, deadline: Instant, wait: bool) -> Iterator[WatchEvent]:
        while True:
            yield from it
            if not wait or self.clock.now() >= deadline:
                return
            self.clock.run_until(deadline, stop=it.has_pending)

    def advance(self, seconds_: float) -> None:
        """Run simulated time forward by ``seconds_``, firing every event on the way."""
        self.clock.run_until(Instant(self.clock.now() + seconds(seconds_)))
        self.settle()

    def settle(self) -> None:
        """Run every reaction due now, until the control plane is quiet at this instant."""
        self.clock.settle()

    def run_until(self, condition: Callable[[], bool], timeout: float) -> bool:
        """Run simulated time until ``condition()`` holds or ``timeout`` seconds pass."""
        self.settle()
        deadline = Instant(self.clock.now() + seconds(timeout))
        ok = self.clock.run_until(deadline, stop=condition)
        self.settle()
        return ok or condition()

    def metrics_text(self) -> str:
        """What the apiserver's ``GET /metrics`` would show of the modelled series."""
        return self.watch_caches.metrics.expose()

    def set_external_metric(
        self, name: str, value: float, labels: Mapping[str, str] | None = None
    ) -> None:
        """Set an external metric as an external-metrics adapter would serve it."""
        self.external_metrics[(name, tuple(sorted((labels or {}).items())))] = float(value)

    def set_pod_metric(self, namespace: str, pod: str, name: str, value: float) -> None:
        """Set a pod's custom metric as a custom-metrics adapter would serve it."""
        self.pod_metrics[(namespace, pod, name)] = float(value)

    # -- internals ----------------------------------------------------------------------

    def _served(self, manifest: Obj) -> None:
        # Clients meet --runtime-config; the in-process components reach every version.
        info = lookup(str(manifest.get("apiVersion")), str(manifest.get("kind")))
        if info is not None:
            check_served(info, self.api_resources)

    def _settled(self, obj: _Answer) -> _Answer:
        self.write_warnings = tuple(self.api.warnings)
        self.settle()
        return obj

    def _schedule_compaction(self) -> None:
        interval = Duration(seconds(self.config.compaction_interval_seconds))

        def compact() -> None:
            # Keep the last interval's history, as the apiserver compacts every 5 minutes.
            self.store.compact(self._last_rev)
            self._last_rev = self.store.revision
            self.clock.call_later(interval, compact, priority=Priority.LATE)

        self.clock.call_later(interval, compact, priority=Priority.LATE)
