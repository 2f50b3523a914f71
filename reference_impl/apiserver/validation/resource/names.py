"""The resource.k8s.io name formats: driver, pool, device, request, class, counter and
node names, qualified attribute names and extended resource names."""

from __future__ import annotations

from typing import Final

from reference_impl.api.formats import (
    c_identifier_errors,
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_key_errors,
    uuid_ok,
)
from reference_impl.apiserver.validation import field as f
from reference_impl.errors import Cause

__all__ = [
    "DEVICE_MAX_ID_LENGTH", "c_identifier", "dns_label", "driver_name", "extended_resource_name",
    "fully_qualified_name", "label_name", "node_name", "pool_name", "qualified_name",
    "subdomain", "uid",
]

DEVICE_MAX_ID_LENGTH: Final = 32
DEVICE_MAX_DOMAIN_LENGTH: Final = 63
_UUID_MSG: Final = "must be a lowercase UUID in 8-4-4-4-12 format"


def dns_label(value: str, path: str) -> list[Cause]:
    """``ValidateDNS1123Label``: device, request and counter names."""
    return [f.invalid(path, value, m) for m in dns1123_label_errors(value)]


def subdomain(value: str, path: str) -> list[Cause]:
    """``ValidateDNS1123Subdomain``: device class names."""
    return [f.invalid(path, value, m) for m in dns1123_subdomain_errors(value)]


node_name = subdomain  # ValidateNodeName


def label_name(value: str, path: str) -> list[Cause]:
    """metav1 ``ValidateLabelName`` (taint keys, binding conditions)."""
    return [f.invalid(path, value, m) for m in label_key_errors(value)]


def driver_name(value: str, path: str, declarative: bool = False) -> list[Cause]:
    """``ValidateCSIDriverName``; where the declarative rule covers it, its length unit."""
    if not value:
        return [f.required(path)]
    out = [f.too_long(path, 63, "characters" if declarative else "bytes")] if len(value) > 63 else []
    return out + [f.invalid(path, value, m) for m in dns1123_subdomain_errors(value.lower(), caseless=declarative)]


def pool_name(value: str, path: str, declarative: bool = False) -> list[Cause]:
    """``validatePoolName``: one or more DNS subdomains separated by ``/``; where the
    declarative ``k8s-resource-pool-name`` format covers it, its "segment i:" wording."""
    if not value:
        return [f.required(path)]
    out = [f.too_long(path, 253)] if len(value) > 253 else []
    for i, part in enumerate(value.split("/")):
        if not part and declarative:
            out.append(f.invalid(path, value, f"segment {i}: must not be empty"))
            continue
        prefix = f"segment {i}: " if declarative else ""
        out += [f.invalid(path, part, prefix + m) for m in dns1123_subdomain_errors(part)]
    return out


def c_identifier(value: str, path: str) -> list[Cause]:
    """``validateCIdentifier`` with the device name limit."""
    out = [f.too_long(path, DEVICE_MAX_ID_LENGTH)] if len(value) > DEVICE_MAX_ID_LENGTH else []
    return out + [f.invalid(path, value, m) for m in c_identifier_errors(value)]


def qualified_name(value: str, path: str, declarative: bool = False) -> list[Cause]:
    """``validateQualifiedName``: a C identifier, optionally after ``<domain>/``."""
    parts = value.split("/")
    if len(parts) == 1:
        return c_identifier(parts[0], path)
    out: list[Cause] = []
    if len(parts) == 2:
        empty_domain = "prefix must not be empty" if declarative else "the domain must not be empty"
        empty_name = "name must not be empty" if declarative else "the name must not be empty"
        if not parts[0]:
            out.append(f.invalid(path, "", empty_domain))
        else:
            out += driver_name(parts[0], path)
        out += [f.invalid(path, "", empty_name)] if not parts[1] else c_identifier(parts[1], path)
    return out  # upstream accepts more than one "/" (a known TODO)


def fully_qualified_name(value: str, path: str) -> list[Cause]:
    """``validateFullyQualifiedName``: a qualified name that has a domain."""
    out = qualified_name(value, path, declarative=True)
    if "/" not in value:
        out.append(f.invalid(path, value, "a fully qualified name must be a domain and a name separated by a slash"))
    return out


def extended_resource_name(value: str, path: str) -> list[Cause]:
    """The ``k8s-extended-resource-name`` format."""
    out: list[Cause] = []
    if "/" not in value:
        out.append(f.invalid(path, value, "a name must be a domain-prefixed path, such as 'example.com/my-prop'"))
    elif "kubernetes.io/" in value:
        out.append(f.invalid(path, value, 'must not have "kubernetes.io/" domain'))
    if value.startswith("requests."):
        out.append(f.invalid(path, value, 'must not have "requests." prefix'))
    out += [f.invalid(path, value, m) for m in label_key_errors("requests." + value)]
    return out


def uid(value: str, path: str) -> list[Cause]:
    """The ``k8s-uuid`` format of ``shareID``."""
    return [] if uuid_ok(value) else [f.invalid(path, value, _UUID_MSG)]
