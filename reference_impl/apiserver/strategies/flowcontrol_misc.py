"""StorageVersionMigration (storagemigration.k8s.io; upstream v1.37.2's
``pkg/apis/storagemigration/validation`` and its registry strategy) and APIService
(apiregistration.k8s.io; kube-aggregator v0.37.2's ``pkg/apis/apiregistration/validation``,
its v1 defaults and strategy). The APIService name rule lives in ``meta.name_errors``."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.api.formats import dns1035_label_errors, dns1123_subdomain_errors
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.status_conditions import validate_conditions
from reference_impl.errors import Cause

__all__ = [
    "default_apiservice",
    "reset_status_on_create",
    "validate_apiservice",
    "validate_apiservice_status",
    "validate_svm",
    "validate_svm_status",
]

Obj = dict[str, Any]
_RV: Final = re.compile(r"[1-9][0-9]*")
_STATUSES: Final = ("True", "False", "Unknown")


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


@preparer("StorageVersionMigration", "APIService")
def reset_status_on_create(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """PrepareForCreate: a client's status is dropped (updates keep the stored one)."""
    if old is None:
        obj["status"] = {}


def _svm_spec_causes(spec: Obj) -> list[Cause]:
    """``ValidateStorageVersionMigration``, less the metadata checks."""
    res = _o(spec.get("resource"))
    resource, group, out = str(res.get("resource") or ""), str(res.get("group") or ""), []
    if not resource:
        out.append(fe.required("spec.resource.resource", "resource is required to be set"))
    elif errs := dns1035_label_errors(resource):
        out.append(fe.invalid("spec.resource.resource", resource, ",".join(errs)))
    if group and (errs := dns1123_subdomain_errors(group)):
        out.append(fe.invalid("spec.resource.group", group, ",".join(errs)))
    return out


@validator("StorageVersionMigration")
def validate_svm(svm: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateStorageVersionMigration`` and, on update, the immutable spec."""
    out = _svm_spec_causes(_o(svm.get("spec")))
    if old is not None and svm.get("spec") != old.get("spec"):
        out.append(fe.invalid("spec", svm.get("spec"), "field is immutable"))
    return out


def _is_true(svm: Obj, ctype: str) -> bool:
    """``FindStatusCondition`` (the first of the type) is True."""
    for c in _o(svm.get("status")).get("conditions") or []:
        if _o(c).get("type") == ctype:
            return _o(c).get("status") == "True"
    return False


@validator("StorageVersionMigration", status=True)
def validate_svm_status(svm: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateStorageVersionMigrationStatusUpdate``."""
    status, old_status = _o(svm.get("status")), _o(_o(old).get("status"))
    rv, old_rv, out = str(status.get("resourceVersion") or ""), str(old_status.get("resourceVersion") or ""), []
    if rv and not _RV.fullmatch(rv):
        out.append(fe.invalid("status.resourceVersion", rv, f"resource version is not well formed: {rv}"))
    conds = status.get("conditions")
    out += validate_conditions(conds, "status.conditions")
    if old_rv and old_rv != rv:
        out.append(fe.invalid("status.resourceVersion", rv, "field is immutable"))
    ok, failed, old_obj = _is_true(svm, "Succeeded"), _is_true(svm, "Failed"), _o(old)
    if ok and failed:
        out.append(fe.invalid("status.conditions", conds, "Both success and failed conditions cannot be true at the same time"))
    if _is_true(old_obj, "Succeeded") and not ok:
        out.append(fe.invalid("status.conditions", conds, "Success condition cannot be set to false once it is true"))
    if _is_true(old_obj, "Failed") and not failed:
        out.append(fe.invalid("status.conditions", conds, "Failed condition cannot be set to false once it is true"))
    return out


@defaulter("APIService")
def default_apiservice(svc: Obj, ctx: Context) -> None:
    """``SetDefaults_ServiceReference``: port 443."""
    ref = _o(svc.get("spec")).get("service")
    if isinstance(ref, dict) and ref.get("port") is None:
        ref["port"] = 443


def _priority_causes(spec: Obj) -> list[Cause]:
    gpm, vp, out = _int(spec.get("groupPriorityMinimum")), _int(spec.get("versionPriority")), []
    if not 0 < gpm <= 20000:
        out.append(fe.invalid("spec.groupPriorityMinimum", gpm, "must be positive and less than 20000"))
    if not 0 < vp <= 1000:
        out.append(fe.invalid("spec.versionPriority", vp, "must be positive and less than 1000"))
    return out


def _service_causes(spec: Obj) -> list[Cause]:
    """The service reference, or for a local APIService no TLS settings."""
    ca, insecure, ref = str(spec.get("caBundle") or ""), bool(spec.get("insecureSkipTLSVerify")), spec.get("service")
    out: list[Cause] = []
    if not isinstance(ref, dict):
        if ca:  # base64: the decoded length is what upstream counts
            n = len(ca) * 3 // 4 - ca.count("=")
            out.append(fe.invalid("spec.caBundle", f"{n} bytes", "local APIServices may not have a caBundle"))
        if insecure:
            out.append(fe.invalid("spec.insecureSkipTLSVerify", True, "local APIServices may not have insecureSkipTLSVerify"))
        return out
    for f in ("namespace", "name"):
        if not ref.get(f):
            out.append(fe.required(f"spec.service.{f}"))
    port = _int(ref.get("port"))
    if not 1 <= port <= 65535:
        out.append(fe.invalid("spec.service.port", port, "port is not valid: must be between 1 and 65535, inclusive"))
    if insecure and ca:
        out.append(fe.invalid("spec.insecureSkipTLSVerify", True, "may not be true if caBundle is present"))
    return out


@validator("APIService")
def validate_apiservice(svc: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateAPIService`` (create and update alike), less the metadata checks."""
    spec = _o(svc.get("spec"))
    group, version, out = str(spec.get("group") or ""), str(spec.get("version") or ""), []
    if not group and version != "v1":
        out.append(fe.required("spec.group", "only v1 may have an empty group and it better be legacy kube"))
    out += [fe.invalid("spec.group", group, m) for m in (dns1123_subdomain_errors(group) if group else [])]
    out += [fe.invalid("spec.version", version, m) for m in dns1035_label_errors(version)]
    return out + _priority_causes(spec) + _service_causes(spec)


@validator("APIService", status=True)
def validate_apiservice_status(svc: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateAPIServiceStatus``: each condition's status is True, False or Unknown."""
    out: list[Cause] = []
    for i, c in enumerate(_o(svc.get("status")).get("conditions") or []):
        st = _o(c).get("status")
        if st not in _STATUSES:
            out.append(fe.not_supported(f"status.conditions[{i}].status", st, _STATUSES))
    return out
