"""Models k8s.io/apiserver's ``plugin/resourcequota``: the ResourceQuota admission plugin
(default-on, the last validating plugin).

A namespaced write that an evaluator handles is charged to every ResourceQuota of its
namespace that matches it (``CheckRequest``): a quota whose status the controller has not
filled yet refuses it ("status unknown"), a missing required resource refuses it ("failed
quota"), and a charge past ``status.hard`` refuses it ("exceeded quota"); otherwise the
quotas' ``status.used`` is written before the object is, as upstream's evaluator does (a
write that then fails leaves the charge for the controller to recalculate). The
kube-apiserver default configuration has no ``limitedResources``, so that branch is not
modelled.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.quota import registry
from reference_impl.apiserver.quota import resources as q
from reference_impl.apiserver.quota.types import Env, Evaluator, ResourceList
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.errors import Cause, Conflict, Forbidden

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["ResourceQuotaAdmission", "check_request", "install", "scope_selectors"]

Obj = dict[str, Any]
_STATUS_RETRIES: Final = 3  # checkQuotas' remainingRetries


class QuotaRefused(Exception):
    """A quota refuses the write (the text after ``is forbidden: ``)."""


def scope_selectors(quota: Obj) -> list[Obj]:
    """``getScopeSelectorsFromQuota``: plain scopes as Exists, then the selector's."""
    spec = quota.get("spec") or {}
    out: list[Obj] = [{"scopeName": s, "operator": "Exists"} for s in spec.get("scopes") or ()]
    out += (spec.get("scopeSelector") or {}).get("matchExpressions") or []
    return out


def _has_usage_stats(hard: ResourceList, used: ResourceList, names: Sequence[str]) -> bool:
    """``hasUsageStats``: every hard resource the evaluator accounts has a used value."""
    wanted = set(names)
    return all(name in used for name in hard if name in wanted)


def check_request(
    quotas: list[Obj],
    op: Operation,
    subresource: str,
    obj: Obj,
    old: Obj | None,
    ev: Evaluator,
    *,
    old_stored: bool | None = None,
) -> list[Obj]:
    """``CheckRequest``: the quotas with the write charged to ``status.used``. An update is
    charged its increase over ``old`` when that is a stored object (upstream: it has a
    resourceVersion; ``old_stored`` says so where the caller knows, as the apiserver's
    stored bodies carry none), else in full (a create-on-update)."""
    interesting: list[int] = []
    for i, rq in enumerate(quotas):
        if not ev.matches(rq, obj):
            continue
        status = rq.get("status") or {}
        hard, used = q.from_wire(status.get("hard")), q.from_wire(status.get("used"))
        restricted = ev.matching_resources(q.resource_names(hard))
        name = rq["metadata"]["name"]
        err = ev.constraints(restricted, obj)
        if err:
            raise QuotaRefused(f"failed quota: {name}: {err}")
        if not _has_usage_stats(hard, used, restricted):
            names = q.pretty_print_resource_names(restricted)
            raise QuotaRefused(f"status unknown for quota: {name}, resources: {names}")
        interesting.append(i)
    # Measured, and refused when negative, even when no quota matches (upstream).
    usage = ev.usage(obj)
    negative = q.is_negative(usage)
    if negative:
        names = q.pretty_print_resource_names(negative)
        raise QuotaRefused(f"quota usage is negative for resource(s): {names}")
    if op is Operation.UPDATE and old is None:
        raise QuotaRefused(
            "unable to get previous usage since prior version of object was not found"
        )
    if not interesting:
        return quotas  # no limitedResources: nothing else can refuse
    delta: dict[int, ResourceList] = dict.fromkeys(interesting, usage)
    if old_stored is None:
        old_stored = bool(((old or {}).get("metadata") or {}).get("resourceVersion"))
    if op is Operation.UPDATE and old is not None and old_stored:
        prev = q.subtract_with_non_negative_result(usage, ev.usage(old))
        for i in interesting:
            if ev.matches(quotas[i], old):
                delta[i] = prev
    delta = {i: d for i, d in ((i, q.remove_zeros(d)) for i, d in delta.items()) if d}
    if not delta:
        return quotas
    out = copy.deepcopy(quotas)
    for i, d in sorted(delta.items()):
        status = out[i].setdefault("status", {})
        hard, used = q.from_wire(status.get("hard")), q.from_wire(status.get("used"))
        requested = q.mask(d, q.resource_names(hard))
        new_used = q.add(used, requested)
        if subresource != "status":
            ok, exceeded = q.less_than_or_equal(
                q.mask(new_used, q.resource_names(requested)), hard
            )
            if not ok:
                raise QuotaRefused(
                    f"exceeded quota: {out[i]['metadata']['name']}, "
                    f"requested: {q.pretty_print(q.mask(requested, exceeded))}, "
                    f"used: {q.pretty_print(q.mask(used, exceeded))}, "
                    f"limited: {q.pretty_print(q.mask(hard, exceeded))}"
                )
        status["used"] = q.to_wire(new_used)
    return out


class ResourceQuotaAdmission:
    """Charge namespaced writes to the namespace's ResourceQuotas."""

    name = "ResourceQuota"

    def __init__(self, server: APIServer) -> None:
        self._server = server

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Validating only."""

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Refuse (Forbidden) a write the quotas cannot take; else charge it."""
        ns = (obj.get("metadata") or {}).get("namespace")
        if not ns or not info.namespaced or info.group_resource in registry.IGNORED_RESOURCES:
            return []  # cluster-scoped, and Namespace creation, are never charged
        self.evaluate(op, info, obj, old, ctx)
        return []

    def evaluate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """``quotaEvaluator.Evaluate`` + ``checkQuotas``: charge, write the quotas' status
        (retrying on a Conflict against the fresh quotas, as upstream), or refuse."""
        ns = obj["metadata"]["namespace"]
        quotas = ctx.list("v1", "ResourceQuota", ns)
        if not quotas:
            return  # the common case, before any evaluator is built
        ev = registry.evaluator_for(info.group_resource, Env(ctx, self._server.clock.now()))
        if not ev.handles(op, ctx.subresource, obj, old):
            return
        for _ in range(_STATUS_RETRIES + 1):
            if not quotas:
                return
            try:
                charged = check_request(
                    quotas, op, ctx.subresource, obj, old, ev, old_stored=old is not None
                )
            except QuotaRefused as e:
                name = obj["metadata"].get("name") or obj["metadata"].get("generateName") or ""
                raise Forbidden(f'{info.group_resource} "{name}" is forbidden: {e}') from None
            failed = self._write(quotas, charged)
            if not failed:
                return
            fresh = {rq["metadata"]["name"]: rq for rq in ctx.list("v1", "ResourceQuota", ns)}
            quotas = [fresh[n] for n in failed if n in fresh]
        raise Conflict("Operation cannot be fulfilled on resourcequotas: the object has been modified")

    def _write(self, before: list[Obj], after: list[Obj]) -> list[str]:
        """Write each quota whose ``status.used`` changed; the names that hit a Conflict."""
        failed = []
        for old, new in zip(before, after, strict=True):
            if q.equals(q.from_wire(old.get("status", {}).get("used")),
                        q.from_wire(new.get("status", {}).get("used"))):  # fmt: skip
                continue
            # The admitted request's audit annotations stay, not this write's (a fake
            # server in tests has none).
            audited = getattr(self._server, "audit_annotations", None)
            try:
                self._server.update_status(new)
            except Conflict:
                failed.append(new["metadata"]["name"])
            finally:
                if audited is not None:
                    self._server.audit_annotations = audited
        return failed


def install(server: APIServer) -> None:
    """Enable the plugin (default-on in kube-apiserver, after every other plugin)."""
    server.admission.append(ResourceQuotaAdmission(server))
