"""pkg/controller/volume/pvprotection/pv_protection_controller_test.go (v1.37.2),
TestPVProtectionController row by row, against ``reference_impl/controllers/
pv_protection.py``.

The controller starts on an empty APIServer; the row's PV event (``updatedPV``) is then
a real write (a "deleted" volume is created with the finalizer and deleted) and the
clock runs the queue, retries included. The expected actions are upstream's update
actions in order, failed attempts included.
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from protection_upstream_env import build_env, drain, store

from reference_impl.apiserver.admission.storage_object_in_use_protection import PV_PROTECTION
from reference_impl.controllers.pv_protection import PVProtectionController

Obj = dict[str, Any]
NAME: Final = "default-pv"


def pv(*, bound: bool = False, finalizer: bool = False) -> Obj:
    """``pv()``/``boundPV()`` and ``withProtectionFinalizer``."""
    meta: Obj = {"name": NAME}
    if finalizer:
        meta["finalizers"] = [PV_PROTECTION]
    out: Obj = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": meta,
        "spec": {
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOnce"],
            "hostPath": {"path": "/tmp/pv"},
        },
    }
    if bound:
        out["status"] = {"phase": "Bound"}
    return out


def upd(*, finalizer: bool, deleted: bool = False) -> str:
    fins = PV_PROTECTION if finalizer else ""
    return f"update PersistentVolume {NAME}{' deleted' if deleted else ''} finalizers=[{fins}]"


ADD: Final = upd(finalizer=True)
REMOVE: Final = upd(deleted=True, finalizer=False)


@pytest.mark.parametrize(
    ("updated", "deleted", "fail", "expected"),
    [
        pytest.param(pv(), False, 0, [ADD], id="PV without finalizer -> finalizer is added"),
        pytest.param(pv(finalizer=True), False, 0, [], id="PVC with finalizer -> no action"),
        pytest.param(
            pv(), False, 2, [ADD, ADD, ADD], id="saving PVC finalizer fails -> controller retries"
        ),
        pytest.param(
            pv(finalizer=True), True, 0, [REMOVE], id="deleted PV with finalizer -> finalizer is removed"
        ),
        pytest.param(
            pv(finalizer=True),
            True,
            2,
            [REMOVE, REMOVE, REMOVE],
            id="finalizer removal fails -> controller retries",
        ),
        pytest.param(
            pv(bound=True, finalizer=True),
            True,
            0,
            [],
            id="deleted PVC with finalizer + PV is bound -> finalizer is not removed",
        ),
    ],
)
def test_pv_protection_controller(
    updated: Obj, deleted: bool, fail: int, expected: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    env = build_env(monkeypatch)
    PVProtectionController(env.ctx).start()
    env.clock.settle()
    store(env, updated, deleted=deleted)
    env.fail = fail
    drain(env)
    assert env.updates == expected
    left = env.server.try_get("v1", "PersistentVolume", NAME, None)
    if expected and expected[-1] == REMOVE:
        assert left is None
    else:
        assert left is not None and left["metadata"].get("finalizers") == [PV_PROTECTION]
