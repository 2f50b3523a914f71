"""Unit tests of the autoscaler's ConfigMap parsing and its fit predicate."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.api import make_autoscaler_config, make_node_group
from reference_impl.autoscaler import parse_config
from reference_impl.autoscaler.simulator import PodDemand, SimNode, fit_failures


def _text(groups: list[dict[str, object]], **kw: object) -> str:
    return str(make_autoscaler_config(groups, **kw)["data"]["config.yaml"])  # type: ignore[arg-type]


def test_the_builder_output_parses_back_with_defaults_and_groups_sorted_by_name() -> None:
    cfg = parse_config(_text([make_node_group("b", max_size=3), make_node_group("a")]))
    assert [g.name for g in cfg.node_groups] == ["a", "b"]
    assert cfg.expander == "least-waste"
    assert cfg.scale_down_unneeded_seconds == 600
    assert cfg.node_groups[1].max_size == 3


def test_csi_driver_limits_parse_with_none_for_unset() -> None:
    cfg = parse_config(_text([make_node_group("a", csi_drivers={"d1": 2, "d2": None})]))
    assert dict(cfg.node_groups[0].csi_drivers) == {"d1": 2, "d2": None}


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("expander: random\n", "expander"),
        ("nodeGroups: [{name: a, minSize: 3, maxSize: 1}]\n", "minSize <= maxSize"),
        ("nodeGroups: [{minSize: 0}]\n", "nodeGroups[0].name"),
        ("nodeGroups: [{name: a}, {name: a}]\n", "unique"),
        ("- just a list\n", "mapping"),
    ],
)
def test_bad_config_is_rejected_naming_the_field(text: str, needle: str) -> None:
    with pytest.raises(ValueError, match=None) as err:
        parse_config(text)
    assert needle in str(err.value)


def _node(limit: int | None, attached: int) -> SimNode:
    return SimNode(
        name="n",
        labels={},
        taints=(),
        allocatable={"cpu": Decimal(8), "pods": Decimal(110)},
        attach_limits={"d": limit},
        attached={"d": {f"old-{i}" for i in range(attached)}},
    )


@settings(max_examples=60, deadline=None)
@given(
    limit=st.one_of(st.none(), st.integers(0, 6)),
    attached=st.integers(0, 6),
    new=st.integers(1, 4),
    shared=st.integers(0, 4),
)
def test_attach_limit_counts_unique_volumes_on_the_node_plus_the_pods(
    limit: int | None, attached: int, new: int, shared: int
) -> None:
    shared = min(shared, attached)
    vols = {f"new-{i}" for i in range(new)} | {f"old-{i}" for i in range(shared)}
    demand = PodDemand("ns/p", {}, {}, (), {"d": vols})
    fails = fit_failures(demand, _node(limit, attached), attach_limits=True)
    over = limit is not None and attached + new > limit
    assert bool(fails) == over
    # With the gate off attach limits never matter.
    assert not fit_failures(demand, _node(limit, attached), attach_limits=False)


def test_taints_selectors_and_resources_are_checked() -> None:
    node = SimNode(
        name="n",
        labels={"zone": "a"},
        taints=({"key": "gpu", "value": "true", "effect": "NoSchedule"},),
        allocatable={"cpu": Decimal(2), "pods": Decimal(1)},
    )
    demand = PodDemand("ns/p", {"cpu": Decimal(3)}, {"zone": "b"}, ())
    fails = fit_failures(demand, node, attach_limits=True)
    assert fails == [
        "node(s) didn't match Pod's node affinity/selector",
        "node(s) had untolerated taint",
        "Insufficient cpu",
    ]
    ok = PodDemand(
        "ns/q", {"cpu": Decimal(1)}, {"zone": "a"}, ({"key": "gpu", "operator": "Exists"},)
    )
    assert fit_failures(ok, node, attach_limits=True) == []
    node.place(ok)
    assert fit_failures(ok, node, attach_limits=True) == ["Too many pods"]
