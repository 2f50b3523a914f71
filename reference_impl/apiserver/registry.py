"""Hooks that other packages register for each kind: defaulting, validation, admission.

Models the per-resource ``rest.RESTCreateStrategy`` (PrepareForCreate, Validate,
ValidateUpdate) and the admission chain of ``k8s.io/apiserver/pkg/admission``. A hook
returns field causes; the server joins them into one ``Invalid``.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.user_info import UserInfo
from reference_impl.clock import Instant
from reference_impl.errors import Cause
from reference_impl.features import FeatureGates

__all__ = [
    "DEFAULT_SERVICE_CIDRS",
    "AdmissionPlugin",
    "Context",
    "Operation",
    "Preparer",
    "Strategy",
    "Validator",
    "defaulter",
    "preparer",
    "strategy_for",
    "validator",
    "warner",
]

Obj = dict[str, Any]
# The reference cluster's --service-cluster-ip-range (the local cluster's launcher's too).
DEFAULT_SERVICE_CIDRS: tuple[str, ...] = ("10.0.0.0/24",)


class Operation(Enum):
    """The admission operation."""

    CREATE = "CREATE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"


@dataclass(frozen=True, slots=True)
class Context:
    """What a hook may consult besides the object: the gates and a read-only view of storage."""

    gates: FeatureGates
    get: Callable[[str, str, str, str | None], Obj | None]
    list: Callable[[str, str, str | None], list[Obj]]
    subresource: str = ""
    # Upstream's admission plugins read informer listers: shared objects the hook must not
    # change. Without them (tests, controllers) the lister reads are plain get and list.
    shared_get: Callable[[str, str, str, str | None], Obj | None] | None = None
    shared_list: Callable[[str, str, str | None], builtins.list[Obj]] | None = None
    # The apiserver's clock (upstream hands some validators a PassiveClock); None where no
    # apiserver is behind the context, and the rules that need it are skipped.
    now: Instant | None = None
    # ``warning.AddWarning`` for admission plugins: the request's warning sink, None
    # where no request is behind the context (warnings are then dropped).
    warn: Callable[[str], None] | None = None
    # kube-apiserver's ``--service-cluster-ip-range``: one CIDR, or one per family (the
    # first is the primary); the Service REST allocates cluster IPs from them.
    service_cidrs: tuple[str, ...] = DEFAULT_SERVICE_CIDRS
    # The request's user (``request.UserFrom``); None where the caller set none.
    user: UserInfo | None = None
    # ``Attributes.AddAnnotation`` for admission plugins: the request's audit annotation
    # sink (key, value), None where no request is behind the context.
    annotate: Callable[[str, str], None] | None = None
    # The request's kind (group, version, kind) where it is not the resource's own: a
    # subresource's body (autoscaling/v1 Scale, v1 Binding, policy/v1 Eviction).
    kind: tuple[str, str, str] | None = None
    # ``dryRun=All``: the Service REST's allocators then hand out without holding
    # (alloc.go's ``dryRun`` branches); nothing is stored either way.
    dry_run: bool = False
    # The request's name where it is not the object's: "" for the items of a
    # deletecollection (delete.go's attributes name none); None: the object's.
    name: str | None = None

    def lister_get(self, api_version: str, kind: str, name: str, ns: str | None) -> Obj | None:
        """The object from the lister (read-only), or None."""
        return (self.shared_get or self.get)(api_version, kind, name, ns)

    def lister_list(self, api_version: str, kind: str, ns: str | None) -> builtins.list[Obj]:
        """The objects from the lister (read-only), in key order."""
        return (self.shared_list or self.list)(api_version, kind, ns)


Validator = Callable[[Obj, Obj | None, Context], list[Cause]]
Defaulter = Callable[[Obj, Context], None]
# PrepareForCreate/Update: (new object, old object or None on create, "now" as RFC 3339,
# context). For what needs the old object or the clock: dropDisabledFields, timestamps.
Preparer = Callable[[Obj, Obj | None, str, Context], None]
# WarningsOnCreate/Update: (new object, old object or None on create, context) -> the
# "Warning:" texts of a write that passed validation (``apiserver/warnings``).
Warner = Callable[[Obj, Obj | None, Context], list[str]]


@dataclass(slots=True)
class Strategy:
    """The hooks registered for one kind (keyed by kind, so every version shares them)."""

    defaulters: list[Defaulter] = field(default_factory=list)
    preparers: list[Preparer] = field(default_factory=list)
    # The status strategy's PrepareForUpdate: run on /status writes, before status validation.
    status_preparers: list[Preparer] = field(default_factory=list)
    validators: list[Validator] = field(default_factory=list)
    status_validators: list[Validator] = field(default_factory=list)
    warners: list[Warner] = field(default_factory=list)
    status_warners: list[Warner] = field(default_factory=list)


_STRATEGIES: dict[str, Strategy] = {}


def strategy_for(kind: str) -> Strategy:
    """The hooks of ``kind`` (an empty strategy when none were registered)."""
    s = _STRATEGIES.get(kind)  # hot: every request asks; build a Strategy only once
    if s is None:
        s = _STRATEGIES[kind] = Strategy()
    return s


def defaulter(*kinds: str) -> Callable[[Defaulter], Defaulter]:
    """Register a defaulting function for ``kinds``."""

    def deco(fn: Defaulter) -> Defaulter:
        for k in kinds:
            strategy_for(k).defaulters.append(fn)
        return fn

    return deco


def preparer(*kinds: str, status: bool = False) -> Callable[[Preparer], Preparer]:
    """Register a prepare hook for ``kinds``: spec writes (create and update), or with
    ``status=True`` /status writes, where it may change only ``status`` of the new object."""

    def deco(fn: Preparer) -> Preparer:
        for k in kinds:
            s = strategy_for(k)
            (s.status_preparers if status else s.preparers).append(fn)
        return fn

    return deco


def validator(*kinds: str, status: bool = False) -> Callable[[Validator], Validator]:
    """Register a validation function for ``kinds`` (``status=True``: for /status writes)."""

    def deco(fn: Validator) -> Validator:
        for k in kinds:
            s = strategy_for(k)
            (s.status_validators if status else s.validators).append(fn)
        return fn

    return deco


def warner(*kinds: str, status: bool = False) -> Callable[[Warner], Warner]:
    """Register a WarningsOnCreate/Update function for ``kinds`` (``status=True``: the
    status strategy's WarningsOnUpdate)."""

    def deco(fn: Warner) -> Warner:
        for k in kinds:
            s = strategy_for(k)
            (s.status_warners if status else s.warners).append(fn)
        return fn

    return deco


class AdmissionPlugin(Protocol):
    """An admission plugin: may mutate the object, then may reject it with causes."""

    name: str

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Mutate ``obj`` in place (mutating admission)."""

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Reject with causes, or return [] (validating admission)."""
