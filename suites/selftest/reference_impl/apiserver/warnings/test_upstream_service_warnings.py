"""``pkg/api/service/warnings_test.go``: ``TestGetWarningsForService`` (counts, on an
otherwise empty internal Service: no defaults) and ``TestGetWarningsForServiceClusterIPs``
(exact lists, in order)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.warnings.service import service_warnings

Obj = dict[str, Any]
HINTS, MODE = "service.kubernetes.io/topology-aware-hints", "service.kubernetes.io/topology-mode"
HEADLESS = {"type": "ClusterIP", "clusterIP": "None"}

COUNT_ROWS: list[tuple[str, Obj, Obj, int]] = [
    ("new topology mode set", {MODE: "foo"}, {}, 0),
    ("deprecated hints annotation set", {HINTS: "foo"}, {}, 1),
    ("externalIPs set when type is ExternalName", {}, {"type": "ExternalName", "externalIPs": ["1.2.3.4"]}, 1),
    ("externalName set when type is not ExternalName", {}, {"type": "ClusterIP", "externalName": "example.com"}, 1),
    ("LoadBalancerIP set when headless service", {},
     {**HEADLESS, "loadBalancerIP": "1.2.3.4", "sessionAffinity": "None"}, 1),
    ("ExternalIPs set when headless service", {},
     {**HEADLESS, "externalIPs": ["1.2.3.4"], "sessionAffinity": "None"}, 1),
    ("SessionAffinity Client IP set when headless service", {}, {**HEADLESS, "sessionAffinity": "ClientIP"}, 1),
    ("SessionAffinity None set when headless service", {}, {**HEADLESS, "sessionAffinity": "None"}, 0),
    ("ExternalIPs, LoadBalancerIP and SessionAffinity set when headless service", {},
     {**HEADLESS, "externalIPs": ["1.2.3.4"], "loadBalancerIP": "1.2.3.4", "sessionAffinity": "ClientIP"}, 3),
    ("trafficDistribution: PreferSameZone", {}, {"type": "ClusterIP", "trafficDistribution": "PreferSameZone"}, 0),
    ("trafficDistribution: PreferClose", {}, {"type": "ClusterIP", "trafficDistribution": "PreferClose"}, 1),
    ("ExternalIPs set on ClusterIP service", {}, {"externalIPs": ["1.2.3.4"]}, 1),
]  # fmt: skip


@pytest.mark.parametrize(("annotations", "spec", "count"),
                         [pytest.param(a, s, n, id=name) for name, a, s, n in COUNT_ROWS])  # fmt: skip
def test_get_warnings_for_service(annotations: Obj, spec: Obj, count: int) -> None:
    svc = {"metadata": {"annotations": annotations}, "spec": spec}
    assert len(service_warnings(svc, svc, None)) == count  # type: ignore[arg-type]


def _svc(*ips: str) -> Obj:
    spec: Obj = {"type": "ClusterIP"}
    if ips:
        spec["clusterIP"], spec["clusterIPs"] = ips[0], list(ips)
    return {"metadata": {"name": "svc-test", "namespace": "ns"}, "spec": spec}


Z4 = 'non-standard IP address "192.012.2.2" is invalid: use "192.12.2.2"'
NC6 = 'IPv6 address "2001:db8:0:0::2" should be in RFC 5952 canonical format ("2001:db8::2")'
IP_ROWS: list[tuple[str, Obj, list[str]]] = [
    ("IPv4 No failures", _svc("192.12.2.2"), []),
    ("IPv6 No failures", _svc("2001:db8::2"), []),
    ("IPv4 with leading zeros", _svc("192.012.2.2"), [f"spec.clusterIPs[0]: {Z4}"]),
    ("Dual Stack IPv4-IPv6 and IPv4 with leading zeros", _svc("192.012.2.2", "2001:db8::2"),
     [f"spec.clusterIPs[0]: {Z4}"]),
    ("Dual Stack IPv6-IPv4 and IPv4 with leading zeros", _svc("2001:db8::2", "192.012.2.2"),
     [f"spec.clusterIPs[1]: {Z4}"]),
    ("IPv6 non canonical format", _svc("2001:db8:0:0::2"), [f"spec.clusterIPs[0]: {NC6}"]),
    ("Dual Stack IPv4-IPv6 and IPv6 non-canonical format", _svc("192.12.2.2", "2001:db8:0:0::2"),
     [f"spec.clusterIPs[1]: {NC6}"]),
    ("Dual Stack IPv6-IPv4 and IPv6 non-canonical formats", _svc("2001:db8:0:0::2", "192.12.2.2"),
     [f"spec.clusterIPs[0]: {NC6}"]),
    ("Dual Stack IPv4-IPv6 and IPv4 with leading zeros and IPv6 non-canonical format",
     _svc("192.012.2.2", "2001:db8:0:0::2"), [f"spec.clusterIPs[0]: {Z4}", f"spec.clusterIPs[1]: {NC6}"]),
    ("Dual Stack IPv6-IPv4 and IPv4 with leading zeros and IPv6 non-canonical format",
     _svc("2001:db8:0:0::2", "192.012.2.2"), [f"spec.clusterIPs[0]: {NC6}", f"spec.clusterIPs[1]: {Z4}"]),
    ("Service with all IPs fields with errors",
     {"metadata": {"name": "svc-test", "namespace": "ns"},
      "spec": {"clusterIP": "2001:db8:0:0::2", "clusterIPs": ["2001:db8:0:0::2", "192.012.2.2"],
               "externalIPs": ["2001:db8:1:0::2", "10.012.2.2"], "loadBalancerIP": "10.001.1.1",
               "loadBalancerSourceRanges": ["2001:db8:1:0::/64", "10.012.2.0/24"], "type": "ClusterIP"}},
     [f"spec.clusterIPs[0]: {NC6}", f"spec.clusterIPs[1]: {Z4}",
      'spec.externalIPs[0]: IPv6 address "2001:db8:1:0::2" should be in RFC 5952 canonical format ("2001:db8:1::2")',
      'spec.externalIPs[1]: non-standard IP address "10.012.2.2" is invalid: use "10.12.2.2"',
      "spec.externalIPs is deprecated and may no longer be implemented in some clusters",
      'spec.loadBalancerIP: non-standard IP address "10.001.1.1" is invalid: use "10.1.1.1"',
      'spec.loadBalancerSourceRanges[0]: IPv6 CIDR value "2001:db8:1:0::/64" should be in RFC 5952 canonical format ("2001:db8:1::/64")',
      'spec.loadBalancerSourceRanges[1]: non-standard CIDR value "10.012.2.0/24" is invalid: use "10.12.2.0/24"']),
]  # fmt: skip


@pytest.mark.parametrize(("svc", "want"), [pytest.param(s, w, id=n) for n, s, w in IP_ROWS])
def test_get_warnings_for_service_cluster_ips(svc: Obj, want: list[str]) -> None:
    assert service_warnings(svc, None, None) == want  # type: ignore[arg-type]
