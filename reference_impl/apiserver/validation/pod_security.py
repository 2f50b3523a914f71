"""Pod and container security rules of upstream v1.37.2's ``pkg/apis/core/validation``:
``validatePodSpecSecurityContext``, ``ValidateSecurityContext``, sysctls, seccomp and
AppArmor profiles, Windows options, ``validateWindowsHostProcessPod``, ``validateOS`` with
``validateLinux``/``validateWindows``, ``validateHostUsers`` and
``validateShareProcessNamespace``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from reference_impl.api.meta import dns1123_subdomain_errors
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["container_security_causes", "host_sysctl_error", "pod_security_causes"]

Obj = dict[str, Any]
_MAX_ID: Final = 2**31 - 1
_ID_MSG: Final = "must be between 0 and 2147483647, inclusive"
_SYSCTL: Final = re.compile(r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$")
_SECCOMP: Final = ("Localhost", "RuntimeDefault", "Unconfined")
_PROC_MOUNTS: Final = ("Default", "Unmasked")
_FSGROUP_POLICIES: Final = ("Always", "OnRootMismatch")
_SUPP_POLICIES: Final = ("Merge", "Strict")
_SELINUX_POLICIES: Final = ("MountOption", "Recursive")
_OS: Final = ("linux", "windows")
_WIN_POD_FORBIDDEN: Final = (
    "appArmorProfile", "seLinuxOptions", "seccompProfile", "fsGroup", "fsGroupChangePolicy",
    "sysctls", "runAsUser", "runAsGroup", "supplementalGroups", "supplementalGroupsPolicy",
    "seLinuxChangePolicy",
)
_WIN_CTR_FORBIDDEN: Final = (
    "appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities", "readOnlyRootFilesystem",
    "privileged", "allowPrivilegeEscalation", "procMount", "runAsUser", "runAsGroup",
)
_CTRL: Final = re.compile(r"[\x00-\x1f\x7f]")
# validNetBiosRegex and validWindowsUserDomainDNSRegex: a runAsUserName Domain is one or the other.
_NETBIOS: Final = re.compile(r'[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}')
_DNS_LABEL: Final = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_WIN_DOMAIN_DNS: Final = re.compile(rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*")


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _id(sc: Obj, key: str, path: str) -> list[Cause]:
    v = sc.get(key)
    return [fe.invalid(f"{path}.{key}", v, _ID_MSG)] if isinstance(v, int) and not 0 <= v <= _MAX_ID else []


def _containers(spec: Obj, path: str) -> Iterator[tuple[Obj, str]]:
    """``VisitContainersWithPath``: init, regular, then ephemeral containers."""
    for lst in ("initContainers", "containers", "ephemeralContainers"):
        for i, c in enumerate(spec.get(lst) or []):
            yield _o(c), f"{path}.{lst}[{i}]"


def _seccomp(sp: Any, path: str) -> list[Cause]:
    """``validateSeccompProfileField``."""
    if not isinstance(sp, dict):
        return []
    t, local = sp.get("type") or "", sp.get("localhostProfile")
    out: list[Cause] = []
    if not t:
        out.append(fe.required(f"{path}.type", "type is required when seccompProfile is set"))
    elif t not in _SECCOMP:
        out.append(fe.not_supported(f"{path}.type", t, _SECCOMP))
    if t == "Localhost":
        if local is None:
            out.append(fe.required(f"{path}.localhostProfile", "must be set when seccomp type is Localhost"))
        else:
            if str(local).startswith("/"):
                out.append(fe.invalid(f"{path}.localhostProfile", local, "must be a relative path"))
            if ".." in str(local).split("/"):
                out.append(fe.invalid(f"{path}.localhostProfile", local, "must not contain '..'"))
    elif local is not None:
        out.append(fe.invalid(f"{path}.localhostProfile", sp, "can only be set when seccomp type is Localhost"))
    return out


def _apparmor(p: Any, path: str) -> list[Cause]:
    """``ValidateAppArmorProfileField``."""
    if not isinstance(p, dict):
        return []
    t, local = p.get("type") or "", p.get("localhostProfile")
    if t == "Localhost":
        if local is None or not str(local).strip():
            if local is not None and str(local) != str(local).strip():
                return [fe.invalid(f"{path}.localhostProfile", local, "must not be padded with whitespace")]
            return [fe.required(f"{path}.localhostProfile", "must be set when AppArmor type is Localhost")]
        out: list[Cause] = []
        if str(local) != str(local).strip():
            out.append(fe.invalid(f"{path}.localhostProfile", local, "must not be padded with whitespace"))
        if len(str(local)) > 4095:  # PATH_MAX - 1
            out.append(fe.too_long(f"{path}.localhostProfile", 4095))
        return out
    if t in ("RuntimeDefault", "Unconfined"):
        return [fe.invalid(f"{path}.localhostProfile", local, "can only be set when AppArmor type is Localhost")] if local is not None else []
    if not t:
        return [fe.required(f"{path}.type", "type is required when appArmorProfile is set")]
    return [fe.not_supported(f"{path}.type", t, ("Localhost", "RuntimeDefault", "Unconfined"))]


def _windows_options(wo: Any, path: str) -> list[Cause]:
    """``validateWindowsSecurityContextOptions`` (the common cases)."""
    if not isinstance(wo, dict):
        return []
    out: list[Cause] = []
    name = wo.get("gmsaCredentialSpecName")
    if name is not None:
        out += [fe.invalid(f"{path}.gmsaCredentialSpecName", name, e) for e in dns1123_subdomain_errors(str(name))]
    spec = wo.get("gmsaCredentialSpec")
    if spec is not None and not spec:
        out.append(fe.invalid(f"{path}.gmsaCredentialSpec", spec, "gmsaCredentialSpec cannot be an empty string"))
    elif spec is not None and len(str(spec).encode()) > 64 * 1024:
        out.append(fe.invalid(f"{path}.gmsaCredentialSpec", spec, "gmsaCredentialSpec size must be under 64 KiB"))
    user = wo.get("runAsUserName")
    if user is not None:
        out += [fe.invalid(f"{path}.runAsUserName", user, e) for e in _user_name_errors(str(user))]
    return out


def _user_name_errors(name: str) -> list[str]:
    if not name:
        return ["runAsUserName cannot be an empty string"]
    if _CTRL.search(name):
        return ["runAsUserName cannot contain control characters"]
    parts = name.split("\\")
    if len(parts) > 2:
        return ["runAsUserName cannot contain more than one backslash"]
    domain, user = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
    errs = []
    if len(domain.encode()) >= 256:
        errs.append("runAsUserName's Domain length must be under 256 characters")
    if len(parts) == 2 and not (_NETBIOS.fullmatch(domain) or _WIN_DOMAIN_DNS.fullmatch(domain)):
        errs.append("runAsUserName's Domain doesn't match the NetBios nor the DNS format")
    if not user:
        errs.append("runAsUserName's User cannot be empty")
    elif len(user) > 104:
        errs.append("runAsUserName's User length must not be longer than 104 characters")
    if user and re.fullmatch(r"[\. ]+", user):
        errs.append("runAsUserName's User cannot contain only periods or spaces")
    if re.search(r'["/\\:;|=,\+\*\?<>@\[\]]', user):
        errs.append("runAsUserName's User cannot contain the following characters")
    return errs


def host_sysctl_error(name: str, spec: Obj) -> str:
    """``ValidateHostSysctl``'s detail for a net sysctl of a hostNetwork pod or an IPC one
    of a hostIPC pod, else ""."""
    norm = name.replace("/", ".")
    if spec.get("hostNetwork") and norm.startswith("net."):
        return "may not be specified when 'hostNetwork' is true"
    if spec.get("hostIPC") and (norm.startswith(("kernel.shm", "kernel.msg", "fs.mqueue.")) or norm == "kernel.sem"):  # noqa: E501
        return "may not be specified when 'hostIPC' is true"
    return ""


def _sysctls(sc: Obj, spec: Obj, path: str, allow_host: bool = False) -> list[Cause]:
    """``validateSysctls`` with ``ValidateHostSysctl`` (``allow_host``:
    AllowNamespacedSysctlsForHostNetAndHostIPC)."""
    out: list[Cause] = []
    names: set[str] = set()
    for i, s in enumerate(sc.get("sysctls") or []):
        name, p = str(_o(s).get("name") or ""), f"{path}[{i}].name"
        if not name:
            out.append(fe.required(p))
        elif len(name) > 253 or not _SYSCTL.match(name):
            out.append(fe.invalid(p, name, "must have at most 253 characters and match regex"))
        elif name in names:
            out.append(fe.duplicate(p, name))
        detail = "" if allow_host else host_sysctl_error(name, spec)
        if detail:
            out.append(fe.invalid(p, name, detail))
        names.add(name)
    return out


def _enum(sc: Obj, key: str, allowed: tuple[str, ...], path: str) -> list[Cause]:
    v = sc.get(key)
    return [fe.not_supported(f"{path}.{key}", v, allowed)] if v is not None and v not in allowed else []


def _pod_context(spec: Obj, path: str, allow_host_sysctls: bool = False, only_recursive: bool = False) -> list[Cause]:  # noqa: E501
    """``validatePodSpecSecurityContext`` (``only_recursive``:
    AllowOnlyRecursiveSELinuxChangePolicy)."""
    sc = _o(spec.get("securityContext"))
    p = f"{path}.securityContext"
    out = _id(sc, "fsGroup", p) + _id(sc, "runAsUser", p) + _id(sc, "runAsGroup", p)
    for i, g in enumerate(sc.get("supplementalGroups") or []):
        if isinstance(g, int) and not 0 <= g <= _MAX_ID:
            out.append(fe.invalid(f"{p}.supplementalGroups[{i}]", g, _ID_MSG))
    out += _sysctls(sc, spec, f"{p}.sysctls", allow_host_sysctls)
    out += _enum(sc, "fsGroupChangePolicy", _FSGROUP_POLICIES, p)
    out += _seccomp(sc.get("seccompProfile"), f"{p}.seccompProfile")
    out += _windows_options(sc.get("windowsOptions"), f"{p}.windowsOptions")
    out += _apparmor(sc.get("appArmorProfile"), f"{p}.appArmorProfile")
    out += _enum(sc, "supplementalGroupsPolicy", _SUPP_POLICIES, p)
    out += _enum(sc, "seLinuxChangePolicy", ("Recursive",) if only_recursive else _SELINUX_POLICIES, p)  # noqa: E501
    return out


def container_security_causes(c: Obj, path: str, host_users: bool, allow_sys_admin: bool = False) -> list[Cause]:
    """``ValidateSecurityContext`` of one container (``allow_sys_admin``:
    AllowSysAdminWhenPrivilegeEscalationFalse, pod_options)."""
    sc = c.get("securityContext")
    if not isinstance(sc, dict):
        return []
    p = f"{path}.securityContext"
    out = _id(sc, "runAsUser", p) + _id(sc, "runAsGroup", p)
    pm = sc.get("procMount")
    if pm is not None:
        if pm not in _PROC_MOUNTS:
            out.append(fe.not_supported(f"{p}.procMount", pm, _PROC_MOUNTS))
        if host_users and pm == "Unmasked":
            out.append(fe.invalid(f"{p}.procMount", pm, "`hostUsers` must be false to use `Unmasked`"))
    out += _seccomp(sc.get("seccompProfile"), f"{p}.seccompProfile")
    if sc.get("allowPrivilegeEscalation") is False:
        if sc.get("privileged") is True:
            out.append(fe.invalid(p, sc, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
        for cap in [] if allow_sys_admin else _o(sc.get("capabilities")).get("add") or []:
            if cap == "CAP_SYS_ADMIN":
                out.append(fe.invalid(p, sc, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
    out += _windows_options(sc.get("windowsOptions"), f"{p}.windowsOptions")
    return out + _apparmor(sc.get("appArmorProfile"), f"{p}.appArmorProfile")


def _host_process(spec: Obj, path: str) -> list[Cause]:
    """``validateWindowsHostProcessPod``."""
    pod_hp = _o(_o(spec.get("securityContext")).get("windowsOptions")).get("hostProcess")
    out: list[Cause] = []
    count = hp_count = 0
    for c, cp in _containers(spec, path):
        count += 1
        hp = _o(_o(c.get("securityContext")).get("windowsOptions")).get("hostProcess")
        if pod_hp is not None and hp is not None and pod_hp != hp:
            out.append(fe.invalid(f"{cp}.securityContext.windowsOptions.hostProcess", hp, "pod hostProcess value must be identical if both are specified"))
        if hp is True or (hp is None and pod_hp is True):
            hp_count += 1
    if hp_count:
        if hp_count != count:
            out.append(fe.invalid(path, "", "If pod contains any hostProcess containers then all containers must be HostProcess containers"))
        if not spec.get("hostNetwork"):
            out.append(fe.invalid(f"{path}.hostNetwork", False, "hostNetwork must be true if pod contains any hostProcess containers"))
    return out


def _os(spec: Obj, path: str) -> list[Cause]:
    """``validateOS``, then ``validateLinux`` or ``validateWindows``."""
    os_ = spec.get("os")
    if not isinstance(os_, dict):
        return []
    name = os_.get("name") or ""
    if not name:
        return [fe.required(f"{path}.os.name")]
    if name not in _OS:
        return [fe.not_supported(f"{path}.os", name, _OS)]
    sc = _o(spec.get("securityContext"))
    out: list[Cause] = []
    forbid = "windows options cannot be set for a linux pod" if name == "linux" else "cannot be set for a windows pod"
    if name == "linux":
        if sc.get("windowsOptions") is not None:
            out.append(fe.forbidden(f"{path}.securityContext.windowsOptions", forbid))
        for c, cp in _containers(spec, path):
            if _o(c.get("securityContext")).get("windowsOptions") is not None:
                out.append(fe.forbidden(f"{cp}.securityContext.windowsOptions", forbid))
        return out
    out += [fe.forbidden(f"{path}.securityContext.{k}", forbid) for k in _WIN_POD_FORBIDDEN if sc.get(k) is not None]
    if spec.get("hostUsers") is not None:
        out.append(fe.forbidden(f"{path}.hostUsers", forbid))
    out += [fe.forbidden(f"{path}.{k}", forbid) for k in ("hostPID", "hostIPC") if spec.get(k)]
    if spec.get("shareProcessNamespace") is not None:
        out.append(fe.forbidden(f"{path}.shareProcessNamespace", forbid))
    for c, cp in _containers(spec, path):
        csc = c.get("securityContext")
        if isinstance(csc, dict):
            out += [fe.forbidden(f"{cp}.securityContext.{k}", forbid) for k in _WIN_CTR_FORBIDDEN if csc.get(k) is not None]
    return out


def _host_users(spec: Obj, path: str, host_network: bool, volume_devices: bool) -> list[Cause]:
    """``validateHostUsers`` (AllowUserNamespacesHostNetworkSupport and
    AllowUserNamespacesWithVolumeDevices waive their rules)."""
    if spec.get("hostUsers") is not False:
        return []
    out: list[Cause] = []
    if spec.get("hostNetwork") and not host_network:
        out.append(fe.forbidden(f"{path}.hostNetwork", "when `hostUsers` is false"))
    if spec.get("hostPID"):
        out.append(fe.forbidden(f"{path}.HostPID", "when `hostUsers` is false"))
    if spec.get("hostIPC"):
        out.append(fe.forbidden(f"{path}.HostIPC", "when `hostUsers` is false"))
    # Block devices support neither idmap mounts nor a chown.
    for lst in () if volume_devices else ("initContainers", "containers", "ephemeralContainers"):
        for i, c in enumerate(spec.get(lst) or []):
            if _o(c).get("volumeDevices"):
                out.append(fe.forbidden(f"{path}.{lst}[{i}].volumeDevices", "when `hostUsers` is false"))
    return out


def pod_security_causes(
    spec: Obj, path: str, allow_sys_admin: bool = False, *,
    allow_host_network: bool = False, allow_volume_devices: bool = False,
    allow_host_sysctls: bool = False, only_recursive_selinux: bool = False,
) -> list[Cause]:
    """The pod-level rules above, and every container's ``ValidateSecurityContext``; the
    flags are the PodValidationOptions of the same names."""
    host_users = spec.get("hostUsers") is not False
    out = _pod_context(spec, path, allow_host_sysctls, only_recursive_selinux)
    for lst in ("containers", "initContainers"):
        for i, c in enumerate(spec.get(lst) or []):
            out += container_security_causes(_o(c), f"{path}.{lst}[{i}]", host_users, allow_sys_admin)
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID"):
        out.append(fe.invalid(f"{path}.shareProcessNamespace", True, "ShareProcessNamespace and HostPID cannot both be enabled"))
    out += _host_process(spec, path) + _host_users(spec, path, allow_host_network, allow_volume_devices)
    return out + _os(spec, path)
