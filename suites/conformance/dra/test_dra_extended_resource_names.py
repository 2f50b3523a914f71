"""DRA-EXT: which names a DeviceClass may serve as ``extendedResourceName``
(``validate.ExtendedResourceName``)."""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import DRA_API, make_device_class
from reference_impl.errors import Invalid, NotFound

pytestmark = [pytest.mark.conformance, pytest.mark.feature("KEP-5004")]

BAD = [
    ("foo", "a name must be a domain-prefixed path, such as 'example.com/my-prop'"),
    ("deviceclass.resource.kubernetes.io/gpu", 'must not have "kubernetes.io/" domain'),
    ("kubernetes.io/gpu", 'must not have "kubernetes.io/" domain'),
    ("requests.example.com/gpu", 'must not have "requests." prefix'),
    ("Example.com/gpu", "prefix part a lowercase RFC 1123 subdomain must consist of lower case"),
    ("example.com/" + "g" * 64, "name part must be no more than 63 bytes"),
    ("example.com/-gpu", "name part must consist of alphanumeric characters"),
    ("example.com/a/b", "a valid label key must consist of alphanumeric characters"),
    ("example.com/", "name part must be non-empty"),
]


@pytest.mark.parametrize(("name", "why"), BAD, ids=[n[:40] for n, _ in BAD])
def test_an_invalid_extended_resource_name_is_rejected(
    target: Target, namespace: str, name: str, why: str
) -> None:
    """DRA-EXT, extendedResourceName format.

    A DeviceClass whose extendedResourceName is not a domain-prefixed extended resource
    name (one outside ``kubernetes.io/``, without the ``requests.`` prefix, a qualified
    name once prefixed with ``requests.``) MUST be rejected as Invalid at
    ``spec.extendedResourceName`` with upstream's reason, and MUST NOT be stored; in
    particular no class may claim another class's implicit
    ``deviceclass.resource.kubernetes.io/<class>`` name.
    """
    cls = f"dra-ern-{namespace}"
    with pytest.raises(Invalid) as err:
        target.apply(make_device_class(cls).extended_resource(name).build())
    assert "spec.extendedResourceName" in err.value.fields
    assert why in str(err.value), str(err.value)
    with pytest.raises(NotFound):
        target.get(DRA_API, "DeviceClass", cls)


@pytest.mark.parametrize("name", ["example.com/gpu", "gpu.example.com/a_b.c-1"])
def test_a_valid_extended_resource_name_is_stored(target: Target, namespace: str, name: str) -> None:
    """DRA-EXT, extendedResourceName accepted.

    A domain-prefixed name such as ``example.com/gpu`` MUST be stored unchanged.
    """
    cls = f"dra-ern-{namespace}"
    try:
        stored = target.apply(make_device_class(cls).extended_resource(name).build())
        assert stored["spec"]["extendedResourceName"] == name
    finally:
        try:
            target.delete(DRA_API, "DeviceClass", cls)
        except NotFound:
            pass
