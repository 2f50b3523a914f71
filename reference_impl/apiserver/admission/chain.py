"""The admission chain of one write request beside the built-in creates and updates
(``APIServer._prepare``): a custom resource's, or a subresource's (``<resource>/status``,
``/scale``, ``pods/binding``, ``pods/eviction``, ``pods/ephemeralcontainers``,
``namespaces/finalize``, ``certificatesigningrequests/approval``).

Upstream builds one ``admission.NewAttributesRecord`` per request (apiserver
pkg/endpoints/handlers create.go, update.go, patch.go) with the request's kind, resource
and subresource, runs mutating admission on the body before the registry's strategy and
hands validating admission to the registry (``rest.ValidateObjectFunc``), which runs it on
the object that passed validation (registry/generic/registry/store.go). Every plugin
decides from the attributes alone (``a.GetSubresource()``, ``a.GetResource()``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.admission.attributes import add_annotation
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.errors import Cause

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["Request", "ScaleValidation"]

Obj = dict[str, Any]
GVK = tuple[str, str, str]


class Request:
    """One request's attributes beyond its objects: subresource, kind, and the warnings and
    audit annotations its admission records (kept here, not on the server, so a write
    nested in it, ResourceQuota's status write, keeps its own)."""

    def __init__(self, srv: APIServer, subresource: str = "", kind: GVK | None = None) -> None:
        self.srv = srv
        self.plugins = list(srv.admission)  # the chain as configured, whatever swaps it
        self.warnings: list[str] = []
        self.annotations: dict[str, str] = {}
        self.ctx = srv._context(
            subresource, self.warnings.append, annotate=self._annotate, kind=kind
        )

    def _annotate(self, key: str, value: str) -> None:
        add_annotation(self.annotations, key, value)

    def admit(self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None) -> None:
        """Mutating admission, in the chain's order; a plugin's refusal raises."""
        for plugin in self.plugins:
            plugin.admit(op, info, obj, old, self.ctx)

    def validate(self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None) -> list[Cause]:
        """Validating admission, in the chain's order: its causes (most plugins raise)."""
        causes: list[Cause] = []
        for plugin in self.plugins:
            causes += plugin.validate(op, info, obj, old, self.ctx)
        return causes

    def done(self) -> list[str]:
        """After the write: its audit annotations become the server's; the admission
        warnings to add to the reply's."""
        self.srv.audit_annotations = self.annotations
        return self.warnings


class ScaleValidation:
    """``toScaleUpdateValidation`` (pkg/registry/apps/deployment/storage): the parent's
    update runs, in place of its own admission, validating admission on the Scale made
    from the updated parent (``to_scale``) with the scale request's attributes.
    ``run`` installs it as the server's chain for the one parent update."""

    name = "ScaleValidation"

    def __init__(self, request: Request, old_scale: Obj, to_scale: Callable[[Obj], Obj]) -> None:
        self._request, self._old, self._to_scale = request, old_scale, to_scale

    def run(self, update: Callable[[], Obj]) -> Obj:
        """``update()`` (the parent's write) with this as the whole chain; the chain is
        back before anything is stored, so writes nested in the commit see it."""
        srv = self._request.srv
        srv.admission = [self]
        try:
            return update()
        finally:
            srv.admission = self._request.plugins

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """The scale request's mutating admission ran on the Scale already."""

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Validating admission of the Scale the updated parent now has."""
        self._request.srv.admission = self._request.plugins
        return self._request.validate(Operation.UPDATE, info, self._to_scale(obj), self._old)
