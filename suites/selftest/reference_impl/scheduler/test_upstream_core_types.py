"""Upstream's Resource tables (pkg/scheduler/framework/types_test.go) against the reference
``Resource``.

Ported: ``TestNewResource``, ``TestResourceClone``, ``TestResourceAddScalar`` (through
``Resource.add``, the reference's only adder). ``TestSetMaxResource`` has no counterpart.
"""

from __future__ import annotations

import pytest

from reference_impl.scheduler.framework.types import Resource

COMPLEX = Resource(4, 2000, 5000, 80, {"scalar.test/scalar1": 1, "hugepages-test": 2})


@pytest.mark.parametrize(
    ("resource_list", "want"),
    [
        pytest.param({}, Resource(), id="empty resource"),
        pytest.param({"cpu": "4m", "memory": "2000", "pods": "80", "ephemeral-storage": "5000",
                      "scalar.test/scalar1": "1", "hugepages-test": "2"}, COMPLEX,
                     id="complex resource"),
    ],
)
def test_new_resource(resource_list: dict[str, str], want: Resource) -> None:
    assert Resource.from_quantities(resource_list) == want


@pytest.mark.parametrize(
    "resource", [pytest.param(Resource(), id="case_0"), pytest.param(COMPLEX, id="case_1")]
)
def test_resource_clone(resource: Resource) -> None:
    want = Resource(resource.milli_cpu, resource.memory, resource.ephemeral_storage,
                    resource.allowed_pod_number, dict(resource.scalar))
    got = resource.copy()
    resource.milli_cpu += 1000  # the clone must not follow the original
    resource.scalar["x/y"] = 1
    try:
        assert got == want
    finally:
        resource.milli_cpu -= 1000
        del resource.scalar["x/y"]


@pytest.mark.parametrize(
    ("resource", "name", "quantity", "want"),
    [
        pytest.param(Resource(), "scalar1", 100, Resource(scalar={"scalar1": 100}), id="scalar1"),
        pytest.param(Resource(4, 2000, 5000, 80, {"hugepages-test": 2}), "scalar2", 200,
                     Resource(4, 2000, 5000, 80, {"hugepages-test": 2, "scalar2": 200}), id="scalar2"),
    ],
)
def test_resource_add_scalar(resource: Resource, name: str, quantity: int, want: Resource) -> None:
    resource.add(Resource(scalar={name: quantity}))
    assert resource == want
