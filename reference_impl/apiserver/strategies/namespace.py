"""Namespace defaults (the ``kubernetes`` finalizer, Active, the name label) and
``ValidateNamespace``'s spec rule (pkg/apis/core/validation): each spec.finalizers entry
is a finalizer name (a qualified name; an unprefixed one must be a standard finalizer),
every error at ``spec.finalizers`` itself."""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.meta import finalizer_name_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]


@validator("Namespace")
def validate_namespace(ns: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """spec.finalizers; null entries decode as the empty name, which is refused."""
    spec = ns.get("spec")
    finalizers = spec.get("finalizers") if isinstance(spec, dict) else None
    if not isinstance(finalizers, list):
        return []
    causes: list[Cause] = []
    for f in finalizers:
        causes += finalizer_name_causes("" if f is None else str(f), "spec.finalizers")
    return causes


@defaulter("Namespace")
def default_namespace(ns: Obj, ctx: Context) -> None:
    """New namespaces carry the ``kubernetes`` finalizer and are Active."""
    ns.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
    ns.setdefault("status", {}).setdefault("phase", "Active")
    ns["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = ns["metadata"].get(
        "name", ""
    )


@preparer("Namespace")
def prepare_namespace(ns: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """namespaceStrategy.PrepareForCreate: the status is Active whatever was sent, and the
    ``kubernetes`` finalizer is appended when missing."""
    if old is not None:
        return
    ns["status"] = {"phase": "Active"}
    spec = ns.setdefault("spec", {})
    if isinstance(spec, dict):
        given = spec.get("finalizers")
        finalizers: list[Any] = given if isinstance(given, list) else []
        if "kubernetes" not in finalizers:
            spec["finalizers"] = [*finalizers, "kubernetes"]


@validator("Namespace", status=True)
def validate_namespace_status(ns: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateNamespaceStatusUpdate``: Active without a deletionTimestamp, else Terminating."""
    phase = (ns.get("status") or {}).get("phase") or "Active"  # SetDefaults_NamespaceStatus
    deleting = bool((ns.get("metadata") or {}).get("deletionTimestamp"))
    want = "Terminating" if deleting else "Active"
    if phase == want:
        return []
    when = "is not empty" if deleting else "is empty"
    return [
        fe.invalid("status.Phase", phase, f"may only be '{want}' if `deletionTimestamp` {when}")
    ]
