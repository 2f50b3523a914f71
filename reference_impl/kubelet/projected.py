"""Projected volumes the fake kubelet "mounts": podCertificate, clusterTrustBundle,
serviceAccountToken, configMap and downwardAPI sources (``pkg/volume/projected/projected.go``).

Nothing is written to disk. ``files`` gives, per volume, the paths and contents a container
would see, and ``ready`` says whether every source could be mounted, which the kubelet
checks before it starts a pod's containers.

The ServiceAccount admission plugin gives nearly every pod a ``kube-api-access-*`` volume of
a serviceAccountToken, a configMap (``kube-root-ca.crt``) and a downwardAPI source:

* serviceAccountToken: upstream's kubelet asks the TokenRequest API
  (``serviceaccounts/token``) for a token of the pod's service account, which fails while
  that account does not exist. The reference serves no TokenRequest, so the source counts
  as mountable once the pod's ServiceAccount exists, and no token file is produced.
* configMap: the ConfigMap must exist and hold every item's key, unless ``optional``.
* downwardAPI: always resolves; ``metadata.*`` field paths give their values.

These three are checked until a pod's volumes have been set up once (the kubelet's
WaitForAttachAndMount before the sandbox starts); a ConfigMap or account deleted later
does not stop running containers. A pod waiting on a missing one is synced again when a
ServiceAccount or ConfigMap of its namespace changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, object_key
from reference_impl.clock import Instant
from reference_impl.kubelet.cluster_trust_bundles import trust_anchors
from reference_impl.kubelet.pod_certificates import PodCertificateManager

__all__ = ["ProjectedVolumes"]

Obj = dict[str, Any]
CTB_API: Final = "certificates.k8s.io/v1"


def _sources(pod: Obj, kind: str) -> list[tuple[str, int, Obj]]:
    out: list[tuple[str, int, Obj]] = []
    for vol in pod["spec"].get("volumes") or []:
        for i, src in enumerate((vol.get("projected") or {}).get("sources") or []):
            if kind in src:
                out.append((str(vol["name"]), i, src[kind]))
    return out


class ProjectedVolumes:
    """podCertificate and clusterTrustBundle projection for the pods of managed nodes."""

    def __init__(self, ctx: ComponentContext, requeue: Callable[[str], None]) -> None:
        self._ctx = ctx
        self._requeue = requeue
        self.certificates = PodCertificateManager(ctx, requeue)
        self._bundles: SharedInformer | None = None
        self._ctb_pods: set[str] = set()  # pods with clusterTrustBundle sources
        self._accounts: SharedInformer | None = None
        self._config_maps: SharedInformer | None = None
        self._set_up: set[str] = set()  # pods whose namespaced sources were mounted once
        self._waiting: dict[str, set[str]] = {}  # namespace -> pods waiting on a source

    def start(self) -> None:
        """Watch PodCertificateRequests, ClusterTrustBundles, ServiceAccounts and ConfigMaps."""
        self.certificates.start()
        if self._ctx.gates.enabled("ClusterTrustBundle"):
            self._bundles = self._ctx.informers.informer(CTB_API, "ClusterTrustBundle")
            self._bundles.add_handler(self._on_bundle)
        self._accounts = self._ctx.informers.informer("v1", "ServiceAccount")
        self._config_maps = self._ctx.informers.informer("v1", "ConfigMap")
        self._accounts.add_handler(self._on_namespaced)
        self._config_maps.add_handler(self._on_namespaced)

    def _on_bundle(self, ev: Any) -> None:
        for key in sorted(self._ctb_pods):
            self._requeue(key)

    def _on_namespaced(self, ev: Any) -> None:
        for key in sorted(self._waiting.pop(str(ev.obj["metadata"].get("namespace") or ""), ())):
            self._requeue(key)

    def forget(self, key: str) -> None:
        """Drop a removed pod's state."""
        self.certificates.forget(key)
        self._ctb_pods.discard(key)
        self._set_up.discard(key)
        for waiting in self._waiting.values():
            waiting.discard(key)

    def ready(self, key: str, pod: Obj, node: Obj | None) -> tuple[bool, Instant | None]:
        """Whether every projected source can be mounted, and when to look again."""
        ok, wake = self.certificates.sync(key, pod, node)
        ctb = _sources(pod, "clusterTrustBundle")
        if ctb:
            self._ctb_pods.add(key)
        for _, _, src in ctb:
            if not src.get("optional") and self._anchors(src) is None:
                ok = False
        if key not in self._set_up:
            if self._namespaced_sources_ready(pod):
                self._set_up.add(key)
            else:
                ns = str(pod["metadata"].get("namespace") or "default")
                self._waiting.setdefault(ns, set()).add(key)
                ok = False
        return ok, wake

    def _namespaced_sources_ready(self, pod: Obj) -> bool:
        """serviceAccountToken and configMap sources (downwardAPI always resolves)."""
        ns = str(pod["metadata"].get("namespace") or "default")
        if _sources(pod, "serviceAccountToken"):
            sa = str(pod["spec"].get("serviceAccountName") or "default")
            if self._accounts is None or self._accounts.get(f"{ns}/{sa}") is None:
                return False
        for _, _, src in _sources(pod, "configMap"):
            if self._config_map_data(ns, src) is None and not src.get("optional"):
                return False
        return True

    def _config_map_data(self, ns: str, src: Obj) -> dict[str, str] | None:
        """The files a configMap source gives (path -> content), or None when it cannot
        be mounted (the ConfigMap is missing, or lacks an item's key)."""
        cm = None if self._config_maps is None else self._config_maps.get(f"{ns}/{src.get('name')}")
        if cm is None:
            return None
        data = {str(k): str(v) for k, v in (cm.get("data") or {}).items()}
        items = src.get("items")
        if not items:
            return data
        out: dict[str, str] = {}
        for item in items:
            key = str(item.get("key"))
            if key not in data:
                return None  # "configmap references non-existent config key"
            out[str(item.get("path") or key)] = data[key]
        return out

    def _anchors(self, src: Obj) -> str | None:
        return None if self._bundles is None else trust_anchors(src, self._bundles)

    def files(self, pod: Obj) -> dict[str, dict[str, str]]:
        """Volume name -> relative path -> content, as the containers of ``pod`` see them."""
        key = object_key(pod)
        out: dict[str, dict[str, str]] = {}
        for vol, i, src in _sources(pod, "podCertificate"):
            cred = self.certificates.credential(key, vol, i)
            if cred is None:
                continue
            files = out.setdefault(vol, {})
            for field, content in (
                ("credentialBundlePath", cred.key_pem + cred.chain_pem),
                ("keyPath", cred.key_pem),
                ("certificateChainPath", cred.chain_pem),
            ):
                if src.get(field):
                    files[str(src[field])] = content
        for vol, _, src in _sources(pod, "clusterTrustBundle"):
            anchors = self._anchors(src)
            if anchors is not None:
                out.setdefault(vol, {})[str(src["path"])] = anchors
        ns = str(pod["metadata"].get("namespace") or "default")
        for vol, _, src in _sources(pod, "configMap"):
            out.setdefault(vol, {}).update(self._config_map_data(ns, src) or {})
        for vol, _, src in _sources(pod, "downwardAPI"):
            for item in src.get("items") or []:
                value = _field(pod, str((item.get("fieldRef") or {}).get("fieldPath") or ""))
                if value is not None:
                    out.setdefault(vol, {})[str(item.get("path"))] = value
        return out


def _field(pod: Obj, path: str) -> str | None:
    """A downwardAPI ``fieldRef`` value of the pod's metadata (resourceFieldRefs and
    other fields are not modelled)."""
    meta = pod["metadata"]
    simple = {"metadata.name": meta.get("name"), "metadata.namespace": meta.get("namespace"),
              "metadata.uid": meta.get("uid")}  # fmt: skip
    if path in simple:
        return None if simple[path] is None else str(simple[path])
    for field in ("labels", "annotations"):
        if path == f"metadata.{field}":
            return "\n".join(f'{k}="{v}"' for k, v in sorted((meta.get(field) or {}).items()))
    return None
