"""TestHasAPIReferences of pkg/api/pod/util_test.go (v1.37.2) on
``admission.pod_references.has_api_object_reference``: (references, resource) per row."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.admission.pod_references import has_api_object_reference

Obj = dict[str, Any]


def _vol(name: str, source: str, value: Obj | None = None) -> Obj:
    return {"name": name, source: value or {}}


def _pod(*volumes: Obj) -> Obj:
    return {"spec": {"volumes": list(volumes)}}


def _projected(*kinds: str) -> Obj:
    return _vol("test-volume-projected", "projected", {"sources": [{k: {}} for k in kinds]})


def _ctr(**fields: Any) -> Obj:
    return {"spec": {"containers": [{"name": "test-container", **fields}]}}


# (name, pod, expectRejection, resource)
_ROWS: list[tuple[str, Obj, bool, str]] = [
    ("Empty ServiceAccount in Static Pod", {"spec": {}}, False, ""),
    ("Non empty ServiceAccount", {"spec": {"serviceAccountName": "default"}}, True, "serviceaccounts"),  # noqa: E501
    ("Empty Volume list", {"spec": {}}, False, ""),
    ("Non empty volume list with HostPath volume", _pod(_vol("test-volume-hostpath", "hostPath")), False, ""),  # noqa: E501
    ("Non empty volume list with EmptyDir volume", _pod(_vol("test-volume-emptydir", "emptyDir")), False, ""),  # noqa: E501
    ("Non empty volume list with Secret volume", _pod(_vol("test-volume-secret", "secret")), True, "secrets (via secret volumes)"),  # noqa: E501
    ("Non empty volume list with ConfigMap volume", _pod(_vol("test-volume-configmap", "configMap")), True, "configmaps (via configmap volumes)"),  # noqa: E501
    ("Non empty volume list with GCEPersistentDisk volume", _pod(_vol("test-volume-gce", "gcePersistentDisk")), False, ""),  # noqa: E501
    ("Non empty volume list with AWSElasticBlockStore volume", _pod(_vol("test-volume-aws", "awsElasticBlockStore")), False, ""),  # noqa: E501
    ("Non empty volume list with GitRepo volume", _pod(_vol("test-volume-gitrepo", "gitRepo")), False, ""),  # noqa: E501
    ("Non empty volume list with NFS volume", _pod(_vol("test-volume-nfs", "nfs")), False, ""),
    ("Non empty volume list with ISCSI volume", _pod(_vol("test-volume-iscsi", "iscsi")), False, ""),  # noqa: E501
    ("Non empty volume list with Glusterfs volume", _pod(_vol("test-volume-glusterfs", "glusterfs")), True, "endpoints (via glusterFS volumes)"),  # noqa: E501
    ("Non empty volume list with PersistentVolumeClaim", _pod(_vol("test-volume-pvc", "persistentVolumeClaim")), True, "persistentvolumeclaims"),  # noqa: E501
    ("Non empty volume list with RBD volume", _pod(_vol("test-volume-rbd", "rbd")), False, ""),
    ("Non empty volume list with FlexVolume volume", _pod(_vol("test-volume-flexvolume", "flexVolume")), False, ""),  # noqa: E501
    ("Non empty volume list with Cinder volume", _pod(_vol("test-volume-cinder", "cinder")), False, ""),  # noqa: E501
    ("Non empty volume list with CephFS volume", _pod(_vol("test-volume-cephfs", "cephfs")), False, ""),  # noqa: E501
    ("Non empty volume list with Flocker volume", _pod(_vol("test-volume-flocker", "flocker")), False, ""),  # noqa: E501
    ("Non empty volume list with DownwardAPI volume", _pod(_vol("test-volume-downwardapi", "downwardAPI")), False, ""),  # noqa: E501
    ("Non empty volume list with FC volume", _pod(_vol("test-volume-fc", "fc")), False, ""),
    ("Non empty volume list with AzureFile volume", _pod(_vol("test-volume-azurefile", "azureFile")), True, "secrets (via azureFile volumes)"),  # noqa: E501
    ("Non empty volume list with VsphereVolume volume", _pod(_vol("test-volume-vsphere", "vsphereVolume")), False, ""),  # noqa: E501
    ("Non empty volume list with Quobyte volume", _pod(_vol("test-volume-quobyte", "quobyte")), False, ""),  # noqa: E501
    ("Non empty volume list with AzureDisk volume", _pod(_vol("test-volume-azuredisk", "azureDisk")), False, ""),  # noqa: E501
    ("Non empty volume list with PhotonPersistentDisk volume", _pod(_vol("test-volume-photon", "photonPersistentDisk")), False, ""),  # noqa: E501
    ("Non empty volume list with Projected volume with clustertrustbundles", _pod(_projected("clusterTrustBundle")), True, "clustertrustbundles"),  # noqa: E501
    ("Non empty volume list with Projected volume with podcertificates", _pod(_projected("podCertificate")), True, "podcertificates"),  # noqa: E501
    ("Non empty volume list with Projected volume with secrets", _pod(_projected("secret")), True, "secrets (via projected volumes)"),  # noqa: E501
    ("Non empty volume list with Projected volume with configmap", _pod(_projected("configMap")), True, "configmaps (via projected volumes)"),  # noqa: E501
    ("Non empty volume list with Projected volume with serviceaccounttoken", _pod(_projected("serviceAccountToken")), True, "serviceaccounts (via projected volumes)"),  # noqa: E501
    ("Non empty volume list with Projected volume with downwardapi", _pod(_projected("downwardAPI")), False, ""),  # noqa: E501
    ("Non empty volume list with Portworx volume", _pod(_vol("test-volume-portworx", "portworxVolume")), False, ""),  # noqa: E501
    ("Non empty volume list with ScaleIO volume", _pod(_vol("test-volume-scaleio", "scaleIO")), False, ""),  # noqa: E501
    ("Non empty volume list with StorageOS volume", _pod(_vol("test-volume-storageos", "storageos")), False, ""),  # noqa: E501
    ("Non empty volume list with CSI volume", _pod(_vol("test-volume-csi", "csi")), True, "csidrivers (via CSI volumes)"),  # noqa: E501
    ("Non empty volume list with Ephemeral volume", _pod(_vol("test-volume-ephemeral", "ephemeral")), True, "persistentvolumeclaims (via ephemeral volumes)"),  # noqa: E501
    ("Non empty volume list with Image volume", _pod(_vol("test-volume-image", "image")), False, ""),  # noqa: E501
    ("No envs", {"spec": {}}, False, ""),
    ("Non empty Env with value", _ctr(env=[{"name": "test-env", "value": "TEST_ENV_VAL"}]), False, ""),  # noqa: E501
    ("Non empty EnvFrom with ConfigMap", _ctr(envFrom=[{"configMapRef": {"name": "test"}}]), True, "configmaps"),  # noqa: E501
    ("Non empty EnvFrom with Secret", _ctr(envFrom=[{"secretRef": {"name": "test"}}]), True, "secrets"),  # noqa: E501
    ("Non empty Env with ConfigMap", _ctr(env=[{"name": "test-env", "valueFrom": {"configMapKeyRef": {"name": "test"}}}]), True, "configmaps"),  # noqa: E501
    ("Non empty Env with Secret", _ctr(env=[{"name": "test-env", "valueFrom": {"secretKeyRef": {"name": "test"}}}]), True, "secrets"),  # noqa: E501
    (
        "Multiple volume list where invalid volume comes after valid volume source",
        _pod(_vol("test-volume-portworx", "portworxVolume"), _vol("test-volume-configmap", "configMap")),  # noqa: E501
        True,
        "configmaps (via configmap volumes)",
    ),
    (
        "Multiple volume list where invalid configmap volume comes after valid downwardapi projected volume",  # noqa: E501
        _pod(_projected("downwardAPI"), _vol("test-volume-configmap", "configMap")),
        True,
        "configmaps (via configmap volumes)",
    ),
    (
        "Multiple volume list where invalid configmap projected volume comes after valid downwardapi projected volume",  # noqa: E501
        _pod(_projected("downwardAPI"), _projected("configMap")),
        True,
        "configmaps (via projected volumes)",
    ),
]


@pytest.mark.parametrize(("pod", "rejection", "resource"), [pytest.param(*r[1:], id=r[0]) for r in _ROWS])  # noqa: E501
def test_has_api_references(pod: Obj, rejection: bool, resource: str) -> None:
    got, got_resource, _ = has_api_object_reference(pod)
    assert (got, got_resource) == (rejection, resource)
