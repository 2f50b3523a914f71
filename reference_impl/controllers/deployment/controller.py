"""The Deployment controller (``pkg/controller/deployment/deployment_controller.go``, ``sync.go``).

One ReplicaSet per pod-template hash. Each sync claims the Deployment's ReplicaSets,
then either scales them proportionally (a scaling event or a paused Deployment) or rolls
out with the RollingUpdate or Recreate strategy, and finally writes status.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.controllers.controller_utils import (
    claim_objects,
    controller_ref,
    fresh_owner,
    owner_reference,
    recheck_deletion_timestamp,
    sorted_by_key,
)
from reference_impl.controllers.deployment import progress, recreate, rollback, rolling, sync
from reference_impl.controllers.deployment.util import (
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    REVISION,
    TEMPLATE_HASH_LABEL,
    by_creation,
    compute_hash,
    condition_of,
    equal_ignore_hash,
    generate_replica_set_name,
    is_rolling,
    max_surge,
    revision,
    set_new_rs_annotations,
)
from reference_impl.errors import AlreadyExists, ApiError, Conflict

__all__ = ["DeploymentController"]

Obj = dict[str, Any]
# maxRetries: a deployment whose sync failed this often is dropped out of the queue.
MAX_RETRIES: Final = 15


class DeploymentController:
    """Reconciles Deployments into ReplicaSets."""

    name: Final = "deployment-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self.ctx = ctx
        self.server = ctx.server
        self.queue = WorkQueue(ctx.clock, self._sync, name=self.name, max_retries=MAX_RETRIES,
                               rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._deps: SharedInformer | None = None
        self._rss: SharedInformer | None = None
        self.pods: SharedInformer | None = None

    def start(self) -> None:
        """Register Deployment, ReplicaSet and Pod informers; queue every Deployment."""
        self._deps = self.ctx.informers.informer("apps/v1", "Deployment")
        self._rss = self.ctx.informers.informer("apps/v1", "ReplicaSet")
        self.pods = self.ctx.informers.informer("v1", "Pod")
        self._deps.add_handler(lambda ev: self.queue.add(object_key(ev.obj)))
        self._rss.add_handler(self._on_rs)
        self.pods.add_handler(self._on_pod)
        for d in self._deps.items():
            self.queue.add(object_key(d))

    def _on_rs(self, ev: ObjectEvent) -> None:
        """``addReplicaSet`` / ``updateReplicaSet`` / ``deleteReplicaSet``: wake the owner
        (and a previous owner); an orphan wakes every matching Deployment when it appears
        or its labels or controller changed, and nobody when it is deleted."""
        rs, old = ev.obj, ev.old
        ref = controller_ref(rs)
        if ev.type == "MODIFIED" and old is not None:
            old_ref = controller_ref(old)
            changed = (old_ref or {}).get("uid") != (ref or {}).get("uid")
            if changed and old_ref is not None:
                self._enqueue_owner(rs, old_ref)
            if ref is not None:
                self._enqueue_owner(rs, ref)
            elif changed or rs["metadata"].get("labels") != old["metadata"].get("labels"):
                self._enqueue_matching(rs)
            return
        if ref is not None:
            self._enqueue_owner(rs, ref)
        elif ev.type == "ADDED" and not rs["metadata"].get("deletionTimestamp"):
            self._enqueue_matching(rs)

    def _enqueue_owner(self, rs: Obj, ref: Obj) -> None:
        """``resolveControllerRef``: the Deployment of that name and UID, if any."""
        if ref.get("kind") != "Deployment":
            return
        assert self._deps is not None
        key = f"{rs['metadata'].get('namespace')}/{ref['name']}"
        d = self._deps.get(key)
        if d is not None and d["metadata"].get("uid") == ref.get("uid"):
            self.queue.add(key)

    def _enqueue_matching(self, rs: Obj) -> None:
        """``getDeploymentsForReplicaSet``: Deployments whose non-empty selector matches."""
        assert self._deps is not None
        labels = rs["metadata"].get("labels")
        if not labels:
            return
        for d in sorted_by_key(self._deps.items()):
            sel = d["spec"].get("selector") or {}
            if (
                d["metadata"].get("namespace") == rs["metadata"].get("namespace")
                and sel
                and selector_from_label_selector(sel).matches(labels)
            ):
                self.queue.add(object_key(d))

    def _on_pod(self, ev: ObjectEvent) -> None:
        """``deletePod``: a Recreate Deployment waits for old pods to be gone."""
        if ev.type != "DELETED":
            return
        ref = controller_ref(ev.obj)
        if ref is None or ref.get("kind") != "ReplicaSet":
            return
        assert self._rss is not None
        rs = self._rss.get(f"{ev.obj['metadata'].get('namespace')}/{ref['name']}")
        owner = controller_ref(rs) if rs else None
        if rs is None or owner is None or owner.get("kind") != "Deployment":
            return
        assert self._deps is not None
        key = f"{rs['metadata'].get('namespace')}/{owner['name']}"
        d = self._deps.get(key)
        if d is not None and not is_rolling(d):
            self.queue.add(key)

    # -- sync (syncDeployment) ------------------------------------------------------------

    def _sync(self, key: str) -> None:
        assert self._deps is not None
        cached = self._deps.get(key)
        if cached is None:
            return
        d = copy.deepcopy(cached)
        if not (d["spec"].get("selector") or {}):
            # An empty selector would select every pod: refuse, but observe the generation.
            generation = int(d["metadata"].get("generation", 0))
            if int((d.get("status") or {}).get("observedGeneration", 0)) < generation:
                status = {**(d.get("status") or {}), "observedGeneration": generation}
                self.server.update_status({**d, "status": status})
            return
        rs_list = self._claim_replica_sets(d)
        if d["metadata"].get("deletionTimestamp"):
            new_rs, old = self.get_all_replica_sets(d, rs_list, create=False)
            sync.sync_deployment_status(self, d, old + ([new_rs] if new_rs else []), new_rs)
            return
        paused = progress.paused_status(d, self.ctx.clock.now())
        if paused is not None:
            _replace(d, self.server.update_status({**d, "status": paused}))
        if d["spec"].get("paused"):
            sync.sync(self, d, rs_list)
        elif rollback.get_rollback_to(d) is not None:
            # Not re-entrant: no ReplicaSet changes until the annotation is cleared.
            rollback.rollback(self, d, rs_list)
        elif sync.is_scaling_event(self, d, rs_list):
            sync.sync(self, d, rs_list)
        elif is_rolling(d):
            rolling.rollout_rolling(self, d, rs_list)
        else:
            recreate.rollout_recreate(self, d, rs_list)

    def _claim_replica_sets(self, d: Obj) -> list[Obj]:
        """``getReplicaSetsForDeployment``: ``claim_objects`` over private copies of the
        cached sets."""
        assert self._rss is not None
        return claim_objects(
            d,
            (copy.deepcopy(rs) for rs in sorted_by_key(self._rss.items())
             if rs["metadata"].get("namespace") == d["metadata"].get("namespace")),
            lambda rs: self._adopt(d, rs),
            lambda rs: self._release(d, rs),
            can_adopt=recheck_deletion_timestamp(fresh_owner(self.server, d)),
        )

    def _adopt(self, d: Obj, rs: Obj) -> Obj:
        refs = [*(rs["metadata"].get("ownerReferences") or []), owner_reference(d)]
        rs["metadata"]["ownerReferences"] = refs
        self.ctx.trace.record(self.name, "adopt", f"ReplicaSet/{object_key(rs)}", object_key(d))
        return self.server.update(rs)

    def _release(self, d: Obj, rs: Obj) -> None:
        uid = d["metadata"]["uid"]
        refs = [r for r in rs["metadata"].get("ownerReferences") or [] if r.get("uid") != uid]
        rs["metadata"]["ownerReferences"] = refs
        if not refs:
            rs["metadata"].pop("ownerReferences")
        self.ctx.trace.record(self.name, "release", f"ReplicaSet/{object_key(rs)}", object_key(d))
        self.server.update(rs)

    # -- replica sets (getAllReplicaSetsAndSyncRevision) ----------------------------------

    def get_all_replica_sets(
        self, d: Obj, rs_list: list[Obj], create: bool
    ) -> tuple[Obj | None, list[Obj]]:
        """(newRS, oldRSs); creates the new ReplicaSet when ``create`` and it is missing."""
        template = d["spec"].get("template") or {}
        matches = sorted(
            (rs for rs in rs_list if equal_ignore_hash(rs["spec"].get("template") or {}, template)),
            key=by_creation,
        )
        new_rs = matches[0] if matches else None
        old = sorted((rs for rs in rs_list if rs is not new_rs), key=by_creation)
        new_revision = max((revision(rs) for rs in old), default=0) + 1
        if new_rs is not None:
            min_ready = int(d["spec"].get("minReadySeconds", 0))
            changed = set_new_rs_annotations(d, new_rs, str(new_revision), exists=True)
            if changed or int(new_rs["spec"].get("minReadySeconds", 0)) != min_ready:
                # Sync the set first; the Deployment follows on the next sync.
                new_rs["spec"]["minReadySeconds"] = min_ready
                _replace(new_rs, self.server.update(new_rs))
                return new_rs, old
            if progress.has_progress_deadline(d) and not condition_of(
                d.get("status") or {}, "Progressing"
            ):
                # The first time this controller notices the new set (getNewReplicaSet).
                msg = f'Found new replica set "{new_rs["metadata"]["name"]}"'
                sync.set_progressing(self, d, "FoundNewReplicaSet", msg)
        elif create:
            new_rs = self._create_new_rs(d, old, new_revision)
        if new_rs is not None:
            self._sync_revision(d, str(revision(new_rs)))
        return new_rs, old

    def _annotations_stale(self, d: Obj, rs: Obj) -> bool:
        ann = rs["metadata"].get("annotations") or {}
        return ann.get(DESIRED_REPLICAS) != str(d["spec"].get("replicas", 1)) or ann.get(
            MAX_REPLICAS
        ) != str(int(d["spec"].get("replicas", 1)) + max_surge(d))

    def _annotate(self, d: Obj, rs: Obj) -> None:
        """``SetReplicasAnnotations``."""
        ann = rs["metadata"].setdefault("annotations", {})
        replicas = int(d["spec"].get("replicas", 1))
        ann[DESIRED_REPLICAS] = str(replicas)
        ann[MAX_REPLICAS] = str(replicas + max_surge(d))

    def _sync_revision(self, d: Obj, rev: str) -> None:
        ann = d["metadata"].get("annotations") or {}
        if ann.get(REVISION) == rev:
            return
        d["metadata"]["annotations"] = {**ann, REVISION: rev}
        # Upstream writes the annotation and the in-memory conditions in one UpdateStatus:
        # a Deployment's status write keeps the body's annotations and, unlike a spec
        # write with a changed annotation, bumps no generation.
        status = d.get("status")
        _replace(d, self.server.update_status(d))
        if status is not None:
            d["status"] = status

    def _create_new_rs(self, d: Obj, old: list[Obj], rev: int) -> Obj:
        collisions = (d.get("status") or {}).get("collisionCount")
        template = copy.deepcopy(d["spec"].get("template") or {})
        h = compute_hash(template, collisions)
        template.setdefault("metadata", {}).setdefault("labels", {})[TEMPLATE_HASH_LABEL] = h
        selector = copy.deepcopy(d["spec"]["selector"])
        selector.setdefault("matchLabels", {})[TEMPLATE_HASH_LABEL] = h
        name = d["metadata"]["name"]
        rs: Obj = {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": generate_replica_set_name(name, h),
                "namespace": d["metadata"].get("namespace"),
                "labels": dict(template["metadata"]["labels"]),
                "ownerReferences": [owner_reference(d)],
            },
            "spec": {
                "replicas": rolling.new_rs_new_replicas(d, old, None),
                "minReadySeconds": int(d["spec"].get("minReadySeconds", 0)),
                "selector": selector,
                "template": template,
            },
        }
        set_new_rs_annotations(d, rs, str(rev), exists=False)
        try:
            created = self.server.create(rs)
        except AlreadyExists:
            return self._on_collision(d, rs)
        except ApiError as exc:
            if progress.has_progress_deadline(d):
                msg = f'Failed to create new replica set "{rs["metadata"]["name"]}": {exc}'
                sync.set_progressing(self, d, "ReplicaSetCreateError", msg, status="False")
                try:
                    self.server.update_status(d)
                except ApiError:
                    pass  # the create error is the one to report
            raise
        self.ctx.trace.record(self.name, "create-rs", object_key(created), str(rev))
        if progress.has_progress_deadline(d):
            msg = f'Created new replica set "{created["metadata"]["name"]}"'
            sync.set_progressing(self, d, "NewReplicaSetCreated", msg)
        return created

    def _on_collision(self, d: Obj, rs: Obj) -> Obj:
        existing = self.server.get(
            "apps/v1", "ReplicaSet", rs["metadata"]["name"], rs["metadata"]["namespace"]
        )
        ref = controller_ref(existing)
        same = equal_ignore_hash(existing["spec"].get("template") or {}, d["spec"]["template"])
        if ref is not None and ref.get("uid") == d["metadata"]["uid"] and same:
            return existing
        status = dict(d.get("status") or {})
        status["collisionCount"] = int(status.get("collisionCount", 0)) + 1
        self.server.update_status({**d, "status": status})
        raise Conflict(f"hash collision for ReplicaSet {rs['metadata']['name']}; retrying")

    def scale_replica_set(self, rs: Obj, size: int, d: Obj, force: bool = False) -> bool:
        """``scaleReplicaSet``: set spec.replicas and the replica annotations; True when the
        size changed. Without ``force`` an unchanged size writes nothing."""
        scaled = int(rs["spec"].get("replicas", 0)) != size
        if not scaled and (not force or not self._annotations_stale(d, rs)):
            return False
        rs["spec"]["replicas"] = size
        self._annotate(d, rs)
        self.ctx.trace.record(self.name, "scale-rs", object_key(rs), str(size))
        _replace(rs, self.server.update(rs))
        return scaled

    def owned_pods(self, rs: Obj) -> list[Obj]:
        """Pods controlled by ``rs``, from the informer."""
        assert self.pods is not None
        uid = rs["metadata"]["uid"]
        return [p for p in self.pods.items() if (controller_ref(p) or {}).get("uid") == uid]


def _replace(target: Obj, new: Obj) -> None:
    # Keep list identity (callers hold these dicts) while taking the stored version.
    target.clear()
    target.update(new)
