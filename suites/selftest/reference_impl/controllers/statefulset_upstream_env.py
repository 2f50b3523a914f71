"""The fixtures of upstream's statefulset tests (``stateful_set_utils_test.go``'s
builders, ``stateful_set_control_test.go``'s fakeObjectManager, fakeStatefulSetStatusUpdater
and requestTracker, ``history.NewFakeHistory``), as plain-dict objects around the
reference's ``StatefulPodControl`` and ``StatefulSetControl``."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reference_impl.api.meta import selector_from_label_selector
from reference_impl.clock import Instant, rfc3339
from reference_impl.controllers.controller_utils import controller_ref
from reference_impl.controllers.history import controller_revision_name, hash_controller_revision
from reference_impl.controllers.statefulset.control import StatefulSetControl
from reference_impl.controllers.statefulset.identity import (
    controller_ref_to,
    get_ordinal,
    new_stateful_set_pod,
)
from reference_impl.controllers.statefulset.pod_control import StatefulPodControl
from reference_impl.errors import AlreadyExists, ApiError, NotFound

Obj = dict[str, Any]


def new_pvc(name: str) -> Obj:
    """``newPVC``."""
    return {"metadata": {"namespace": "default", "name": name},
            "spec": {"resources": {"requests": {"storage": "1"}}}}  # fmt: skip


def new_stateful_set_with_volumes(replicas: int, name: str, pet_mounts: list[Obj], pod_mounts: list[Obj]) -> Obj:
    """``newStatefulSetWithVolumes``."""
    volumes = [{"name": m["name"], "hostPath": {"path": f"/tmp/{m['name']}"}} for m in pod_mounts]
    template = {
        "metadata": {"labels": {"foo": "bar"}},
        "spec": {
            "containers": [{"name": "nginx", "image": "nginx", "volumeMounts": pet_mounts + pod_mounts}],
            "volumes": volumes,
        },
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name, "namespace": "default", "uid": "test"},
        "spec": {
            "selector": {"matchLabels": {"foo": "bar"}},
            "replicas": replicas,
            "template": template,
            "volumeClaimTemplates": [new_pvc(m["name"]) for m in pet_mounts],
            "serviceName": "governingsvc",
            "updateStrategy": {"type": "RollingUpdate"},
            "persistentVolumeClaimRetentionPolicy": {"whenScaled": "Retain", "whenDeleted": "Retain"},
            "revisionHistoryLimit": 2,
        },
    }


def new_stateful_set(replicas: int) -> Obj:
    """``newStatefulSet``: "foo" with claim template "datadir" and a hostPath "home"."""
    return new_stateful_set_with_volumes(
        replicas, "foo", [{"name": "datadir", "mountPath": "/tmp/zookeeper"}],
        [{"name": "home", "mountPath": "/home"}],
    )  # fmt: skip


def new_stateful_set_with_labels(replicas: int, name: str, uid: str, labels: dict[str, str]) -> Obj:
    """``newStatefulSetWithLabels``: a set-based selector only."""
    ss = new_stateful_set_with_volumes(
        replicas, name, [{"name": "datadir", "mountPath": "/tmp/"}], [{"name": "home", "mountPath": "/home"}]
    )
    ss["metadata"]["uid"] = uid
    ss["spec"]["selector"] = {
        "matchExpressions": [{"key": k, "operator": "In", "values": [v]} for k, v in labels.items()]
    }
    ss["spec"]["template"]["metadata"]["labels"] = dict(labels)
    del ss["spec"]["updateStrategy"], ss["spec"]["revisionHistoryLimit"]
    return ss


def new_pod(ss: Mapping[str, Any], ordinal: int) -> Obj:
    """``newStatefulSetPod``."""
    return new_stateful_set_pod(ss, ordinal)


@dataclass
class RequestTracker:
    """``requestTracker``: fail the request numbered ``after`` (then reset)."""

    requests: int = 0
    err: ApiError | None = None
    after: int = 0

    def inc(self) -> None:
        self.requests += 1
        if self.err is not None and self.requests >= self.after:
            err, self.err, self.after = self.err, None, 0
            raise err


def _key(obj: Mapping[str, Any]) -> str:
    return f"{obj['metadata'].get('namespace') or ''}/{obj['metadata']['name']}"


@dataclass
class FakeObjectManager:
    """``fakeObjectManager`` (informer indexers as dicts). ``hooks`` (verb -> callable)
    stand in for fake-clientset reactors: they may raise or return a replacement."""

    pods: dict[str, Obj] = field(default_factory=dict)
    claims: dict[str, Obj] = field(default_factory=dict)
    create_tracker: RequestTracker = field(default_factory=RequestTracker)
    update_tracker: RequestTracker = field(default_factory=RequestTracker)
    delete_tracker: RequestTracker = field(default_factory=RequestTracker)
    hooks: dict[str, Callable[[Obj], None]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)

    def _hook(self, verb: str, obj: Obj) -> None:
        self.calls.append(f"{verb} {obj['metadata'].get('name')}")
        if verb in self.hooks:
            self.hooks[verb](obj)

    def create_pod(self, pod: Obj, ss: Mapping[str, Any]) -> None:
        self._hook("create-pod", pod)
        self.create_tracker.inc()
        pod["metadata"]["uid"] = f"{pod['metadata']['name']}-uid"
        self.pods[_key(pod)] = copy.deepcopy(pod)

    def get_pod(self, namespace: str, name: str) -> Obj:
        if f"{namespace}/{name}" not in self.pods:
            raise NotFound(f'pod "{name}" not found')
        return copy.deepcopy(self.pods[f"{namespace}/{name}"])

    def update_pod(self, pod: Obj, ss: Mapping[str, Any]) -> None:
        self._hook("update-pod", pod)
        self.update_tracker.inc()
        self.pods[_key(pod)] = copy.deepcopy(pod)

    def delete_pod(self, pod: Mapping[str, Any]) -> None:
        self._hook("delete-pod", dict(pod))
        self.delete_tracker.inc()
        self.pods.pop(_key(pod), None)

    def create_claim(self, claim: Obj, ss: Mapping[str, Any]) -> None:
        self._hook("create-claim", claim)
        self.claims[_key(claim)] = copy.deepcopy(claim)

    def get_claim(self, namespace: str, name: str) -> Obj:
        self._hook("get-claim", {"metadata": {"name": name, "namespace": namespace}})
        if f"{namespace}/{name}" not in self.claims:
            raise NotFound(f'persistentvolumeclaims "{name}" not found')
        return copy.deepcopy(self.claims[f"{namespace}/{name}"])

    def update_claim(self, claim: Obj, ss: Mapping[str, Any]) -> None:
        self._hook("update-claim", claim)
        for ref in claim["metadata"].get("ownerReferences") or []:
            if not ref.get("apiVersion") or not ref.get("kind") or not ref.get("name"):
                raise ApiError(f"invalid ownerRefs: {claim['metadata']['name']}")
        self.claims[_key(claim)] = copy.deepcopy(claim)

    # -- the test's pod state changes ----------------------------------------------------

    def list_pods(self, ss: Mapping[str, Any]) -> list[Obj]:
        sel = selector_from_label_selector(ss["spec"].get("selector"))
        ns = ss["metadata"].get("namespace")
        return [copy.deepcopy(p) for k, p in sorted(self.pods.items())
                if p["metadata"].get("namespace") == ns and sel.matches(p["metadata"].get("labels"))]  # fmt: skip

    def _pod(self, ss: Mapping[str, Any], ordinal: int) -> Obj:
        """``findPodByOrdinal`` over the set's pods (a copy)."""
        key = f"{ss['metadata'].get('namespace')}/{ss['metadata']['name']}-{ordinal}"
        if key in self.pods:
            return copy.deepcopy(self.pods[key])
        for pod in self.list_pods(ss):
            if get_ordinal(pod) == ordinal:
                return pod
        raise AssertionError(f"pod ordinal {ordinal} not found")

    def _store(self, pod: Obj) -> None:
        rv = int(pod["metadata"].get("resourceVersion") or 0) + 1  # fakeResourceVersion
        pod["metadata"]["resourceVersion"] = str(rv)
        self.pods[_key(pod)] = pod

    def set_phase(self, ss: Mapping[str, Any], ordinal: int, phase: str) -> list[Obj]:
        """``setPodPending`` / ``setPodRunning`` (and terminal phases)."""
        pod = self._pod(ss, ordinal)
        pod.setdefault("status", {})["phase"] = phase
        self._store(pod)
        return self.list_pods(ss)

    def set_ready(self, ss: Mapping[str, Any], ordinal: int, ready: bool, since: int = 0) -> list[Obj]:
        """``setPodReadyCondition``: a changed status moves lastTransitionTime."""
        pod = self._pod(ss, ordinal)
        status = pod.setdefault("status", {})
        cond = {"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": rfc3339(Instant(since))}
        conds = status.setdefault("conditions", [])
        old = next((c for c in conds if c.get("type") == "Ready"), None)
        if old is None:
            conds.append(cond)
        else:
            if old.get("status") == cond["status"]:
                cond["lastTransitionTime"] = old.get("lastTransitionTime")
            conds[conds.index(old)] = cond
        self._store(pod)
        return self.list_pods(ss)

    def set_available(self, ss: Mapping[str, Any], ordinal: int, since: int) -> list[Obj]:
        """``setPodAvailable``: Ready=True with the given lastTransitionTime."""
        pod = self._pod(ss, ordinal)
        conds = pod.setdefault("status", {}).setdefault("conditions", [])
        old = next((c for c in conds if c.get("type") == "Ready"), None)
        if old is None:
            conds.append({"type": "Ready", "status": "True", "lastTransitionTime": rfc3339(Instant(since))})
        else:
            old.update(status="True", lastTransitionTime=rfc3339(Instant(since)))
        self._store(pod)
        return self.list_pods(ss)

    def set_terminated(self, ss: Mapping[str, Any], ordinal: int) -> list[Obj]:
        """``setPodTerminated``: mark deletionTimestamp."""
        pod = self._pod(ss, ordinal)
        pod["metadata"]["deletionTimestamp"] = rfc3339(Instant(0))
        self._store(pod)
        return self.list_pods(ss)

    def add_terminating_pod(self, ss: Mapping[str, Any], ordinal: int) -> list[Obj]:
        """``addTerminatingPod``: a Running, Ready pod being deleted."""
        pod = new_pod(ss, ordinal)
        pod["metadata"]["uid"] = f"{pod['metadata']['name']}-uid"
        pod["status"] = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
        pod["metadata"]["deletionTimestamp"] = rfc3339(Instant(0))
        self._store(pod)
        return self.list_pods(ss)


@dataclass
class FakeStatusUpdater:
    """``fakeStatefulSetStatusUpdater``: stores the status on the set in ``sets``."""

    sets: dict[str, Obj]
    tracker: RequestTracker = field(default_factory=RequestTracker)

    def update_stateful_set_status(self, ss: Obj, status: Obj) -> None:
        self.tracker.inc()
        ss["status"] = copy.deepcopy(status)
        self.sets[_key(ss)] = ss


@dataclass
class FakeHistory:
    """``history.NewFakeHistory`` over a dict of revisions."""

    revisions: dict[str, Obj] = field(default_factory=dict)

    def list_controller_revisions(self, parent: Mapping[str, Any], selector: Mapping[str, Any] | None) -> list[Obj]:
        sel = selector_from_label_selector(selector)
        ns, uid = parent["metadata"].get("namespace"), parent["metadata"].get("uid")
        out = []
        for _, rev in sorted(self.revisions.items()):
            if rev["metadata"].get("namespace") != ns or not sel.matches(rev["metadata"].get("labels")):
                continue
            ref = controller_ref(rev)
            if ref is None or ref.get("uid") == uid:
                out.append(copy.deepcopy(rev))
        return out

    def create_controller_revision(self, parent: Mapping[str, Any], revision: Mapping[str, Any],
                                   collision_count: int) -> tuple[Obj, int]:  # fmt: skip
        clone: Obj = copy.deepcopy(dict(revision))
        clone["metadata"]["namespace"] = parent["metadata"].get("namespace")
        while True:
            clone["metadata"]["name"] = controller_revision_name(
                parent["metadata"]["name"], hash_controller_revision(revision, collision_count)
            )
            if _key(clone) in self.revisions:
                collision_count += 1
                continue
            self.revisions[_key(clone)] = copy.deepcopy(clone)
            return clone, collision_count

    def update_controller_revision(self, revision: Mapping[str, Any], new_revision: int) -> Obj:
        clone: Obj = copy.deepcopy(dict(revision))
        clone["revision"] = new_revision
        self.revisions[_key(clone)] = copy.deepcopy(clone)
        return clone

    def delete_controller_revision(self, revision: Mapping[str, Any]) -> None:
        if self.revisions.pop(_key(revision), None) is None:
            raise NotFound(f'controllerrevisions.apps "{revision["metadata"]["name"]}" not found')

    def adopt_controller_revision(self, parent: Mapping[str, Any], revision: Mapping[str, Any]) -> Obj:
        if (owner := controller_ref(revision)) is not None:
            raise ApiError(f"attempt to adopt revision owned by {owner}")
        if _key(revision) not in self.revisions:
            raise NotFound(f'controllerrevisions.apps "{revision["metadata"]["name"]}" not found')
        clone: Obj = copy.deepcopy(dict(revision))
        refs = clone["metadata"].setdefault("ownerReferences", [])
        refs.append(controller_ref_to(parent, "apps/v1", "StatefulSet"))
        self.revisions[_key(clone)] = copy.deepcopy(clone)
        return clone


@dataclass
class Recorder:
    """``record.FakeRecorder``: events as ``"<type> <reason> <message>"``."""

    events: list[str] = field(default_factory=list)

    def __call__(self, obj: Mapping[str, Any], kind: str, reason: str, message: str) -> None:
        self.events.append(f"{kind} {reason} {message}")


@dataclass
class Env:
    """``setupController``: the control over fakes, and the fakes."""

    om: FakeObjectManager
    ssu: FakeStatusUpdater
    history: FakeHistory
    recorder: Recorder
    spc: StatefulPodControl
    ssc: StatefulSetControl
    sets: dict[str, Obj]


def setup_controller(recreate_gate: bool = False) -> Env:
    """``setupController``."""
    sets: dict[str, Obj] = {}
    om, history, recorder = FakeObjectManager(), FakeHistory(), Recorder()
    ssu = FakeStatusUpdater(sets)
    spc = StatefulPodControl(om, recorder)
    ssc = StatefulSetControl(spc, ssu, history, recreate_gate)
    return Env(om, ssu, history, recorder, spc, ssc, sets)


def already_exists(name: str) -> AlreadyExists:
    return AlreadyExists(f'pods "{name}" already exists')
