"""Models plugin/pkg/admission/limitranger/admission.go: LimitRanger (default-on).

Pod create: each LimitRange of the namespace fills the ``default`` (limits) and
``defaultRequest`` (requests) of its Container item into every container and init
container that lacks them, and records what it set in the ``kubernetes.io/limit-ranger``
annotation. Then Container items bound each container's min/max/maxLimitRequestRatio,
Pod items the pod's aggregate (init containers and sidecars counted as upstream's
``podRequests``/``podLimits``; pod-level cpu/memory override it, PodLevelResources being
on in 1.37), and PersistentVolumeClaim items the claim's storage request (on create and
update). The first LimitRange that objects makes the write Forbidden. Pod updates are
left alone; pods/resize is defaulted and checked like a create (the resize strategy keeps
only container resources, so no annotation).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.quantity import MAX_MILLI_VALUE, milli_value, value
from reference_impl.api.quantity import Quantity as Q
from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.errors import Cause, Forbidden

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = [
    "ANNOTATION",
    "LimitRanger",
    "install",
    "pod_limits",
    "pod_mutate",
    "pod_requests",
    "pod_validate",
    "pvc_validate",
]

Obj = dict[str, Any]
ANNOTATION: Final = "kubernetes.io/limit-ranger"
_POD_LEVEL: Final = ("cpu", "memory")  # supportedPodLevelResources


ResourceList = dict[str, Q]
_ZERO: Final = Q(Decimal(0), "DecimalSI")


def _list(raw: Any) -> ResourceList:
    """The parseable quantities (validation reports the rest)."""
    out: ResourceList = {}
    for k, v in raw.items() if isinstance(raw, dict) else ():
        try:
            out[str(k)] = Q.of(v)
        except ValueError:
            continue
    return out


def _add(into: ResourceList, more: ResourceList) -> None:
    """``addResourceList``: a sum keeps the first quantity's format."""
    for k, q in more.items():
        into[k] = Q(into[k].amount + q.amount, into[k].fmt) if k in into else q


def _max(into: ResourceList, more: ResourceList) -> None:
    """``maxResourceList``."""
    for k, q in more.items():
        if k not in into or q.amount > into[k].amount:
            into[k] = q


def _aggregate(pod: Obj, part: str) -> ResourceList:
    """``podRequests``/``podLimits`` over the spec (not status): containers summed, init
    containers as a max, sidecars (restartPolicy Always) running beside what follows."""
    spec = pod.get("spec") or {}
    total: ResourceList = {}
    for c in spec.get("containers") or []:
        _add(total, _list((c.get("resources") or {}).get(part)))
    sidecars: ResourceList = {}
    init: ResourceList = {}
    for c in spec.get("initContainers") or []:
        own = _list((c.get("resources") or {}).get(part))
        if c.get("restartPolicy") == "Always":
            _add(total, own)
            _add(sidecars, own)
            step = dict(sidecars)
        else:
            step = {}
            _add(step, own)
            _add(step, sidecars)
        _max(init, step)
    _max(total, init)
    pod_level = (
        (spec.get("resources") or {}).get(part) if isinstance(spec.get("resources"), dict) else None
    )
    for k, q in _list(pod_level).items():
        if k in _POD_LEVEL:
            total[k] = q
    return total


def pod_requests(pod: Obj) -> ResourceList:
    """The pod's aggregate requests."""
    return _aggregate(pod, "requests")


def pod_limits(pod: Obj) -> ResourceList:
    """The pod's aggregate limits."""
    return _aggregate(pod, "limits")


def _compare(req: Q, lim: Q, enforced: Q) -> tuple[int, int, int]:
    """``requestLimitEnforcedValues``: milli-units unless one would overflow."""
    vals = (value(req.amount), value(lim.amount), value(enforced.amount))
    if all(v <= MAX_MILLI_VALUE for v in vals):
        return milli_value(req.amount), milli_value(lim.amount), milli_value(enforced.amount)
    return vals


def _min(kind: str, name: str, enforced: Q, req: ResourceList, lim: ResourceList) -> str | None:
    r, l_ = req.get(name), lim.get(name)
    rv, lv, ev = _compare(r or _ZERO, l_ or _ZERO, enforced)
    if r is None:
        return f"minimum {name} usage per {kind} is {enforced}.  No request is specified"
    if rv < ev:
        return f"minimum {name} usage per {kind} is {enforced}, but request is {r}"
    if l_ is not None and lv < ev:
        return f"minimum {name} usage per {kind} is {enforced}, but limit is {l_}"
    return None


def _max_request(kind: str, name: str, enforced: Q, req: ResourceList) -> str | None:
    """``maxRequestConstraint``: for claims, whose limits are not user input."""
    r = req.get(name)
    rv, _, ev = _compare(r or _ZERO, _ZERO, enforced)
    if r is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No request is specified"
    if rv > ev:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {r}"
    return None


def _max_limit(
    kind: str, name: str, enforced: Q, req: ResourceList, lim: ResourceList
) -> str | None:
    r, l_ = req.get(name), lim.get(name)
    rv, lv, ev = _compare(r or _ZERO, l_ or _ZERO, enforced)
    if l_ is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No limit is specified"
    if lv > ev:
        return f"maximum {name} usage per {kind} is {enforced}, but limit is {l_}"
    if r is not None and rv > ev:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {r}"
    return None


def _ratio(kind: str, name: str, enforced: Q, req: ResourceList, lim: ResourceList) -> str | None:
    r, l_ = req.get(name), lim.get(name)
    rv, lv, _ = _compare(r or _ZERO, l_ or _ZERO, enforced)
    if r is None or rv == 0:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but no request is specified or request is 0"
    if l_ is None or lv == 0:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but no limit is specified or limit is 0"
    observed = display = lv / rv
    most = float(value(enforced.amount))
    if value(enforced.amount) <= MAX_MILLI_VALUE:
        observed, most = observed * 1000, float(milli_value(enforced.amount))
    if observed > most:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but provided ratio is {display:f}"
    return None


def _items(lr: Obj) -> list[Obj]:
    return [i for i in (lr.get("spec") or {}).get("limits") or [] if isinstance(i, dict)]


def _bounds(kind: str, item: Obj, req: ResourceList, lim: ResourceList) -> list[str | None]:
    out: list[str | None] = []
    out += [_min(kind, k, q, req, lim) for k, q in sorted(_list(item.get("min")).items())]
    out += [_max_limit(kind, k, q, req, lim) for k, q in sorted(_list(item.get("max")).items())]
    ratios = sorted(_list(item.get("maxLimitRequestRatio")).items())
    out += [_ratio(kind, k, q, req, lim) for k, q in ratios]
    return out


def pod_validate(lr: Obj, pod: Obj) -> list[str]:
    """``PodValidateLimitFunc``: every violation, in order."""
    errs: list[str | None] = []
    spec = pod.get("spec") or {}
    for item in _items(lr):
        if item.get("type") == "Container":
            for c in [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]:
                res = c.get("resources") or {}
                errs += _bounds(
                    "Container", item, _list(res.get("requests")), _list(res.get("limits"))
                )
        if item.get("type") == "Pod":
            errs += _bounds("Pod", item, pod_requests(pod), pod_limits(pod))
    return [e for e in errs if e is not None]


def pvc_validate(lr: Obj, pvc: Obj) -> list[str]:
    """``PersistentVolumeClaimValidateLimitFunc``: min and max bound the requests only."""
    errs: list[str | None] = []
    requests = _list(((pvc.get("spec") or {}).get("resources") or {}).get("requests"))
    for item in _items(lr):
        if item.get("type") == "PersistentVolumeClaim":
            kind = "PersistentVolumeClaim"
            errs += [
                _min(kind, k, q, requests, {}) for k, q in sorted(_list(item.get("min")).items())
            ]
            errs += [
                _max_request(kind, k, q, requests)
                for k, q in sorted(_list(item.get("max")).items())
            ]
    return [e for e in errs if e is not None]


def _merge(c: Obj, limits: Obj, requests: Obj, what: str) -> list[str]:
    """``mergeContainerResources``: fill only what the container lacks."""
    res = c.get("resources")
    if not isinstance(res, dict):
        res = c["resources"] = {}
    notes = []
    for part, defaults, noun in (("requests", requests, "request"), ("limits", limits, "limit")):
        raw = res.get(part)
        have: Obj = raw if isinstance(raw, dict) else {}
        missing = sorted(k for k in defaults if k not in have)
        if missing:
            res[part] = {**have, **{k: defaults[k] for k in missing}}
            notes.append(f"{', '.join(missing)} {noun} for {what} {c.get('name', '')}")
    # The order upstream writes: requests first, then limits.
    return notes


def pod_mutate(lr: Obj, pod: Obj) -> None:
    """``PodMutateLimitFunc``: the Container item's defaults into every container."""
    limits: Obj = {}
    requests: Obj = {}
    for item in _items(lr):
        if item.get("type") == "Container":
            requests.update(item.get("defaultRequest") or {})
            limits.update(item.get("default") or {})
    spec = pod.setdefault("spec", {})
    notes: list[str] = []
    for c in spec.get("containers") or []:
        notes += _merge(c, limits, requests, "container")
    for c in spec.get("initContainers") or []:
        notes += _merge(c, limits, requests, "init container")
    if notes:
        meta = pod.setdefault("metadata", {})
        meta["annotations"] = {**(meta.get("annotations") or {}),
                               ANNOTATION: "LimitRanger plugin set: " + "; ".join(notes)}  # fmt: skip


class LimitRanger:
    """Default container resources from, and hold pods and claims to, LimitRanges."""

    name = "LimitRanger"

    @staticmethod
    def _applies(op: Operation, info: ResourceInfo, old: Obj | None, ctx: Context) -> bool:
        """``SupportsAttributes``, and objects being deleted are never held back."""
        if old is not None and (old.get("metadata") or {}).get("deletionTimestamp"):
            return False
        if ctx.subresource == "resize":
            return info.kind == "Pod" and op is Operation.UPDATE
        if ctx.subresource or (info.kind == "Pod" and op is Operation.UPDATE):
            return False
        return info.kind in ("Pod", "PersistentVolumeClaim") and op is not Operation.DELETE

    @staticmethod
    def _ranges(obj: Obj, ctx: Context) -> list[Obj]:
        return ctx.list("v1", "LimitRange", (obj.get("metadata") or {}).get("namespace"))

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Default pod resources on create and on pods/resize."""
        if info.kind != "Pod" or not self._applies(op, info, old, ctx):
            return
        for lr in self._ranges(obj, ctx):
            pod_mutate(lr, obj)

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Forbidden at the first LimitRange the object violates."""
        if not self._applies(op, info, old, ctx):
            return []
        check = pod_validate if info.kind == "Pod" else pvc_validate
        for lr in self._ranges(obj, ctx):
            errs = list(dict.fromkeys(check(lr, obj)))  # the aggregate drops repeats
            if errs:
                meta = obj.get("metadata") or {}
                name = meta.get("name") or meta.get("generateName") or "Unknown"
                why = errs[0] if len(errs) == 1 else f"[{', '.join(errs)}]"
                raise Forbidden(f'{info.group_resource} "{name}" is forbidden: {why}')
        return []


def install(server: APIServer) -> None:
    """Enable the plugin (it is on by default in kube-apiserver, before Priority)."""
    server.admission.append(LimitRanger())
