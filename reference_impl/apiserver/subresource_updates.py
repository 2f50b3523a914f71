"""The update-only subresources that replace a whole object through their own strategy:
``namespaces/finalize`` (``FinalizeREST``, ``namespaceFinalizeStrategy``) and
``certificatesigningrequests/approval`` (``ApprovalREST``, ``csrApprovalStrategy``).

Each is the generic registry's update (decode, the stored object, ``BeforeUpdate``'s
metadata carry-over, ``PrepareForUpdate``, ``ValidateUpdate``) with its own prepare and
validate steps; neither bumps a generation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reference_impl.apiserver import conversion
from reference_impl.apiserver.admission.chain import Request
from reference_impl.apiserver.decode import carry_meta
from reference_impl.apiserver.registry import Operation
from reference_impl.apiserver.strategies.certificates_csr import (
    prepare_csr_approval,
    validate_csr_approval,
)
from reference_impl.apiserver.strategies.meta import finalizer_name_causes, meta_causes
from reference_impl.apiserver.warnings.recorder import header_texts
from reference_impl.clock import rfc3339
from reference_impl.errors import Cause, Invalid, MethodNotAllowed

if TYPE_CHECKING:
    from reference_impl.apiserver.decode import Decoded
    from reference_impl.apiserver.server import APIServer

__all__ = ["approve", "finalize"]

Obj = dict[str, Any]


def _begin(
    srv: APIServer, manifest: Obj, kind: str, sub: str
) -> tuple[Decoded, str, Obj, Request]:
    """The decoded body (server metadata carried from the stored object), its key, the
    stored object and the request, its mutating admission run; MethodNotAllowed for a
    kind without the subresource."""
    d = srv._decode(manifest)
    if d.info.kind != kind:
        raise MethodNotAllowed(f"{d.info.group_resource} has no {sub} subresource")
    key, old = srv._current(d.info, d.obj["metadata"])
    req = Request(srv, sub)
    req.admit(Operation.UPDATE, d.info, d.obj, old)
    carry_meta(old, d.obj)
    srv._refuse_new_finalizers(d.info, d.obj, old)
    return d, key, old, req


def _finish(
    srv: APIServer, d: Decoded, key: str, old: Obj, causes: list[Cause], req: Request
) -> Obj:
    causes = causes or req.validate(Operation.UPDATE, d.info, d.obj, old)
    if causes:
        name = str(d.obj["metadata"].get("name", ""))
        raise Invalid(d.info.kind, name, conversion.wire_causes(causes, d.info, d.api_version))
    out = srv._finish_update(key, d, old)
    srv.warnings = header_texts(req.done())
    return out


def finalize(srv: APIServer, manifest: Obj) -> Obj:
    """``APIServer.update_finalize``: the body's spec.finalizers (and metadata) over the
    stored status; ``ValidateNamespaceFinalizeUpdate`` checks each finalizer at its index.
    A deleting namespace left with no finalizer goes (``_finish_update``)."""
    d, key, old, req = _begin(srv, manifest, "Namespace", "finalize")
    obj = d.obj
    if "status" in old:
        obj["status"] = old["status"]
    meta = obj["metadata"]
    if meta.get("name"):  # SetDefaults_Namespace, run by the body's decoding
        meta.setdefault("labels", {})["kubernetes.io/metadata.name"] = meta["name"]
    causes = meta_causes(d.info, obj, old)
    spec = obj.get("spec")
    finalizers = spec.get("finalizers") if isinstance(spec, dict) else None
    for i, f in enumerate(finalizers if isinstance(finalizers, list) else []):
        causes += finalizer_name_causes("" if f is None else str(f), f"spec.finalizers[{i}]")
    return _finish(srv, d, key, old, causes, req)


def approve(srv: APIServer, manifest: Obj) -> Obj:
    """``APIServer.update_approval``: only the body's conditions count; Approved and
    Denied may be added (``ValidateCertificateSigningRequestApprovalUpdate``)."""
    d, key, old, req = _begin(srv, manifest, "CertificateSigningRequest", "approval")
    prepare_csr_approval(d.obj, old, rfc3339(srv.clock.now()))
    causes = validate_csr_approval(d.obj, old) + meta_causes(d.info, d.obj, old)
    return _finish(srv, d, key, old, causes, req)
