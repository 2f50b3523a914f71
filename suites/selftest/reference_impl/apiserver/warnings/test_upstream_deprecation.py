"""``k8s.io/apiserver/pkg/endpoints/deprecation/deprecation_test.go`` (TestMajorMinor,
TestIsDeprecated, TestRemovedRelease, TestWarningMessage), row for row, and the 1.37
lifecycle of the kinds the reference serves at a deprecated version
(``k8s.io/api/*/zz_generated.prerelease-lifecycle.go``, ``core/v1/lifecycle.go``)."""

from __future__ import annotations

import pytest

from reference_impl.api.resources import lookup
from reference_impl.apiserver.warnings.deprecation import (
    LIFECYCLES,
    Lifecycle,
    deprecation_warnings,
    is_deprecated,
    major_minor,
    removed_release,
    warning_message,
)

P = pytest.param

MAJOR_MINOR = [
    P("", "", None, id="empty"),
    P("A", "0", None, id="non-numeric major"),
    P("1", "A", None, id="non-numeric minor"),
    P("1", "2", (1, 2), id="valid"),
    P("0", "0", (0, 0), id="valid zero"),
    P("01", "02", (1, 2), id="valid zero decimal"),
    P("1", "2+", (1, 2), id="valid with extra minor"),
    P("1", "2.3", (1, 2), id="valid with extra minor#01"),
]


@pytest.mark.parametrize(("major", "minor", "want"), MAJOR_MINOR)
def test_major_minor(major: str, minor: str, want: tuple[int, int] | None) -> None:
    if want is None:
        with pytest.raises(ValueError):
            major_minor(major, minor)
    else:
        assert major_minor(major, minor) == want


D = Lifecycle((10, 20))
IS_DEPRECATED = [
    P(None, (0, 0), False, id="no interface"),
    P(Lifecycle(), (0, 0), False, id="interface, zero-value"),
    P(D, (0, 0), True, id="interface, non-zero-value, no current value"),
    P(D, (10, 20), True, id="interface, non-zero-value matching major, minor"),
    P(D, (9, 19), False, id="interface, non-zero-value after major, after minor"),
    P(D, (9, 21), False, id="interface, non-zero-value after major, before minor"),
    P(D, (11, 19), True, id="interface, non-zero-value before major, after minor"),
    P(D, (11, 21), True, id="interface, non-zero-value before major, before minor"),
]


@pytest.mark.parametrize(("lc", "current", "want"), IS_DEPRECATED)
def test_is_deprecated(lc: Lifecycle | None, current: tuple[int, int], want: bool) -> None:
    assert is_deprecated(lc, current) is want


REMOVED = [
    P(None, "", id="no interface"),
    P(Lifecycle(removed=(0, 0)), "", id="interface, zero-value"),
    P(Lifecycle(removed=(1, 0)), "1.0", id="interface, non-zero major"),
    P(Lifecycle(removed=(0, 1)), "0.1", id="interface, non-zero minor"),
    P(Lifecycle(removed=(1, 2)), "1.2", id="interface, non-zero"),
]


@pytest.mark.parametrize(("lc", "want"), REMOVED)
def test_removed_release(lc: Lifecycle | None, want: str) -> None:
    assert removed_release(lc) == want


GV, KIND = "mygroup/v1", "MyKind"
MESSAGES = [
    P(None, "", "", "", id="no interface, zero-value"),
    P(Lifecycle(), "", "", "", id="deprecated interface, zero-value"),
    P(Lifecycle((1, 2)), GV, KIND, "mygroup/v1 MyKind is deprecated in v1.2+",
      id="deprecated interface, non-zero-value"),
    P(Lifecycle((1, 2)), GV, KIND, "mygroup/v1 MyKind is deprecated in v1.2+",
      id="removed interface, zero-value removal version"),
    P(Lifecycle((1, 2), (3, 4)), GV, KIND,
      "mygroup/v1 MyKind is deprecated in v1.2+, unavailable in v3.4+",
      id="removed interface, non-zero-value removal version"),
    P(Lifecycle((1, 2), (3, 4)), GV, KIND,
      "mygroup/v1 MyKind is deprecated in v1.2+, unavailable in v3.4+",
      id="replaced interface, zero-value replacement"),
    P(Lifecycle((1, 2), (3, 4), "anothergroup/v2 AnotherKind"), GV, KIND,
      "mygroup/v1 MyKind is deprecated in v1.2+, unavailable in v3.4+; use anothergroup/v2 AnotherKind",
      id="replaced interface, non-zero-value replacement"),
]  # fmt: skip


@pytest.mark.parametrize(("lc", "gv", "kind", "want"), MESSAGES)
def test_warning_message(lc: Lifecycle | None, gv: str, kind: str, want: str) -> None:
    assert warning_message(lc, gv, kind) == want


_RES = "resource.k8s.io"
# What a request to each served deprecated version is warned, as v1.37.2 words it.
SERVED_DEPRECATED = [
    ("v1", "ComponentStatus", "v1 ComponentStatus is deprecated in v1.19+"),
    ("v1", "Endpoints", "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"),
    ("admissionregistration.k8s.io/v1alpha1", "MutatingAdmissionPolicy",
     "admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicy is deprecated in v1.35+, unavailable in v1.38+"),
    ("admissionregistration.k8s.io/v1beta1", "MutatingAdmissionPolicyBinding",
     "admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicyBinding is deprecated in v1.37+, "
     "unavailable in v1.40+; use admissionregistration.k8s.io/v1 MutatingAdmissionPolicyBinding"),
    ("certificates.k8s.io/v1beta1", "ClusterTrustBundle",
     "certificates.k8s.io/v1beta1 ClusterTrustBundle is deprecated in v1.37+, unavailable in v1.40+; "
     "use certificates.k8s.io/v1 ClusterTrustBundle"),
    ("coordination.k8s.io/v1beta1", "LeaseCandidate",
     "coordination.k8s.io/v1beta1 LeaseCandidate is deprecated in v1.36+, unavailable in v1.39+"),
    (f"{_RES}/v1alpha3", "DeviceTaintRule",
     f"{_RES}/v1alpha3 DeviceTaintRule is deprecated in v1.36+, unavailable in v1.39+"),
    (f"{_RES}/v1beta1", "ResourceClaim",
     f"{_RES}/v1beta1 ResourceClaim is deprecated in v1.35+, unavailable in v1.38+"),
    (f"{_RES}/v1beta2", "ResourceSlice",
     f"{_RES}/v1beta2 ResourceSlice is deprecated in v1.36+, unavailable in v1.39+"),
    ("storagemigration.k8s.io/v1beta1", "StorageVersionMigration",
     "storagemigration.k8s.io/v1beta1 StorageVersionMigration is deprecated in v1.37+, "
     "unavailable in v1.40+; use storagemigration.k8s.io/v1 StorageVersionMigration"),
]  # fmt: skip


@pytest.mark.parametrize(("gv", "kind", "want"), SERVED_DEPRECATED, ids=lambda v: str(v)[:40])
def test_served_deprecated_versions_warn(gv: str, kind: str, want: str) -> None:
    assert deprecation_warnings(gv, kind) == [want]


# Served, and deprecated only after 1.37 (or never): no warning yet.
NOT_YET = [
    ("resource.k8s.io/v1beta2", "DeviceTaintRule"),  # deprecated in 1.39
    ("resource.k8s.io/v1alpha3", "ResourcePoolStatusRequest"),
    ("scheduling.k8s.io/v1beta1", "Workload"),
    ("discovery.k8s.io/v1", "EndpointSlice"),
    ("v1", "ConfigMap"),
]


@pytest.mark.parametrize(("gv", "kind"), NOT_YET)
def test_not_yet_deprecated_versions_do_not_warn(gv: str, kind: str) -> None:
    assert deprecation_warnings(gv, kind) == []


@pytest.mark.parametrize(("gv", "kind"), sorted(LIFECYCLES))
def test_every_listed_version_is_one_the_reference_serves(gv: str, kind: str) -> None:
    info = lookup(gv, kind)
    assert info is not None and info.kind == kind
