"""``DeviceClass.spec.extendedResourceName`` must be an extended resource name
(``validate.ExtendedResourceName``, ``+k8s:format=k8s-extended-resource-name``).

Domain-prefixed, not in ``kubernetes.io/`` (so a class's implicit
``deviceclass.resource.kubernetes.io/<class>`` can never be claimed by another class),
no ``requests.`` prefix, and ``requests.<name>`` must be a qualified name (quota's
form), with upstream's messages (``IsQualifiedName``, ``IsDNS1123Subdomain``).
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from reference_impl.api.formats import regex_error
from reference_impl.apiserver.registry import Context, validator
from reference_impl.errors import Cause

__all__ = ["extended_resource_name_errors"]

Obj = dict[str, Any]
_QUALIFIED_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED: Final = re.compile(f"^{_QUALIFIED_FMT}$")
_QUALIFIED_MSG: Final = ("must consist of alphanumeric characters, '-', '_' or '.', and must start "
                         "and end with an alphanumeric character")
_DNS1123_LABEL: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_FMT: Final = f"{_DNS1123_LABEL}(\\.{_DNS1123_LABEL})*"
_DNS1123: Final = re.compile(f"^{_DNS1123_FMT}$")
_DNS1123_MSG: Final = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                       "characters, '-' or '.', and must start and end with an alphanumeric character")


def _subdomain_errors(value: str) -> list[str]:
    errs = ["must be no more than 253 bytes"] if len(value) > 253 else []
    if not _DNS1123.match(value):
        errs.append(regex_error(_DNS1123_MSG, _DNS1123_FMT, "example.com"))
    return errs


def _qualified_name_errors(value: str) -> list[str]:
    """``validation.IsQualifiedName``."""
    parts = value.split("/")
    errs: list[str] = []
    if len(parts) > 2:
        return ["a valid label key " + regex_error(_QUALIFIED_MSG, _QUALIFIED_FMT, "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    name = parts[-1]
    if len(parts) == 2:
        if not parts[0]:
            errs.append("prefix part must be non-empty")
        else:
            errs += [f"prefix part {e}" for e in _subdomain_errors(parts[0])]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 bytes")
    if not _QUALIFIED.match(name):
        errs.append("name part " + regex_error(_QUALIFIED_MSG, _QUALIFIED_FMT, "MyName", "my.name", "123-abc"))
    return errs


def extended_resource_name_errors(value: str) -> list[str]:
    """``validate.ExtendedResourceName``: why ``value`` is not an extended resource name."""
    errs: list[str] = []
    if "/" not in value:
        errs.append("a name must be a domain-prefixed path, such as 'example.com/my-prop'")
    elif "kubernetes.io/" in value:
        errs.append('must not have "kubernetes.io/" domain')
    if value.startswith("requests."):
        errs.append('must not have "requests." prefix')
    return errs + _qualified_name_errors(f"requests.{value}")


@validator("DeviceClass")
def validate_extended_resource_name(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``spec.extendedResourceName``, when set."""
    value = (obj.get("spec") or {}).get("extendedResourceName")
    if not isinstance(value, str):
        return []
    return [Cause("spec.extendedResourceName", "FieldValueInvalid", f"Invalid value: {json.dumps(value)}: {e}")
            for e in extended_resource_name_errors(value)]
