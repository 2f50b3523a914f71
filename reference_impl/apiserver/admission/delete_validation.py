"""Validating admission of DELETE: apiserver endpoints/handlers/delete.go passes
``rest.AdmissionToValidateObjectDeleteFunc`` to the registry, which runs it on the stored
object before deleting or marking it (registry/generic/registry/store.go ``Delete``).

Only the plugins listed run on DELETE here: the reference's other validating plugins
ignore DELETE upstream or are not written for it. The attributes carry no new object and
the stored one as the old object."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.registry import Operation
from reference_impl.errors import Forbidden

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["IMMORTAL_NAMESPACES", "validate_delete"]

_ON_DELETE: Final = frozenset({"ValidatingAdmissionPolicy"})
# kube-apiserver's NamespaceLifecycle immortal namespaces (default, kube-system, kube-public).
IMMORTAL_NAMESPACES: Final = frozenset({"default", "kube-system", "kube-public"})


def validate_delete(
    srv: APIServer,
    info: ResourceInfo,
    obj: dict[str, Any],
    warn: Callable[[str], None] | None = None,
    *,
    name: str | None = None,
) -> None:
    """Run the DELETE-aware admission on ``obj`` (the stored object); a denial raises.
    ``warn``: the request's warning sink (a Warn binding's messages). First
    NamespaceLifecycle's Admit, which refuses the deletion of an immortal namespace (the
    delete's admission runs mutating plugins' Admit too: AdmissionToValidateObjectDeleteFunc)."""
    if info.kind == "Namespace" and info.group == "":
        ns = str(obj["metadata"].get("name", ""))
        if ns in IMMORTAL_NAMESPACES:
            raise Forbidden(f'namespaces "{ns}" is forbidden: this namespace may not be deleted')
    plugins = [p for p in srv.admission if getattr(p, "name", "") in _ON_DELETE]
    if not plugins:
        return
    ctx = srv._context("", warn)
    if name is not None:  # a deletecollection's item: the request names none
        ctx = dataclasses.replace(ctx, name=name)
    for plugin in plugins:
        plugin.validate(Operation.DELETE, info, obj, obj, ctx)
