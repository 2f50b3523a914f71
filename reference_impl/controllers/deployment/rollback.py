"""Rolling a Deployment back (``pkg/controller/deployment/rollback.go``).

The deprecated ``deprecated.deployment.rollback.to`` annotation (extensions/v1beta1's
``spec.rollbackTo``, still honoured) names a revision, 0 meaning the one before the
current; the Deployment takes that ReplicaSet's template and annotations, and the
annotation is cleared. Until then no ReplicaSet is touched, so a rollback is never
re-entered with revisions that moved under it.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Final

from reference_impl.controllers.deployment.util import (
    SKIP_COPY_ANNOTATIONS,
    TEMPLATE_HASH_LABEL,
    equal_ignore_hash,
    parse_int64,
    parse_revision,
)

if TYPE_CHECKING:
    from reference_impl.controllers.deployment.controller import DeploymentController

__all__ = ["ROLLBACK_TO", "get_rollback_to", "last_revision", "rollback"]

Obj = dict[str, Any]
ROLLBACK_TO: Final = "deprecated.deployment.rollback.to"  # apps.DeprecatedRollbackTo


def get_rollback_to(d: Obj) -> int | None:
    """``getRollbackTo``: the revision asked for, None when absent or not an integer."""
    value = (d["metadata"].get("annotations") or {}).get(ROLLBACK_TO)
    if not value:
        return None
    return parse_int64(str(value))  # strconv.ParseInt(revision, 10, 64); invalid is ignored


def last_revision(rss: list[Obj]) -> int:
    """``LastRevision``: the second-highest revision (sets with a bad one skipped)."""
    top = second = 0
    for rs in rss:
        v = parse_revision(rs)
        if v is None:
            continue
        if v >= top:
            top, second = v, top
        elif v > second:
            second = v
    return second


def rollback(dc: DeploymentController, d: Obj, rs_list: list[Obj]) -> None:
    """``rollback``: find the ReplicaSet of the wanted revision and roll back to it;
    either way clear the annotation."""
    new_rs, old = dc.get_all_replica_sets(d, rs_list, create=True)
    all_rss = [*old, *([new_rs] if new_rs is not None else [])]
    target = get_rollback_to(d) or 0
    if target == 0:
        target = last_revision(all_rss)
        if target == 0:
            _event(dc, d, "DeploymentRollbackRevisionNotFound", "Unable to find last revision.")
            _update_and_clear(dc, d)
            return
    for rs in all_rss:
        if parse_revision(rs) == target:
            if _rollback_to_template(dc, d, rs):
                _event(dc, d, "DeploymentRollback",
                       f'Rolled back deployment "{d["metadata"]["name"]}" to revision {target}')
            return
    _event(dc, d, "DeploymentRollbackRevisionNotFound", "Unable to find the revision to rollback to.")
    _update_and_clear(dc, d)


def _rollback_to_template(dc: DeploymentController, d: Obj, rs: Obj) -> bool:
    """``rollbackToTemplate``: copy the set's template (less its hash label) and
    annotations unless the template is already the same; True when rolled back."""
    template = rs["spec"].get("template") or {}
    performed = not equal_ignore_hash(d["spec"].get("template") or {}, template)
    if performed:
        t = copy.deepcopy(template)  # SetFromReplicaSetTemplate
        labels = (t.get("metadata") or {}).get("labels")
        if labels is not None:
            labels.pop(TEMPLATE_HASH_LABEL, None)
        d["spec"]["template"] = t
        # SetDeploymentAnnotationsTo: keep only the skipped keys, then take the set's others
        skip = SKIP_COPY_ANNOTATIONS
        ann = {k: v for k, v in (d["metadata"].get("annotations") or {}).items() if k in skip}
        ann |= {k: v for k, v in (rs["metadata"].get("annotations") or {}).items() if k not in skip}
        d["metadata"]["annotations"] = ann
    else:
        name = d["metadata"]["name"]
        msg = f'The rollback revision contains the same template as current deployment "{name}"'
        _event(dc, d, "DeploymentRollbackTemplateUnchanged", msg)
    _update_and_clear(dc, d)
    return performed


def _update_and_clear(dc: DeploymentController, d: Obj) -> None:
    """``updateDeploymentAndClearRollbackTo``."""
    ann = dict(d["metadata"].get("annotations") or {})
    ann.pop(ROLLBACK_TO, None)
    d["metadata"]["annotations"] = ann
    dc.server.update(d)


def _event(dc: DeploymentController, d: Obj, reason: str, message: str) -> None:
    who = f"Deployment/{d['metadata']['name']}"
    dc.ctx.trace.record(dc.name, "event", who, f"{reason} {message}")
