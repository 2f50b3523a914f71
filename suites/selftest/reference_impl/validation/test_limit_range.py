"""LimitRange defaulting and validation, after upstream's ``TestValidateLimitRange`` error
table (``pkg/apis/core/validation``) and ``SetDefaults_LimitRangeItem``; and the
Quantity.String() forms the messages print."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl import Cluster
from reference_impl.api.quantity import quantity_string
from reference_impl.errors import Invalid

Obj = dict[str, Any]


def _create(*items: Obj) -> Obj:
    c = Cluster()
    lr = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "abc", "namespace": "default"},
          "spec": {"limits": list(items)}}  # fmt: skip
    return c.apply(lr)


@pytest.mark.parametrize(
    ("items", "detail"),
    [
        pytest.param([{"type": "Pod", "max": {"cpu": "100m"}}, {"type": "Pod", "min": {"cpu": "0"}}],
                     'spec.limits[1].type: FieldValueDuplicate: Duplicate value: "Pod"', id="duplicate-limit-type"),
        pytest.param([{"type": "Pod", "max": {"cpu": "100m"}, "default": {"cpu": "10m"}}],
                     "may not be specified when `type` is 'Pod'", id="default-limit-type-pod"),
        pytest.param([{"type": "Pod", "max": {"cpu": "100m"}, "defaultRequest": {"cpu": "10m"}}],
                     "spec.limits[0].defaultRequest: FieldValueForbidden", id="default-request-limit-type-pod"),
        pytest.param([{"type": "Pod", "max": {"cpu": "10m"}, "min": {"cpu": "100m"}}],
                     "min value 100m is greater than max value 10m", id="min-greater-than-max"),
        pytest.param([{"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "100m"}, "default": {"cpu": "2"}}],
                     "default value 2 is greater than max value 1", id="invalid spec default outside range"),
        pytest.param([{"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "100m"}, "defaultRequest": {"cpu": "2"}}],
                     "default request value 2 is greater than max value 1", id="invalid spec default request outside range"),
        pytest.param([{"type": "Container", "max": {"cpu": "2"}, "min": {"cpu": "100m"}, "default": {"cpu": "500m"},
                       "defaultRequest": {"cpu": "800m"}}],
                     "default request value 800m is greater than default limit value 500m",
                     id="invalid spec default request more than default"),
        pytest.param([{"type": "Pod", "maxLimitRequestRatio": {"cpu": "800m"}}],
                     "ratio 800m is less than 1", id="invalid spec maxLimitRequestRatio less than 1"),
        pytest.param([{"type": "Container", "max": {"memory": "2Gi"}, "min": {"memory": "512Mi"},
                       "maxLimitRequestRatio": {"memory": "10"}}],
                     "ratio 10 is greater than max/min = 4.000000", id="invalid spec maxLimitRequestRatio greater than max/min"),
        pytest.param([{"type": "foo", "max": {"storage": "10000T"}, "min": {"storage": "100Mi"}}],
                     "must be a standard limit type or fully qualified", id="invalid non standard limit type"),
        pytest.param([{"type": "PersistentVolumeClaim"}],
                     "either minimum or maximum storage value is required, but neither was provided",
                     id="min and max values missing, one required"),
        pytest.param([{"type": "PersistentVolumeClaim", "min": {"storage": "10Gi"}, "max": {"storage": "1Gi"}}],
                     "min value 10Gi is greater than max value 1Gi", id="invalid min greater than max"),
        pytest.param([{"type": "Container", "max": {"example.com/gpu": "2"}, "default": {"example.com/gpu": "2"},
                       "defaultRequest": {"example.com/gpu": "1"}}],
                     "default value 2 must equal to defaultRequest value 1 in example.com/gpu", id="no overcommit"),
        pytest.param([{"type": "Container", "max": {"pods": "2"}}],
                     "must be a standard resource for containers", id="not a container resource"),
    ],
)  # fmt: skip
def test_invalid_limit_ranges(items: list[Obj], detail: str) -> None:
    with pytest.raises(Invalid) as err:
        _create(*items)
    assert detail in str(err.value)


def test_container_item_defaults() -> None:
    """``SetDefaults_LimitRangeItem``: default <- max, defaultRequest <- default, then min;
    a Pod item is left alone."""
    stored = _create(
        {"type": "Container", "max": {"cpu": "2", "memory": "1Gi"}, "min": {"memory": "10Mi", "ephemeral-storage": "1Gi"},
         "default": {"cpu": "1"}},
        {"type": "Pod", "max": {"cpu": "4"}},
    )["spec"]["limits"]  # fmt: skip
    assert stored[0]["default"] == {"cpu": "1", "memory": "1Gi"}
    assert stored[0]["defaultRequest"] == {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi"}
    assert "default" not in stored[1] and "defaultRequest" not in stored[1]


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [("1", "1"), ("1.5", "1500m"), ("2000m", "2"), ("2500m", "2500m"), ("1.5Gi", "1536Mi"),
     ("1024Mi", "1Gi"), ("0.5Ki", "512"), ("0.5Mi", "512Ki"), ("1e4", "10e3"), ("15000", "15k"),
     ("0", "0"), ("0.1", "100m"), (0.5, "500m"), ("0.0000000001", "1n"), ("10000T", "10P")],
)  # fmt: skip
def test_quantity_string(raw: object, canonical: str) -> None:
    """``Quantity.String()``: the format follows the suffix, the form is canonical."""
    assert quantity_string(raw) == canonical
