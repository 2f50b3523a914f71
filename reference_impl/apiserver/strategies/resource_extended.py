"""``DeviceClass.spec.extendedResourceName`` must be an extended resource name
(``validate.ExtendedResourceName``, ``+k8s:format=k8s-extended-resource-name``).

Domain-prefixed, not in ``kubernetes.io/`` (so a class's implicit
``deviceclass.resource.kubernetes.io/<class>`` can never be claimed by another class),
no ``requests.`` prefix, and ``requests.<name>`` must be a qualified name (quota's
form), with upstream's messages (``IsQualifiedName``, ``IsDNS1123Subdomain``).
"""

from __future__ import annotations

import json
from typing import Any

from reference_impl.api.formats import label_key_errors
from reference_impl.apiserver.registry import Context, validator
from reference_impl.errors import Cause

__all__ = ["extended_resource_name_errors"]

Obj = dict[str, Any]


def extended_resource_name_errors(value: str) -> list[str]:
    """``validate.ExtendedResourceName``: why ``value`` is not an extended resource name."""
    errs: list[str] = []
    if "/" not in value:
        errs.append("a name must be a domain-prefixed path, such as 'example.com/my-prop'")
    elif "kubernetes.io/" in value:
        errs.append('must not have "kubernetes.io/" domain')
    if value.startswith("requests."):
        errs.append('must not have "requests." prefix')
    return errs + label_key_errors(f"requests.{value}", unit="bytes")


@validator("DeviceClass")
def validate_extended_resource_name(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``spec.extendedResourceName``, when set."""
    value = (obj.get("spec") or {}).get("extendedResourceName")
    if not isinstance(value, str):
        return []
    return [Cause("spec.extendedResourceName", "FieldValueInvalid", f"Invalid value: {json.dumps(value)}: {e}")
            for e in extended_resource_name_errors(value)]
