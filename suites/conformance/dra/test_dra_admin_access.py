"""DRA admin access needs the namespace label (after upstream's
``test/integration/dra/adminaccess.go`` and ``pkg/registry/resource/*/strategy_test.go``)."""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import DRA_API, make_claim_template, make_namespace, make_resource_claim
from reference_impl.errors import Invalid, NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-4381")]
LABEL = "resource.kubernetes.io/admin-access"
MESSAGE = f"admin access to devices requires the `{LABEL}: true` label on the containing namespace"
CLASS = "dra-admin-gpu"  # the class need not exist for a claim to be stored


def _label_namespace(target: Target, namespace: str, value: str) -> None:
    target.apply(
        make_namespace(namespace)
        .label("app.kubernetes.io/managed-by", "garhwal")
        .label(LABEL, value)
        .build()
    )


def _absent(target: Target, kind: str, name: str, namespace: str) -> bool:
    try:
        target.get(DRA_API, kind, name, namespace)
    except NotFound:
        return True
    return False


@pytest.mark.parametrize("kind", ["ResourceClaim", "ResourceClaimTemplate"])
def test_admin_access_in_an_unlabelled_namespace_is_forbidden(
    target: Target, namespace: str, kind: str
) -> None:
    """DRA admin access, namespace label missing.

    Creating a ResourceClaim or ResourceClaimTemplate with ``adminAccess: true`` in a
    namespace without the label ``resource.kubernetes.io/admin-access: "true"`` MUST be
    rejected as Invalid at ``spec.devices.requests[0].adminAccess``, with a message naming
    the label, and nothing MUST be stored.
    """
    build = make_resource_claim if kind == "ResourceClaim" else make_claim_template
    manifest = build("admin", namespace).request("gpu", CLASS, admin_access=True).build()
    with pytest.raises(Invalid) as err:
        target.apply(manifest)
    assert "spec.devices.requests[0].adminAccess" in err.value.fields
    assert MESSAGE in str(err.value)
    assert _absent(target, kind, "admin", namespace)


@pytest.mark.parametrize("value", ["false", "True"])
def test_admin_access_needs_the_label_value_true(
    target: Target, namespace: str, value: str
) -> None:
    """DRA admin access, label value.

    The namespace label MUST have exactly the value ``"true"``: with ``"false"`` or
    ``"True"`` a claim asking for admin access MUST still be rejected, naming the label.
    """
    _label_namespace(target, namespace, value)
    manifest = make_resource_claim("admin", namespace).request("gpu", CLASS, admin_access=True).build()
    with pytest.raises(Invalid) as err:
        target.apply(manifest)
    assert MESSAGE in str(err.value)


@pytest.mark.parametrize("kind", ["ResourceClaim", "ResourceClaimTemplate"])
def test_admin_access_in_a_labelled_namespace_is_stored(
    target: Target, namespace: str, kind: str
) -> None:
    """DRA admin access, labelled namespace.

    In a namespace labelled ``resource.kubernetes.io/admin-access: "true"`` a claim (or
    template) with ``adminAccess: true`` MUST be stored with the field kept; only the
    request that asks for admin access is checked, so one without it MUST be stored in
    any namespace.
    """
    _label_namespace(target, namespace, "true")
    build = make_resource_claim if kind == "ResourceClaim" else make_claim_template
    stored = target.apply(build("admin", namespace).request("gpu", CLASS, admin_access=True).build())
    spec = stored["spec"] if kind == "ResourceClaim" else stored["spec"]["spec"]
    assert spec["devices"]["requests"][0]["exactly"]["adminAccess"] is True
    plain = target.apply(build("plain", namespace).request("gpu", CLASS).build())
    assert plain["metadata"]["name"] == "plain"


def test_admin_access_on_a_later_request_names_that_request(
    target: Target, namespace: str
) -> None:
    """DRA admin access, field path.

    The error MUST name the first request that asks for admin access
    (``spec.devices.requests[1].adminAccess`` when only the second one does).
    """
    manifest = (
        make_resource_claim("admin", namespace)
        .request("plain", CLASS)
        .request("admin", CLASS, admin_access=True)
        .build()
    )
    with pytest.raises(Invalid) as err:
        target.apply(manifest)
    assert "spec.devices.requests[1].adminAccess" in err.value.fields
    assert "spec.devices.requests[0].adminAccess" not in err.value.fields


def test_removing_the_label_keeps_existing_claims_updatable(
    target: Target, namespace: str
) -> None:
    """DRA admin access, updates.

    The label is checked when a claim is created, not when it is updated (its spec is
    immutable): after the label is removed, a metadata update of a stored admin-access
    claim MUST succeed, while a new admin-access claim MUST be rejected.
    """
    _label_namespace(target, namespace, "true")
    stored = target.apply(
        make_resource_claim("admin", namespace).request("gpu", CLASS, admin_access=True).build()
    )
    _label_namespace(target, namespace, "false")
    stored["metadata"].setdefault("labels", {})["touched"] = "yes"
    updated = target.apply(stored)
    assert updated["metadata"]["labels"]["touched"] == "yes"
    with pytest.raises(Invalid) as err:
        target.apply(
            make_resource_claim("admin2", namespace).request("gpu", CLASS, admin_access=True).build()
        )
    assert MESSAGE in str(err.value)
