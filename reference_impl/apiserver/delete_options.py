"""What a DELETE's ``DeleteOptions`` decide, shared by single deletes and deletecollection.

- ``validate_delete_options``: apimachinery ``validation.ValidateDeleteOptions`` (the
  handler's check, and ``rest.BeforeDelete``'s again);
- ``check_preconditions``: ``rest.BeforeDelete``'s early precondition check (its Conflict
  wording; storage's ``Preconditions.Check`` wording is ``storage_precondition_error``);
- ``deletion_finalizers``: store.go ``deletionFinalizersForGarbageCollection`` with
  ``shouldOrphanDependents`` / ``shouldDeleteDependentsInForeground``.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.validation.field import not_supported
from reference_impl.errors import Cause, Conflict, Invalid

__all__ = [
    "FINALIZER_DELETE_DEPENDENTS",
    "FINALIZER_ORPHAN_DEPENDENTS",
    "check_preconditions",
    "deletion_finalizers",
    "storage_precondition_error",
    "validate_delete_options",
]

Obj = dict[str, Any]

FINALIZER_ORPHAN_DEPENDENTS: Final = "orphan"
FINALIZER_DELETE_DEPENDENTS: Final = "foregroundDeletion"
_POLICIES: Final = ("Foreground", "Background", "Orphan")
_DRY_RUN: Final = ("All",)  # allowedDryRunValues


def validate_delete_options(
    propagation_policy: str | None, dry_run: list[str] | None = None
) -> None:
    """``ValidateDeleteOptions``: Invalid ``DeleteOptions.meta.k8s.io`` (422) for an
    unknown propagation policy or dryRun value."""
    causes: list[Cause] = []
    if propagation_policy is not None and propagation_policy not in _POLICIES:
        causes.append(not_supported("propagationPolicy", propagation_policy, [*_POLICIES, "nil"]))
    if dry_run and not set(dry_run) <= set(_DRY_RUN):
        causes.append(not_supported("dryRun", dry_run, _DRY_RUN))
    if causes:
        raise Invalid("DeleteOptions.meta.k8s.io", "", causes)


def _unmet(obj: Obj, uid: str | None, resource_version: str | None) -> tuple[str, str, str] | None:
    """The first precondition ``obj`` does not meet: (field, wanted, recorded)."""
    meta = obj["metadata"]
    for field, want, key in (("UID", uid, "uid"), ("ResourceVersion", resource_version, "resourceVersion")):
        have = str(meta.get(key, ""))
        if want is not None and want != have:
            return field, want, have
    return None


_MIGHT: Final = {"UID": "been deleted and then recreated", "ResourceVersion": "been modified"}


def check_preconditions(
    kind: str, group: str, obj: Obj, uid: str | None, resource_version: str | None
) -> None:
    """``rest.BeforeDelete``: a UID or resourceVersion precondition that the stored object
    does not meet is a Conflict on ``Kind[.group]`` (the strategy's kind, not resource)."""
    unmet = _unmet(obj, uid, resource_version)
    if unmet is None:
        return
    field, want, have = unmet
    resource = f"{kind}.{group}" if group else kind
    raise Conflict(
        f'Operation cannot be fulfilled on {resource} "{obj["metadata"].get("name", "")}": '
        f"the {field} in the precondition ({want}) does not match the {field} in record "
        f"({have}). The object might have {_MIGHT[field]}"
    )


def storage_precondition_error(
    group_resource: str,
    obj: Obj,
    uid: str | None,
    resource_version: str | None,
    lead: str = "Precondition failed",
) -> Conflict | None:
    """storage ``Preconditions.Check`` as the store interprets it (a Conflict on the
    qualified resource); also the namespace REST's own wording, and (``lead``
    "precondition failed") the CRD REST's."""
    unmet = _unmet(obj, uid, resource_version)
    if unmet is None:
        return None
    field, want, have = unmet
    return Conflict(
        f'Operation cannot be fulfilled on {group_resource} "{obj["metadata"].get("name", "")}": '
        f"{lead}: {field} in precondition: {want}, {field} in object meta: {have}"
    )


def _should_orphan(default: str, finalizers: list[str], policy: str | None) -> bool:
    """``shouldOrphanDependents``: the explicit policy, else the object's finalizers,
    else the strategy's default."""
    if default == "Unsupported":
        return False
    if policy in _POLICIES:
        return policy == "Orphan"
    for f in finalizers:
        if f == FINALIZER_ORPHAN_DEPENDENTS:
            return True
        if f == FINALIZER_DELETE_DEPENDENTS:
            return False
    return default == "Orphan"


def _should_delete_in_foreground(default: str, finalizers: list[str], policy: str | None) -> bool:
    """``shouldDeleteDependentsInForeground``: as ``_should_orphan``; no default."""
    if default == "Unsupported":
        return False
    if policy in _POLICIES:
        return policy == "Foreground"
    for f in finalizers:
        if f == FINALIZER_DELETE_DEPENDENTS:
            return True
        if f == FINALIZER_ORPHAN_DEPENDENTS:
            return False
    return False


def deletion_finalizers(
    default: str, finalizers: list[str], policy: str | None
) -> tuple[bool, list[str]]:
    """``deletionFinalizersForGarbageCollection``: (changed, the finalizers to keep).
    Both GC finalizers are removed, then added back as the policy, the object's own
    finalizers or the kind's ``default`` ("Orphan", "Background", "Unsupported") decide."""
    gc = (FINALIZER_ORPHAN_DEPENDENTS, FINALIZER_DELETE_DEPENDENTS)
    new = [f for f in finalizers if f not in gc]
    if _should_orphan(default, finalizers, policy):
        new.append(FINALIZER_ORPHAN_DEPENDENTS)
    if _should_delete_in_foreground(default, finalizers, policy):
        new.append(FINALIZER_DELETE_DEPENDENTS)
    if set(new) == set(finalizers):
        return False, list(finalizers)
    return True, new
