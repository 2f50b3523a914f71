"""apps/v1 StatefulSet (1.37.2): ``SetObjectDefaults_StatefulSet``, the strategy's status
reset on create, ``ValidateStatefulSetSpec`` (pod management policy, update strategy,
PVC retention policy, claim templates, counters, service name, selector and the pod
template with the controller-set hostname/subdomain blanked and the claim templates'
volumes added), ``ValidateStatefulSetUpdate`` (template checks skipped when the old spec
is invalid; selector, claim templates, service name and pod management policy
immutable) and ``ValidateStatefulSetStatusUpdate``."""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.api.meta import dns1123_label_errors, selector_from_label_selector
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.apps import (
    _default_template,
    old_template,
    template_causes,
)
from reference_impl.apiserver.strategies.apps_deployment import positive_int_or_percent_causes
from reference_impl.apiserver.strategies.policy import label_selector_causes
from reference_impl.apiserver.strategies.service_pvc import _claim_spec_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]
_NONNEG: Final = "must be greater than or equal to 0"
_RETENTION: Final = ("Retain", "Delete")
_MAX_UNAVAILABLE: Final = "MaxUnavailableStatefulSet"
_RECREATE: Final = "StatefulSetRecreateStrategy"


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


@defaulter("StatefulSet")
def default_statefulset(ss: Obj, ctx: Context) -> None:
    """``SetDefaults_StatefulSet`` plus the template's pod defaults and the claim
    templates' ``volumeMode: Filesystem``."""
    spec = ss.setdefault("spec", {})
    if not spec.get("podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = spec.setdefault("updateStrategy", {})
    if isinstance(strategy, dict):
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
            if strategy.get("rollingUpdate") is None:
                strategy["rollingUpdate"] = {}
        ru = strategy.get("rollingUpdate")
        if strategy["type"] == "RollingUpdate" and isinstance(ru, dict):
            ru.setdefault("partition", 0)
            if ctx.gates.enabled(_MAX_UNAVAILABLE):
                ru.setdefault("maxUnavailable", 1)
    policy = spec.get("persistentVolumeClaimRetentionPolicy")
    if not isinstance(policy, dict):
        policy = spec["persistentVolumeClaimRetentionPolicy"] = {}
    for f in ("whenDeleted", "whenScaled"):
        if not policy.get(f):
            policy[f] = "Retain"
    spec.setdefault("replicas", 1)
    spec.setdefault("revisionHistoryLimit", 10)
    template = spec.setdefault("template", {})
    if isinstance(template, dict):
        _default_template(template, ctx)
    for pvc in spec.get("volumeClaimTemplates") or []:
        if isinstance(pvc, dict):
            pvc_spec = pvc.setdefault("spec", {})
            if isinstance(pvc_spec, dict):
                pvc_spec.setdefault("volumeMode", "Filesystem")
            status = pvc.setdefault("status", {})
            if isinstance(status, dict) and not status.get("phase"):  # SetDefaults_PersistentVolumeClaim
                status["phase"] = "Pending"
            # Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec writes these on the way out.
            pvc["apiVersion"], pvc["kind"] = "v1", "PersistentVolumeClaim"


@preparer("StatefulSet")
def reset_statefulset_status(ss: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """PrepareForCreate: the status is the empty struct (its two non-omitempty counters)."""
    if old is None:
        ss["status"] = {"replicas": 0, "availableReplicas": 0}


def _go_rolling(ru: Any) -> Obj | None:
    """``RollingUpdateStatefulSetStrategy`` with Go's field names (for messages)."""
    if not isinstance(ru, dict):
        return None
    return {"Partition": _int(ru.get("partition")), "MaxUnavailable": ru.get("maxUnavailable")}


def _strategy_causes(strategy: Obj, allow_recreate: bool) -> list[Cause]:
    """The update-strategy switch of ``ValidateStatefulSetSpec`` and
    ``validateRollingUpdateStatefulSet``."""
    path, kind = "spec.updateStrategy", strategy.get("type") or ""
    ru = strategy.get("rollingUpdate")
    only = "only allowed for updateStrategy 'RollingUpdate'"
    if not kind:
        return [fe.required(path)]
    if kind == "OnDelete" or (kind == "Recreate" and allow_recreate):
        return [] if ru is None else [fe.invalid(f"{path}.rollingUpdate", _go_rolling(ru), only)]
    if kind != "RollingUpdate":
        valid = "must be 'RollingUpdate', 'OnDelete', or 'Recreate'" if allow_recreate else (
            "must be 'RollingUpdate' or 'OnDelete'"
        )
        # The internal struct as Go's %v of an untagged type prints it.
        shown = {"Type": kind, "RollingUpdate": _go_rolling(ru)}
        return [fe.invalid(path, shown, valid)]
    if not isinstance(ru, dict):
        return []
    rp = f"{path}.rollingUpdate"
    out: list[Cause] = []
    if _int(ru.get("partition")) < 0:
        out.append(fe.invalid(f"{rp}.partition", ru["partition"], _NONNEG))
    mu = ru.get("maxUnavailable")
    if mu is not None:
        mp = f"{rp}.maxUnavailable"
        out += positive_int_or_percent_causes(mu, mp)
        is_pct = isinstance(mu, str) and mu.endswith("%") and mu[:-1].isdigit()
        value = int(mu[:-1]) if is_pct else _int(mu)
        if value == 0:
            out.append(fe.invalid(mp, mu, "cannot be 0"))
        if is_pct and value > 100:
            out.append(fe.invalid(mp, mu, "must not be greater than 100%"))
    return out


def _template_to_validate(spec: Obj) -> Obj:
    """The template with hostname and subdomain blanked (the controller sets them) and a
    PVC volume per claim template in place of a same-named pod volume."""
    template = copy.deepcopy(spec.get("template") or {})
    pod = template.setdefault("spec", {})
    pod.pop("hostname", None)
    pod.pop("subdomain", None)
    claims = [str((c.get("metadata") or {}).get("name") or "") for c in spec.get("volumeClaimTemplates") or []
              if isinstance(c, dict)]  # fmt: skip
    if claims:
        added = {n: {"name": n, "persistentVolumeClaim": {"claimName": n}} for n in claims}
        kept = [v for v in pod.get("volumes") or [] if not (isinstance(v, dict) and v.get("name") in added)]
        pod["volumes"] = list(added.values()) + kept
    return template


def _spec_causes(
    spec: Obj, ctx: Context, *, update: bool, skip_template: bool, allow_recreate: bool,
    old_tmpl: Obj | None = None,
) -> list[Cause]:
    """``ValidateStatefulSetSpec`` (the update options: any service name, claim templates
    not revalidated, the template optionally skipped)."""
    out: list[Cause] = []
    pmp = spec.get("podManagementPolicy") or ""
    if not pmp:
        out.append(fe.required("spec.podManagementPolicy"))
    elif pmp not in ("OrderedReady", "Parallel"):
        out.append(fe.invalid("spec.podManagementPolicy", pmp, "must be 'OrderedReady' or 'Parallel'"))
    strategy = spec.get("updateStrategy")
    out += _strategy_causes(strategy if isinstance(strategy, dict) else {}, allow_recreate)
    policy = spec.get("persistentVolumeClaimRetentionPolicy")
    if isinstance(policy, dict):
        for f in ("whenDeleted", "whenScaled"):
            if policy.get(f) not in _RETENTION:
                out.append(fe.not_supported(f"spec.persistentVolumeClaimRetentionPolicy.{f}", policy.get(f) or "", _RETENTION))
    if not update:
        for i, pvc in enumerate(spec.get("volumeClaimTemplates") or []):
            pvc_spec = (pvc.get("spec") if isinstance(pvc, dict) else None) or {}
            for c in _claim_spec_causes(pvc_spec):
                field = f"spec.volumeClaimTemplates[{i}].spec" + c.field.removeprefix("spec")
                out.append(Cause(field, c.reason, c.message))
    for f, path in (("replicas", "spec.replicas"), ("minReadySeconds", "spec.minReadySeconds")):
        if _int(spec.get(f)) < 0:
            out.append(fe.invalid(path, spec[f], _NONNEG))
    ordinals = spec.get("ordinals")
    if isinstance(ordinals, dict) and _int(ordinals.get("start")) < 0:
        out.append(fe.invalid("spec.ordinals.start", ordinals["start"], _NONNEG))
    service = str(spec.get("serviceName") or "")
    if not update and service:
        out += [fe.invalid("spec.serviceName", service, e) for e in dns1123_label_errors(service)]
    out += _selector_and_template_causes(spec, ctx, skip_template, old_tmpl)
    rp = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy") or ""
    if rp != "Always":
        out.append(fe.not_supported("spec.template.spec.restartPolicy", rp, ("Always",)))
    if ((spec.get("template") or {}).get("spec") or {}).get("activeDeadlineSeconds") is not None:
        msg = "activeDeadlineSeconds in StatefulSet is not Supported"
        out.append(fe.forbidden("spec.template.spec.activeDeadlineSeconds", msg))
    return out


def _selector_and_template_causes(spec: Obj, ctx: Context, skip_template: bool, old_tmpl: Obj | None) -> list[Cause]:
    """The selector (required, valid, non-empty) and, when it converts, the template
    (``ValidatePodTemplateSpecForStatefulSet``, under the options of the template and
    ``old_tmpl``, the old StatefulSet's)."""
    sel = spec.get("selector")
    out: list[Cause] = []
    if sel is None:
        out.append(fe.required("spec.selector"))
    else:
        out += label_selector_causes(sel, "spec.selector")
        if not (sel.get("matchLabels") or sel.get("matchExpressions")):
            out.append(fe.invalid("spec.selector", sel, "empty selector is invalid for statefulset"))
    if sel is not None and label_selector_causes(sel, "spec.selector"):
        out.append(fe.invalid("spec.selector", sel, ""))
        return out
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels")
    empty = sel is not None and not (sel.get("matchLabels") or sel.get("matchExpressions"))
    if not empty and not selector_from_label_selector(sel).matches(labels):
        out.append(fe.invalid("spec.template.metadata.labels", labels, "`selector` does not match template `labels`"))
    if not skip_template:
        out += template_causes({"spec": {"template": _template_to_validate(spec)}}, (), ctx, old_tmpl)
    return out


@validator("StatefulSet")
def validate_statefulset(ss: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateStatefulSet`` / ``ValidateStatefulSetUpdate`` (the spec part)."""
    spec = ss.get("spec") or {}
    if old is None:
        return _spec_causes(spec, ctx, update=False, skip_template=False, allow_recreate=ctx.gates.enabled(_RECREATE))
    ospec = old.get("spec") or {}
    allow = ctx.gates.enabled(_RECREATE) or (ospec.get("updateStrategy") or {}).get("type") == "Recreate"
    # One set of options (the new and old templates') judges both specs, as upstream's.
    old_tmpl = old_template(old, "template")
    old_bad = bool(_spec_causes(ospec, ctx, update=True, skip_template=False, allow_recreate=allow, old_tmpl=old_tmpl))
    out = _spec_causes(spec, ctx, update=True, skip_template=old_bad, allow_recreate=allow, old_tmpl=old_tmpl)
    for f in ("selector", "volumeClaimTemplates", "serviceName", "podManagementPolicy"):
        if spec.get(f) != ospec.get(f):
            out.append(fe.invalid(f"spec.{f}", spec.get(f), "field is immutable"))
    return out


@validator("StatefulSet", status=True)
def validate_statefulset_status(ss: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateStatefulSetStatusUpdate``: counters non-negative and within replicas,
    available within ready, collisionCount not lowered."""
    st = ss.get("status") or {}
    n = {f: _int(st.get(f)) for f in ("replicas", "readyReplicas", "currentReplicas",
                                      "updatedReplicas", "availableReplicas")}  # fmt: skip
    out = [fe.invalid(f"status.{f}", v, _NONNEG) for f, v in n.items() if v < 0]
    for f in ("observedGeneration", "collisionCount"):
        if st.get(f) is not None and _int(st[f]) < 0:
            out.append(fe.invalid(f"status.{f}", st[f], _NONNEG))
    for f in ("readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"):
        if n[f] > n["replicas"]:
            out.append(fe.invalid(f"status.{f}", n[f], "cannot be greater than status.replicas"))
    if n["availableReplicas"] > n["readyReplicas"]:
        msg = "cannot be greater than status.readyReplicas"
        out.append(fe.invalid("status.availableReplicas", n["availableReplicas"], msg))
    ocount = ((old or {}).get("status") or {}).get("collisionCount")
    count = st.get("collisionCount")
    if isinstance(ocount, int) and (not isinstance(count, int) or count < ocount):
        out.append(fe.invalid("status.collisionCount", _int(count), "cannot be decremented"))
    return out
