"""Upstream pkg/api/v1/endpoints/util_test.go ``TestPackSubsets`` rows, against the
reference's ``repack_subsets`` (reference_impl/controllers/endpoint/repack.py).

As upstream, each row's expectation is put through ``SortSubsets`` and compared with the
repacked subsets. Go's nil and empty lists are both an absent field on the wire; the
expected ``nil``/empty lists are dropped before comparing. The ``spew`` dump the sort
hashes is pinned against FNV-128a sums that go-spew printed for the same structs."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.controllers.endpoint.repack import (
    fnv128a,
    repack_subsets,
    sort_subsets,
    spew_port,
    spew_subset,
)

Obj = dict[str, Any]


def _wire(subsets: list[Obj]) -> list[Obj]:
    """Drop Go's nil and empty lists, as JSON decoding of the wire form gives them."""
    return [{k: v for k, v in s.items() if v} for s in subsets]


CASES = [
    pytest.param([{"addresses": [], "ports": []}], [], id="empty everything"),
    pytest.param([{"addresses": [], "ports": [{"port": 111}]}], [], id="empty addresses"),
    pytest.param(
        [{"addresses": [{"ip": "1.2.3.4"}], "ports": []}],
        [{"addresses": [{"ip": "1.2.3.4"}], "ports": None}],
        id="empty ports",
    ),
    pytest.param(
        [{"notReadyAddresses": [{"ip": "1.2.3.4"}], "ports": []}],
        [{"notReadyAddresses": [{"ip": "1.2.3.4"}], "ports": None}],
        id="empty ports",
    ),
    pytest.param(
        [{"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]}],
        [{"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]}],
        id="one set, one ip, one port",
    ),
    pytest.param(
        [{"addresses": [{"ip": "beef::1:2:3:4"}], "ports": [{"port": 111}]}],
        [{"addresses": [{"ip": "beef::1:2:3:4"}], "ports": [{"port": 111}]}],
        id="one set, one ip, one port (IPv6)",
    ),
    pytest.param(
        [{"notReadyAddresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]}],
        [{"notReadyAddresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]}],
        id="one set, one notReady ip, one port",
    ),
    pytest.param(
        [
            {
                "addresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 111}],
            }
        ],
        [
            {
                "addresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 111}],
            }
        ],
        id="one set, one ip, one UID, one port",
    ),
    pytest.param(
        [
            {
                "notReadyAddresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 111}],
            }
        ],
        [
            {
                "notReadyAddresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 111}],
            }
        ],
        id="one set, one notReady ip, one UID, one port",
    ),
    pytest.param(
        [{"addresses": [{"ip": "1.2.3.4", "targetRef": {"uid": ""}}], "ports": [{"port": 111}]}],
        [{"addresses": [{"ip": "1.2.3.4", "targetRef": {"uid": ""}}], "ports": [{"port": 111}]}],
        id="one set, one ip, empty UID, one port",
    ),
    pytest.param(
        [
            {
                "notReadyAddresses": [{"ip": "1.2.3.4", "targetRef": {"uid": ""}}],
                "ports": [{"port": 111}],
            }
        ],
        [
            {
                "notReadyAddresses": [{"ip": "1.2.3.4", "targetRef": {"uid": ""}}],
                "ports": [{"port": 111}],
            }
        ],
        id="one set, one notReady ip, empty UID, one port",
    ),
    pytest.param(
        [{"addresses": [{"ip": "1.2.3.4"}, {"ip": "5.6.7.8"}], "ports": [{"port": 111}]}],
        [{"addresses": [{"ip": "1.2.3.4"}, {"ip": "5.6.7.8"}], "ports": [{"port": 111}]}],
        id="one set, two ips, one port",
    ),
    pytest.param(
        [
            {
                "addresses": [{"ip": "1.2.3.4"}],
                "notReadyAddresses": [{"ip": "5.6.7.8"}],
                "ports": [{"port": 111}],
            }
        ],
        [
            {
                "addresses": [{"ip": "1.2.3.4"}],
                "notReadyAddresses": [{"ip": "5.6.7.8"}],
                "ports": [{"port": 111}],
            }
        ],
        id="one set, two mixed ips, one port",
    ),
    pytest.param(
        [
            {
                "addresses": [{"ip": "1.2.3.4"}],
                "notReadyAddresses": [{"ip": "1.2.3.4"}],
                "ports": [{"port": 111}],
            }
        ],
        [{"notReadyAddresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]}],
        id="one set, two duplicate ips, one port, notReady is covered by ready",
    ),
    pytest.param(
        [{"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}, {"port": 222}]}],
        [{"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}, {"port": 222}]}],
        id="one set, one ip, two ports",
    ),
    pytest.param(
        [{"addresses": [{"ip": "1.2.3.4"}, {"ip": "1.2.3.4"}], "ports": [{"port": 111}]}],
        [{"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]}],
        id="one set, dup ips, one port",
    ),
    pytest.param(
        [{"addresses": [{"ip": "beef::1"}, {"ip": "beef::1"}], "ports": [{"port": 111}]}],
        [{"addresses": [{"ip": "beef::1"}], "ports": [{"port": 111}]}],
        id="one set, dup ips, one port (IPv6)",
    ),
    pytest.param(
        [
            {
                "addresses": [
                    {"ip": "1.2.3.4", "targetRef": {"name": "foo"}},
                    {"ip": "1.2.3.4", "targetRef": {"name": "bar"}},
                ],
                "ports": [{"port": 111}],
            }
        ],
        [
            {
                "addresses": [{"ip": "1.2.3.4", "targetRef": {"name": "foo"}}],
                "ports": [{"port": 111}],
            }
        ],
        id="one set, dup ips with target-refs, one port",
    ),
    pytest.param(
        [
            {
                "addresses": [{"ip": "1.2.3.4", "targetRef": {"name": "foo"}}],
                "notReadyAddresses": [{"ip": "1.2.3.4", "targetRef": {"name": "bar"}}],
                "ports": [{"port": 111}],
            }
        ],
        [
            {
                "notReadyAddresses": [{"ip": "1.2.3.4", "targetRef": {"name": "foo"}}],
                "ports": [{"port": 111}],
            }
        ],
        id="one set, dup mixed ips with target-refs, one port",
    ),
    pytest.param(
        [{"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}, {"port": 111}]}],
        [{"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]}],
        id="one set, one ip, dup ports",
    ),
    pytest.param(
        [
            {"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]},
            {"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]},
        ],
        [{"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]}],
        id="two sets, dup ip, dup port",
    ),
    pytest.param(
        [
            {"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]},
            {"notReadyAddresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]},
        ],
        [{"notReadyAddresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]}],
        id="two sets, dup mixed ip, dup port",
    ),
    pytest.param(
        [
            {"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]},
            {"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 222}]},
        ],
        [{"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}, {"port": 222}]}],
        id="two sets, dup ip, two ports",
    ),
    pytest.param(
        [
            {
                "addresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 111}],
            },
            {
                "addresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 222}],
            },
        ],
        [
            {
                "addresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 111}, {"port": 222}],
            }
        ],
        id="two sets, dup ip, dup uids, two ports",
    ),
    pytest.param(
        [
            {
                "addresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 111}],
            },
            {
                "notReadyAddresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 222}],
            },
        ],
        [
            {
                "addresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 111}],
            },
            {
                "notReadyAddresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 222}],
            },
        ],
        id="two sets, dup mixed ip, dup uids, two ports",
    ),
    pytest.param(
        [
            {"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]},
            {"addresses": [{"ip": "5.6.7.8"}], "ports": [{"port": 111}]},
        ],
        [{"addresses": [{"ip": "1.2.3.4"}, {"ip": "5.6.7.8"}], "ports": [{"port": 111}]}],
        id="two sets, two ips, dup port",
    ),
    pytest.param(
        [
            {
                "addresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 111}],
            },
            {
                "addresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-2"}}],
                "ports": [{"port": 111}],
            },
        ],
        [
            {
                "addresses": [
                    {"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}},
                    {"ip": "1.2.3.4", "targetRef": {"uid": "uid-2"}},
                ],
                "ports": [{"port": 111}],
            }
        ],
        id="two set, dup ip, two uids, dup ports",
    ),
    pytest.param(
        [
            {"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]},
            {
                "addresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-2"}}],
                "ports": [{"port": 111}],
            },
        ],
        [
            {
                "addresses": [{"ip": "1.2.3.4"}, {"ip": "1.2.3.4", "targetRef": {"uid": "uid-2"}}],
                "ports": [{"port": 111}],
            }
        ],
        id="two set, dup ip, with and without uid, dup ports",
    ),
    pytest.param(
        [
            {"addresses": [{"ip": "5.6.7.8"}], "ports": [{"port": 111}]},
            {
                "addresses": [{"ip": "5.6.7.8", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 111}],
            },
            {
                "addresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 111}],
            },
            {"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]},
        ],
        [
            {
                "addresses": [
                    {"ip": "1.2.3.4"},
                    {"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}},
                    {"ip": "5.6.7.8"},
                    {"ip": "5.6.7.8", "targetRef": {"uid": "uid-1"}},
                ],
                "ports": [{"port": 111}],
            }
        ],
        id="two sets, two ips, two dup ip with uid, dup port, wrong order",
    ),
    pytest.param(
        [
            {"addresses": [{"ip": "5.6.7.8"}], "ports": [{"port": 111}]},
            {
                "notReadyAddresses": [{"ip": "5.6.7.8", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 111}],
            },
            {
                "notReadyAddresses": [{"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}}],
                "ports": [{"port": 111}],
            },
            {"notReadyAddresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]},
        ],
        [
            {
                "addresses": [{"ip": "5.6.7.8"}],
                "notReadyAddresses": [
                    {"ip": "1.2.3.4"},
                    {"ip": "1.2.3.4", "targetRef": {"uid": "uid-1"}},
                    {"ip": "5.6.7.8", "targetRef": {"uid": "uid-1"}},
                ],
                "ports": [{"port": 111}],
            }
        ],
        id="two sets, two mixed ips, two dup ip with uid, dup port, wrong order, ends up with split addresses",
    ),
    pytest.param(
        [
            {"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]},
            {"addresses": [{"ip": "5.6.7.8"}], "ports": [{"port": 222}]},
        ],
        [
            {"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]},
            {"addresses": [{"ip": "5.6.7.8"}], "ports": [{"port": 222}]},
        ],
        id="two sets, two ips, two ports",
    ),
    pytest.param(
        [
            {"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]},
            {"addresses": [{"ip": "1.2.3.5"}], "ports": [{"port": 222}]},
            {"addresses": [{"ip": "1.2.3.6"}], "ports": [{"port": 111}]},
            {"addresses": [{"ip": "1.2.3.5"}], "ports": [{"port": 333}]},
        ],
        [
            {"addresses": [{"ip": "1.2.3.4"}, {"ip": "1.2.3.6"}], "ports": [{"port": 111}]},
            {"addresses": [{"ip": "1.2.3.5"}], "ports": [{"port": 222}, {"port": 333}]},
        ],
        id="four sets, three ips, three ports, jumbled",
    ),
    pytest.param(
        [
            {"addresses": [{"ip": "1.2.3.4"}], "ports": [{"port": 111}]},
            {"notReadyAddresses": [{"ip": "1.2.3.5"}], "ports": [{"port": 222}]},
            {"addresses": [{"ip": "1.2.3.6"}], "ports": [{"port": 111}]},
            {"notReadyAddresses": [{"ip": "1.2.3.5"}], "ports": [{"port": 333}]},
        ],
        [
            {"addresses": [{"ip": "1.2.3.4"}, {"ip": "1.2.3.6"}], "ports": [{"port": 111}]},
            {"notReadyAddresses": [{"ip": "1.2.3.5"}], "ports": [{"port": 222}, {"port": 333}]},
        ],
        id="four sets, three mixed ips, three ports, jumbled",
    ),
]


@pytest.mark.parametrize(("given", "expect"), CASES)
def test_pack_subsets(given: list[Obj], expect: list[Obj]) -> None:
    original = copy.deepcopy(given)
    result = repack_subsets(_wire(given))
    assert result == sort_subsets(_wire(expect))
    assert given == original  # the input is not written to


def test_spew_dump_hashes_match_go_spew() -> None:
    """go-spew (dump.ForHash) for the same v1 structs, type names as in package v1."""
    subset = {
        "addresses": [
            {
                "ip": "1.2.3.4",
                "nodeName": "node1",
                "targetRef": {"kind": "Pod", "name": "pod0", "namespace": "ns", "uid": "u1"},
            }
        ],
        "ports": [{"port": 8080, "protocol": "TCP"}],
    }
    dump = spew_subset(subset)
    assert dump == (
        "(v1.EndpointSubset){Addresses:([]v1.EndpointAddress)[{IP:(string)1.2.3.4 Hostname:(string) "
        "NodeName:(*string)node1 TargetRef:(*v1.ObjectReference){Kind:(string)Pod Namespace:(string)ns "
        "Name:(string)pod0 UID:(types.UID)u1 APIVersion:(string) ResourceVersion:(string) "
        "FieldPath:(string)}}] NotReadyAddresses:([]v1.EndpointAddress)<nil> "
        "Ports:([]v1.EndpointPort)[{Name:(string) Port:(int32)8080 Protocol:(v1.Protocol)TCP "
        "AppProtocol:(*string)<nil>}]}"
    )
    # FNV-128a sums go-spew gave for these dumps (with the types declared in package main).
    as_main = dump.replace("v1.", "main.").replace("types.UID", "main.UID")
    assert fnv128a(as_main.encode()).hex() == "4d0327b6af8a54993f926fa59002994b"
    port = spew_port({"name": "p", "port": 80, "protocol": "UDP", "appProtocol": "http"})
    assert (
        fnv128a(port.replace("v1.", "main.").encode()).hex() == "031805c641651b394c25bc9c1b95e1c4"
    )
