"""Port of apiextensions-apiserver v0.37.2 ``pkg/registry/customresource/validator_test.go``
TestValidateCustomResourceName: the DNS-1123 subdomain name check applies beside the
schema's own pattern for ``metadata.name``."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.customresource.info import CustomResourceInfo
from reference_impl.apiserver.customresource.strategy import validate
from reference_impl.apiserver.strategies.meta import meta_causes

Obj = dict[str, Any]
SCHEMA: Obj = {"type": "object", "properties": {"metadata": {"type": "object", "properties": {
    "name": {"type": "string", "pattern": "^[A-Za-z]+$"}}}}}  # fmt: skip
INFO = CustomResourceInfo(
    "example.com/v1", "Foo", "foos", False, schema=SCHEMA, crd_name="foos.example.com"
)

# name -> (metadata, errContains; "" when the resource validates)
CASES: dict[str, tuple[Obj, str]] = {
    "valid lowercase name accepted": ({"name": "foo"}, ""),
    "uppercase name rejected by DNS1123 despite a permissive pattern": ({"name": "Foo"}, "RFC 1123 subdomain"),
    "name rejected by the author's pattern": ({"name": "foo123"}, "should match"),
    "253-char generateName accepted; CEL cost bound is not enforced": (
        {"name": "foo", "generateName": "a" * 253}, ""),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES), ids=list(CASES))
def test_validate_custom_resource_name(name: str) -> None:
    meta, contains = CASES[name]
    obj = {"apiVersion": "example.com/v1", "kind": "Foo", "metadata": meta}
    causes = validate(INFO.schema, None, obj, meta_causes(INFO, obj, None))
    if not contains:
        assert causes == []
    else:
        assert causes and contains in "; ".join(str(c) for c in causes)
