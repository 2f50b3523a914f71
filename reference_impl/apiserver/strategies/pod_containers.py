"""Container and PodSpec fields of ``pkg/apis/core/validation`` (1.37.2) beyond ``core``:
container ports, environment variable names and the DNS policy."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["port_name_errors", "port_number_errors"]

Obj = dict[str, Any]
_PROTOCOLS: Final = ("SCTP", "TCP", "UDP")
_DNS_POLICIES: Final = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_PORT_NAME: Final = re.compile(r"^[-a-z0-9]+$")
_HAS_LETTER: Final = re.compile(r"[a-z]")
_ENV_MSG: Final = "a valid environment variable name must consist only of printable ASCII characters other than '='"


def port_number_errors(port: int) -> list[str]:
    """``validation.IsValidPortNum``."""
    return [] if 1 <= port <= 65535 else ["must be between 1 and 65535, inclusive"]


def port_name_errors(name: str) -> list[str]:
    """``validation.IsValidPortName`` (an IANA_SVC_NAME)."""
    errs = []
    if len(name) > 15:
        errs.append("must be no more than 15 characters")
    if not _PORT_NAME.match(name):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if "--" in name:
        errs.append("must not contain consecutive hyphens")
    if not _HAS_LETTER.search(name):
        errs.append("must contain at least one letter (a-z)")
    if name.startswith("-") or name.endswith("-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def _ports(ports: list[Any], path: str) -> list[Cause]:
    causes: list[Cause] = []
    names: set[str] = set()
    for i, p in enumerate(ports):
        if not isinstance(p, dict):
            continue
        ip = f"{path}[{i}]"
        name = p.get("name") or ""
        if name:
            errs = port_name_errors(name)
            causes += [fe.invalid(f"{ip}.name", name, e) for e in errs]
            if not errs and name in names:
                causes.append(fe.duplicate(f"{ip}.name", name))
            names.add(name)
        cp = p.get("containerPort") or 0
        if cp == 0:
            causes.append(fe.required(f"{ip}.containerPort"))
        else:
            causes += [fe.invalid(f"{ip}.containerPort", cp, e) for e in port_number_errors(cp)]
        hp = p.get("hostPort") or 0
        if hp:
            causes += [fe.invalid(f"{ip}.hostPort", hp, e) for e in port_number_errors(hp)]
        proto = p.get("protocol", "TCP")
        if not proto:
            causes.append(fe.required(f"{ip}.protocol"))
        elif proto not in _PROTOCOLS:
            causes.append(fe.not_supported(f"{ip}.protocol", proto, _PROTOCOLS))
    return causes


def _env(env: list[Any], path: str) -> list[Cause]:
    causes: list[Cause] = []
    for i, e in enumerate(env):
        if not isinstance(e, dict):
            continue
        name = str(e.get("name") or "")
        if not name:
            causes.append(fe.required(f"{path}[{i}].name"))
        elif "=" in name or not all(" " <= ch <= "~" for ch in name):
            causes.append(fe.invalid(f"{path}[{i}].name", name, _ENV_MSG))
    return causes


def container_field_causes(spec: Obj, prefix: str = "spec") -> list[Cause]:
    """Ports and env of every container, and the pod's dnsPolicy."""
    causes: list[Cause] = []
    for lst in ("initContainers", "containers", "ephemeralContainers"):
        for i, c in enumerate(spec.get(lst) or []):
            if not isinstance(c, dict):
                continue
            p = f"{prefix}.{lst}[{i}]"
            causes += _ports(c.get("ports") or [], f"{p}.ports")
            causes += _env(c.get("env") or [], f"{p}.env")
    dns = spec.get("dnsPolicy", "ClusterFirst")
    if not dns:
        causes.append(fe.required(f"{prefix}.dnsPolicy"))
    elif dns not in _DNS_POLICIES:
        causes.append(fe.not_supported(f"{prefix}.dnsPolicy", dns, _DNS_POLICIES))
    return causes


@validator("Pod")
def validate_pod_containers(pod: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """On create (the update rules forbid changing these)."""
    if old is not None:
        return []
    return container_field_causes(pod.get("spec") or {})
