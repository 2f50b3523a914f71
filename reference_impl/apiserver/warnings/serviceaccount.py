"""The ServiceAccount strategy's warnings (``pkg/registry/core/serviceaccount/strategy.go``
``warnIfHasEnforceMountableSecretsAnnotation``): the deprecated annotation, when set anew."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, warner

__all__ = ["service_account_warnings"]

Obj = dict[str, Any]

_ENFORCE: Final = "kubernetes.io/enforce-mountable-secrets"


@warner("ServiceAccount")
def service_account_warnings(sa: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """Warn on create, or on an update that newly sets the annotation."""
    if old is not None and _ENFORCE in (old["metadata"].get("annotations") or {}):
        return []
    if _ENFORCE in (sa["metadata"].get("annotations") or {}):
        return [f"metadata.annotations[{_ENFORCE}]: deprecated in v1.32+; prefer separate "
                "namespaces to isolate access to mounted secrets"]  # fmt: skip
    return []
