"""The PodCertificateRequest cleaner, after ``pkg/controller/certificates/cleaner/pcrcleaner.go``.

kube-controller-manager runs it as ``podcertificaterequest-cleaner-controller`` when the
PodCertificateRequest gate is on. Every ``pollingInterval`` (5 minutes; the first pass
runs at start) it lists every PodCertificateRequest and deletes each one whose
``creationTimestamp`` plus the threshold (15 minutes: "we expect all
PodCertificateRequest flows to complete faster than this") is not in the future,
whatever its state: pending, Issued, Denied or Failed. The kubelet keeps the issued
chain in the pod's projected volume, so the request object is not needed afterwards.
Each delete carries a UID precondition, so a request recreated under the same name is
not deleted by a stale listing; NotFound is not an error.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.clock import Duration, Instant, parse_rfc3339, seconds
from reference_impl.errors import Conflict, NotFound

__all__ = ["PCR_POLLING_INTERVAL_S", "PCR_THRESHOLD_S", "PodCertificateRequestCleaner"]

Obj = dict[str, Any]
API: Final = "certificates.k8s.io/v1"
PCR_THRESHOLD_S: Final = 15 * 60  # cmd/kube-controller-manager/app/certificates.go
PCR_POLLING_INTERVAL_S: Final = 5 * 60


class PodCertificateRequestCleaner:
    """Deletes PodCertificateRequests older than the threshold, polling on a period."""

    name: Final = "podcertificaterequest-cleaner-controller"

    def __init__(
        self,
        ctx: ComponentContext,
        *,
        threshold_s: float = PCR_THRESHOLD_S,
        polling_interval_s: float = PCR_POLLING_INTERVAL_S,
    ) -> None:
        self._ctx = ctx
        self.threshold = Duration(seconds(threshold_s))
        self.interval = Duration(seconds(polling_interval_s))
        self.deleted = 0

    def start(self) -> None:
        """Start polling (only when the PodCertificateRequest gate is on, as upstream)."""
        if not self._ctx.gates.enabled("PodCertificateRequest"):
            return
        # wait.UntilWithContext: the first pass runs immediately.
        self._ctx.clock.call_later(Duration(0), self._poll)

    def _poll(self) -> None:
        self.clean(self._ctx.clock.now())
        self._ctx.clock.call_later(self.interval, self._poll)

    def clean(self, now: Instant) -> list[str]:
        """One pass of the worker: the keys of the requests it deleted."""
        pcrs = self._ctx.informers.informer(API, "PodCertificateRequest").items()
        out = []
        for pcr in sorted(pcrs, key=_key):
            if self._handle(pcr, now):
                out.append(_key(pcr))
        return out

    def _handle(self, pcr: Obj, now: Instant) -> bool:
        meta = pcr["metadata"]
        created = parse_rfc3339(str(meta.get("creationTimestamp", "")))
        if now < created + self.threshold:
            return False
        try:
            self._ctx.server.delete(
                API,
                "PodCertificateRequest",
                meta["name"],
                meta.get("namespace"),
                uid=meta.get("uid"),
            )
        except (NotFound, Conflict):
            return False  # already gone, or replaced by a newer request of that name
        self.deleted += 1
        self._ctx.trace.record(self.name, "Deleted", _key(pcr))
        return True


def _key(pcr: Obj) -> str:
    return f"{pcr['metadata'].get('namespace', '')}/{pcr['metadata']['name']}"
