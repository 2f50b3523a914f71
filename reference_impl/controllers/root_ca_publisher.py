"""Models pkg/controller/certificates/rootcacertpublisher/publisher.go: the
``root-ca-certificate-publisher-controller`` of kube-controller-manager.

Every namespace gets the ConfigMap ``kube-root-ca.crt`` holding the cluster's CA under
``ca.crt``, annotated ``kubernetes.io/description``. A namespace is synced when it is added,
when it is updated while Active, and when its ``kube-root-ca.crt`` is updated or deleted: a
missing ConfigMap is created (a refusal because the namespace is gone or terminating is
not an error), and one whose data is not exactly ``{"ca.crt": <CA>}`` or that lacks the
description is written back. The CA is the reference's cluster CA
(``reference_impl.certificates.cluster_ca``), made from the seed at cluster start.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.certificates.cluster_ca import cluster_ca_pem
from reference_impl.controllers.serviceaccounts import terminating
from reference_impl.errors import Forbidden, NotFound

__all__ = [
    "DESCRIPTION",
    "DESCRIPTION_ANNOTATION",
    "ROOT_CA_CONFIG_MAP",
    "RootCACertPublisher",
]

Obj = dict[str, Any]
ROOT_CA_CONFIG_MAP: Final = "kube-root-ca.crt"
DESCRIPTION_ANNOTATION: Final = "kubernetes.io/description"
DESCRIPTION: Final = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal "
    "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is "
    "guaranteed across distributions of Kubernetes clusters."
)


class RootCACertPublisher:
    """Keeps ``kube-root-ca.crt`` in every namespace."""

    name: Final = "root-ca-certificate-publisher-controller"

    def __init__(self, ctx: ComponentContext, root_ca: str | None = None) -> None:
        self._ctx = ctx
        self.root_ca = (
            root_ca
            if root_ca is not None
            else cluster_ca_pem(ctx.rng.child("cluster-ca"), ctx.clock.now())
        )
        self._queue = WorkQueue(ctx.clock, self._sync, name="root_ca_cert_publisher",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._config_maps: SharedInformer | None = None
        self._namespaces: SharedInformer | None = None

    def start(self) -> None:
        """Watch ConfigMaps (update, delete) and namespaces (add, update); queue every
        namespace there is."""
        self._config_maps = self._ctx.informers.informer("v1", "ConfigMap")
        self._namespaces = self._ctx.informers.informer("v1", "Namespace")
        self._config_maps.add_handler(self._on_config_map)
        self._namespaces.add_handler(self._on_namespace)
        for ns in self._namespaces.items():
            self._queue.add(object_key(ns))

    def _on_config_map(self, ev: ObjectEvent) -> None:
        if (
            ev.type in ("MODIFIED", "DELETED")
            and ev.obj["metadata"].get("name") == ROOT_CA_CONFIG_MAP
        ):
            self._queue.add(str(ev.obj["metadata"].get("namespace") or ""))

    def _on_namespace(self, ev: ObjectEvent) -> None:
        if ev.type == "ADDED" or (
            ev.type == "MODIFIED" and (ev.obj.get("status") or {}).get("phase") == "Active"
        ):
            self._queue.add(object_key(ev.obj))

    def _sync(self, ns: str) -> None:
        """``syncNamespace``."""
        assert self._config_maps is not None
        cm = self._config_maps.get(f"{ns}/{ROOT_CA_CONFIG_MAP}")
        data = {"ca.crt": self.root_ca}
        if cm is None:
            body = {"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": ROOT_CA_CONFIG_MAP, "namespace": ns,
                                 "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION}},
                    "data": data}  # fmt: skip
            try:
                self._ctx.server.create(body)
            except NotFound:
                return  # the namespace is gone
            except Forbidden as exc:
                if terminating(exc):
                    return
                raise  # e.g. a ResourceQuota on configmaps: the queue retries
            self._ctx.trace.record(self.name, "create", f"ConfigMap/{ns}/{ROOT_CA_CONFIG_MAP}")
            return
        annotations = cm["metadata"].get("annotations") or {}
        if cm.get("data") == data and annotations.get(DESCRIPTION_ANNOTATION):
            return
        out = copy.deepcopy(cm)
        out["data"] = data
        out["metadata"]["annotations"] = {**annotations, DESCRIPTION_ANNOTATION: DESCRIPTION}
        self._ctx.server.update(out)  # a Conflict or NotFound is retried by the queue
        self._ctx.trace.record(self.name, "update", f"ConfigMap/{ns}/{ROOT_CA_CONFIG_MAP}")
