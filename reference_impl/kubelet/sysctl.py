"""The kubelet's sysctl admit handler (``pkg/kubelet/sysctl``, v1.37.2).

``Allowlist`` is ``patternAllowlist``: the safe sysctls the node's kernel namespaces
(``SafeSysctlAllowlist``) plus ``--allowed-unsafe-sysctls``, each a name or a ``*``-ended
prefix bound to its kernel namespace (``k8s.io/component-helpers/node/util/sysctl``); a
pod whose ``spec.securityContext.sysctls`` has a name outside it, or a namespaced one
while it shares that namespace with the host, is rejected ``SysctlForbidden``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from reference_impl.kubelet.admission import AdmitResult

__all__ = [
    "FORBIDDEN_REASON",
    "Allowlist",
    "get_namespace",
    "is_valid_sysctl_pattern",
    "namespace_of",
    "normalize_name",
    "safe_sysctl_allowlist",
]

FORBIDDEN_REASON: Final = "SysctlForbidden"
IPC: Final = "IPC"
NET: Final = "Net"
UTS: Final = "UTS"
USER: Final = "User"
UNKNOWN: Final = ""

# nameToNamespace / prefixToNamespace (a prefix matches with its trailing ".")
_NAMES: Final = {
    "kernel.domainname": UTS,
    "kernel.sem": IPC,
    "kernel.shmall": IPC,
    "kernel.shmmax": IPC,
    "kernel.shmmni": IPC,
    "kernel.shm_rmid_forced": IPC,
    "kernel.shm": IPC,
    "kernel.msgmax": IPC,
    "kernel.msgmnb": IPC,
    "kernel.msgmni": IPC,
    "kernel.msg": IPC,
}
_PREFIXES: Final = (("net", NET), ("fs.mqueue", IPC), ("user", USER))

# safeSysctls in order, with the kernel (pkg/util/kernel) that first namespaces each.
_SAFE: Final = (
    ("kernel.shm_rmid_forced", None),
    ("net.ipv4.ip_local_port_range", None),
    ("net.ipv4.tcp_syncookies", None),
    ("net.ipv4.ping_group_range", None),
    ("net.ipv4.ip_unprivileged_port_start", None),
    ("net.ipv4.ip_local_reserved_ports", (3, 16)),
    ("net.ipv4.tcp_keepalive_time", (4, 5)),
    ("net.ipv4.tcp_fin_timeout", (4, 6)),
    ("net.ipv4.tcp_keepalive_intvl", (4, 5)),
    ("net.ipv4.tcp_keepalive_probes", (4, 5)),
    ("net.ipv4.tcp_rmem", (4, 15)),
    ("net.ipv4.tcp_wmem", (4, 15)),
    ("net.ipv4.tcp_slow_start_after_idle", (4, 15)),
    ("net.ipv4.tcp_notsent_lowat", (4, 6)),
)

SYSCTL_MAX_LENGTH: Final = 253
_SEGMENT: Final = r"[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_PATTERN_SEGMENT: Final = r"([a-z0-9][-_a-z0-9]*)?[a-z0-9*]"
_PATTERN_FMT: Final = "(" + _SEGMENT + r"[\./])*" + _PATTERN_SEGMENT
_PATTERN: Final = re.compile(_PATTERN_FMT)
_KERNEL: Final = re.compile(r"^\s*v?(\d+)\.(\d+)")


def normalize_name(val: str) -> str:
    """``NormalizeName``: a ``/``-separated name (the first separator is ``/``) becomes
    ``.``-separated, swapping the two characters."""
    first = next((i for i, ch in enumerate(val) if ch in "./"), -1)
    if first == -1 or val[first] == ".":
        return val
    return val.translate(str.maketrans("./", "/."))


def namespace_of(val: str) -> str:
    """``namespaceOf``: the kernel namespace of a sysctl name or prefix ("" unknown)."""
    if val in _NAMES:
        return _NAMES[val]
    for prefix, ns in _PREFIXES:
        if val.startswith(prefix + "."):
            return ns
    return UNKNOWN


def get_namespace(sysctl: str) -> tuple[str, str, bool]:
    """``GetNamespace``: (namespace, the name or the prefix before ``*``, prefixed)."""
    name = normalize_name(sysctl)
    star = name.find("*")
    if star != -1:
        name = name[:star]
    return namespace_of(name), name, star != -1


def is_valid_sysctl_pattern(name: str) -> bool:
    """``policyvalidation.IsValidSysctlPattern``."""
    return len(name) <= SYSCTL_MAX_LENGTH and _PATTERN.fullmatch(name) is not None


def _kernel(version: str | None) -> tuple[int, int] | None:
    m = _KERNEL.match(version or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def safe_sysctl_allowlist(kernel_version: str | None) -> list[str]:
    """``getSafeSysctlAllowlist``: the safe sysctls the kernel namespaces; without a
    readable kernel version only those with no minimum."""
    kernel = _kernel(kernel_version)
    return [
        name
        for name, minimum in _SAFE
        if minimum is None or (kernel is not None and kernel >= minimum)
    ]


class AllowlistError(ValueError):
    """``NewAllowlist``'s error for a bad pattern."""


@dataclass(slots=True)
class Allowlist:
    """``patternAllowlist`` (``NewAllowlist``): exact names and prefixes to namespaces."""

    sysctls: dict[str, str] = field(default_factory=dict)
    prefixes: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, patterns: Iterable[str]) -> Allowlist:
        """``NewAllowlist``: raises ``AllowlistError`` with upstream's message."""
        out = cls()
        for s in patterns:
            if not is_valid_sysctl_pattern(s):
                raise AllowlistError(
                    f"sysctl {_quote(s)} must have at most {SYSCTL_MAX_LENGTH} characters and "
                    f"match regex {_PATTERN_FMT}"
                )
            ns, name, prefixed = get_namespace(s)
            if ns == UNKNOWN:
                raise AllowlistError(f"the sysctls {_quote(name)} are not known to be namespaced")
            (out.prefixes if prefixed else out.sysctls)[name] = ns
        return out

    def validate(self, sysctl: str, host_net: bool, host_ipc: bool, host_users: bool) -> str | None:
        """``validateSysctl``: the error text, or None when allowed."""
        sysctl = normalize_name(sysctl)
        ns = self.sysctls.get(sysctl)
        if ns is None:
            # a Go map: the first matching prefix; the namespaces of overlapping
            # prefixes agree (both come from namespaceOf), so the order is moot
            ns = next((v for p, v in sorted(self.prefixes.items()) if sysctl.startswith(p)), None)
        if ns is None:
            return f"{_quote(sysctl)} not allowlisted"
        shared = {IPC: host_ipc, NET: host_net, USER: host_users}
        if shared.get(ns, False):
            return f"{_quote(sysctl)} not allowed with host {ns} enabled"
        return None

    def admit(self, pod: Mapping[str, Any]) -> AdmitResult:
        """``patternAllowlist.Admit``: the first forbidden sysctl rejects the pod."""
        spec = pod.get("spec") or {}
        sysctls = (spec.get("securityContext") or {}).get("sysctls") or ()
        host_users = spec.get("hostUsers")
        for s in sysctls:
            err = self.validate(
                str(s.get("name") or ""),
                bool(spec.get("hostNetwork")),
                bool(spec.get("hostIPC")),
                host_users is None or bool(host_users),
            )
            if err is not None:
                return AdmitResult(False, FORBIDDEN_REASON, f"forbidden sysctl: {err}")
        return AdmitResult(True)


def _quote(s: str) -> str:
    """Go's ``%q`` for the ASCII names a sysctl can hold."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
