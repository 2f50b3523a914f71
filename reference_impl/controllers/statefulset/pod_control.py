"""Pod and claim writes of the StatefulSet controller (``stateful_pod_control.go``).

``StatefulPodControl`` works through an object manager (``StatefulPodControlObjectManager``:
the apiserver for writes, the informers for reads), so tests can supply a fake one.
Events go to ``recorder(set, type, reason, message)``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final, Protocol

from reference_impl.controllers.statefulset.claims import (
    POD_GVK,
    has_stale_owner_ref,
    has_unexpected_controller,
    is_claim_owner_up_to_date,
    retention_policy,
    update_claim_owner_refs,
)
from reference_impl.controllers.statefulset.identity import (
    get_claim_name,
    get_ordinal,
    get_persistent_volume_claims,
    identity_matches,
    storage_matches,
    update_identity,
    update_storage,
)
from reference_impl.errors import AlreadyExists, ApiError, Conflict, NotFound

__all__ = ["ObjectManager", "Recorder", "StatefulPodControl", "SyncError", "aggregate"]

Obj = dict[str, Any]
Recorder = Callable[[Mapping[str, Any], str, str, str], None]
_UPDATE_STEPS: Final = 4  # retry.DefaultBackoff.Steps for RetryOnConflict


class SyncError(ApiError):
    """A wrapped or aggregated error (Go's ``fmt.Errorf("%w")`` / ``utilerrors.Aggregate``);
    an ApiError so the work queue retries the set."""

    def __init__(self, message: str, causes: list[Exception] | None = None) -> None:
        super().__init__(message)
        self.errors = causes or []


def aggregate(errors: list[Exception]) -> Exception | None:
    """``utilerrors.NewAggregate``: None, the one error, or ``[e1, e2, ...]``."""
    if not errors:
        return None
    if len(errors) == 1:
        return errors[0]
    return SyncError("[" + ", ".join(str(e) for e in errors) + "]", errors)


class ObjectManager(Protocol):
    """``StatefulPodControlObjectManager``: reads may come from a cache; all raise
    ApiError (NotFound for a missing object)."""

    def create_pod(self, pod: Obj, ss: Mapping[str, Any]) -> None: ...
    def get_pod(self, namespace: str, name: str) -> Obj: ...
    def update_pod(self, pod: Obj, ss: Mapping[str, Any]) -> None: ...
    def delete_pod(self, pod: Mapping[str, Any]) -> None: ...
    def create_claim(self, claim: Obj, ss: Mapping[str, Any]) -> None: ...
    def get_claim(self, namespace: str, name: str) -> Obj: ...
    def update_claim(self, claim: Obj, ss: Mapping[str, Any]) -> None: ...


def _title(verb: str) -> str:
    return verb[:1].upper() + verb[1:]


class StatefulPodControl:
    """``StatefulPodControl``: create, update and delete a set's pods and claims."""

    def __init__(self, om: ObjectManager, recorder: Recorder) -> None:
        self.om = om
        self.recorder = recorder

    # -- events ---------------------------------------------------------------------------

    def record_pod_event(self, verb: str, ss: Mapping[str, Any], pod: Mapping[str, Any],
                         err: Exception | None) -> None:  # fmt: skip
        """``recordPodEvent``."""
        name, set_name = pod["metadata"].get("name"), ss["metadata"]["name"]
        if err is None:
            self.recorder(ss, "Normal", f"Successful{_title(verb)}",
                          f"{_title(verb)} Pod {name} in StatefulSet {set_name} successful")  # fmt: skip
        else:
            self.recorder(ss, "Warning", f"Failed{_title(verb)}",
                          f"{_title(verb)} Pod {name} in StatefulSet {set_name} failed error: {err}")  # fmt: skip

    def record_claim_event(self, verb: str, ss: Mapping[str, Any], pod: Mapping[str, Any],
                           claim: Mapping[str, Any], err: Exception | None) -> None:  # fmt: skip
        """``recordClaimEvent``."""
        cname, pname, sname = claim["metadata"]["name"], pod["metadata"].get("name"), ss["metadata"]["name"]
        if err is None:
            self.recorder(ss, "Normal", f"Successful{_title(verb)}",
                          f"{_title(verb)} Claim {cname} Pod {pname} in StatefulSet {sname} success")  # fmt: skip
        else:
            self.recorder(ss, "Warning", f"Failed{_title(verb)}",
                          f"{_title(verb)} Claim {cname} for Pod {pname} in StatefulSet {sname} failed error: {err}")  # fmt: skip

    # -- pods -----------------------------------------------------------------------------

    def create_stateful_pod(self, ss: Mapping[str, Any], pod: Obj) -> None:
        """``CreateStatefulPod``: claims first, then the pod, then the claims' owner refs.
        AlreadyExists is raised without an event."""
        try:
            self.create_persistent_volume_claims(ss, pod)
        except ApiError as exc:
            self.record_pod_event("create", ss, pod, exc)
            raise
        err: ApiError | None = None
        try:
            self.om.create_pod(pod, ss)
        except AlreadyExists:
            raise
        except ApiError as exc:
            err = exc
        try:
            self.update_pod_claim_for_retention_policy(ss, pod)
        except ApiError as exc:
            self.record_pod_event("update", ss, pod, exc)
            raise
        self.record_pod_event("create", ss, pod, err)
        if err is not None:
            raise err

    def update_stateful_pod(self, ss: Mapping[str, Any], pod: Obj) -> None:
        """``UpdateStatefulPod``: fix identity, storage and claim refs, retrying conflicts
        on the cached pod (``retry.RetryOnConflict``); an event once an update was sent."""
        attempted = False
        err: ApiError | None = None
        for _ in range(_UPDATE_STEPS):
            try:
                if self._fix_pod(ss, pod):
                    err = None
                    break
            except ApiError as exc:
                err = exc
                break
            attempted = True
            try:
                self.om.update_pod(pod, ss)
                err = None
                break
            except ApiError as exc:
                err = exc
            try:
                ns = str(ss["metadata"].get("namespace") or "")
                pod = copy.deepcopy(self.om.get_pod(ns, pod["metadata"]["name"]))
            except ApiError:
                pass
            if not isinstance(err, Conflict):
                break
        if attempted:
            self.record_pod_event("update", ss, pod, err)
        if err is not None:
            raise err

    def _fix_pod(self, ss: Mapping[str, Any], pod: Obj) -> bool:
        """The body of one try before the write: True when the pod is consistent."""
        consistent = True
        if not identity_matches(ss, pod):
            update_identity(ss, pod)
            consistent = False
        if not storage_matches(ss, pod):
            update_storage(ss, pod)
            consistent = False
            try:
                self.create_persistent_volume_claims(ss, pod)
            except ApiError as exc:
                self.record_pod_event("update", ss, pod, exc)
                raise
        try:
            if not self.claims_match_retention_policy(ss, pod):
                self.update_pod_claim_for_retention_policy(ss, pod)
                consistent = False
        except ApiError as exc:
            self.record_pod_event("update", ss, pod, exc)
            raise
        return consistent

    def delete_stateful_pod(self, ss: Mapping[str, Any], pod: Mapping[str, Any]) -> None:
        """``DeleteStatefulPod``: NotFound counts as deleted."""
        try:
            self.om.delete_pod(pod)
        except NotFound:
            pass
        except ApiError as exc:
            self.record_pod_event("delete", ss, pod, exc)
            raise
        self.record_pod_event("delete", ss, pod, None)

    # -- claims ---------------------------------------------------------------------------

    def _existing_claims(self, ss: Mapping[str, Any], pod: Mapping[str, Any],
                         lost: str) -> Iterator[tuple[str, Obj]]:
        """(name, claim) of each of the pod's template claims that exists; a read error
        other than NotFound is a SyncError (``lost``: upstream's wording, which differs
        between its two callers)."""
        ordinal = get_ordinal(pod)
        ns = str(ss["metadata"].get("namespace") or "")
        for template in ss["spec"].get("volumeClaimTemplates") or []:
            name = get_claim_name(ss, template, ordinal)
            try:
                claim = self.om.get_claim(ns, name)
            except NotFound:
                continue
            except ApiError as exc:
                raise SyncError(f"Could not retrieve claim {name} {lost} {pod['metadata'].get('name')} "
                                f"when checking PVC deletion policy: {exc}", [exc]) from exc  # fmt: skip
            yield name, claim

    def claims_match_retention_policy(self, ss: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
        """``ClaimsMatchRetentionPolicy``: a missing claim is skipped."""
        return all(is_claim_owner_up_to_date(claim, ss, pod)
                   for _, claim in self._existing_claims(ss, pod, "for"))

    def update_pod_claim_for_retention_policy(self, ss: Mapping[str, Any], pod: Mapping[str, Any]) -> None:
        """``UpdatePodClaimForRetentionPolicy``: rewrite the refs of each claim that does
        not express the policy (a ConflictingController warning when another owns it)."""
        for name, claim in self._existing_claims(ss, pod, "not found for"):
            if has_unexpected_controller(claim, ss, pod):
                self.recorder(ss, "Warning", "ConflictingController",
                              f"PersistentVolumeClaim {name} has a conflicting OwnerReference that acts "
                              "as a manging controller, the retention policy is ignored for this claim")  # fmt: skip
            if not is_claim_owner_up_to_date(claim, ss, pod):
                claim = copy.deepcopy(claim)
                update_claim_owner_refs(claim, ss, pod)
                try:
                    self.om.update_claim(claim, ss)
                except ApiError as exc:
                    raise SyncError(f"could not update claim {name} for delete policy ownerRefs: {exc}",
                                    [exc]) from exc  # fmt: skip

    def pod_claim_is_stale(self, ss: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
        """``PodClaimIsStale``: under whenScaled=Delete, a claim still owned by an older
        pod of this name (the garbage collector has yet to delete it)."""
        if retention_policy(ss)[1] == "Retain":
            return False
        for claim in get_persistent_volume_claims(ss, pod).values():
            try:
                pvc = self.om.get_claim(str(claim["metadata"].get("namespace") or ""), claim["metadata"]["name"])
            except NotFound:
                continue
            if has_stale_owner_ref(pvc, pod, POD_GVK):
                return True
        return False

    def create_missing_persistent_volume_claims(self, ss: Mapping[str, Any], pod: Obj) -> None:
        """``createMissingPersistentVolumeClaims``."""
        self.create_persistent_volume_claims(ss, pod)
        try:
            self.update_pod_claim_for_retention_policy(ss, pod)
        except ApiError as exc:
            self.record_pod_event("update", ss, pod, exc)
            raise

    def create_persistent_volume_claims(self, ss: Mapping[str, Any], pod: Mapping[str, Any]) -> None:
        """``createPersistentVolumeClaims``: create the missing claims; a claim being
        deleted is an error. The errors are aggregated."""
        errors: list[Exception] = []
        for claim in get_persistent_volume_claims(ss, pod).values():
            name = claim["metadata"]["name"]
            try:
                pvc = self.om.get_claim(str(claim["metadata"].get("namespace") or ""), name)
            except NotFound:
                try:
                    self.om.create_claim(claim, ss)
                except AlreadyExists as exc:
                    errors.append(SyncError(f"failed to create PVC {name}: {exc}", [exc]))
                except ApiError as exc:
                    errors.append(SyncError(f"failed to create PVC {name}: {exc}", [exc]))
                    self.record_claim_event("create", ss, pod, claim, exc)
                else:
                    self.record_claim_event("create", ss, pod, claim, None)
                continue
            except ApiError as exc:
                errors.append(SyncError(f"failed to retrieve PVC {name}: {exc}", [exc]))
                self.record_claim_event("create", ss, pod, claim, exc)
                continue
            if pvc["metadata"].get("deletionTimestamp"):
                errors.append(SyncError(f"pvc {name} is being deleted"))
        err = aggregate(errors)
        if err is not None:
            raise err if isinstance(err, ApiError) else SyncError(str(err))
