"""The ResourceSlice strategy's warnings (``pkg/registry/resource/resourceslice/
strategy.go``) and CSIDriver's (``pkg/registry/storage/csidriver/strategy.go``)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, warner
from reference_impl.apiserver.warnings.gates import gate
from reference_impl.apiserver.warnings.util import quote

__all__ = ["csi_driver_warnings", "resource_slice_warnings"]

Obj = dict[str, Any]

_TOKENS_IN_SECRETS: Final = (
    "spec.serviceAccountTokenInSecrets is unset; if supported by this CSI driver, set to true to "
    "prevent possible logging of tokens in volume attributes"
)


@warner("ResourceSlice")
def resource_slice_warnings(slice_: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """A driver name with upper case letters."""
    driver = (slice_.get("spec") or {}).get("driver", "")
    if driver != driver.lower():
        return [f"spec.driver: driver names should be lowercase; {quote(driver)} contains uppercase characters"]
    return []


@warner("CSIDriver")
def csi_driver_warnings(drv: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """Token requests (new or changed) without serviceAccountTokenInSecrets."""
    spec = drv.get("spec") or {}
    tokens = spec.get("tokenRequests") or []
    if not gate(ctx, "CSIServiceAccountTokenSecrets", True) or not tokens:
        return []
    if old is not None and ((old.get("spec") or {}).get("tokenRequests") or []) == tokens:
        return []
    return [_TOKENS_IN_SECRETS] if spec.get("serviceAccountTokenInSecrets") is None else []
