"""Admin access to devices needs a labelled namespace (``pkg/registry/resource/utils.go``).

``AuthorizedForAdmin``: creating a ResourceClaim or ResourceClaimTemplate whose request
(an ``exactly`` one: subrequests cannot ask for it) sets ``adminAccess: true`` is
Forbidden at ``spec.devices.requests[i].adminAccess`` unless the namespace carries
``resource.kubernetes.io/admin-access: "true"``. Updates are not checked, as upstream:
the spec is immutable. ``AuthorizedForAdminStatus``: a /status write that first grants
an admin-access result is checked the same way, at
``status.allocation.devices.results[i].adminAccess``.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, validator
from reference_impl.errors import Cause

__all__ = ["ADMIN_NAMESPACE_LABEL", "authorized_for_admin", "authorized_for_admin_status"]

Obj = dict[str, Any]
ADMIN_NAMESPACE_LABEL: Final = "resource.kubernetes.io/admin-access"
_MESSAGE: Final = (
    f"admin access to devices requires the `{ADMIN_NAMESPACE_LABEL}: true` label on the "
    "containing namespace"
)


def _namespace_causes(path: str, obj: Obj, ctx: Context) -> list[Cause]:
    ns_name = str(obj["metadata"].get("namespace") or "")
    ns = ctx.get("v1", "Namespace", ns_name, None)
    if ns is None:
        return [Cause(path, "InternalError",
                      f'could not retrieve namespace to verify admin access: namespaces "{ns_name}" not found')]
    if (ns["metadata"].get("labels") or {}).get(ADMIN_NAMESPACE_LABEL) != "true":
        return [Cause(path, "FieldValueForbidden", _MESSAGE)]
    return []


def _admin_request_path(spec: Obj | None) -> str | None:
    for i, r in enumerate(((spec or {}).get("devices") or {}).get("requests") or ()):
        exact = r.get("exactly") if isinstance(r, dict) else None
        if isinstance(exact, dict) and exact.get("adminAccess") is True:
            return f"spec.devices.requests[{i}].adminAccess"
    return None


@validator("ResourceClaim")
def authorized_for_admin(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Create only (the spec is immutable)."""
    path = _admin_request_path(obj.get("spec")) if old is None else None
    return _namespace_causes(path, obj, ctx) if path else []


@validator("ResourceClaimTemplate")
def authorized_for_admin_template(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """As for a claim, for the template's ``spec.spec`` (the path stays ``spec.devices...``,
    as upstream reports it)."""
    path = _admin_request_path((obj.get("spec") or {}).get("spec")) if old is None else None
    return _namespace_causes(path, obj, ctx) if path else []


def _admin_result_path(obj: Obj | None) -> str | None:
    alloc = ((obj or {}).get("status") or {}).get("allocation") or {}
    for i, r in enumerate((alloc.get("devices") or {}).get("results") or ()):
        if isinstance(r, dict) and r.get("adminAccess") is True:
            return f"status.allocation.devices.results[{i}].adminAccess"
    return None


@validator("ResourceClaim", status=True)
def authorized_for_admin_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Only when admin access is newly granted (an allocation is immutable)."""
    if _admin_result_path(old) is not None:
        return []
    path = _admin_result_path(obj)
    return _namespace_causes(path, obj, ctx) if path else []
