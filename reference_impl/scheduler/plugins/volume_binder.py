"""The scheduler's volume binder: models volumebinding/binder.go (GetPodVolumeClaims,
FindPodVolumes, AssumePodVolumes, RevertAssumedPodVolumes, bindAPIUpdate, checkBindings)
and its PV/PVC assume caches (util/assumecache).

Deviation: in-tree PVs are not translated to CSI (``tryTranslatePVToCSI``), so a migrated
volume's zone labels do not become node affinity.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_CEILING
from typing import Any, Final

from reference_impl.api.meta import parse_quantity, selector_from_label_selector
from reference_impl.api.owners import is_controlled_by
from reference_impl.api.pv_helpers import (
    NOT_SUPPORTED_PROVISIONER,
    SELECTED_NODE,
    bind_volume_to_claim,
    check_node_affinity,
    claim_class,
    claim_size,
    find_matching_volume,
    fully_bound,
    is_delay_binding_mode,
    match_topology,
    resource_version,
    volume_class,
)
from reference_impl.apiserver.informers import object_key

__all__ = [
    "BIND_CONFLICT", "NODE_CONFLICT", "NOT_ENOUGH_SPACE", "PV_NOT_EXIST", "AssumeCache", "Binding",
    "BinderError", "PodVolumeClaims", "PodVolumes", "Provision", "VolumeBinder", "pod_claim_names",
]

Obj = dict[str, Any]
Informers = Callable[[str, str], Any]  # (apiVersion, kind) -> an informer (get, items)
BIND_CONFLICT: Final = "node(s) didn't find available persistent volumes to bind"
NODE_CONFLICT: Final = "node(s) didn't match PersistentVolume's node affinity"
NOT_ENOUGH_SPACE: Final = "node(s) did not have enough free storage"
PV_NOT_EXIST: Final = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"


class BinderError(Exception):
    """An error the binder returns (Filter and Reserve turn it into an Error status)."""


@dataclass(slots=True)
class Binding:
    """``BindingInfo``: a claim and the volume chosen for it."""

    pvc: Obj
    pv: Obj

    def storage(self) -> tuple[str, int, int]:
        """(class, requested, capacity) as ``StorageClassName``/``StorageResource``."""
        req = claim_size(self.pvc)
        cap = (self.pv["spec"].get("capacity") or {}).get("storage")
        return claim_class(self.pvc), int(req), int(parse_quantity(cap)) if cap is not None else 0


@dataclass(slots=True)
class Provision:
    """``DynamicProvision``: a claim to provision and the capacity it comes out of."""

    pvc: Obj
    capacity: Obj | None = None


@dataclass(slots=True)
class PodVolumes:
    """What FindPodVolumes chose for one node."""

    static_bindings: list[Binding] = field(default_factory=list)
    dynamic_provisions: list[Provision] = field(default_factory=list)


@dataclass(slots=True)
class PodVolumeClaims:
    """``PodVolumeClaims``: the pod's claims by state, and the volumes per class of the
    unbound delayed ones (listed once in PreFilter)."""

    bound: list[Obj] = field(default_factory=list)
    unbound_delay: list[Obj] = field(default_factory=list)
    unbound_immediate: list[Obj] = field(default_factory=list)
    volumes_by_class: dict[str, list[Obj]] = field(default_factory=dict)


class AssumeCache:
    """``AssumeCache`` over an informer: an assumed object hides the informer's until the
    informer holds a newer resourceVersion (or drops the object)."""

    def __init__(self, informers: Informers, api_version: str, kind: str) -> None:
        self._informers = informers
        self._gv, self._kind = api_version, kind
        self._assumed: dict[str, Obj] = {}

    def _informer(self) -> Any:
        return self._informers(self._gv, self._kind)

    def get_api(self, key: str) -> Obj | None:
        """``GetAPIObj``: the informer's object."""
        got: Obj | None = self._informer().get(key)
        return got

    def get(self, key: str) -> Obj | None:
        """``Get``: the assumed object while the informer has nothing newer."""
        api = self.get_api(key)
        assumed = self._assumed.get(key)
        if assumed is not None and (api is None or resource_version(api) > resource_version(assumed)):
            del self._assumed[key]
            assumed = None
        return assumed if assumed is not None else api

    def items(self) -> Iterator[Obj]:
        """Every object, assumed ones in place of the informer's (informer order)."""
        for obj in self._informer().items():
            got = self.get(object_key(obj))
            if got is not None:
                yield got

    def assume(self, obj: Obj) -> None:
        """``Assume``: fails when the object is unknown or older than the stored one."""
        key = object_key(obj)
        stored = self.get(key)
        if stored is None:
            raise BinderError(f'could not find {self._kind} "{key}"')
        if resource_version(obj) < resource_version(stored):
            raise BinderError(f'{self._kind} "{key}" is out of sync (stored: {resource_version(stored)}, '
                              f"assume: {resource_version(obj)})")
        self._assumed[key] = obj

    def restore(self, key: str) -> None:
        """``Restore``: forget the assumed object."""
        self._assumed.pop(key, None)


def pod_claim_names(pod: Obj) -> list[tuple[str, bool]]:
    """The claim name of each PVC-backed volume and whether it is a generic ephemeral one
    (``ephemeral.VolumeClaimName``: ``<pod>-<volume>``)."""
    out: list[tuple[str, bool]] = []
    for v in pod["spec"].get("volumes") or ():
        if v.get("persistentVolumeClaim") is not None:
            out.append((str(v["persistentVolumeClaim"].get("claimName") or ""), False))
        elif v.get("ephemeral") is not None:
            out.append((f"{pod['metadata'].get('name', '')}-{v.get('name', '')}", True))
    return out


def controlled_by(pvc: Obj, pod: Obj) -> bool:
    """``ephemeral.VolumeIsForPod``: same namespace and the pod is the controller owner."""
    same_ns = pvc["metadata"].get("namespace") == pod["metadata"].get("namespace")
    return same_ns and is_controlled_by(pvc, pod)


class VolumeBinder:
    """``volumeBinder`` reading claims, volumes, classes, CSI drivers and capacities from
    ``informers``."""

    def __init__(self, informers: Informers) -> None:
        self._informers = informers
        self.pvs = AssumeCache(informers, "v1", "PersistentVolume")
        self.pvcs = AssumeCache(informers, "v1", "PersistentVolumeClaim")

    def _get(self, api_version: str, kind: str, key: str) -> Obj | None:
        got: Obj | None = self._informers(api_version, kind).get(key)
        return got

    def _class(self, name: str) -> Obj | None:
        return self._get("storage.k8s.io/v1", "StorageClass", name)

    # -- GetPodVolumeClaims --------------------------------------------------------------

    def _delay_binding(self, pvc: Obj) -> bool:
        """``IsDelayBindingMode``: the class exists and is WaitForFirstConsumer."""
        try:
            return is_delay_binding_mode(pvc, self._class)
        except ValueError as e:
            raise BinderError(str(e)) from None

    def pod_volume_claims(self, pod: Obj) -> PodVolumeClaims:
        """``GetPodVolumeClaims``: bound, unbound delayed and unbound immediate claims (a
        pre-bound claim counts as immediate), and the volumes of the delayed claims' classes."""
        out = PodVolumeClaims()
        ns = pod["metadata"].get("namespace", "default")
        for name, ephemeral in pod_claim_names(pod):
            pvc = self.pvcs.get(f"{ns}/{name}")
            if pvc is None:
                raise BinderError(f'error getting PVC "{ns}/{name}": could not find v1/PersistentVolumeClaim')
            if ephemeral and not controlled_by(pvc, pod):
                raise BinderError(f"PVC {ns}/{name} was not created for pod {ns}/{pod['metadata'].get('name', '')} "
                                  "(pod is not owner)")
            if fully_bound(pvc):
                out.bound.append(pvc)
            elif self._delay_binding(pvc) and not pvc["spec"].get("volumeName"):
                out.unbound_delay.append(pvc)
            else:
                out.unbound_immediate.append(pvc)
        for pvc in out.unbound_delay:
            cls = claim_class(pvc)
            if cls not in out.volumes_by_class:
                out.volumes_by_class[cls] = sorted(
                    (pv for pv in self.pvs.items() if volume_class(pv) == cls), key=lambda pv: pv["metadata"]["name"]
                )
        return out

    # -- FindPodVolumes ------------------------------------------------------------------

    def find_pod_volumes(
        self, pod: Obj, claims: PodVolumeClaims, node_name: str, labels: Mapping[str, str]
    ) -> tuple[PodVolumes, list[str]]:
        """``FindPodVolumes``: the bindings and provisions that would satisfy the pod's
        claims on the node, and the reasons it cannot (raises BinderError on errors)."""
        found = PodVolumes()
        node_ok = bound_found = unbound_ok = enough_space = True
        for pvc in claims.bound:  # checkBoundClaims: stops at the first problem
            pv = self.pvs.get(str(pvc["spec"]["volumeName"]))
            if pv is None:
                bound_found = False
                break
            if not check_node_affinity(pv, labels):
                node_ok = False
                break
        to_match: list[Obj] = []
        to_provision: list[Obj] = []
        for pvc in claims.unbound_delay:
            selected = (pvc["metadata"].get("annotations") or {}).get(SELECTED_NODE)
            if selected is None:
                to_match.append(pvc)
            elif selected != node_name:
                unbound_ok = False  # the fast path: provisioning is under way elsewhere
                to_match = to_provision = []
                break
            else:
                to_provision.append(pvc)
        if to_match:
            unbound_ok, found.static_bindings, rest = self._find_matching(to_match, claims.volumes_by_class, labels)
            to_provision += rest
        if to_provision:
            unbound_ok, enough_space, found.dynamic_provisions = self._check_provisions(to_provision, labels)
        reasons = [r for r, ok in ((NODE_CONFLICT, node_ok), (BIND_CONFLICT, unbound_ok),
                                   (NOT_ENOUGH_SPACE, enough_space), (PV_NOT_EXIST, bound_found)) if not ok]
        return found, reasons

    def _find_matching(
        self, claims: list[Obj], volumes: Mapping[str, list[Obj]], labels: Mapping[str, str]
    ) -> tuple[bool, list[Binding], list[Obj]]:
        """``findMatchingVolumes``: smallest claims first, each volume chosen once."""
        chosen: set[str] = set()
        bindings: list[Binding] = []
        unmatched: list[Obj] = []
        for pvc in sorted(claims, key=claim_size):  # byPVCSize (stable for equal sizes)
            pv = find_matching_volume(pvc, volumes.get(claim_class(pvc), ()), labels, chosen, True)
            if pv is None:
                unmatched.append(pvc)
                continue
            chosen.add(pv["metadata"]["name"])
            bindings.append(Binding(pvc, pv))
        return not unmatched, bindings, unmatched

    def _check_provisions(
        self, claims: list[Obj], labels: Mapping[str, str]
    ) -> tuple[bool, bool, list[Provision]]:
        """``checkVolumeProvisions``: (provisionable, enough storage, provisions)."""
        out: list[Provision] = []
        for pvc in claims:
            name = claim_class(pvc)
            if not name:
                raise BinderError(f'no class for claim "{object_key(pvc)}"')
            sc = self._class(name)
            if sc is None:
                raise BinderError(f'failed to find storage class "{name}"')
            provisioner = str(sc.get("provisioner") or "")
            if provisioner in ("", NOT_SUPPORTED_PROVISIONER):
                return False, True, []
            if not match_topology(sc.get("allowedTopologies"), labels):
                return False, True, []
            enough, cap = self._has_enough_capacity(provisioner, pvc, name, labels)
            if not enough:
                return True, False, []
            out.append(Provision(pvc, cap))
        return True, True, out

    def _has_enough_capacity(
        self, provisioner: str, pvc: Obj, class_name: str, labels: Mapping[str, str]
    ) -> tuple[bool, Obj | None]:
        """``hasEnoughCapacity``: only for CSI drivers with ``storageCapacity``; the first
        (by namespace/name) capacity of the class, large enough, whose topology selects the
        node. ``maximumVolumeSize`` is preferred over ``capacity``; no topology selects none."""
        requests = (pvc["spec"].get("resources") or {}).get("requests") or {}
        if "storage" not in requests:
            return True, None
        driver = self._get("storage.k8s.io/v1", "CSIDriver", provisioner)
        if driver is None or not (driver.get("spec") or {}).get("storageCapacity"):
            return True, None
        size = parse_quantity(requests["storage"]).to_integral_value(rounding=ROUND_CEILING)  # Value()
        caps = self._informers("storage.k8s.io/v1", "CSIStorageCapacity").items()
        for cap in sorted(caps, key=lambda c: (c["metadata"].get("namespace", ""), c["metadata"]["name"])):
            if cap.get("storageClassName") != class_name:
                continue
            limit = cap.get("maximumVolumeSize", cap.get("capacity"))
            if limit is None or parse_quantity(limit) < size:
                continue
            topology = cap.get("nodeTopology")
            if topology is not None and selector_from_label_selector(topology).matches(labels):
                found: Obj = cap
                return True, found
        return False, None

    # -- Assume / Revert / Bind / checkBindings ------------------------------------------

    def all_bound(self, pod: Obj) -> bool:
        """``arePodVolumesBound``: every PVC-backed volume's claim is fully bound."""
        ns = pod["metadata"].get("namespace", "default")
        for name, _ in pod_claim_names(pod):
            pvc = self.pvcs.get(f"{ns}/{name}")
            if pvc is None or not fully_bound(pvc):
                return False
        return True

    def assume_pod_volumes(self, pod: Obj, node_name: str, volumes: PodVolumes) -> bool:
        """``AssumePodVolumes``: assume each chosen volume bound to its claim and each claim
        to provision annotated with the node; rewrites ``volumes`` with the assumed objects.
        True when every claim is already bound. Raises BinderError (after reverting)."""
        if self.all_bound(pod):
            return True
        bindings: list[Binding] = []
        for b in volumes.static_bindings:
            pv, dirty = bind_volume_to_claim(b.pv, b.pvc)
            if dirty:
                try:
                    self.pvs.assume(pv)
                except BinderError:
                    self._revert(bindings, [])
                    raise
            bindings.append(Binding(b.pvc, pv))
        provisions: list[Provision] = []
        for p in volumes.dynamic_provisions:
            anns = {**(p.pvc["metadata"].get("annotations") or {}), SELECTED_NODE: node_name}
            claim = {**p.pvc, "metadata": {**p.pvc["metadata"], "annotations": anns}}
            try:
                self.pvcs.assume(claim)
            except BinderError:
                self._revert(bindings, provisions)
                raise
            provisions.append(Provision(claim))
        volumes.static_bindings, volumes.dynamic_provisions = bindings, provisions
        return False

    def _revert(self, bindings: list[Binding], provisions: list[Provision]) -> None:
        for b in bindings:
            self.pvs.restore(object_key(b.pv))
        for p in provisions:
            self.pvcs.restore(object_key(p.pvc))

    def revert_assumed_pod_volumes(self, volumes: PodVolumes) -> None:
        """``RevertAssumedPodVolumes``."""
        self._revert(volumes.static_bindings, volumes.dynamic_provisions)

    def bind_api_update(
        self, pod: Obj, update: Callable[[Obj], Obj], bindings: list[Binding] | None,
        provisions: list[Provision] | None,
    ) -> None:
        """``bindAPIUpdate``: write each pre-bound volume, then each claim to provision,
        keeping what the server returns; on a failure (the ApiError propagates) revert the
        assumed objects not written."""
        ns, name = pod["metadata"].get("namespace", "default"), pod["metadata"].get("name", "")
        if bindings is None:
            raise BinderError(f'failed to get cached bindings for pod "{ns}/{name}"')
        if provisions is None:
            raise BinderError(f'failed to get cached claims to provision for pod "{ns}/{name}"')
        done_b = done_p = 0
        try:
            for b in bindings:
                b.pv = update(b.pv)
                done_b += 1
            for p in provisions:
                p.pvc = update(p.pvc)
                done_p += 1
        finally:
            self._revert(bindings[done_b:], provisions[done_p:])

    def check_bindings(self, pod: Obj, bindings: list[Binding] | None, provisions: list[Provision] | None) -> bool:
        """``checkBindings``: True once every written volume and claim is fully bound;
        False while the informers lag or binding is in progress; BinderError when binding
        must be retried (the pod, a volume or a claim is gone, a claimRef was reset, the
        selected-node annotation was dropped or changed, or a volume's node affinity fails)."""
        ns, pod_name = pod["metadata"].get("namespace", "default"), pod["metadata"].get("name", "")
        if bindings is None:
            raise BinderError(f'failed to get cached bindings for pod "{ns}/{pod_name}"')
        if provisions is None:
            raise BinderError(f'failed to get cached claims to provision for pod "{ns}/{pod_name}"')
        node_name = str(pod["spec"].get("nodeName") or "")
        node = self._get("v1", "Node", node_name)
        if node is None:
            raise BinderError(f'failed to get node "{node_name}"')
        labels = node["metadata"].get("labels") or {}
        if self._get("v1", "Pod", f"{ns}/{pod_name}") is None:
            raise BinderError(f'pod does not exist any more: pods "{pod_name}" not found')
        for b in bindings:
            pv = self.pvs.get_api(object_key(b.pv))
            pvc = self.pvcs.get_api(object_key(b.pvc))
            if pv is None or pvc is None:
                raise BinderError("failed to check binding: not found")
            if resource_version(b.pv) > resource_version(pv):
                return False  # our write has not reached the informer yet
            if not check_node_affinity(pv, labels):
                raise BinderError(f'pv "{pv["metadata"]["name"]}" node affinity doesn\'t match node "{node_name}"')
            if not (pv["spec"].get("claimRef") or {}).get("uid"):
                raise BinderError(f'ClaimRef got reset for pv "{pv["metadata"]["name"]}"')
            if not fully_bound(pvc):
                return False
        for p in provisions:
            pvc = self.pvcs.get_api(object_key(p.pvc))
            if pvc is None:
                raise BinderError("failed to check provisioning pvc: not found")
            if resource_version(p.pvc) > resource_version(pvc):
                return False
            name = pvc["metadata"]["name"]
            anns = pvc["metadata"].get("annotations")
            if not anns:
                raise BinderError(f'selectedNode annotation reset for PVC "{name}"')
            if anns.get(SELECTED_NODE) != node_name:
                raise BinderError(f'provisioning failed for PVC "{name}"')
            if pv_name := pvc["spec"].get("volumeName"):
                pv = self.pvs.get_api(str(pv_name))
                if pv is None:
                    return False  # tolerated: the informer may lag
                if not check_node_affinity(pv, labels):
                    raise BinderError(f'pv "{pv_name}" node affinity doesn\'t match node "{node_name}"')
            if not fully_bound(pvc):
                return False
        return True
