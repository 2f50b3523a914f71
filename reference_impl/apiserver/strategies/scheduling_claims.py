"""PodGroup-level resource claims (KEP-5729, gate DRAWorkloadResourceClaims, beta-off).

Validation follows the declarative rules of ``PodGroupSpec.resourceClaims`` and
``PodGroupTemplate.resourceClaims`` (``zz_generated.validations.go``, scheduling/v1beta1):
on update any change is "field is immutable"; at most 4 entries; ``name`` is the list-map
key (a duplicate is reported at the later index) and a DNS label; exactly one of
``resourceClaimName`` / ``resourceClaimTemplateName``, each a DNS subdomain. Status entries
must name a claim of the spec (``validatePodGroupResourceClaimStatuses``).

With the gate off the fields are dropped on create, and on update unless the old object
already used them (``dropDisabledDRAWorkloadResourceClaimsFields`` of the podgroup and
workload strategies; Workload templates are paired with the old ones by index, as there).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from reference_impl.api.meta import dns1123_label_errors, dns1123_subdomain_errors
from reference_impl.apiserver.registry import Context, preparer, validator
from reference_impl.errors import Cause

__all__ = ["GATE", "MAX_POD_GROUP_CLAIMS"]

Obj = dict[str, Any]
GATE: Final = "DRAWorkloadResourceClaims"
MAX_POD_GROUP_CLAIMS: Final = 4
_MEMBERS: Final = "`resourceClaimName`, `resourceClaimTemplateName`"


def _entry(claim: Obj, path: str) -> list[Cause]:
    out: list[Cause] = []
    set_ = [
        f for f in ("resourceClaimName", "resourceClaimTemplateName") if claim.get(f) is not None
    ]
    if len(set_) > 1:
        out.append(
            Cause(
                path,
                "FieldValueInvalid",
                f'Invalid value: "{{{", ".join(set_)}}}": must specify exactly one of: {_MEMBERS}',
            )
        )
    elif not set_:
        out.append(
            Cause(path, "FieldValueInvalid", f'Invalid value: "": must specify one of: {_MEMBERS}')
        )
    name = claim.get("name")
    if not name:
        out.append(Cause(f"{path}.name", "FieldValueRequired", "Required value"))
    else:
        out += [
            Cause(f"{path}.name", "FieldValueInvalid", f'Invalid value: "{name}": {e}')
            for e in dns1123_label_errors(str(name))
        ]
    for f in set_:
        v = str(claim[f])
        out += [
            Cause(f"{path}.{f}", "FieldValueInvalid", f'Invalid value: "{v}": {e}')
            for e in dns1123_subdomain_errors(v)
        ]
    return out


def claims_causes(
    claims: list[Obj] | None, old: list[Obj] | None, path: str, update: bool
) -> list[Cause]:
    """The rules for one ``resourceClaims`` list (``old``: the correlated old list)."""
    claims, old = claims or [], old or []
    if update and claims == old:
        return []  # unchanged data is not revalidated
    out: list[Cause] = []
    if update:
        out.append(Cause(path, "FieldValueInvalid", "Invalid value: null: field is immutable"))
    if len(claims) > MAX_POD_GROUP_CLAIMS:
        out.append(
            Cause(
                path,
                "FieldValueTooMany",
                f"Too many: {len(claims)}: must have at most {MAX_POD_GROUP_CLAIMS} items",
            )
        )
    if out or not claims:
        return out  # immutable / maxItems / optional short-circuit the item checks
    seen: set[Any] = set()
    for i, c in enumerate(claims):
        if c.get("name") in seen:
            out.append(Cause(f"{path}[{i}]", "FieldValueDuplicate", f"Duplicate value: {c!r}"))
        seen.add(c.get("name"))
    for i, c in enumerate(claims):
        out += _entry(c, f"{path}[{i}]")
    return out


def _templates(spec: Obj | None, path: str) -> Iterator[tuple[Obj, str]]:
    """Every PodGroupTemplate of a Workload spec (composite trees included), with its path."""
    for i, t in enumerate((spec or {}).get("podGroupTemplates") or ()):
        yield t, f"{path}.podGroupTemplates[{i}]"
    for i, c in enumerate((spec or {}).get("compositePodGroupTemplates") or ()):
        yield from _templates(c, f"{path}.compositePodGroupTemplates[{i}]")


@validator("PodGroup")
def validate_pod_group_claims(pg: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``spec.resourceClaims`` rules."""
    ospec = (old or {}).get("spec") or {}
    return claims_causes(
        (pg.get("spec") or {}).get("resourceClaims"),
        ospec.get("resourceClaims"),
        "spec.resourceClaims",
        old is not None,
    )


@validator("PodGroup", status=True)
def validate_pod_group_claim_statuses(pg: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Each ``status.resourceClaimStatuses[].name`` matches a spec claim."""
    names = {c.get("name") for c in (pg.get("spec") or {}).get("resourceClaims") or ()}
    return [
        Cause(
            f"status.resourceClaimStatuses[{i}].name",
            "FieldValueInvalid",
            f'Invalid value: "{s.get("name")}": must match the name of an entry in `spec.resourceClaims`',
        )
        for i, s in enumerate((pg.get("status") or {}).get("resourceClaimStatuses") or ())
        if s.get("name") not in names
    ]


@validator("Workload")
def validate_workload_claims(wl: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``resourceClaims`` of every PodGroupTemplate (old templates correlated by name)."""
    olds = {p: t for t, p in _templates((old or {}).get("spec"), "spec")}
    by_name = {str(t.get("name")): t for t in olds.values()}
    out: list[Cause] = []
    for t, p in _templates(wl.get("spec"), "spec"):
        prev = by_name.get(str(t.get("name"))) if old is not None else None
        out += claims_causes(
            t.get("resourceClaims"),
            (prev or {}).get("resourceClaims"),
            f"{p}.resourceClaims",
            prev is not None,
        )
    return out


@preparer("PodGroup")
def drop_disabled_pod_group_claims(pg: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """Gate off: drop ``spec.resourceClaims`` unless the old object used it."""
    if ctx.gates.enabled(GATE) or ((old or {}).get("spec") or {}).get("resourceClaims"):
        return
    (pg.get("spec") or {}).pop("resourceClaims", None)


@preparer("Workload")
def drop_disabled_template_claims(wl: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """Gate off: drop templates' ``resourceClaims`` unless the old template (same index) used it."""
    if ctx.gates.enabled(GATE):
        return
    olds = [t for t, _ in _templates((old or {}).get("spec"), "spec")]
    for i, (t, _) in enumerate(_templates(wl.get("spec"), "spec")):
        if not (i < len(olds) and olds[i].get("resourceClaims")):
            t.pop("resourceClaims", None)
