"""A pod certificate signer controller, after ``test/utils/hermeticpodcertificatesigner``.

Upstream ships no in-tree signer for PodCertificateRequests (``kubernetes.io/*`` names are
reserved); clusters run signer controllers next to kube-controller-manager. This one signs
requests addressed to ``garhwal.dev/test-signer``: at start it publishes its root CA as the
ClusterTrustBundle ``garhwal.dev:test-signer:root``; for each pending request it either
denies it (unknown user annotations) or writes ``status.certificateChain``, ``notBefore``,
``notAfter``, ``beginRefreshAt`` and an ``Issued`` condition through ``/status``, with a
lifetime of ``spec.maxExpirationSeconds``. Requests to other signers are left alone.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import WorkQueue, object_key
from reference_impl.certificates import TEST_SIGNER, Signer
from reference_impl.certificates.decision import is_terminal, signer_status
from reference_impl.errors import AlreadyExists, Invalid, NotFound

__all__ = ["ROOT_BUNDLE", "PodCertificateSignerController"]

Obj = dict[str, Any]
API: Final = "certificates.k8s.io/v1"
ROOT_BUNDLE: Final = TEST_SIGNER.replace("/", ":") + ":root"


class PodCertificateSignerController:
    """Signs or denies PodCertificateRequests addressed to the built-in test signer."""

    name: Final = "pod-certificate-signer"

    def __init__(self, ctx: ComponentContext) -> None:
        self._ctx = ctx
        self.signer = Signer(TEST_SIGNER, ctx.rng.child(self.name), ctx.clock.now())
        self._queue = WorkQueue(ctx.clock, self._sync, name=self.name)

    def start(self) -> None:
        """Publish the root CA and watch PodCertificateRequests."""
        if self._ctx.gates.enabled("ClusterTrustBundle"):
            self._publish_root()
        if not self._ctx.gates.enabled("PodCertificateRequest"):
            return
        pcrs = self._ctx.informers.informer(API, "PodCertificateRequest")
        pcrs.add_handler(
            lambda ev: None if ev.type == "DELETED" else self._queue.add(object_key(ev.obj))
        )
        for pcr in pcrs.items():
            self._queue.add(object_key(pcr))

    def _publish_root(self) -> None:
        bundle = {
            "apiVersion": API,
            "kind": "ClusterTrustBundle",
            "metadata": {"name": ROOT_BUNDLE, "labels": {"garhwal.dev/signer": "test-signer"}},
            "spec": {"signerName": TEST_SIGNER, "trustBundle": self.signer.root_pem},
        }
        try:
            self._ctx.server.create(bundle)
        except AlreadyExists:
            pass

    def _sync(self, key: str) -> None:
        pcr = self._ctx.informers.informer(API, "PodCertificateRequest").get(key)
        if pcr is None or pcr["spec"].get("signerName") != TEST_SIGNER:
            return
        if is_terminal(pcr):
            return
        status = signer_status(self.signer, pcr, self._ctx.clock.now())
        try:
            self._ctx.server.update_status({**pcr, "status": status})
        except (NotFound, Invalid):
            return  # deleted meanwhile, or a newer write won: the next event retries
        self._ctx.trace.record(self.name, status["conditions"][0]["type"], key)
