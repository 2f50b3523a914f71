"""Container rules of upstream v1.37.2's ``pkg/apis/core/validation``: lifecycle and probe
handlers (``validateHandler``, ``validateProbe``, ``validateLifecycle``), env sources
(``validateEnvVarValueFrom``, ``ValidateEnvFrom``), ``ValidateVolumeMounts``,
``ValidateVolumeDevices``, restart policies and rules, ``checkHostPortConflicts`` and the
init-container limits of ``validateInitContainers``."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.api.meta import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    parse_quantity,
)
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.pod_volumes import (
    no_backsteps,
    object_field_selector_causes,
)
from reference_impl.errors import Cause

__all__ = ["common_container_causes", "container_rule_causes", "host_port_conflicts", "probe_causes"]

Obj = dict[str, Any]
_SCHEMES: Final = ("HTTP", "HTTPS")
_TMP: Final = ("FallbackToLogsOnError", "File")
_PROPAGATION: Final = ("Bidirectional", "HostToContainer", "None")
_RRO: Final = ("Disabled", "Enabled", "IfPossible")
_CTR_RESTART: Final = ("Always", "Never", "OnFailure")
_ENV_NAME_MSG: Final = "a valid environment variable name must consist only of printable ASCII characters other than '='"
_ENV_FIELDS: Final = (
    "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
    "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
)
_RES_FIELDS: Final = (
    "limits.cpu", "limits.ephemeral-storage", "limits.memory",
    "requests.cpu", "requests.ephemeral-storage", "requests.memory",
)
_MEM_DIVISORS: Final = frozenset("1 1k 1M 1G 1T 1P 1E 1Ki 1Mi 1Gi 1Ti 1Pi 1Ei".split())
_SIGNALS_WINDOWS: Final = ("SIGKILL", "SIGTERM")
_SIGNALS_LINUX: Final = frozenset(
    "SIGABRT SIGALRM SIGBUS SIGCHLD SIGCLD SIGCONT SIGFPE SIGHUP SIGILL SIGINT SIGIO SIGIOT SIGKILL "
    "SIGPIPE SIGPOLL SIGPROF SIGPWR SIGQUIT SIGSEGV SIGSTKFLT SIGSTOP SIGSYS SIGTERM SIGTRAP SIGTSTP "
    "SIGTTIN SIGTTOU SIGURG SIGUSR1 SIGUSR2 SIGVTALRM SIGWINCH SIGXCPU SIGXFSZ SIGRTMIN SIGRTMAX".split()
) | {f"SIGRTMIN+{i}" for i in range(1, 16)} | {f"SIGRTMAX-{i}" for i in range(1, 15)}
_HEADER: Final = re.compile(r"^[-A-Za-z0-9]+$")  # IsHTTPHeaderName
_CM_KEY: Final = re.compile(r"^[-._a-zA-Z0-9]+$")
_PORT_NAME: Final = re.compile(r"^[-a-z0-9]+$")


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _port(port: Any, path: str) -> list[Cause]:
    """``ValidatePortNumOrName``."""
    if isinstance(port, int):
        return [] if 1 <= port <= 65535 else [fe.invalid(path, port, "must be between 1 and 65535, inclusive")]
    name = str(port)
    ok = bool(len(name) <= 15 and _PORT_NAME.match(name) and "--" not in name and re.search("[a-z]", name))
    ok = ok and not name.startswith("-") and not name.endswith("-")
    return [] if ok else [fe.invalid(path, name, "must be a valid IANA_SVC_NAME")]


def _handler(h: Obj, path: str, kinds: tuple[str, ...], grace: Any) -> list[Cause]:
    """``validateHandler``: one handler, each checked."""
    out: list[Cause] = []
    seen = 0
    for kind in kinds:
        if h.get(kind) is None:
            continue
        if seen:
            out.append(fe.forbidden(f"{path}.{kind}", "may not specify more than 1 handler type"))
            continue
        seen += 1
        a, p = _o(h[kind]), f"{path}.{kind}"
        if kind == "exec" and not a.get("command"):
            out.append(fe.required(f"{p}.command"))
        elif kind == "httpGet":
            out += _port(a.get("port", 0), f"{p}.port")
            if a.get("scheme", "HTTP") not in _SCHEMES:
                out.append(fe.not_supported(f"{p}.scheme", a.get("scheme"), _SCHEMES))
            for hd in a.get("httpHeaders") or []:
                if not _HEADER.match(str(_o(hd).get("name") or "")):
                    out.append(fe.invalid(f"{p}.httpHeaders", _o(hd).get("name", ""), "a valid HTTP header must consist of alphanumeric characters or '-'"))
        elif kind == "tcpSocket":
            out += _port(a.get("port", 0), f"{p}.port")
        elif kind == "grpc":
            out += _port(int(a.get("port") or 0), f"{p}.port")
        elif kind == "sleep":
            secs = a.get("seconds", 0)
            if isinstance(grace, int) and isinstance(secs, int) and not 0 <= secs <= grace:
                out.append(fe.invalid(p, secs, f"must be non-negative and less than terminationGracePeriodSeconds ({grace})"))
    if not seen:
        out.append(fe.required(path, "must specify a handler type"))
    return out


def probe_causes(probe: Any, path: str, kind: str, grace: Any) -> list[Cause]:
    """``validateProbe`` plus the liveness/readiness/startup extras."""
    if not isinstance(probe, dict):
        return []
    out = _handler(probe, path, ("exec", "httpGet", "tcpSocket", "grpc"), grace)
    for f in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        v = probe.get(f)
        if isinstance(v, int) and v < 0:
            out.append(fe.invalid(f"{path}.{f}", v, "must be greater than or equal to 0"))
    tgps = probe.get("terminationGracePeriodSeconds")
    if isinstance(tgps, int) and tgps <= 0:
        out.append(fe.invalid(f"{path}.terminationGracePeriodSeconds", tgps, "must be greater than 0"))
    st = probe.get("successThreshold")
    if kind != "readinessProbe" and isinstance(st, int) and st != 1:
        out.append(fe.invalid(f"{path}.successThreshold", st, "must be 1"))
    if kind == "readinessProbe" and tgps is not None:
        out.append(fe.invalid(f"{path}.terminationGracePeriodSeconds", tgps, "must not be set for readinessProbes"))
    return out


def _lifecycle(lc: Any, path: str, grace: Any, os_: Any) -> list[Cause]:
    """``validateLifecycle`` with ``validateStopSignal``."""
    if not isinstance(lc, dict):
        return []
    out: list[Cause] = []
    for hook in ("postStart", "preStop"):
        if lc.get(hook) is not None:
            out += _handler(_o(lc[hook]), f"{path}.{hook}", ("exec", "httpGet", "tcpSocket", "sleep"), grace)
    sig = lc.get("stopSignal")
    if sig is not None:
        name = _o(os_).get("name") if isinstance(os_, dict) else None
        if not isinstance(os_, dict):
            out.append(fe.forbidden(f"{path}.stopSignal", "may not be set for containers with empty `spec.os.name`"))
        elif name == "windows" and sig not in _SIGNALS_WINDOWS:
            out.append(fe.not_supported(f"{path}.stopSignal", sig, _SIGNALS_WINDOWS))
        elif name == "linux" and sig not in _SIGNALS_LINUX:
            out.append(fe.not_supported(f"{path}.stopSignal", sig, sorted(_SIGNALS_LINUX)))
    return out


def _name_errors(name: str) -> list[str]:
    return dns1123_subdomain_errors(name)


def _field_ref(ref: Obj, path: str) -> list[Cause]:
    """``validateObjectFieldSelector`` for env."""
    return object_field_selector_causes(ref, _ENV_FIELDS, path)


def _resource_ref(ref: Obj, path: str) -> list[Cause]:
    """``validateContainerResourceFieldSelector`` (env) and its divisor."""
    res = str(ref.get("resource") or "")
    out: list[Cause] = []
    if not res:
        out.append(fe.required(f"{path}.resource"))
    elif res not in _RES_FIELDS and not res.startswith(("requests.hugepages-", "limits.hugepages-")):
        out.append(fe.not_supported(f"{path}.resource", res, _RES_FIELDS))
    div = ref.get("divisor")
    if div is None:
        return out
    try:
        zero = parse_quantity(div) == 0
    except ValueError:
        return out
    if zero:
        return out
    allowed = {"1m", "1"} if res.endswith(".cpu") else _MEM_DIVISORS
    if (res.endswith((".cpu", ".memory", ".ephemeral-storage")) or "hugepages-" in res) and str(div) not in allowed:
        out.append(fe.invalid(f"{path}.divisor", res, "divisor not supported for this resource"))
    return out


def _key_ref(ref: Obj, path: str) -> list[Cause]:
    """``validateConfigMapKeySelector`` / ``validateSecretKeySelector``."""
    name = str(ref.get("name") or "")
    out = [fe.invalid(f"{path}.name", name, e) for e in _name_errors(name)]
    key = str(ref.get("key") or "")
    if not key:
        out.append(fe.required(f"{path}.key"))
    elif not _CM_KEY.match(key) or len(key) > 253 or key in (".", ".."):
        out.append(fe.invalid(f"{path}.key", key, "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"))
    return out


def _env(env: list[Any], path: str) -> list[Cause]:
    out: list[Cause] = []
    for i, e in enumerate(env):
        e = _o(e)
        vf = e.get("valueFrom")
        if vf is None:
            continue
        vf, p = _o(vf), f"{path}[{i}].valueFrom"
        n = 0
        for key, check in (("fieldRef", _field_ref), ("resourceFieldRef", _resource_ref), ("configMapKeyRef", _key_ref), ("secretKeyRef", _key_ref), ("fileKeyRef", _file_ref)):
            if vf.get(key) is not None:
                n += 1
                out += check(_o(vf[key]), f"{p}.{key}")
        if n == 0:
            out.append(fe.invalid(p, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"))
        elif e.get("value"):
            out.append(fe.invalid(p, "", "may not be specified when `value` is not empty"))
        elif n > 1:
            out.append(fe.invalid(p, "", "may not have more than one field specified at a time"))
    return out


def _file_ref(ref: Obj, path: str) -> list[Cause]:
    """``validateFileKeySelector``."""
    out: list[Cause] = []
    key, vol = str(ref.get("key") or ""), str(ref.get("volumeName") or "")
    if not key:
        out.append(fe.required(f"{path}.key"))
    elif "=" in key or not all(" " <= ch <= "~" for ch in key):
        out.append(fe.invalid(f"{path}.key", key, _ENV_NAME_MSG))
    if not vol:
        out.append(fe.required(f"{path}.volumeName"))
    else:
        out += [fe.invalid(f"{path}.volumeName", vol, e) for e in dns1123_label_errors(vol)]
    p = str(ref.get("path") or "")
    if not p:
        out.append(fe.required(f"{path}.path"))
    return out + no_backsteps(p, f"{path}.path")


def _env_from(sources: list[Any], path: str) -> list[Cause]:
    """``ValidateEnvFrom``."""
    out: list[Cause] = []
    for i, s in enumerate(sources):
        s, p = _o(s), f"{path}[{i}]"
        prefix = str(s.get("prefix") or "")
        if prefix and ("=" in prefix or not all(" " <= ch <= "~" for ch in prefix)):
            out.append(fe.invalid(f"{p}.prefix", prefix, _ENV_NAME_MSG))
        n = 0
        for key in ("configMapRef", "secretRef"):
            if s.get(key) is None:
                continue
            n += 1
            name = str(_o(s[key]).get("name") or "")
            if not name:
                out.append(fe.required(f"{p}.{key}.name"))
            else:
                out += [fe.invalid(f"{p}.{key}.name", name, e) for e in _name_errors(name)]
        if n == 0:
            out.append(fe.invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif n > 1:
            out.append(fe.invalid(path, "", "may not have more than one field specified at a time"))
    return out


def _descending(value: str, path: str) -> list[Cause]:
    out = [fe.invalid(path, value, "must be a relative path")] if value.startswith("/") else []
    return out + no_backsteps(value, path)


def _mounts(c: Obj, volumes: dict[str, Obj], path: str) -> list[Cause]:
    """``ValidateVolumeMounts`` (its subPath, propagation and RRO paths carry no index)."""
    out: list[Cause] = []
    devices = {str(_o(d).get("name") or ""): str(_o(d).get("devicePath") or "") for d in c.get("volumeDevices") or []}
    privileged = _o(c.get("securityContext")).get("privileged") is True
    seen: set[str] = set()
    for i, m in enumerate(c.get("volumeMounts") or []):
        m, ip = _o(m), f"{path}[{i}]"
        name, mp = str(m.get("name") or ""), str(m.get("mountPath") or "")
        if not name:
            out.append(fe.required(f"{ip}.name"))
        if name not in volumes:
            out.append(Cause(f"{ip}.name", "FieldValueNotFound", f'Not found: "{name}"'))
        if not mp:
            out.append(fe.required(f"{ip}.mountPath"))
        if mp in seen:
            out.append(fe.invalid(f"{ip}.mountPath", mp, "must be unique"))
        seen.add(mp)
        if name in devices:
            out.append(fe.invalid(f"{ip}.name", name, "must not already exist in volumeDevices"))
        if mp in devices.values():
            out.append(fe.invalid(f"{ip}.mountPath", mp, "must not already exist as a path in volumeDevices"))
        sub, expr = str(m.get("subPath") or ""), str(m.get("subPathExpr") or "")
        if sub:
            out += _descending(sub, f"{path}.subPath")
        if expr:
            if sub:
                out.append(fe.invalid(f"{ip}.subPathExpr", expr, "subPathExpr and subPath are mutually exclusive"))
            out += _descending(expr, f"{path}.subPathExpr")
        prop = m.get("mountPropagation")
        if prop is not None:
            if prop not in _PROPAGATION:
                out.append(fe.not_supported(f"{path}.mountPropagation", prop, _PROPAGATION))
            if prop == "Bidirectional" and not privileged:
                out.append(fe.forbidden(f"{path}.mountPropagation", "Bidirectional mount propagation is available only to privileged containers"))
        rro = m.get("recursiveReadOnly")
        if rro is not None and rro != "Disabled":
            rp = f"{path}.recursiveReadOnly"
            if rro not in _RRO:
                out.append(fe.not_supported(rp, rro, _RRO))
            else:
                if not m.get("readOnly"):
                    out.append(fe.forbidden(rp, "may only be specified when readOnly is true"))
                if prop not in (None, "None"):
                    out.append(fe.forbidden(rp, "may only be specified when mountPropagation is None or not specified"))
    return out


def _devices(c: Obj, volumes: dict[str, Obj], path: str) -> list[Cause]:
    """``ValidateVolumeDevices``."""
    out: list[Cause] = []
    mounts = {str(_o(m).get("name") or ""): str(_o(m).get("mountPath") or "") for m in c.get("volumeMounts") or []}
    paths: set[str] = set()
    names: set[str] = set()
    for i, d in enumerate(c.get("volumeDevices") or []):
        d, ip = _o(d), f"{path}[{i}]"
        name, dp = str(d.get("name") or ""), str(d.get("devicePath") or "")
        vol = volumes.get(name)
        if not name:
            out.append(fe.required(f"{ip}.name"))
        if name in names:
            out.append(fe.invalid(f"{ip}.name", name, "must be unique"))
        if vol is not None and vol.get("persistentVolumeClaim") is None and vol.get("ephemeral") is None:
            out.append(fe.invalid(f"{ip}.name", name, "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"))
        if vol is None:
            out.append(Cause(f"{ip}.name", "FieldValueNotFound", f'Not found: "{name}"'))
        if not dp:
            out.append(fe.required(f"{ip}.devicePath"))
        if dp in paths:
            out.append(fe.invalid(f"{ip}.devicePath", dp, "must be unique"))
        if dp and ".." in dp.split("/"):
            out.append(fe.invalid(f"{ip}.devicePath", dp, "can not contain backsteps ('..')"))
        else:
            paths.add(dp)
        if name in mounts:
            out.append(fe.invalid(f"{ip}.name", name, "must not already exist in volumeMounts"))
        if dp in mounts.values():
            out.append(fe.invalid(f"{ip}.devicePath", dp, "must not already exist as a path in volumeMounts"))
        if name:
            names.add(name)
    return out


# Without AllowRestartAllContainers only Restart (RestartAllContainersOnContainerExits).
_RULE_ACTIONS: Final = ("Restart", "RestartAllContainers")


def _restart_rules(c: Obj, path: str, allow_restart_all: bool = True) -> list[Cause]:
    """``validateContainerRestartPolicy``."""
    policy, rules = c.get("restartPolicy"), c.get("restartPolicyRules") or []
    out: list[Cause] = []
    if policy is None:
        if not rules:
            return []
        out.append(fe.required(f"{path}.restartPolicy", "must specify restartPolicy when restart rules are used"))
    elif policy not in _CTR_RESTART:
        out.append(fe.not_supported(f"{path}.restartPolicy", policy, _CTR_RESTART))
    if len(rules) > 20:
        out.append(fe.too_many(f"{path}.restartPolicyRules", len(rules), 20))
    actions = _RULE_ACTIONS if allow_restart_all else _RULE_ACTIONS[:1]
    for i, r in enumerate(rules):
        r, rp = _o(r), f"{path}.restartPolicyRules[{i}]"
        if r.get("action") not in actions:
            out.append(fe.not_supported(f"{rp}.action", r.get("action"), actions))
        ec = r.get("exitCodes")
        if ec is None:
            out.append(fe.required(f"{rp}.exitCodes", "must be specified"))
            continue
        if _o(ec).get("operator") not in ("In", "NotIn"):
            out.append(fe.not_supported(f"{rp}.exitCodes.operator", _o(ec).get("operator"), ("In", "NotIn")))
        values = _o(ec).get("values") or []
        if len(values) > 255:
            out.append(fe.too_many(f"{rp}.exitCodes.values", len(values), 255))
    return out


def host_port_conflicts(containers: list[Any], path: str) -> list[Cause]:
    """``checkHostPortConflicts``: a hostPort/protocol/hostIP used twice."""
    out: list[Cause] = []
    seen: set[str] = set()
    for ci, c in enumerate(containers):
        for pi, p in enumerate(_o(c).get("ports") or []):
            p = _o(p)
            hp = p.get("hostPort") or 0
            if not hp:
                continue
            key = f"{p.get('hostIP', '')}/{p.get('protocol', 'TCP')}/{hp}"
            if key in seen:
                out.append(fe.duplicate(f"{path}[{ci}].ports[{pi}].hostPort", key))
            seen.add(key)
    return out


def _init_restart_policy(c: Obj, path: str, allow_rules: bool, allow_restart_all: bool) -> list[Cause]:
    """``validateInitContainerRestartPolicy`` under AllowContainerRestartPolicyRules and
    AllowRestartAllContainers."""
    policy, rules = c.get("restartPolicy"), c.get("restartPolicyRules") or []
    if policy is None:
        msg = "must specify restartPolicy when restart rules are used"
        return [fe.required(f"{path}.restartPolicy", msg)] if rules else []
    if not allow_rules:
        return [] if policy == "Always" else [fe.not_supported(f"{path}.restartPolicy", policy, ("Always",))]
    if policy != "Always" or allow_restart_all:
        return _restart_rules(c, path, allow_restart_all)
    if rules:
        msg = "restartPolicyRules are not allowed for init containers with restart policy Always"
        return [fe.forbidden(f"{path}.restartPolicyRules", msg)]
    return []


def container_rule_causes(
    spec: Obj, path: str, volumes: dict[str, Obj], *,
    allow_rules: bool = True, allow_restart_all: bool = True,
) -> list[Cause]:
    """The rules above for every regular and init container of a pod spec; the flags are
    AllowContainerRestartPolicyRules and AllowRestartAllContainers."""
    out: list[Cause] = []
    grace, os_ = spec.get("terminationGracePeriodSeconds"), spec.get("os")
    for lst in ("containers", "initContainers"):
        for i, c in enumerate(spec.get(lst) or []):
            c, p = _o(c), f"{path}.{lst}[{i}]"
            out += common_container_causes(c, p, volumes)
            sidecar = lst == "initContainers" and c.get("restartPolicy") == "Always"
            if lst == "containers" or sidecar:
                out += _lifecycle(c.get("lifecycle"), f"{p}.lifecycle", grace, os_)
                for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
                    out += probe_causes(c.get(kind), f"{p}.{kind}", kind, grace)
            else:
                out += [
                    fe.forbidden(f"{p}.{k}", "may not be set for init containers without restartPolicy=Always")
                    for k in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")
                    if c.get(k) is not None
                ]
            if lst == "initContainers":
                out += _init_restart_policy(c, p, allow_rules, allow_restart_all)
            elif allow_rules:
                out += _restart_rules(c, p, allow_restart_all)
            elif c.get("restartPolicy") is not None:
                out.append(fe.forbidden(f"{p}.restartPolicy", "may not be set for non-init containers"))
            if lst == "initContainers":
                out += host_port_conflicts([c], f"{path}.{lst}")
    out += host_port_conflicts(spec.get("containers") or [], f"{path}.containers")
    return out


def common_container_causes(c: Obj, path: str, volumes: dict[str, Obj]) -> list[Cause]:
    """The rules of ``validateContainerCommon`` and ``validateContainerOnlyForPod`` that
    every container, ephemeral ones included, gets here: image whitespace, termination
    message policy, env, envFrom, volume mounts and devices."""
    out: list[Cause] = []
    image = c.get("image")
    if isinstance(image, str) and image and image.strip() != image:
        out.append(fe.invalid(f"{path}.image", image, "must not have leading or trailing whitespace"))
    tmp = c.get("terminationMessagePolicy")
    if tmp and tmp not in _TMP:  # "" is defaulted to File
        out.append(fe.not_supported(f"{path}.terminationMessagePolicy", tmp, _TMP))
    out += _env(c.get("env") or [], f"{path}.env")
    out += _env_from(c.get("envFrom") or [], f"{path}.envFrom")
    out += _mounts(c, volumes, f"{path}.volumeMounts")
    return out + _devices(c, volumes, f"{path}.volumeDevices")
