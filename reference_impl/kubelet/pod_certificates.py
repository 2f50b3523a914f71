"""The kubelet's pod certificate manager (``pkg/kubelet/podcertificate/podcertificatemanager.go``).

Each ``podCertificate`` source of a pod's projected volumes is one projection with a state
(``IssuingManager.handleProjection``)::

    initial -> wait -> fresh -> waitrefresh -> fresh ...
                 |                   |
                 +--> denied/failed <+

``initial`` makes a key of the source's type and creates a PodCertificateRequest
(``generateName: req-``, owned by the pod, the ServiceAccount's UID read from the API);
``wait`` follows it until its first Denied, Failed or Issued condition. A fresh credential
is served until ``beginRefreshAt`` (plus up to 5 minutes of jitter), when a new key and
request are made while the old credential stays served; a refresh that is denied or fails
ends serving. A request missing from the cache 10 minutes (plus jitter) after its creation
is taken as deleted and made again. Errors are retried with the work queue's per-item
exponential backoff (5 ms doubling, at most 1000 s). Upstream's periodic refresh pass
(every 1-2 minutes) is modelled as a wake-up exactly at the refresh instant.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

from cryptography.hazmat.primitives import serialization

from reference_impl.apiserver.component import ComponentContext
from reference_impl.certificates import generate_key, stub_pkcs10_der
from reference_impl.certificates.keys import PrivateKey
from reference_impl.clock import Instant, parse_rfc3339, seconds
from reference_impl.errors import ApiError

__all__ = [
    "Credential",
    "CredentialError",
    "PodCertificateManager",
    "ProjectionError",
    "ProjectionKey",
    "clean_certificate_chain",
    "pod_certificate_sources",
]

Obj = dict[str, Any]
API: Final = "certificates.k8s.io/v1"
ASSUME_DELETED: Final = seconds(600)  # assumeDeletedThreshold
REFRESH_OVERDUE: Final = seconds(600)  # refreshOverdueDuration
JITTER_NS: Final = 5 * 60 * 1_000_000_000  # jitterDuration: [0, 5m)
_BACKOFF_BASE_NS: Final = 5_000_000  # DefaultTypedControllerRateLimiter: 5 ms ...
_BACKOFF_MAX_NS: Final = 1000 * 1_000_000_000  # ... doubling up to 1000 s
_PEM: Final = re.compile(r"-----BEGIN ([^-]*)-----\r?\n(.*?)-----END \1-----", re.S)
_TERMINAL: Final = ("Denied", "Failed", "Issued")


class ProjectionError(Exception):
    """``handleProjection`` returned an error: the projection is retried with backoff."""


class CredentialError(Exception):
    """``GetPodCertificateCredentialBundle`` failed: the volume cannot be set up."""


def pod_certificate_sources(pod: Obj) -> list[tuple[str, int, Obj]]:
    """``(volume, source index, podCertificate)`` for every podCertificate source of ``pod``."""
    out: list[tuple[str, int, Obj]] = []
    for vol in pod["spec"].get("volumes") or []:
        for i, src in enumerate((vol.get("projected") or {}).get("sources") or []):
            if "podCertificate" in src:
                out.append((str(vol["name"]), i, src["podCertificate"]))
    return out


@dataclass(frozen=True, slots=True, order=True)
class ProjectionKey:
    """``projectionKey``."""

    namespace: str
    pod_name: str
    pod_uid: str
    volume: str
    index: int

    def __str__(self) -> str:  # Go's %v of the struct
        return (
            f"{{{self.namespace} {self.pod_name} {self.pod_uid} {self.volume} {self.index}}}"
        )


@dataclass(slots=True)
class Credential:
    """A served key and chain (``credStateFresh``/``credStateWaitRefresh``)."""

    key_pem: str
    chain_pem: str
    begin_refresh_at: Instant
    not_after: Instant
    request: str
    overdue_event: bool = False
    expired_event: bool = False


@dataclass(slots=True)
class _Pending:
    """A request in flight: its key, name and when to assume it deleted."""

    key: PrivateKey
    name: str
    abandon_at: Instant


@dataclass(slots=True)
class _Record:
    """``projectionRecord``: state is initial, wait, fresh, waitrefresh, denied or failed."""

    state: str = "initial"
    current: Credential | None = None  # fresh and waitrefresh
    pending: _Pending | None = None  # wait and waitrefresh
    reason: str = ""  # denied and failed
    message: str = ""
    generation: int = 0  # keys made so far (names the rng child)
    failures: int = 0  # consecutive errors (the rate limiter's per-item count)
    retry_at: Instant | None = None

    def bundle(self) -> tuple[str, str]:
        """``credState.getCredBundle``."""
        if self.state in ("fresh", "waitrefresh"):
            assert self.current is not None
            return self.current.key_pem, self.current.chain_pem
        if self.state in ("denied", "failed"):
            word = "denied" if self.state == "denied" else "failed"
            raise CredentialError(
                f"PodCertificateRequest was permanently {word}: reason={_q(self.reason)} "
                f"message={_q(self.message)}"
            )
        raise CredentialError("credential bundle is not issued yet")

    def metrics_state(self, now: Instant) -> str:
        """``credState.metricsState``."""
        if self.state in ("fresh", "waitrefresh"):
            assert self.current is not None
            if now > self.current.not_after:
                return "expired"
            if now > self.current.begin_refresh_at + REFRESH_OVERDUE:
                return "overdue_for_refresh"
            return "fresh"
        return self.state if self.state in ("denied", "failed") else "not_yet_issued"


def _q(s: str) -> str:
    """Go's %q for printable text."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def clean_certificate_chain(chain: str) -> str:
    """``cleanCertificateChain``: every PEM block re-encoded as CERTIFICATE, without
    headers or the text between blocks."""
    out = []
    for m in _PEM.finditer(chain):
        lines = m.group(2).splitlines()
        if any(":" in ln for ln in lines):  # RFC 1421 headers end at the first blank line
            lines = lines[lines.index("") + 1 :] if "" in lines else []
        der = base64.b64decode("".join(ln.strip() for ln in lines))
        body = base64.b64encode(der).decode()
        wrapped = "".join(body[i : i + 64] + "\n" for i in range(0, len(body), 64))
        out.append(f"-----BEGIN CERTIFICATE-----\n{wrapped}-----END CERTIFICATE-----\n")
    return "".join(out)


def _key_pem(priv: PrivateKey) -> str:
    return priv.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


class PodCertificateManager:
    """``IssuingManager``: creates, tracks and refreshes the PodCertificateRequests of the
    pods' podCertificate projected volume sources."""

    def __init__(self, ctx: ComponentContext, requeue: Callable[[str], None]) -> None:
        self._ctx = ctx
        self._requeue = requeue
        self._records: dict[ProjectionKey, _Record] = {}

    def start(self) -> None:
        """Requeue a pod whenever one of its requests changes."""
        if not self._ctx.gates.enabled("PodCertificateRequest"):
            return
        pcrs = self._ctx.informers.informer(API, "PodCertificateRequest")
        pcrs.add_handler(self._on_request)

    def _on_request(self, ev: Any) -> None:
        meta = ev.obj["metadata"]
        for ref in meta.get("ownerReferences") or []:
            if ref.get("kind") == "Pod":
                self._requeue(f"{meta['namespace']}/{ref['name']}")

    def forget(self, key: str) -> None:
        """``cleanupCredStoreForPod``: drop the state of a pod that is gone."""
        ns, _, name = key.partition("/")
        for k in [k for k in self._records if (k.namespace, k.pod_name) == (ns, name)]:
            del self._records[k]

    def sync(self, key: str, pod: Obj, node: Obj | None) -> tuple[bool, Instant | None]:
        """Handle every podCertificate source of ``pod`` once; returns whether all can be
        mounted (a bundle is served) and when to look again."""
        ready, wake = True, None
        meta = pod["metadata"]
        for vol, i, _ in pod_certificate_sources(pod):
            pk = ProjectionKey(meta["namespace"], meta["name"], meta["uid"], vol, i)
            rec = self._records.setdefault(pk, _Record())
            now = self._ctx.clock.now()
            if rec.retry_at is None or now >= rec.retry_at:
                try:
                    self.handle_projection(pk, pod, node)
                    rec.failures, rec.retry_at = 0, None
                except ProjectionError as exc:
                    delay = min(_BACKOFF_BASE_NS << rec.failures, _BACKOFF_MAX_NS)
                    rec.failures += 1
                    rec.retry_at = Instant(now + delay)
                    self._ctx.trace.record("kubelet", "pod-certificate-error", key, str(exc))
            try:
                rec.bundle()
            except CredentialError:
                ready = False
            for at in (rec.retry_at, self._next_look(rec)):
                if at is not None and at > now:
                    wake = at if wake is None else min(wake, at)
        return ready, wake

    def _next_look(self, rec: _Record) -> Instant | None:
        if rec.state == "fresh" and rec.current is not None:
            return rec.current.begin_refresh_at
        if rec.state in ("wait", "waitrefresh") and rec.pending is not None:
            return Instant(rec.pending.abandon_at + 1)
        return None

    def credential(self, key: str, volume: str, index: int) -> Credential | None:
        """The credential served for one source of the pod ``key``, or None."""
        ns, _, name = key.partition("/")
        for pk, rec in sorted(self._records.items()):
            if (pk.namespace, pk.pod_name, pk.volume, pk.index) == (ns, name, volume, index):
                return rec.current if rec.state in ("fresh", "waitrefresh") else None
        return None

    def credential_bundle(self, pk: ProjectionKey) -> tuple[str, str]:
        """``GetPodCertificateCredentialBundle``: (key PEM, chain PEM) or CredentialError."""
        rec = self._records.get(pk)
        if rec is None:
            raise CredentialError(f"no credentials yet for key={pk}")
        return rec.bundle()

    def metric_report(self, pods: Iterable[Obj]) -> dict[tuple[str, str], int]:
        """``MetricReport``: projections per (signer, state) over ``pods``."""
        out: dict[tuple[str, str], int] = {}
        now = self._ctx.clock.now()
        for pod in pods:
            meta = pod["metadata"]
            for vol, i, src in pod_certificate_sources(pod):
                rec = self._records.get(ProjectionKey(meta["namespace"], meta["name"], meta["uid"], vol, i))
                if rec is not None:
                    k = (str(src.get("signerName")), rec.metrics_state(now))
                    out[k] = out.get(k, 0) + 1
        return out

    # -- the state machine ------------------------------------------------------------

    def handle_projection(self, pk: ProjectionKey, pod: Obj | None, node: Obj | None) -> None:
        """``handleProjection``: one step for one source; raises ProjectionError."""
        if pod is None:
            self.forget(f"{pk.namespace}/{pk.pod_name}")
            return
        src = next(
            (s for v, i, s in pod_certificate_sources(pod) if (v, i) == (pk.volume, pk.index)),
            None,
        )
        if src is None:
            return  # nothing retrying could fix
        rec = self._records.setdefault(pk, _Record())
        now = self._ctx.clock.now()
        if rec.state == "initial":
            rec.pending = self._create(pk, rec, pod, node, src, "initial")
            rec.state = "wait"
        elif rec.state in ("wait", "waitrefresh"):
            self._follow(pk, rec, pod, now)
        elif rec.state == "fresh":
            assert rec.current is not None
            if now < rec.current.begin_refresh_at:
                return
            self._late_events(pk, rec.current, now)
            rec.pending = self._create(pk, rec, pod, node, src, "refresh")
            rec.state = "waitrefresh"

    def _follow(self, pk: ProjectionKey, rec: _Record, pod: Obj, now: Instant) -> None:
        """credStateWait / credStateWaitRefresh: look for the request's terminal condition."""
        assert rec.pending is not None
        name = f"{pk.namespace}/{rec.pending.name}"
        pcr = self._ctx.informers.informer(API, "PodCertificateRequest").get(name)
        if pcr is None:
            if now > rec.pending.abandon_at:
                refresh = rec.state == "waitrefresh"
                rec.state, rec.pending = ("fresh" if refresh else "initial"), None
                if refresh:
                    raise ProjectionError("PodCertificateRequest appears to have been deleted")
                raise ProjectionError(f'PodCertificateRequest "{name}" appears to have been deleted')
            raise ProjectionError(
                f'while getting PodCertificateRequest "{name}": '
                f'podcertificaterequest.certificates.k8s.io "{rec.pending.name}" not found'
            )
        status = pcr.get("status") or {}
        for cond in status.get("conditions") or ():
            ctype = cond.get("type")
            if ctype not in _TERMINAL:
                continue
            if ctype == "Issued":
                refresh_at = parse_rfc3339(str(status["beginRefreshAt"]))
                jitter = self._jitter(pk, rec, "refresh")
                rec.current = Credential(
                    _key_pem(rec.pending.key),
                    clean_certificate_chain(str(status.get("certificateChain") or "")),
                    Instant(refresh_at + jitter),
                    parse_rfc3339(str(status["notAfter"])),
                    name,
                )
                rec.state, rec.pending = "fresh", None
                return
            rec.state, rec.pending, rec.current = ctype.lower(), None, None
            rec.reason, rec.message = str(cond.get("reason") or ""), str(cond.get("message") or "")
            word = "was denied" if ctype == "Denied" else "failed"
            self._event(
                pk, ctype, f"PodCertificateRequest {name} {word}, reason={_q(rec.reason)}, "
                f"message={_q(rec.message)}",
            )
            return
        if rec.state == "waitrefresh" and rec.current is not None:
            self._late_events(pk, rec.current, now)

    def _late_events(self, pk: ProjectionKey, cred: Credential, now: Instant) -> None:
        """The one-time overdue and expired Warning events."""
        if now > cred.begin_refresh_at + REFRESH_OVERDUE and not cred.overdue_event:
            self._event(pk, "CertificateOverdueForRefresh", "PodCertificate refresh overdue")
            cred.overdue_event = True
        if now > cred.not_after and not cred.expired_event:
            self._event(pk, "CertificateExpired", "PodCertificate expired")
            cred.expired_event = True

    def _event(self, pk: ProjectionKey, reason: str, message: str) -> None:
        self._ctx.trace.record("kubelet", reason, f"{pk.namespace}/{pk.pod_name}", message)

    def _jitter(self, pk: ProjectionKey, rec: _Record, what: str) -> int:
        rng = self._ctx.rng.child(
            f"kubelet/podcertificate/{pk.pod_uid}/{pk.volume}/{pk.index}/{rec.generation}/{what}"
        )
        return rng.randint(0, JITTER_NS - 1)

    def _create(
        self, pk: ProjectionKey, rec: _Record, pod: Obj, node: Obj | None, src: Obj, what: str
    ) -> _Pending:
        """Read the ServiceAccount and the node, then ``createPodCertificateRequest``."""
        meta, spec = pod["metadata"], pod["spec"]
        sa_name = str(spec.get("serviceAccountName") or "")
        sa = self._ctx.server.try_get("v1", "ServiceAccount", sa_name, pk.namespace) if sa_name else None
        if sa is None:
            raise ProjectionError(
                f'while fetching service account: serviceaccounts "{sa_name}" not found'
            )
        node_name = str(spec.get("nodeName") or "")
        if node is None:
            raise ProjectionError(
                f'while getting node object from local cache: node "{node_name}" not found'
            )
        rec.generation += 1
        rng = self._ctx.rng.child(f"kubelet/podcertificate/{pk.pod_uid}/{pk.volume}/{pk.index}/{rec.generation}")
        key_type = str(src.get("keyType") or "")
        try:
            priv = generate_key(key_type, rng)
        except ValueError:
            raise ProjectionError(
                f"while creating {what} PodCertificateRequest: while generating keypair: "
                f"unknown key type {_q(key_type)}"
            ) from None
        pcr_spec: Obj = {
            "signerName": src["signerName"],
            "podName": meta["name"],
            "podUID": meta["uid"],
            "serviceAccountName": sa_name,
            "serviceAccountUID": sa["metadata"]["uid"],
            "nodeName": node_name,
            "nodeUID": (node.get("metadata") or {}).get("uid", ""),
            "stubPKCS10Request": base64.b64encode(stub_pkcs10_der(priv)).decode(),
        }
        if src.get("maxExpirationSeconds") is not None:
            pcr_spec["maxExpirationSeconds"] = src["maxExpirationSeconds"]
        if src.get("userAnnotations"):
            pcr_spec["unverifiedUserAnnotations"] = dict(src["userAnnotations"])
        owner = {"apiVersion": "v1", "kind": "Pod", "name": meta["name"], "uid": meta["uid"]}
        manifest = {
            "apiVersion": API,
            "kind": "PodCertificateRequest",
            "metadata": {"generateName": "req-", "namespace": pk.namespace, "ownerReferences": [owner]},
            "spec": pcr_spec,
        }
        try:
            created = self._ctx.server.create(manifest)
        except ApiError as exc:
            raise ProjectionError(
                f"while creating {what} PodCertificateRequest: while creating on API: {exc}"
            ) from None
        cmeta = created["metadata"]
        self._ctx.trace.record("kubelet", "pod-certificate-request", cmeta["name"])
        created_at = parse_rfc3339(str(cmeta["creationTimestamp"]))
        abandon = Instant(created_at + ASSUME_DELETED + self._jitter(pk, rec, "abandon"))
        return _Pending(priv, str(cmeta["name"]), abandon)
