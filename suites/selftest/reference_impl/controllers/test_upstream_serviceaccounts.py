"""pkg/controller/serviceaccount/serviceaccounts_controller_test.go (TestServiceAccountCreation)
and pkg/controller/certificates/rootcacertpublisher/publisher_test.go (TestConfigMapCreation,
TestConfigMapUpdateNoHotLoop), v1.37.2, row by row, against ``reference_impl/controllers/
serviceaccounts.py`` and ``root_ca_publisher.py``.

The row's informer state is stored in a real APIServer without admission; a row's event
is a real write after the controller started and settled (or, for a namespace "added" or
"updated", the controller's start, which queues every namespace). Creates and updates
the controller sends are logged, refused ones included (upstream's ``client.Actions()``).
tokens_controller_test.go is not ported: the reference has no token controller (legacy
service-account token Secrets are not modelled).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import pytest
from protection_upstream_env import Env, build_env

from reference_impl.apiserver.watch import ObjectEvent
from reference_impl.controllers.root_ca_publisher import (
    DESCRIPTION,
    DESCRIPTION_ANNOTATION,
    ROOT_CA_CONFIG_MAP,
    RootCACertPublisher,
)
from reference_impl.controllers.serviceaccounts import ServiceAccountsController

Obj = dict[str, Any]
# Upstream's rows use "default" over a fake client; a real apiserver never deletes that one
# (NamespaceLifecycle), and the terminating rows need a deletable namespace.
NS: Final = "sa-test"
DEFAULT, MANAGED, UNMANAGED = "default", "managed", "other-unmanaged"


def _log_creates(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    real = env.server.create

    def create(manifest: Obj) -> Obj:
        if not env.quiet:
            env.updates.append(f"create {manifest['kind']} {manifest['metadata']['name']}")
        return real(manifest)

    monkeypatch.setattr(env.server, "create", create)


def _sa(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": NS}}


def _terminate(env: Env, ns: str = NS) -> None:
    """A namespace being deleted stays Terminating (no namespace controller runs)."""
    env.server.delete("v1", "Namespace", ns)


# -- TestServiceAccountCreation -------------------------------------------------------


@dataclass
class SARow:
    namespace: str = ""  # "", "active" or "terminating": ExistingNamespace/Added/Updated
    existing: tuple[str, ...] = ()
    deleted: str = ""  # DeletedServiceAccount
    expected: list[str] = field(default_factory=list)


# fmt: off
SA_ROWS = [
    pytest.param(SARow("active", (), expected=[DEFAULT, MANAGED]), id="new active namespace missing serviceaccounts"),
    pytest.param(SARow("active", (MANAGED,), expected=[DEFAULT]), id="new active namespace missing serviceaccount"),
    pytest.param(SARow("active", (DEFAULT, MANAGED)), id="new active namespace with serviceaccounts"),
    pytest.param(SARow("terminating"), id="new terminating namespace"),
    pytest.param(SARow("active", (), expected=[DEFAULT, MANAGED]), id="updated active namespace missing serviceaccounts"),
    pytest.param(SARow("active", (DEFAULT,), expected=[MANAGED]), id="updated active namespace missing serviceaccount"),
    pytest.param(SARow("active", (DEFAULT, MANAGED)), id="updated active namespace with serviceaccounts"),
    pytest.param(SARow("terminating"), id="updated terminating namespace"),
    pytest.param(SARow("", deleted=DEFAULT), id="deleted serviceaccount without namespace"),
    pytest.param(SARow("active", (MANAGED,), deleted=DEFAULT, expected=[DEFAULT]),
                 id="deleted serviceaccount with active namespace"),
    pytest.param(SARow("terminating", deleted=DEFAULT), id="deleted serviceaccount with terminating namespace"),
    pytest.param(SARow("active", (DEFAULT, MANAGED), deleted=UNMANAGED),
                 id="deleted unmanaged serviceaccount with active namespace"),
    pytest.param(SARow("terminating", deleted=UNMANAGED),
                 id="deleted unmanaged serviceaccount with terminating namespace"),
]
# fmt: on


@pytest.mark.parametrize("row", SA_ROWS)
def test_service_account_creation(row: SARow, monkeypatch: pytest.MonkeyPatch) -> None:
    env = build_env(monkeypatch, ())
    if row.namespace:
        env.server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
        for name in sorted({*row.existing, *((row.deleted,) if row.deleted else ())}):
            env.server.create(_sa(name))
        if row.namespace == "terminating":
            _terminate(env)
    ctrl = ServiceAccountsController(env.ctx, (DEFAULT, MANAGED))
    if row.deleted and row.namespace:
        ctrl.start()
        env.clock.settle()  # the namespace's own sync: nothing is missing yet
        _log_creates(env, monkeypatch)
        env.server.delete("v1", "ServiceAccount", row.deleted, NS)
    elif row.deleted:
        # No namespace to hold it: upstream hands the handler a deleted account.
        _log_creates(env, monkeypatch)
        ctrl.start()
        info = env.server.resource("v1", "ServiceAccount")
        ctrl._on_account(ObjectEvent("DELETED", info, _sa(row.deleted), None))
    else:
        _log_creates(env, monkeypatch)
        ctrl.start()  # queues every namespace, as its add/update handlers do
    env.clock.settle()
    assert env.updates == [f"create ServiceAccount {n}" for n in row.expected]
    if row.namespace == "active":
        have = {sa["metadata"]["name"] for sa in env.server.list("v1", "ServiceAccount", NS)}
        assert {DEFAULT, MANAGED} <= have


# -- TestConfigMapCreation ------------------------------------------------------------

FAKE_CA: Final = "fake-root-ca"


def _cm(name: str = ROOT_CA_CONFIG_MAP, data: dict[str, str] | None = None) -> Obj:
    meta: Obj = {"name": name, "namespace": NS}
    out: Obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
    if data is not None:
        out["data"] = data
    return out


def _ca_cm(ca: str = FAKE_CA) -> Obj:
    """``defaultCrtConfigMapPtr``."""
    return _cm(data={"ca.crt": ca})


def _event(env: Env, event: str) -> None:
    """The row's event as a real write."""
    if event == "create new namespace":
        env.server.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "new"}})
        return
    if event == "update namespace with terminating state":
        _terminate(env)
        return
    verb, name = event.split(" ", 1)
    cm = env.server.get("v1", "ConfigMap", name, NS)
    if verb == "delete":
        env.server.delete("v1", "ConfigMap", name, NS)
    elif verb == "add-field":
        env.server.update({**cm, "data": {**cm["data"], "test": "test"}})
    elif verb == "modify-field":
        env.server.update({**cm, "data": {"ca.crt": "abc"}})
    else:
        env.server.update({**cm, "data": {"aa": "bb"}})


# fmt: off
CM_ROWS = [
    pytest.param("create new namespace", ["create"], id="create new namespace"),
    pytest.param("delete other", [], id="delete other configmap"),
    pytest.param(f"delete {ROOT_CA_CONFIG_MAP}", ["create"], id="delete ca configmap"),
    pytest.param(f"add-field {ROOT_CA_CONFIG_MAP}", ["update"], id="update ca configmap with adding field"),
    pytest.param(f"modify-field {ROOT_CA_CONFIG_MAP}", ["update"], id="update ca configmap with modifying field"),
    pytest.param("other-update other", [], id="update with other configmap"),
    pytest.param("update namespace with terminating state", [], id="update namespace with terminating state"),
]
# fmt: on


@pytest.mark.parametrize(("event", "expected"), CM_ROWS)
def test_config_map_creation(event: str, expected: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Upstream's loop asserts ``DeepEqual(actions, ExpectActions)`` the wrong way round;
    the rows' expected actions are checked here as written."""
    env = build_env(monkeypatch, (NS,))
    env.server.create(_ca_cm())
    env.server.create(_cm("other"))
    ctrl = RootCACertPublisher(env.ctx, root_ca=FAKE_CA)
    ctrl.start()
    env.clock.settle()  # the description annotation lands on the stored ca configmap
    _log_creates(env, monkeypatch)
    env.updates.clear()
    env.quiet = True
    _event(env, event)
    env.quiet = False
    env.clock.settle()
    assert [u.split(" ")[0] for u in env.updates] == expected
    assert all(ROOT_CA_CONFIG_MAP in u for u in env.updates)
    for ns in ("new",) if event.startswith("create") else (NS,):
        cm = env.server.try_get("v1", "ConfigMap", ROOT_CA_CONFIG_MAP, ns)
        assert cm is not None and cm["data"] == {"ca.crt": FAKE_CA}
        assert cm["metadata"]["annotations"][DESCRIPTION_ANNOTATION] == DESCRIPTION


# -- TestConfigMapUpdateNoHotLoop -----------------------------------------------------


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        pytest.param(None, ["update"], id="update-configmap-annotation"),
        pytest.param(DESCRIPTION, [], id="no-update-configmap-if-annotation-present-and-equal"),
        pytest.param("different", [], id="no-update-configmap-if-annotation-present-and-different"),
    ],
)
def test_config_map_update_no_hot_loop(
    annotation: str | None, expected: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One ``syncNamespace("default")`` with the root CA ``fake``."""
    env = build_env(monkeypatch, (NS,))
    cm = _cm(data={"ca.crt": "fake"})
    if annotation is not None:
        cm["metadata"]["annotations"] = {DESCRIPTION_ANNOTATION: annotation}
    env.server.create(cm)
    ctrl = RootCACertPublisher(env.ctx, root_ca="fake")
    ctrl.start()
    env.clock.settle()
    assert [u.split(" ")[0] for u in env.updates] == expected
    out = env.server.get("v1", "ConfigMap", ROOT_CA_CONFIG_MAP, NS)
    assert out["data"] == {"ca.crt": "fake"}
    assert out["metadata"]["annotations"][DESCRIPTION_ANNOTATION] == (annotation or DESCRIPTION)
