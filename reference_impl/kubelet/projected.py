"""Projected volumes the fake kubelet "mounts": podCertificate and clusterTrustBundle sources
(``pkg/volume/projected/projected.go``).

Nothing is written to disk. ``files`` gives, per volume, the paths and contents a container
would see, and ``ready`` says whether every source could be mounted, which the kubelet
checks before it starts a pod's containers.
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

    def start(self) -> None:
        """Watch PodCertificateRequests and ClusterTrustBundles."""
        self.certificates.start()
        if self._ctx.gates.enabled("ClusterTrustBundle"):
            self._bundles = self._ctx.informers.informer(CTB_API, "ClusterTrustBundle")
            self._bundles.add_handler(self._on_bundle)

    def _on_bundle(self, ev: Any) -> None:
        for key in sorted(self._ctb_pods):
            self._requeue(key)

    def forget(self, key: str) -> None:
        """Drop a removed pod's state."""
        self.certificates.forget(key)
        self._ctb_pods.discard(key)

    def ready(self, key: str, pod: Obj, node: Obj | None) -> tuple[bool, Instant | None]:
        """Whether every projected source can be mounted, and when to look again."""
        ok, wake = self.certificates.sync(key, pod, node)
        ctb = _sources(pod, "clusterTrustBundle")
        if ctb:
            self._ctb_pods.add(key)
        for _, _, src in ctb:
            if not src.get("optional") and self._anchors(src) is None:
                ok = False
        return ok, wake

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
        return out
