"""The kubelet's pod certificate manager (``pkg/kubelet/podcertificate/podcertificatemanager.go``).

For each ``podCertificate`` source of a pod's projected volumes the kubelet makes a key of
the requested type, creates a PodCertificateRequest (``generateName: req-<pod>-``, owned by
the pod) carrying the stub PKCS#10 request, and mounts key plus chain once the signer
issued it. At ``status.beginRefreshAt`` it makes a new key and a new request, and swaps the
credential when that one is issued; the old one stays mounted meanwhile. A pod whose
sources have no credential yet does not start (ContainerCreating).
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from reference_impl.apiserver.component import ComponentContext
from reference_impl.certificates import generate_key, stub_pkcs10_der
from reference_impl.certificates.keys import PrivateKey
from reference_impl.clock import Instant, parse_rfc3339
from reference_impl.errors import Invalid

__all__ = ["Credential", "PodCertificateManager", "pod_certificate_sources"]

Obj = dict[str, Any]
API: Final = "certificates.k8s.io/v1"


def pod_certificate_sources(pod: Obj) -> list[tuple[str, int, Obj]]:
    """``(volume, source index, podCertificate)`` for every podCertificate source of ``pod``."""
    out: list[tuple[str, int, Obj]] = []
    for vol in pod["spec"].get("volumes") or []:
        for i, src in enumerate((vol.get("projected") or {}).get("sources") or []):
            if "podCertificate" in src:
                out.append((str(vol["name"]), i, src["podCertificate"]))
    return out


@dataclass(slots=True)
class Credential:
    """A mounted key and chain, and when to start replacing them."""

    key_pem: str
    chain_pem: str
    begin_refresh_at: Instant
    request: str


@dataclass(slots=True)
class _Source:
    """Per source: the mounted credential and the request in flight, if any."""

    current: Credential | None = None
    pending: tuple[str, PrivateKey] | None = None
    generation: int = 0
    denied: str | None = None


class PodCertificateManager:
    """Creates, tracks and refreshes the PodCertificateRequests of pods' projected volumes."""

    def __init__(self, ctx: ComponentContext, requeue: Callable[[str], None]) -> None:
        self._ctx = ctx
        self._requeue = requeue
        self._sources: dict[tuple[str, str, int], _Source] = {}

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
        """Drop the state of a pod that is gone."""
        for k in [k for k in self._sources if k[0] == key]:
            del self._sources[k]

    def sync(self, key: str, pod: Obj, node: Obj | None) -> tuple[bool, Instant | None]:
        """Advance every podCertificate source of ``pod``; returns whether all have a
        credential, and the next refresh instant to wake at."""
        ready, wake = True, None
        for vol, i, src in pod_certificate_sources(pod):
            st = self._sources.setdefault((key, vol, i), _Source())
            self._collect(st)
            now = self._ctx.clock.now()
            due = st.current is None or now >= st.current.begin_refresh_at
            if due and st.pending is None and st.denied is None:
                self._request(st, pod, node, vol, i, src)
            if st.current is None:
                ready = False
            elif st.current.begin_refresh_at > now:
                at = st.current.begin_refresh_at
                wake = at if wake is None else min(wake, at)
        return ready, wake

    def credential(self, key: str, volume: str, index: int) -> Credential | None:
        """The credential mounted for one source, or None."""
        st = self._sources.get((key, volume, index))
        return st.current if st else None

    def _collect(self, st: _Source) -> None:
        if st.pending is None:
            return
        name, priv = st.pending
        pcr = self._ctx.informers.informer(API, "PodCertificateRequest").get(name)
        status = (pcr or {}).get("status") or {}
        true = {c["type"]: c for c in status.get("conditions") or [] if c.get("status") == "True"}
        if "Issued" in true and status.get("certificateChain"):
            chain = str(status["certificateChain"])
            leaf = x509.load_pem_x509_certificate(chain.encode())
            if leaf.public_key() == priv.public_key():  # the signer answered for this key
                st.current = Credential(_key_pem(priv), chain, _refresh_at(status), name)
            st.pending = None
        elif "Denied" in true or "Failed" in true:
            c = true.get("Denied") or true["Failed"]
            st.denied, st.pending = f"{c['type']}: {c.get('reason')}", None

    def _request(self, st: _Source, pod: Obj, node: Obj | None, vol: str, i: int, src: Obj) -> None:
        meta = pod["metadata"]
        st.generation += 1
        rng = self._ctx.rng.child(f"kubelet/podcertificate/{meta['uid']}/{vol}/{i}/{st.generation}")
        priv = generate_key(str(src["keyType"]), rng)
        sa = pod["spec"].get("serviceAccountName") or "default"
        spec: Obj = {
            "signerName": src["signerName"],
            "podName": meta["name"],
            "podUID": meta["uid"],
            "serviceAccountName": sa,
            # ServiceAccounts are not modelled; their UID is derived from the name.
            "serviceAccountUID": str(
                uuid.uuid5(uuid.NAMESPACE_URL, f"sa:{meta['namespace']}/{sa}")
            ),
            "nodeName": pod["spec"]["nodeName"],
            "nodeUID": ((node or {}).get("metadata") or {}).get("uid", ""),
            "stubPKCS10Request": base64.b64encode(stub_pkcs10_der(priv)).decode(),
        }
        if "maxExpirationSeconds" in src:
            spec["maxExpirationSeconds"] = src["maxExpirationSeconds"]
        if src.get("userAnnotations"):
            spec["unverifiedUserAnnotations"] = dict(src["userAnnotations"])
        owner = {"apiVersion": "v1", "kind": "Pod", "name": meta["name"], "uid": meta["uid"]}
        manifest = {
            "apiVersion": API,
            "kind": "PodCertificateRequest",
            "metadata": {
                "generateName": f"req-{meta['name']}-",
                "namespace": meta["namespace"],
                "ownerReferences": [owner],
            },
            "spec": spec,
        }
        try:
            created = self._ctx.server.create(manifest)
        except Invalid as exc:
            st.denied = f"Invalid: {exc}"
            return
        st.pending = (f"{meta['namespace']}/{created['metadata']['name']}", priv)
        self._ctx.trace.record("kubelet", "pod-certificate-request", created["metadata"]["name"])


def _key_pem(priv: PrivateKey) -> str:
    return priv.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def _refresh_at(status: Obj) -> Instant:
    if status.get("beginRefreshAt"):
        return parse_rfc3339(str(status["beginRefreshAt"]))
    # No hint: refresh halfway, as the kubelet does.
    nb, na = parse_rfc3339(str(status["notBefore"])), parse_rfc3339(str(status["notAfter"]))
    return Instant(nb + (na - nb) // 2)
