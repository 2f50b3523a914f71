"""API machinery conformance: ``dryRun=All`` writes change nothing.

Upstream serves a dry run of every write verb (k8s.io/apiserver
``pkg/registry/generic/registry/dryrun.go`` under ``store.go``): the request is decoded,
defaulted, admitted and validated as ever, the storage is read but never written. A dry-run
create answers the object it would store (generated name, uid, creationTimestamp, no
resourceVersion); a dry-run update the object it would store, at the stored
resourceVersion; a dry-run delete of an object with finalizers the object marked with a
deletionTimestamp. The Service REST allocates nothing on a dry run
(``pkg/registry/core/service/storage/alloc.go``): an address a dry run hands out stays free.
"""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from fixtures import Target
from fixtures.helpers.eventually import eventually
from fixtures.helpers.finalizers import release_finalizers
from fixtures.targets.extensions import DryRunWrites, dry_run_writes_of
from reference_impl.errors import AlreadyExists, ApiError, Invalid, NotFound

pytestmark = pytest.mark.conformance

Obj = dict[str, Any]
FINALIZER = "garhwal.dev/dry-run-test"


@pytest.fixture
def dry(target: Target) -> DryRunWrites:
    """The target's dry-run writes."""
    client = dry_run_writes_of(target)
    if client is None:
        pytest.skip(f"target {target.name!r} does not send dry-run writes")
    return client


def _config_map(name: str, namespace: str, **meta: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, **meta}, "data": {"k": "1"}}  # fmt: skip


def _unfinalize_and_delete(target: Target, name: str, namespace: str) -> None:
    release_finalizers(target, "v1", "ConfigMap", name, namespace)
    try:
        target.delete("v1", "ConfigMap", name, namespace)
    except NotFound:
        pass


def test_dry_run_create_stores_nothing(target: Target, namespace: str, dry: DryRunWrites) -> None:
    """Dry-run create.

    A dry-run create MUST answer the object as it would be stored: a name generated from
    generateName, a uid and a creationTimestamp, and no resourceVersion. Nothing MUST be
    stored: the generated name MUST NOT be found, nor any object in the namespace's list.
    """
    body = _config_map("", namespace)
    body["metadata"] = {"generateName": "dry-", "namespace": namespace}
    out = dry.dry_run_create(body)
    meta = out["metadata"]
    assert meta["name"].startswith("dry-") and len(meta["name"]) > len("dry-"), meta
    assert meta.get("uid") and meta.get("creationTimestamp"), meta
    assert not meta.get("resourceVersion"), meta
    assert out["data"] == {"k": "1"}
    with pytest.raises(NotFound):
        target.get("v1", "ConfigMap", meta["name"], namespace)
    names = [c["metadata"]["name"] for c in target.list("v1", "ConfigMap", namespace)]
    assert not [n for n in names if n.startswith("dry-")], names


def test_dry_run_create_validates(target: Target, namespace: str, dry: DryRunWrites) -> None:
    """Dry-run create validation.

    A dry-run create of an invalid object MUST be refused as Invalid, and one whose name is
    taken MUST be refused as AlreadyExists, as a real create is.
    """
    with pytest.raises(Invalid):
        dry.dry_run_create(_config_map("Not_A_Name", namespace))
    target.apply(_config_map("taken", namespace))
    with pytest.raises(AlreadyExists):
        dry.dry_run_create(_config_map("taken", namespace))


def test_dry_run_update_changes_nothing(target: Target, namespace: str, dry: DryRunWrites) -> None:
    """Dry-run update.

    A dry-run update MUST answer the object with the change, at the stored
    resourceVersion; the stored object MUST keep its data and resourceVersion.
    """
    stored = target.apply(_config_map("upd", namespace))
    body = {**stored, "data": {"k": "2"}}
    out = dry.dry_run_update(body)
    assert out["data"] == {"k": "2"}
    assert out["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
    assert out["metadata"]["uid"] == stored["metadata"]["uid"]
    now = target.get("v1", "ConfigMap", "upd", namespace)
    assert now["data"] == {"k": "1"}
    assert now["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]


def test_dry_run_delete_changes_nothing(target: Target, namespace: str, dry: DryRunWrites) -> None:
    """Dry-run delete.

    A dry-run delete of an object with a finalizer MUST answer it marked with a
    deletionTimestamp, its finalizer kept; one of an object without finalizers MUST answer
    that it would go. Both objects MUST stay as they were: no deletionTimestamp, the same
    resourceVersion.
    """
    held = target.apply(_config_map("held", namespace, finalizers=[FINALIZER]))
    plain = target.apply(_config_map("plain", namespace))
    try:
        marked = dry.dry_run_delete("v1", "ConfigMap", "held", namespace)
        assert marked is not None and marked["metadata"].get("deletionTimestamp"), marked
        assert FINALIZER in marked["metadata"].get("finalizers", []), marked
        assert dry.dry_run_delete("v1", "ConfigMap", "plain", namespace) is None
        for before in (held, plain):
            now = target.get("v1", "ConfigMap", before["metadata"]["name"], namespace)
            assert not now["metadata"].get("deletionTimestamp"), now
            assert now["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
        with pytest.raises(NotFound):
            dry.dry_run_delete("v1", "ConfigMap", "absent", namespace)
    finally:
        _unfinalize_and_delete(target, "held", namespace)


def _service(name: str, namespace: str, cluster_ip: str | None = None) -> Obj:
    spec: Obj = {"selector": {"app": "dry-run"}, "ports": [{"port": 80, "protocol": "TCP"}]}
    if cluster_ip is not None:
        spec["clusterIP"] = cluster_ip
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}  # fmt: skip


def test_dry_run_service_create_holds_no_ip(
    target: Target, namespace: str, dry: DryRunWrites
) -> None:
    """Dry-run Service create allocates no cluster IP.

    A dry-run create of a Service MUST answer a cluster IP, store no Service, and hold no
    address: after a dry run asks for a free address, a real create asking for the same
    address MUST get it.
    """
    out = dry.dry_run_create(_service("dry", namespace))
    ipaddress.ip_address(out["spec"]["clusterIP"])  # an address, not None
    with pytest.raises(NotFound):
        target.get("v1", "Service", "dry", namespace)
    # A free address of the range: one a real Service got, then gave back.
    probe = target.apply(_service("probe", namespace))
    ip = probe["spec"]["clusterIP"]
    target.delete("v1", "Service", "probe", namespace)
    asked = dry.dry_run_create(_service("dry", namespace, ip))
    assert asked["spec"]["clusterIP"] == ip
    got: list[Obj] = []

    def real_create_takes_it() -> str:
        try:
            got.append(target.apply(_service("real", namespace, ip)))
        except ApiError as exc:  # the probe's address may take a moment to come free
            return str(exc)
        return ""

    eventually(target, real_create_takes_it, 30, f"a real Service taking {ip}")
    assert got[-1]["spec"]["clusterIP"] == ip
