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
from reference_impl.controllers.controller_utils import controller_ref, owner_reference
from reference_impl.controllers.deployment import recreate, rolling, sync
from reference_impl.controllers.deployment.util import (
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    REVISION,
    TEMPLATE_HASH_LABEL,
    by_creation,
    compute_hash,
    equal_ignore_hash,
    is_rolling,
    max_surge,
    revision,
)
from reference_impl.errors import AlreadyExists, Conflict

__all__ = ["DeploymentController"]

Obj = dict[str, Any]


class DeploymentController:
    """Reconciles Deployments into ReplicaSets."""

    name: Final = "deployment-controller"  # kube-controller-manager's name

    def __init__(self, ctx: ComponentContext) -> None:
        self.ctx = ctx
        self.server = ctx.server
        self.queue = WorkQueue(ctx.clock, self._sync, name=self.name)
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
        ref = controller_ref(ev.obj)
        ns = ev.obj["metadata"].get("namespace")
        if ref is not None:
            if ref.get("kind") == "Deployment":
                self.queue.add(f"{ns}/{ref['name']}")
            return
        assert self._deps is not None
        for d in self._deps.items():
            if d["metadata"].get("namespace") == ns and selector_from_label_selector(
                d["spec"].get("selector")
            ).matches(ev.obj["metadata"].get("labels")):
                self.queue.add(object_key(d))

    def _on_pod(self, ev: ObjectEvent) -> None:
        # Recreate waits for old pods to be gone; only deletions matter to it.
        if ev.type != "DELETED":
            return
        ref = controller_ref(ev.obj)
        if ref is None or ref.get("kind") != "ReplicaSet":
            return
        assert self._rss is not None
        rs = self._rss.get(f"{ev.obj['metadata'].get('namespace')}/{ref['name']}")
        owner = controller_ref(rs) if rs else None
        if rs is not None and owner is not None and owner.get("kind") == "Deployment":
            self.queue.add(f"{rs['metadata'].get('namespace')}/{owner['name']}")

    # -- sync (syncDeployment) ------------------------------------------------------------

    def _sync(self, key: str) -> None:
        assert self._deps is not None
        cached = self._deps.get(key)
        if cached is None:
            return
        d = copy.deepcopy(cached)
        if not (d["spec"].get("selector") or {}):
            return  # an empty selector would select every pod; upstream refuses too
        rs_list = self._claim_replica_sets(d)
        if d["metadata"].get("deletionTimestamp"):
            new_rs, old = self.get_all_replica_sets(d, rs_list, create=False)
            sync.sync_deployment_status(self, d, old + ([new_rs] if new_rs else []), new_rs)
            return
        if d["spec"].get("paused") or sync.is_scaling_event(self, d, rs_list):
            sync.sync(self, d, rs_list)
        elif is_rolling(d):
            rolling.rollout_rolling(self, d, rs_list)
        else:
            recreate.rollout_recreate(self, d, rs_list)

    def _claim_replica_sets(self, d: Obj) -> list[Obj]:
        assert self._rss is not None
        ns, uid = d["metadata"].get("namespace"), d["metadata"]["uid"]
        sel = selector_from_label_selector(d["spec"].get("selector"))
        out = []
        for rs in self._rss.items():
            if rs["metadata"].get("namespace") != ns:
                continue
            ref = controller_ref(rs)
            if ref is not None and ref.get("uid") == uid:
                out.append(copy.deepcopy(rs))
            elif ref is None and sel.matches(rs["metadata"].get("labels")):
                if not d["metadata"].get("deletionTimestamp"):
                    out.append(self._adopt(d, copy.deepcopy(rs)))
        return out

    def _adopt(self, d: Obj, rs: Obj) -> Obj:
        refs = [*(rs["metadata"].get("ownerReferences") or []), owner_reference(d)]
        rs["metadata"]["ownerReferences"] = refs
        self.ctx.trace.record(self.name, "adopt", f"ReplicaSet/{object_key(rs)}", object_key(d))
        return self.server.update(rs)

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
            if revision(new_rs) < new_revision or self._annotations_stale(d, new_rs):
                self._annotate(d, new_rs, max(revision(new_rs), new_revision))
                _replace(new_rs, self.server.update(new_rs))
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

    def _annotate(self, d: Obj, rs: Obj, rev: int | None = None) -> None:
        ann = rs["metadata"].setdefault("annotations", {})
        replicas = int(d["spec"].get("replicas", 1))
        ann[DESIRED_REPLICAS] = str(replicas)
        ann[MAX_REPLICAS] = str(replicas + max_surge(d))
        if rev is not None:
            ann[REVISION] = str(rev)

    def _sync_revision(self, d: Obj, rev: str) -> None:
        ann = d["metadata"].get("annotations") or {}
        if ann.get(REVISION) == rev:
            return
        d["metadata"]["annotations"] = {**ann, REVISION: rev}
        _replace(d, self.server.update(d))

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
                "name": f"{name}-{h}",
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
        self._annotate(d, rs, rev)
        try:
            created = self.server.create(rs)
        except AlreadyExists:
            return self._on_collision(d, rs)
        self.ctx.trace.record(self.name, "create-rs", object_key(created), str(rev))
        sync.set_progressing(
            self,
            d,
            "NewReplicaSetCreated",
            f'Created new replica set "{created["metadata"]["name"]}"',
        )
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

    def scale_replica_set(self, rs: Obj, size: int, d: Obj) -> bool:
        """Set spec.replicas and the replica annotations; True when the size changed."""
        scaled = int(rs["spec"].get("replicas", 0)) != size
        if not scaled and not self._annotations_stale(d, rs):
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
