"""``ResourceInfo``'s group and ``plural.group``, derived once when the row is made: the
same values the properties gave, for every 1.37 kind, custom resources and copies."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from reference_impl.api.resources import RESOURCES, ResourceInfo, lookup
from reference_impl.apiserver.customresource.info import CustomResourceInfo


@pytest.mark.parametrize(
    "info", list(RESOURCES.values()), ids=lambda i: f"{i.api_version}/{i.kind}"
)
def test_derived_fields_match_api_version(info: ResourceInfo) -> None:
    group = info.api_version.rpartition("/")[0]
    assert info.group == group
    assert info.group_resource == (f"{info.plural}.{group}" if group else info.plural)


def test_core_and_grouped() -> None:
    pod, deploy = lookup("v1", "Pod"), lookup("apps/v1", "Deployment")
    assert pod is not None and deploy is not None
    assert (pod.group, pod.group_resource) == ("", "pods")
    assert (deploy.group, deploy.group_resource) == ("apps", "deployments.apps")


def test_equality_repr_and_copies_unchanged() -> None:
    info = ResourceInfo("apps/v1", "Deployment", "deployments", True, status=True)
    assert repr(info) == (
        "ResourceInfo(api_version='apps/v1', kind='Deployment', plural='deployments', "
        "namespaced=True, status=True, gates=(), virtual=False)"
    )
    assert info == lookup("apps/v1", "Deployment") and hash(info) == hash(
        lookup("apps/v1", "Deployment")
    )
    for other in (copy.deepcopy(info), pickle.loads(pickle.dumps(info))):
        assert other == info and other.group_resource == "deployments.apps"
    moved = dataclasses.replace(info, api_version="extensions/v1beta1", plural="things")
    assert (moved.group, moved.group_resource) == ("extensions", "things.extensions")


def test_custom_resource_info() -> None:
    cr = CustomResourceInfo("example.com/v1", "Widget", "widgets", True, crd_name="widgets.example.com",
                            storage_version="v2")  # fmt: skip
    assert (cr.group, cr.group_resource) == ("example.com", "widgets.example.com")
    stored = cr.storage_info()
    assert stored.api_version == "example.com/v2" and stored.group_resource == "widgets.example.com"
