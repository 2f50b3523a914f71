"""The pods/eviction subresource (``pkg/registry/core/pod/storage/eviction.go``).

An Eviction (policy/v1) deletes a pod the way its PodDisruptionBudget allows:

- a pod that is Pending, Succeeded, Failed or already terminating is deleted without
  consulting any budget (``canIgnorePDB``);
- more than one budget selecting the pod is an InternalError (500) that deletes nothing;
- a pod that is not Ready passes when its budget's ``unhealthyPodEvictionPolicy`` is
  AlwaysAllow, or when the budget is healthy enough (currentHealthy >= desiredHealthy > 0);
- otherwise the budget decides (``checkAndDecrement``): 429 TooManyRequests while the
  disruption controller has not observed its generation, 403 (``poddisruptionbudget.policy``,
  with a DisruptionBudget cause) when disruptionsAllowed is negative or disruptedPods
  holds more than 2,000 unconfirmed evictions, 429 with the
  budget's reason when it allows none now; else disruptionsAllowed is decremented, the pod
  recorded in ``disruptedPods`` at the current time, and the status written;
- the pod then gets the ``DisruptionTarget`` condition (EvictionByEvictionAPI) and is
  deleted with the Eviction's deleteOptions (its own grace period unless they set one);
  a dryRun from the request fills the Eviction's (``propagateDryRun``), and a dry run
  writes neither the budget nor the pod.

The reference commits one request at a time, so upstream's conflict retries and its
resourceVersion precondition between read and delete cannot fail here; a precondition the
caller gives is still checked.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.meta import condition, selector_from_label_selector, set_condition
from reference_impl.apiserver import deletion
from reference_impl.apiserver.admission.chain import Request
from reference_impl.apiserver.delete_options import check_preconditions
from reference_impl.apiserver.registry import Operation
from reference_impl.apiserver.warnings.recorder import header_texts
from reference_impl.clock import rfc3339
from reference_impl.errors import (
    ApiError,
    BadRequest,
    Cause,
    Forbidden,
    Invalid,
    NotFound,
    TooManyRequests,
)

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["MAX_DISRUPTED_POD_SIZE", "evict"]

Obj = dict[str, Any]
MAX_DISRUPTED_POD_SIZE: Final = 2000
_PDB: Final = "policy/v1"
_CAUSE: Final = "DisruptionBudget"  # policyv1.DisruptionBudgetCause
_VIOLATES: Final = "Cannot evict pod as it would violate the pod's disruption budget."


def _can_ignore_pdb(pod: Obj) -> bool:
    phase = (pod.get("status") or {}).get("phase")
    return phase in ("Succeeded", "Failed", "Pending") or bool(pod["metadata"].get("deletionTimestamp"))


def _ready(pod: Obj) -> bool:
    return (condition(pod, "Ready") or {}).get("status") == "True"


def _budgets(srv: APIServer, pod: Obj) -> list[Obj]:
    labels = pod["metadata"].get("labels") or {}
    out = []
    for pdb in srv.list(_PDB, "PodDisruptionBudget", pod["metadata"].get("namespace")):
        sel = (pdb.get("spec") or {}).get("selector")
        try:
            if sel is not None and selector_from_label_selector(sel).matches(labels):
                out.append(pdb)
        except (KeyError, ValueError):
            continue  # a selector that does not parse selects nothing, as upstream
    return out


def _still_processing(name: str) -> TooManyRequests:
    return TooManyRequests(_VIOLATES, [Cause("", _CAUSE, f"The disruption budget {name} is still being processed by the server.")], 10)  # fmt: skip


def _forbidden(name: str, err: str, why: str) -> Forbidden:
    """``errors.NewForbidden(policy.Resource("poddisruptionbudget"), ...)`` plus the budget's cause."""
    out = Forbidden(f'poddisruptionbudget.policy "{name}" is forbidden: {err}')
    out.causes = (Cause("", _CAUSE, f"The disruption budget {name} does not allow evicting pods currently: {why}"),)
    return out


def _refusal_message(pdb: Obj) -> str:
    name, st = pdb["metadata"]["name"], pdb.get("status") or {}
    cond = next((c for c in st.get("conditions") or [] if c.get("type") == "DisruptionAllowed"), None)
    failed = cond is not None and cond.get("status") == "False" and cond.get("message")
    if failed and cond.get("reason") == "SyncFailed":  # type: ignore[union-attr]
        return f"The disruption budget {name} does not allow evicting pods currently because it failed sync: {cond['message']}"  # type: ignore[index]  # fmt: skip
    healthy, desired = int(st.get("currentHealthy") or 0), int(st.get("desiredHealthy") or 0)
    if healthy <= desired:
        return f"The disruption budget {name} needs {desired} healthy pods and has {healthy} currently"
    if failed:
        return f"The disruption budget {name} does not allow evicting pods currently ({cond['reason']}): {cond['message']}"  # type: ignore[index]  # fmt: skip
    return f"The disruption budget {name} does not allow evicting pods currently"


def _check_and_decrement(srv: APIServer, pod_name: str, pdb: Obj, dry_run: bool) -> None:
    name, st = pdb["metadata"]["name"], dict(pdb.get("status") or {})
    if int(st.get("observedGeneration") or 0) < int(pdb["metadata"].get("generation") or 1):
        raise _still_processing(name)
    allowed = int(st.get("disruptionsAllowed") or 0)
    if allowed < 0:
        raise _forbidden(name, "pdb disruptions allowed is negative", "pdb disruptions allowed is negative")
    if len(st.get("disruptedPods") or {}) > MAX_DISRUPTED_POD_SIZE:
        raise _forbidden(name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller",
                         "too many pending evictions not confirmed by PDB controller")  # fmt: skip
    if allowed == 0:
        raise TooManyRequests(_VIOLATES, [Cause("", _CAUSE, _refusal_message(pdb))])
    st["disruptionsAllowed"] = allowed - 1
    now = rfc3339(srv.clock.now())
    if allowed - 1 == 0:  # UpdateDisruptionAllowedCondition
        st["conditions"] = [dict(c) for c in st.get("conditions") or []]
        set_condition(st, {"type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods",
                           "message": "", "observedGeneration": int(st.get("observedGeneration") or 0)}, now)  # fmt: skip
    if dry_run:
        return
    st["disruptedPods"] = {**(st.get("disruptedPods") or {}), pod_name: now}
    srv.update_status({**pdb, "status": st})


def _delete_options(eviction: Obj, request_dry_run: list[str] | None) -> tuple[int | None, str | None, str | None, bool]:
    opts = eviction.get("deleteOptions") or {}
    if not isinstance(opts, dict):
        raise BadRequest("deleteOptions: must be an object")
    if opts.get("ignoreStoreReadErrorWithClusterBreakingPotential"):
        raise Invalid("Eviction", str(eviction["metadata"]["name"]), [Cause(
            "deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential", "FieldValueInvalid",
            "Invalid value: true: can not be set for pod eviction, try after removing the option")])  # fmt: skip
    # propagateDryRun: the request's dryRun fills an empty one; two must agree.
    dry_run = list(opts.get("dryRun") or [])
    if request_dry_run and dry_run and request_dry_run != dry_run:
        raise ApiError(f"Non-matching dry-run options in request and content: {_go_list(request_dry_run)} and "
                       f"{_go_list(dry_run)}")  # fmt: skip
    dry_run = dry_run or list(request_dry_run or [])
    pre = opts.get("preconditions") or {}
    grace = opts.get("gracePeriodSeconds")
    return (None if grace is None else int(grace), pre.get("uid"), pre.get("resourceVersion"),
            "All" in dry_run)  # fmt: skip


def _go_list(items: list[str]) -> str:
    return "[" + " ".join(items) + "]"


def _add_condition_and_delete(srv: APIServer, pod: Obj, grace: int | None, uid: str | None,
                              rv: str | None, dry_run: bool) -> None:  # fmt: skip
    meta = pod["metadata"]
    check_preconditions("Pod", "", pod, uid or None, rv or None)  # rest.BeforeDelete's
    if dry_run:
        return
    status = dict(pod.get("status") or {})
    status["conditions"] = [dict(c) for c in status.get("conditions") or []]
    set_condition(status, {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
                           "message": "Eviction API: evicting"}, rfc3339(srv.clock.now()))  # fmt: skip
    srv.update_status({**pod, "status": status})
    # The store's Delete with rest.ValidateAllObjectFunc: no admission on the pod's delete
    # (the Eviction's own CREATE was admitted), and no delete warnings.
    deletion.delete(srv, "v1", "Pod", meta["name"], meta.get("namespace"), grace, None,
                    meta.get("uid"), admit=False)  # fmt: skip


def evict(srv: APIServer, namespace: str, name: str, eviction: Obj, dry_run: list[str] | None = None) -> Obj:
    """``APIServer.evict``: POST pods/{name}/eviction; a Success Status, or the API error.
    ``dry_run`` is the request's own dryRun option (``CreateOptions``). ``srv.warnings``
    ends as admission's warnings of the Eviction: EvictionREST deletes through the store,
    so the pod's delete adds none (and policy/v1 Eviction is not deprecated)."""
    srv.warnings = []
    group, _, version = str(eviction.get("apiVersion", _PDB)).partition("/")
    req = Request(srv, "eviction", (group, version, "Eviction"))
    try:
        return _evict(srv, namespace, name, eviction, dry_run, req)
    finally:
        srv.warnings = header_texts(req.warnings) if req.warnings else []


def _evict(srv: APIServer, namespace: str, name: str, eviction: Obj, dry_run: list[str] | None,
           req: Request) -> Obj:  # fmt: skip
    meta = eviction.get("metadata") or {}
    if eviction.get("kind", "Eviction") != "Eviction" or eviction.get("apiVersion", _PDB) not in (_PDB, "policy/v1beta1"):
        raise BadRequest(f"not a Eviction object: {eviction.get('apiVersion')}/{eviction.get('kind')}")
    # create.go: the body takes the request's namespace, then mutating admission.
    eviction = {**eviction, "metadata": {**meta, "namespace": namespace}}
    pods = srv.resource("v1", "Pod")
    req.admit(Operation.CREATE, pods, eviction, None)
    meta = eviction.get("metadata") or {}
    if meta.get("name") != name:
        raise BadRequest("name in URL does not match name in Eviction object")
    grace, uid, rv, dry_run_all = _delete_options(eviction, dry_run)
    if causes := req.validate(Operation.CREATE, pods, copy.deepcopy(eviction), None):
        raise Invalid("Eviction.policy", name, causes)  # createValidation's
    pod = srv.try_get("v1", "Pod", name, namespace)
    if pod is None:
        raise NotFound(f'pods "{name}" not found')
    success: Obj = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
    if _can_ignore_pdb(pod):
        _add_condition_and_delete(srv, pod, grace, uid, rv, dry_run_all)
        return success
    pdbs = _budgets(srv, pod)
    if len(pdbs) > 1:
        raise ApiError("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.")
    if pdbs:
        pdb = pdbs[0]
        st = pdb.get("status") or {}
        unhealthy_ok = not _ready(pod) and (
            (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy") == "AlwaysAllow"
            or int(st.get("currentHealthy") or 0) >= int(st.get("desiredHealthy") or 0) > 0)  # fmt: skip
        if not unhealthy_ok:
            _check_and_decrement(srv, name, pdb, dry_run_all)
    _add_condition_and_delete(srv, pod, grace, uid, rv, dry_run_all)
    return success
