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

import base64
from typing import Any, Final

from cryptography import x509

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import WorkQueue, object_key
from reference_impl.certificates import TEST_SIGNER, PodIdentity, Signer
from reference_impl.clock import rfc3339
from reference_impl.errors import AlreadyExists, Invalid, NotFound

__all__ = ["ROOT_BUNDLE", "PodCertificateSignerController"]

Obj = dict[str, Any]
API: Final = "certificates.k8s.io/v1"
ROOT_BUNDLE: Final = TEST_SIGNER.replace("/", ":") + ":root"
_TERMINAL: Final = ("Issued", "Denied", "Failed")


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
        conds = (pcr.get("status") or {}).get("conditions") or []
        if any(c.get("type") in _TERMINAL and c.get("status") == "True" for c in conds):
            return
        status = self._decide(pcr)
        try:
            self._ctx.server.update_status({**pcr, "status": status})
        except (NotFound, Invalid):
            return  # deleted meanwhile, or a newer write won: the next event retries
        self._ctx.trace.record(self.name, status["conditions"][0]["type"], key)

    def _decide(self, pcr: Obj) -> Obj:
        spec = pcr["spec"]
        now = self._ctx.clock.now()
        stamp = rfc3339(now)
        denial = self.signer.denial(spec)
        if denial is not None:
            return {"conditions": [_condition("Denied", *denial, stamp, pcr)]}
        csr = x509.load_der_x509_csr(base64.b64decode(spec["stubPKCS10Request"]))
        who = PodIdentity.from_spec(pcr["metadata"]["namespace"], spec)
        issued = self.signer.issue(
            csr.public_key(), who, now, int(spec.get("maxExpirationSeconds", 86400))
        )
        return {
            "certificateChain": issued.chain_pem,
            "notBefore": rfc3339(issued.not_before),
            "notAfter": rfc3339(issued.not_after),
            "beginRefreshAt": rfc3339(issued.begin_refresh_at),
            "conditions": [_condition("Issued", "Issued", f"issued by {TEST_SIGNER}", stamp, pcr)],
        }


def _condition(ctype: str, reason: str, message: str, now: str, pcr: Obj) -> Obj:
    return {
        "type": ctype,
        "status": "True",
        "reason": reason,
        "message": message,
        "lastTransitionTime": now,
        "observedGeneration": pcr["metadata"].get("generation", 1),
    }
