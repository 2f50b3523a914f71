"""The small upstream warning tables: ``pkg/api/node/util_test.go`` ``TestWarnings``
(RuntimeClass), ``pkg/api/persistentvolume/util_test.go`` and
``pkg/api/persistentvolumeclaim/util_test.go`` ``TestWarnings``,
``pkg/api/storage/util_test.go`` ``TestStorageClassWarnings`` and
``TestCSIStorageCapacityWarnings``, and ``pkg/api/job/warnings_test.go``
``TestWarningsForJobSpec`` (counts, nil path). Upstream compares sets; a "null" row is a
nil object, which the reference never sees and which upstream answers with none."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reference_impl.apiserver.warnings.job import job_spec_warnings
from reference_impl.apiserver.warnings.node import runtime_class_warnings
from reference_impl.apiserver.warnings.persistentvolume import pv_warnings
from reference_impl.apiserver.warnings.persistentvolumeclaim import pvc_warnings
from reference_impl.apiserver.warnings.storage import (
    csi_storage_capacity_warnings,
    storage_class_warnings,
)

Obj = dict[str, Any]
ARCH = 'deprecated since v1.14; use "kubernetes.io/arch" instead'
OS = 'deprecated since v1.14; use "kubernetes.io/os" instead'
FOO = {"name": "foo"}


def _run(fn: Callable[[Obj, Obj | None, Any], list[str]], obj: Obj) -> set[str]:
    return set(fn(obj, None, None))


RC_ROWS = [
    ("no warning", {"metadata": FOO}, set()),
    ("warning", {"metadata": FOO, "scheduling": {"nodeSelector": {
        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux"}}},
     {f"scheduling.nodeSelector: {ARCH}", f"scheduling.nodeSelector: {OS}"}),
]  # fmt: skip


@pytest.mark.parametrize(("obj", "expected"), [pytest.param(o, e, id=f"podspec_{n}") for n, o, e in RC_ROWS])
def test_runtime_class(obj: Obj, expected: set[str]) -> None:
    assert _run(runtime_class_warnings, obj) == expected


PV_ROWS = [
    ("no warning", {"metadata": FOO, "status": {"phase": "Bound"}}, set()),
    ("warning", {"metadata": {"name": "foo", "annotations": {
        "volume.beta.kubernetes.io/storage-class": "", "volume.beta.kubernetes.io/mount-options": ""}},
        "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "beta.kubernetes.io/os", "operator": "Equal", "values": ["windows"]}]}]}}},
        "status": {"phase": "Bound"}},
     {'metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead',
      'metadata.annotations[volume.beta.kubernetes.io/mount-options]: deprecated since v1.31; use "mountOptions" attribute instead',
      f"spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: beta.kubernetes.io/os is {OS}"}),
    ("PersistentVolumeReclaimRecycle deprecation warning",
     {"metadata": {}, "spec": {"persistentVolumeReclaimPolicy": "Recycle"}},
     {"spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the "
      "recommended approach is to use dynamic provisioning."}),
    ("PV CephFS deprecation warning", {"metadata": {}, "spec": {"cephfs": {}}},
     {"spec.cephfs: deprecated in v1.28, non-functional in v1.31+"}),
    ("PV PhotonPersistentDisk deprecation warning", {"metadata": {}, "spec": {"photonPersistentDisk": {}}},
     {"spec.photonPersistentDisk: deprecated in v1.11, non-functional in v1.16+"}),
    ("PV RBD deprecation warning", {"metadata": {}, "spec": {"rbd": {}}},
     {"spec.rbd: deprecated in v1.28, non-functional in v1.31+"}),
    ("PV ScaleIO deprecation warning", {"metadata": {}, "spec": {"scaleIO": {}}},
     {"spec.scaleIO: deprecated in v1.16, non-functional in v1.22+"}),
    ("PV StorageOS deprecation warning", {"metadata": {}, "spec": {"storageos": {}}},
     {"spec.storageOS: deprecated in v1.22, non-functional in v1.25+"}),
    ("PV GlusterFS deprecation warning", {"metadata": {}, "spec": {"glusterfs": {}}},
     {"spec.glusterfs: deprecated in v1.25, non-functional in v1.26+"}),
]  # fmt: skip


@pytest.mark.parametrize(("obj", "expected"), [pytest.param(o, e, id=f"podspec_{n}") for n, o, e in PV_ROWS])
def test_persistent_volume(obj: Obj, expected: set[str]) -> None:
    assert _run(pv_warnings, obj) == expected


def _pvc(requests: Obj | None = None, limits: Obj | None = None) -> Obj:
    res: Obj = {}
    if requests:
        res["requests"] = requests
    if limits:
        res["limits"] = limits
    return {"metadata": {}, "spec": {"resources": res}}


PVC_ROWS = [
    ("200Mi requests no warning", _pvc({"storage": "200Mi"}, {"storage": "200Mi"}), set()),
    ("200m warning", _pvc({"storage": "200m"}, {"storage": "100m"}),
     {'spec.resources.requests[storage]: fractional byte value "200m" is invalid, must be an integer',
      'spec.resources.limits[storage]: fractional byte value "100m" is invalid, must be an integer'}),
    ("integer no warning", _pvc({"storage": "200"}), set()),
    ("storageclass annotations warning",
     {"metadata": {"name": "foo", "annotations": {"volume.beta.kubernetes.io/storage-class": ""}}, "spec": {}},
     {'metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead'}),
]  # fmt: skip


@pytest.mark.parametrize(("obj", "expected"), [pytest.param(o, e, id=f"pvcspec_{n}") for n, o, e in PVC_ROWS])
def test_persistent_volume_claim(obj: Obj, expected: set[str]) -> None:
    assert _run(pvc_warnings, obj) == expected


SC_ROWS = [
    ("no warning", {"metadata": FOO}, set()),
    ("warning", {"metadata": FOO, "allowedTopologies": [{"matchLabelExpressions": [
        {"key": "beta.kubernetes.io/arch", "values": ["amd64"]},
        {"key": "beta.kubernetes.io/os", "values": ["linux"]}]}]},
     {f"allowedTopologies[0].matchLabelExpressions[0].key: {ARCH}",
      f"allowedTopologies[0].matchLabelExpressions[1].key: {OS}"}),
]  # fmt: skip


@pytest.mark.parametrize(("obj", "expected"), [pytest.param(o, e, id=f"podspec_{n}") for n, o, e in SC_ROWS])
def test_storage_class(obj: Obj, expected: set[str]) -> None:
    assert _run(storage_class_warnings, obj) == expected


CSC_ROWS = [
    ("no warning", {"metadata": FOO}, set()),
    ("MatchLabels warning", {"metadata": FOO, "nodeTopology": {"matchLabels": {
        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux"}}},
     {f"nodeTopology.matchLabels.beta.kubernetes.io/arch: {ARCH}",
      f"nodeTopology.matchLabels.beta.kubernetes.io/os: {OS}"}),
    ("MatchExpressions warning", {"metadata": FOO, "nodeTopology": {"matchExpressions": [
        {"key": "beta.kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
        {"key": "beta.kubernetes.io/os", "operator": "In", "values": ["linux"]}]}},
     {f"nodeTopology.matchExpressions[0].key: beta.kubernetes.io/arch is {ARCH}",
      f"nodeTopology.matchExpressions[1].key: beta.kubernetes.io/os is {OS}"}),
]  # fmt: skip


@pytest.mark.parametrize(("obj", "expected"), [pytest.param(o, e, id=f"podspec_{n}") for n, o, e in CSC_ROWS])
def test_csi_storage_capacity(obj: Obj, expected: set[str]) -> None:
    assert _run(csi_storage_capacity_warnings, obj) == expected


VALID_TEMPLATE = {"metadata": {"labels": {"a": "b"}}, "spec": {
    "restartPolicy": "OnFailure", "dnsPolicy": "ClusterFirst",
    "containers": [{"name": "abc", "image": "image", "imagePullPolicy": "IfNotPresent",
                    "terminationMessagePolicy": "File"}]}}  # fmt: skip
JOB_ROWS = [
    ("valid NonIndexed", {"completionMode": "NonIndexed", "template": VALID_TEMPLATE}, 0),
    ("NondIndexed with high completions and parallelism",
     {"completionMode": "NonIndexed", "template": VALID_TEMPLATE, "parallelism": 1_000_000_000,
      "completions": 1_000_000_000}, 0),
    ("invalid PodTemplate",
     {"completionMode": "NonIndexed", "template": {"spec": {"imagePullSecrets": [{"name": ""}]}}}, 1),
    ("valid Indexed low completions low parallelism",
     {"completionMode": "Indexed", "completions": 10_000, "parallelism": 10_000, "template": VALID_TEMPLATE}, 0),
    ("valid Indexed high completions low parallelism",
     {"completionMode": "Indexed", "completions": 1000_000_000, "parallelism": 10_000, "template": VALID_TEMPLATE}, 0),
    ("valid Indexed medium completions medium parallelism",
     {"completionMode": "Indexed", "completions": 100_000, "parallelism": 100_000, "template": VALID_TEMPLATE}, 0),
    ("invalid Indexed high completions high parallelism",
     {"completionMode": "Indexed", "completions": 100_001, "parallelism": 10_001, "template": VALID_TEMPLATE}, 1),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "count"), [pytest.param(s, c, id=n) for n, s, c in JOB_ROWS])
def test_warnings_for_job_spec(spec: Obj, count: int) -> None:
    assert len(job_spec_warnings("", spec, None)) == count
