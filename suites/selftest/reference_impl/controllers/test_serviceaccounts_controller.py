"""The serviceaccount controller and the root CA publisher, after upstream's
``serviceaccounts_controller_test.go`` (TestServiceAccountCreation) and
``publisher_test.go`` (TestConfigMapCreation, TestConfigMapUpdateNoHotLoop)."""

from __future__ import annotations

from typing import Any

from controller_harness import Harness, build_harness
from cryptography import x509

from reference_impl.api import make_configmap, make_namespace
from reference_impl.controllers.root_ca_publisher import (
    DESCRIPTION,
    DESCRIPTION_ANNOTATION,
    ROOT_CA_CONFIG_MAP,
    RootCACertPublisher,
)

Obj = dict[str, Any]


def _publisher(h: Harness) -> RootCACertPublisher:
    return next(c for c in h.controllers if isinstance(c, RootCACertPublisher))


def _writes(h: Harness, component: str) -> list[str]:
    return [f"{r.event} {r.object}" for r in h.trace.records if r.component == component]


def test_every_namespace_gets_its_default_account_and_root_ca() -> None:
    """The namespaces there at start, and each new namespace."""
    h = build_harness()
    for ns in ("default", "kube-node-lease"):
        assert h.get("v1", "ServiceAccount", "default", ns) is not None
        assert h.get("v1", "ConfigMap", ROOT_CA_CONFIG_MAP, ns) is not None
    h.create(make_namespace("fresh").build())
    sa = h.get("v1", "ServiceAccount", "default", "fresh")
    assert sa is not None and set(sa) == {"apiVersion", "kind", "metadata"}
    cm = h.get("v1", "ConfigMap", ROOT_CA_CONFIG_MAP, "fresh")
    assert cm is not None
    assert cm["metadata"]["annotations"] == {DESCRIPTION_ANNOTATION: DESCRIPTION}
    assert cm["data"] == {"ca.crt": _publisher(h).root_ca}


def test_a_deleted_default_account_is_recreated(h: Harness) -> None:
    """Deleted service account in an active namespace: created again."""
    h.create(make_namespace("ns").build())
    uid = h.get("v1", "ServiceAccount", "default", "ns")["metadata"]["uid"]  # type: ignore[index]
    h.server.delete("v1", "ServiceAccount", "default", "ns")
    h.clock.settle()
    again = h.get("v1", "ServiceAccount", "default", "ns")
    assert again is not None and again["metadata"]["uid"] != uid


def test_other_accounts_are_not_recreated(h: Harness) -> None:
    """Only ``default`` is ensured."""
    h.create(make_namespace("ns").build())
    h.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot", "namespace": "ns"}})
    h.server.delete("v1", "ServiceAccount", "robot", "ns")
    h.clock.settle()
    assert h.get("v1", "ServiceAccount", "robot", "ns") is None


def test_nothing_is_made_in_a_terminating_namespace(h: Harness) -> None:
    """A Terminating namespace: its deleted account and ConfigMap stay deleted (the
    controllers skip it or have their create refused), and the namespace goes away."""
    h.create(make_namespace("doomed").build(), make_configmap("x", "doomed").build())
    h.server.delete("v1", "Namespace", "doomed")
    h.run_until(lambda: h.get("v1", "Namespace", "doomed", None) is None, timeout=60)
    assert h.server.list("v1", "ServiceAccount", "doomed") == []
    assert h.server.list("v1", "ConfigMap", "doomed") == []


def test_a_deleted_or_changed_root_ca_is_restored(h: Harness) -> None:
    """TestConfigMapCreation: deleted, its data changed, its annotation dropped; another
    ConfigMap is left alone."""
    h.create(make_namespace("ns").build())
    ca = _publisher(h).root_ca
    h.server.delete("v1", "ConfigMap", ROOT_CA_CONFIG_MAP, "ns")
    h.clock.settle()
    cm = h.get("v1", "ConfigMap", ROOT_CA_CONFIG_MAP, "ns")
    assert cm is not None and cm["data"] == {"ca.crt": ca}
    h.server.update({**cm, "data": {"ca.crt": "tampered", "extra": "x"}})
    h.clock.settle()
    cm = h.get("v1", "ConfigMap", ROOT_CA_CONFIG_MAP, "ns")
    assert cm is not None and cm["data"] == {"ca.crt": ca}
    h.server.update({**cm, "metadata": {**cm["metadata"], "annotations": {"mine": "kept"}}})
    h.clock.settle()
    cm = h.get("v1", "ConfigMap", ROOT_CA_CONFIG_MAP, "ns")
    assert cm is not None
    assert cm["metadata"]["annotations"] == {"mine": "kept", DESCRIPTION_ANNOTATION: DESCRIPTION}
    h.create(make_configmap("other", "ns", a="b").build())
    other = h.get("v1", "ConfigMap", "other", "ns")
    assert other is not None
    h.server.update({**other, "data": {"a": "c"}})
    h.clock.settle()
    assert h.get("v1", "ConfigMap", "other", "ns")["data"] == {"a": "c"}  # type: ignore[index]


def test_an_up_to_date_root_ca_is_not_rewritten(h: Harness) -> None:
    """TestConfigMapUpdateNoHotLoop: a ConfigMap with the data and the description is
    not written again when it or its namespace changes."""
    h.create(make_namespace("ns").build())
    before = h.get("v1", "ConfigMap", ROOT_CA_CONFIG_MAP, "ns")
    assert before is not None
    ns = h.get("v1", "Namespace", "ns", None)
    assert ns is not None
    h.server.update({**ns, "metadata": {**ns["metadata"], "labels": {"x": "y"}}})
    h.server.update({**before, "metadata": {**before["metadata"], "labels": {"touched": "1"}}})
    h.clock.settle()
    after = h.get("v1", "ConfigMap", ROOT_CA_CONFIG_MAP, "ns")
    assert after is not None and after["metadata"]["labels"] == {"touched": "1"}
    assert [w for w in _writes(h, "root-ca-certificate-publisher-controller") if "/ns/" in w] == [
        f"create ConfigMap/ns/{ROOT_CA_CONFIG_MAP}"
    ]


def test_the_root_ca_is_a_seeded_self_signed_kubernetes_ca(h: Harness) -> None:
    """The CA: ``CN=kubernetes``, self-signed, a CA, the same for the same seed."""
    pem = _publisher(h).root_ca
    cert = x509.load_pem_x509_certificate(pem.encode())
    assert cert.subject == cert.issuer
    assert cert.subject.rfc4514_string() == "CN=kubernetes"
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert _publisher(build_harness()).root_ca == pem
