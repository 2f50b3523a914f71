"""Upstream ``pkg/controller/volume/persistentvolume/index_test.go`` (v1.37.2) against the
reference's volume index (``reference_impl/controllers/pv_index.py``) and matching helpers
(``reference_impl/api/pv_helpers.py``, ``pv_binder.check_volume_satisfy_claim``).

The index is a plain list here: like upstream's store it is keyed by name (a later volume
of the same name replaces the earlier one). Volumes are reported by uid, as upstream's rows.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from reference_impl.api.meta import parse_quantity
from reference_impl.api.pv_helpers import check_access_modes, check_volume_mode_mismatches
from reference_impl.controllers.pv_binder import check_volume_satisfy_claim
from reference_impl.controllers.pv_index import (
    all_possible_matching_access_modes,
    find_best_match_for_claim,
)

Obj = dict[str, Any]
RWO, ROX, RWX = "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany"
SILVER, GOLD, LARGE, WAIT = "silver", "gold", "large", "wait"  # classSilver ... classWait


def _pv(uid: str, name: str, size: str, modes: list[str], phase: str | None = "Available", **spec: Any) -> Obj:
    labels = spec.pop("labels", None)
    pv: Obj = {"metadata": {"uid": uid, "name": name},
               "spec": {"capacity": {"storage": size}, "accessModes": modes, "volumeMode": "Filesystem", **spec},
               "status": {"phase": phase} if phase else {}}
    if labels:
        pv["metadata"]["labels"] = labels
    return pv


def _affinity(value: str) -> Obj:
    """``createNodeAffinity("key1", value)``."""
    return {"required": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "key1", "operator": "In", "values": [value]}]}]}}


def _test_volumes() -> list[Obj]:
    """``createTestVolumes`` (deliberately out of order)."""
    gce, nfs, local = [RWO, ROX], [RWO, ROX, RWX], [RWO, ROX, RWX]
    return [
        _pv("gce-pd-10", "gce003", "10G", gce),
        _pv("gce-pd-20", "gce004", "20G", gce, "Bound", claimRef={"uid": "def456"}),
        _pv("nfs-5", "nfs002", "5G", nfs),
        _pv("gce-pd-1", "gce001", "1G", gce, "Bound", claimRef={"uid": "abc123"}),
        _pv("nfs-10", "nfs003", "10G", nfs),
        _pv("gce-pd-5", "gce002", "5G", gce),
        _pv("nfs-1", "nfs001", "1G", nfs),
        _pv("gce-pd-2", "gce0022", "20000G", [RWO], labels={"should-exist": "true"}),
        _pv("gce-pd-silver1", "gce0023", "10000G", [RWO], labels={"should-exist": "true"}, storageClassName=SILVER),
        _pv("gce-pd-silver2", "gce0024", "100G", [RWO], storageClassName=SILVER),
        _pv("gce-pd-gold", "gce0025", "50G", [RWO], storageClassName=GOLD),
        _pv("local-pd-very-large", "local001", "200E", local, storageClassName=LARGE),
        _pv("local-pd-extremely-large", "local002", "800E", local, storageClassName=LARGE),
        _pv("affinity-pv", "affinity001", "100G", gce, storageClassName=WAIT, nodeAffinity=_affinity("value1")),
        _pv("affinity-pv2", "affinity002", "150G", gce, storageClassName=WAIT, nodeAffinity=_affinity("value1")),
        _pv("affinity-prebound", "affinity003", "100G", gce, storageClassName=WAIT,
            claimRef={"name": "claim02", "namespace": "myns"}, nodeAffinity=_affinity("value1")),
        _pv("affinity-pv3", "affinity003", "200G", gce, storageClassName=WAIT, nodeAffinity=_affinity("value3")),
        _pv("affinity-pv4-pending", "affinity004-pending", "200G", gce, "Pending", storageClassName=WAIT,
            nodeAffinity=_affinity("value4")),
        _pv("affinity-pv4-failed", "affinity004-failed", "200G", gce, "Failed", storageClassName=WAIT,
            nodeAffinity=_affinity("value4")),
        _pv("affinity-pv4-released", "affinity004-released", "200G", gce, "Released", storageClassName=WAIT,
            nodeAffinity=_affinity("value4")),
        _pv("affinity-pv4-empty", "affinity004-empty", "200G", gce, None, storageClassName=WAIT,
            nodeAffinity=_affinity("value4")),
        _pv("gce-pd-vac-silver1", "gce-pd-vac-silver1", "100G", gce, volumeAttributesClassName=SILVER),
    ]


def _index(volumes: list[Obj]) -> list[Obj]:
    """The store: one volume per name, the last added winning."""
    return list({pv["metadata"]["name"]: pv for pv in volumes}.values())


def _pvc(size: str, mod: Callable[[Obj], None] | None = None, *, modes: list[str] | None = None,
         volume_mode: str | None = "Filesystem", name: str = "claim01") -> Obj:
    """``makePVC`` (modes ROX+RWO) / ``makeVolumeModePVC`` (RWO, ``volume_mode``)."""
    spec: Obj = {"accessModes": modes or [ROX, RWO], "resources": {"requests": {"storage": size}}}
    if volume_mode is not None:
        spec["volumeMode"] = volume_mode
    pvc: Obj = {"metadata": {"name": name, "namespace": "myns"}, "spec": spec}
    if mod is not None:
        mod(pvc)
    return pvc


def _set(**fields: Any) -> Callable[[Obj], None]:
    def mod(pvc: Obj) -> None:
        pvc["spec"].update(copy.deepcopy(fields))
    return mod


def _uid(pv: Obj | None) -> str:
    return "" if pv is None else str(pv["metadata"]["uid"])


_SHOULD_EXIST = {"matchLabels": {"should-exist": "true"}}
MATCH_VOLUME = [
    ("successful-match-gce-10", "gce-pd-10", _pvc("8G")),
    ("successful-match-nfs-5", "nfs-5", _pvc("5G", _set(accessModes=[ROX, RWO, RWX]))),
    ("successful-skip-1g-bound-volume", "gce-pd-5", _pvc("1G")),
    ("successful-no-match", "", _pvc("999G")),
    ("successful-no-match-due-to-label", "", _pvc("999G", _set(selector={"matchLabels": {"should-not-exist": "true"}}))),
    ("successful-no-match-due-to-size-constraint-with-label-selector", "",
     _pvc("20000G", _set(selector=_SHOULD_EXIST, accessModes=[ROX, RWO]))),
    ("successful-match-due-with-constraint-and-label-selector", "gce-pd-2",
     _pvc("20000G", _set(selector=_SHOULD_EXIST, accessModes=[RWO]))),
    ("successful-match-with-empty-vac", "gce-pd-10", _pvc("8G", _set(volumeAttributesClassName=""))),
    ("successful-match-with-vac", "gce-pd-vac-silver1", _pvc("1G", _set(volumeAttributesClassName=SILVER))),
    ("successful-no-match-vac-nonexisting", "", _pvc("1G", _set(volumeAttributesClassName="non-existing"))),
    ("successful-match-with-class", "gce-pd-silver1",
     _pvc("1G", _set(selector=_SHOULD_EXIST, accessModes=[RWO], storageClassName=SILVER))),
    ("successful-match-with-class-and-labels", "gce-pd-silver2", _pvc("1G", _set(accessModes=[RWO], storageClassName=SILVER))),
    ("successful-match-very-large", "local-pd-very-large", _pvc("1E", _set(accessModes=[RWO], storageClassName=LARGE))),
    ("successful-match-exact-extremely-large", "local-pd-extremely-large",
     _pvc("800E", _set(accessModes=[RWO], storageClassName=LARGE))),
    ("successful-no-match-way-too-large", "", _pvc("950E", _set(accessModes=[RWO], storageClassName=LARGE))),
]


@pytest.mark.parametrize(("expected", "claim"), [pytest.param(e, c, id=n) for n, e, c in MATCH_VOLUME])
def test_match_volume(expected: str, claim: Obj) -> None:
    """``TestMatchVolume``."""
    assert _uid(find_best_match_for_claim(claim, _index(_test_volumes()), False)) == expected


def test_matching_with_bound_volumes() -> None:
    """``TestMatchingWithBoundVolumes``: of two equal volumes the bound one is skipped."""
    pv1 = _pv("gce-pd-1", "gce001", "1G", [RWO, ROX], "Bound", claimRef={"uid": "abc123"})
    pv2 = _pv("gce-pd-2", "gce002", "1G", [RWO, ROX])
    got = find_best_match_for_claim(_pvc("1G"), [pv1, pv2], False)
    assert got is not None and got["metadata"]["name"] == "gce002"


def test_list_by_access_modes() -> None:
    """``TestListByAccessModes``: the index's groups, by capacity."""
    def group(modes: list[str]) -> list[str]:
        vols = [pv for pv in _index(_test_volumes()) if sorted(pv["spec"]["accessModes"]) == sorted(modes)]
        return [_uid(pv) for pv in sorted(vols, key=lambda pv: parse_quantity(pv["spec"]["capacity"]["storage"]))]
    assert group([RWO, ROX])[:3] == ["gce-pd-1", "gce-pd-5", "gce-pd-10"]
    assert group([RWO, ROX, RWX])[:5] == ["nfs-1", "nfs-5", "nfs-10", "local-pd-very-large", "local-pd-extremely-large"]


def test_all_possible_access_modes() -> None:
    """``TestAllPossibleAccessModes``: RWO is in 3 of the index's mode sets, RWX in 1."""
    keys = [",".join({RWO: "RWO", ROX: "ROX", RWX: "RWX"}[m] for m in pv["spec"]["accessModes"])
            for pv in _index(_test_volumes())]
    rwo = all_possible_matching_access_modes(keys, [RWO])
    assert len(rwo) == 3 and all(RWO in m for m in rwo)
    rwx = all_possible_matching_access_modes(keys, [RWX])
    assert len(rwx) == 1 and RWX in rwx[0]


def test_finding_volume_with_different_access_modes() -> None:
    """``TestFindingVolumeWithDifferentAccessModes``: the fewest modes that suffice win."""
    gce = _pv("001", "gce", "10G", [RWO, ROX])
    ebs = _pv("002", "ebs", "10G", [RWO])
    nfs = _pv("003", "nfs", "10G", [RWO, ROX, RWX])
    index = [gce, ebs, nfs]

    def best(modes: list[str]) -> str:
        got = find_best_match_for_claim(_pvc("1G", modes=modes), index, False)
        return "" if got is None else str(got["metadata"]["name"])

    assert best([RWO]) == "ebs"
    assert best([RWO, ROX]) == "gce"
    assert best([RWX, RWO, ROX]) == "nfs"  # the order of the requested modes does not matter
    assert best([RWX]) == "nfs"  # fewer modes requested still match
    ebs["spec"]["claimRef"] = {}  # the exact match is bound: the next level of modes
    assert best([RWO]) == "gce"
    gce["spec"]["claimRef"] = {}
    assert best([RWO]) == "nfs"
    del gce["spec"]["claimRef"]  # partial mode request
    assert best([ROX]) == "gce"


def _mode_volume(mode: str | None) -> Obj:
    """``createVolumeModeBlockTestVolume`` / ``...Filesystem...`` / ``...Nil...``."""
    pv = _pv("local-1", "block" if mode else "nil-mode", "10G", [RWO], local={})
    if mode is None:
        del pv["spec"]["volumeMode"]
    else:
        pv["spec"]["volumeMode"] = mode
    return pv


BLOCK, FS = "Block", "Filesystem"
VOLUME_MODE_CHECK = [
    ("pvc block and pv filesystem", True, FS, BLOCK),
    ("pvc filesystem and pv block", True, BLOCK, FS),
    ("pvc block and pv block", False, BLOCK, BLOCK),
    ("pvc filesystem and pv filesystem", False, FS, FS),
    ("pvc filesystem and pv nil", False, None, FS),
    ("pvc nil and pv filesystem", False, FS, None),
    ("pvc nil and pv nil", False, None, None),
    ("pvc nil and pv block", True, BLOCK, None),
    ("pvc block and pv nil", True, None, BLOCK),
]


@pytest.mark.parametrize(("mismatch", "pv_mode", "pvc_mode"),
                         [pytest.param(m, v, c, id=n) for n, m, v, c in VOLUME_MODE_CHECK])
def test_volume_mode_check(mismatch: bool, pv_mode: str | None, pvc_mode: str | None) -> None:
    """``TestVolumeModeCheck``: ``CheckVolumeModeMismatches`` (unset is Filesystem)."""
    claim = _pvc("8G", modes=[RWO], volume_mode=pvc_mode)
    assert check_volume_mode_mismatches(claim, _mode_volume(pv_mode)) is mismatch


FILTERING_VOLUME_MODES = [
    ("pvc block and pv filesystem", False, FS, BLOCK),
    ("pvc filesystem and pv block", False, BLOCK, FS),
    ("pvc block and pv no mode with default filesystem", False, FS, BLOCK),
    ("pvc no mode defaulted to filesystem and pv block", False, BLOCK, FS),
    ("pvc block and pv block", True, BLOCK, BLOCK),
    ("pvc filesystem and pv filesystem", True, FS, FS),
    ("pvc mode is nil and defaulted and pv mode is nil and defaulted", True, FS, FS),
]


@pytest.mark.parametrize(("match", "pv_mode", "pvc_mode"),
                         [pytest.param(m, v, c, id=n) for n, m, v, c in FILTERING_VOLUME_MODES])
def test_filtering_volume_modes(match: bool, pv_mode: str, pvc_mode: str) -> None:
    """``TestFilteringVolumeModes``: the index skips volumes of another mode."""
    got = find_best_match_for_claim(_pvc("8G", modes=[RWO], volume_mode=pvc_mode), [_mode_volume(pv_mode)], False)
    assert (got is not None) is match


def _protection_pv(deleting: bool) -> Obj:
    pv = _pv("", "pv1", "1G", [RWO], hostPath={})
    pv["metadata"]["annotations"] = {}
    if deleting:
        pv["metadata"]["deletionTimestamp"] = "2020-02-18T10:30:30Z"
    return pv


@pytest.mark.parametrize(("match", "deleting"), [
    pytest.param(True, False, id="pv deletionTimeStamp not set"),
    pytest.param(False, True, id="pv deletionTimeStamp set"),
])
def test_storage_object_in_use_protection_filtering(match: bool, deleting: bool) -> None:
    """``TestStorageObjectInUseProtectionFiltering``: ``checkVolumeSatisfyClaim`` and the
    index both refuse a volume being deleted."""
    pvc = _pvc("1G", modes=[RWO], name="pvc1")
    pv = _protection_pv(deleting)
    assert (check_volume_satisfy_claim(pv, pvc) == "") is match
    assert (find_best_match_for_claim(pvc, [pv], False) is not None) is match


def test_finding_prebound_volumes() -> None:
    """``TestFindingPreboundVolumes``: a volume pre-bound to the claim wins when it fits."""
    claim = _pvc("1Gi", modes=[RWO])
    ref = {"kind": "PersistentVolumeClaim", "namespace": "myns", "name": "claim01", "apiVersion": "v1"}

    def vol(name: str, size: str) -> Obj:
        pv = _pv("", name, size, [RWO], hostPath={})
        pv["metadata"]["annotations"] = {}
        return pv

    pv1, pv5, pv8, bad_size, bad_mode = vol("pv1", "1Gi"), vol("pv5", "5Gi"), vol("pv8", "8Gi"), \
        vol("pvBadSize", "1Mi"), vol("pvBadMode", "1Gi")
    bad_mode["spec"]["accessModes"] = [ROX]
    index = [pv1, pv5, pv8, bad_size, bad_mode]

    def best() -> str:
        got = find_best_match_for_claim(claim, index, False)
        return "" if got is None else str(got["metadata"]["name"])

    assert best() == "pv1"  # exact match on size
    pv1["spec"]["claimRef"] = {"name": "foo", "namespace": "bar"}
    assert best() == "pv5"  # the exact match is pre-bound elsewhere: the next size up
    del pv1["spec"]["claimRef"]
    pv8["spec"]["claimRef"] = dict(ref)
    assert best() == "pv8"  # the largest is pre-bound to the claim
    del pv8["spec"]["claimRef"]
    bad_size["spec"]["claimRef"] = dict(ref)
    assert best() == "pv1"  # pre-bound but too small
    del bad_size["spec"]["claimRef"]
    bad_mode["spec"]["claimRef"] = dict(ref)
    assert best() == "pv1"  # pre-bound but without the access mode


def test_best_match_delayed() -> None:
    """``TestBestMatchDelayed``: the PV controller leaves delayed claims to the scheduler."""
    assert find_best_match_for_claim(_pvc("8G"), _index(_test_volumes()), True) is None


@pytest.mark.parametrize(("ok", "modes"), [
    pytest.param(True, [RWX], id="success-single-mode"),
    pytest.param(True, [RWX, RWO], id="success-many-modes"),
    pytest.param(False, [ROX], id="fail-single-mode"),
    pytest.param(False, [RWX, ROX], id="fail-many-modes"),
])
def test_check_access_modes(ok: bool, modes: list[str]) -> None:
    """``TestCheckAccessModes``."""
    pv: Obj = {"metadata": {}, "spec": {"accessModes": [RWO, RWX]}}
    assert check_access_modes(_pvc("100G", modes=modes), pv) is ok
