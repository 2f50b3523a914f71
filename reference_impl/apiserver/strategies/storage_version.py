"""StorageVersion (internal.apiserver.k8s.io/v1alpha1).

Ports upstream v1.37.2's ``pkg/registry/apiserverinternal/storageversion/strategy.go``
(PrepareForCreate empties the status; spec writes keep the stored status, /status writes
the stored spec and metadata) and ``pkg/apis/apiserverinternal/validation``:
``ValidateStorageVersion`` (the name is ``strategies.meta``'s ``ValidateStorageVersionName``),
``ValidateStorageVersionUpdate`` (nothing: the spec is empty) and
``ValidateStorageVersionStatusUpdate`` (``validateStorageVersionStatus``,
``validateServerStorageVersion``, ``validateCommonVersion``,
``validateStorageVersionCondition``, ``isValidAPIVersion``). The group has no declarative
rules and its storage is gated on no feature (only on the group/version being enabled).
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.formats import dns1035_label_errors, dns1123_subdomain_errors, regex_error
from reference_impl.apiserver.registry import Context, preparer, validator
from reference_impl.apiserver.strategies.storage import qualified_name_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["api_version_errors", "status_causes", "storage_version_name_errors"]

Obj = dict[str, Any]
KIND: Final = "StorageVersion"
_DNS1035_FMT: Final = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_MSG: Final = (
    "a DNS-1035 label, which must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
_TOO_MANY_PARTS: Final = (
    "an apiVersion is " + regex_error(_DNS1035_MSG, _DNS1035_FMT, "my-name", "abc-123")
    + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyVersion')"
)


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _strs(v: Any) -> list[str]:
    return [str(x) for x in v] if isinstance(v, list) else []


def storage_version_name_errors(name: str) -> list[str]:
    """``ValidateStorageVersionName``: ``<group>.<resource>``, split at the last dot."""
    group, dot, resource = name.rpartition(".")
    if not dot:
        return ["name must be in the form of <group>.<resource>"]
    return ["the group segment " + m for m in dns1123_subdomain_errors(group)] + [
        "the resource segment " + m for m in dns1035_label_errors(resource)
    ]


def api_version_errors(api_version: str) -> list[str]:
    """``isValidAPIVersion``: a DNS-1035 version after an optional subdomain group."""
    parts = api_version.split("/")
    errs: list[str] = []
    if len(parts) > 2:
        return [_TOO_MANY_PARTS]
    version = parts[-1]
    if len(parts) == 2:
        group = parts[0]
        if not group:
            errs.append("group part: must be non-empty")
        else:
            errs += ["group part: " + m for m in dns1123_subdomain_errors(group)]
    if not version:
        errs.append("version part: must be non-empty")
    else:
        errs += ["version part: " + m for m in dns1035_label_errors(version)]
    return errs


def _go_list(items: list[str]) -> str:
    """A ``[]string`` as ``fmt`` prints it with %s."""
    return "[" + " ".join(items) + "]"


def server_storage_version_causes(ssv: Obj, path: str) -> list[Cause]:
    """``validateServerStorageVersion``."""
    out: list[Cause] = []
    server_id = str(ssv.get("apiServerID") or "")
    encoding = str(ssv.get("encodingVersion") or "")
    decodable, served = _strs(ssv.get("decodableVersions")), _strs(ssv.get("servedVersions"))
    out += [fe.invalid(f"{path}.apiServerID", server_id, m) for m in dns1123_subdomain_errors(server_id)]
    if errs := api_version_errors(encoding):
        out.append(fe.invalid(f"{path}.encodingVersion", encoding, ",".join(errs)))
    for i, dv in enumerate(decodable):
        if errs := api_version_errors(dv):
            out.append(fe.invalid(f"{path}.decodableVersions[{i}]", dv, ",".join(errs)))
    if encoding not in decodable:
        detail = f"decodableVersions must include encodingVersion {encoding}"
        out.append(fe.invalid(f"{path}.decodableVersions", decodable or None, detail))
    for i, sv in enumerate(served):
        if errs := api_version_errors(sv):
            out.append(fe.invalid(f"{path}.servedVersions[{i}]", sv, ",".join(errs)))
        if sv not in decodable:
            detail = (f"individual served version : {sv} must be included in decodableVersions : "
                      f"{_go_list(decodable)}")  # fmt: skip
            out.append(fe.invalid(f"{path}.servedVersions[{i}]", sv, detail))
    return out


def common_version_causes(status: Obj, path: str) -> list[Cause]:
    """``validateCommonVersion``: ``commonEncodingVersion`` is the servers' one encoding
    version, or null when they disagree or none reports."""
    encodings = [str(_o(s).get("encodingVersion") or "") for s in status.get("storageVersions") or []]
    actual = encodings[0] if encodings and all(e == encodings[0] for e in encodings) else None
    common = status.get("commonEncodingVersion")
    at = f"{path}.commonEncodingVersion"
    if actual is None and common is not None:
        return [fe.invalid(at, common, "should be nil if servers do not agree on the same encoding "
                           "version, or if there is no server reporting the supported versions yet")]
    if actual is not None and common is None:
        return [fe.invalid(at, None, f"the common encoding version is {actual}")]
    if actual is not None and common != actual:
        return [fe.invalid(at, common, f"the actual common encoding version is {actual}")]
    return []


def condition_causes(conditions: list[Any], path: str) -> list[Cause]:
    """``validateStorageVersionCondition``; upstream indexes ``path`` itself, not its
    ``conditions`` (``status[0].type``)."""
    out: list[Cause] = []
    seen: dict[str, int] = {}
    for i, c in enumerate(conditions):
        cond = _o(c)
        ctype, status = str(cond.get("type") or ""), str(cond.get("status") or "")
        at = f"{path}[{i}]"
        if ctype in seen:
            detail = f"the type of the condition is not unique, it also appears in conditions[{seen[ctype]}]"
            out.append(fe.invalid(f"{at}.type", ctype, detail))
        seen[ctype] = i
        out += qualified_name_causes(ctype, f"{at}.type")
        out += qualified_name_causes(status, f"{at}.status")
        if not cond.get("reason"):
            out.append(fe.required(f"{at}.reason"))
        if not cond.get("message"):
            out.append(fe.required(f"{at}.message"))
    return out


def status_causes(status: Obj, path: str = "status") -> list[Cause]:
    """``validateStorageVersionStatus``: unique server ids, each server's versions, the
    common version and the conditions."""
    out: list[Cause] = []
    ids: set[str] = set()
    for i, s in enumerate(status.get("storageVersions") or []):
        ssv = _o(s)
        server_id = str(ssv.get("apiServerID") or "")
        at = f"{path}.storageVersions[{i}]"
        if server_id in ids:
            out.append(fe.duplicate(f"{at}.apiServerID", server_id))
        ids.add(server_id)
        out += server_storage_version_causes(ssv, at)
    out += common_version_causes(status, path)
    return out + condition_causes(list(status.get("conditions") or []), path)


@preparer(KIND)
def reset_storage_version_status(obj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """PrepareForCreate: the status is the empty struct (PrepareForUpdate's "keep the
    stored status" is the server's)."""
    if old is None:
        obj["status"] = {}


@validator(KIND)
def validate_storage_version(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateStorageVersion`` on create (the status, empty by then); nothing on update."""
    return [] if old is not None else status_causes(_o(obj.get("status")))


@validator(KIND, status=True)
def validate_storage_version_status(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateStorageVersionStatusUpdate``."""
    return status_causes(_o(obj.get("status")))
