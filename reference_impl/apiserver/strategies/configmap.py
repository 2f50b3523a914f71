"""ConfigMap and Secret (``Validate{ConfigMap,Secret}[Update]``, core 1.37.2): each key of
``data`` and ``binaryData`` is a config key, no key in both, at most 1 MiB; a Secret's type
needs its keys and never changes; immutable objects keep their data."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any, Final

from reference_impl.apiserver.registry import Context, defaulter, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["config_key_errors"]

Obj = dict[str, Any]
_KEY: Final = re.compile(r"^[-._a-zA-Z0-9]+$")
_KEY_MSG: Final = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
    "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
)
_MAX_TOTAL: Final = 1024 * 1024


def config_key_errors(key: str) -> list[str]:
    """``validation.IsConfigMapKey``."""
    errs = []
    if len(key) > 253:
        errs.append("must be no more than 253 characters")
    if not _KEY.match(key):
        errs.append(_KEY_MSG)
    if key == ".":
        errs.append("must not be '.'")
    elif key == "..":
        errs.append("must not be '..'")
    elif key.startswith(".."):
        errs.append("must not start with '..'")
    return errs


@validator("ConfigMap")
def validate_configmap(cm: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Keys of data and binaryData; a key in both; the total size."""
    data, binary = cm.get("data") or {}, cm.get("binaryData") or {}
    causes: list[Cause] = []
    for k in data:
        causes += [fe.invalid(f"data[{k}]", k, e) for e in config_key_errors(k)]
    for k in binary:
        causes += [fe.invalid(f"binaryData[{k}]", k, e) for e in config_key_errors(k)]
        if k in data:
            causes.append(fe.invalid(f"data[{k}]", k, "duplicate of key present in binaryData"))
    size = sum(len(str(v)) for v in data.values()) + sum(
        len(str(v)) * 3 // 4 for v in binary.values()
    )
    if size > _MAX_TOTAL:
        causes.append(fe.too_long("[]", _MAX_TOTAL))  # upstream's field.NewPath("") prints so
    return causes + _immutable_causes(cm, old, ("data", "binaryData"))


def _immutable_causes(new: Obj, old: Obj | None, fields: tuple[str, ...]) -> list[Cause]:
    """``Validate{ConfigMap,Secret}Update``: an immutable object stays immutable and keeps
    its data."""
    if old is None or old.get("immutable") is not True:
        return []
    msg = "field is immutable when `immutable` is set"
    causes = [] if new.get("immutable") is True else [fe.forbidden("immutable", msg)]
    return causes + [
        fe.forbidden(f, msg) for f in fields if (new.get(f) or {}) != (old.get(f) or {})
    ]


def _decoded_len(value: Any) -> int:
    try:
        return len(base64.b64decode(str(value), validate=False))
    except (ValueError, binascii.Error):
        return len(str(value)) * 3 // 4


_SECRET_REQUIRED: Final[dict[str, tuple[str, ...]]] = {
    "kubernetes.io/dockercfg": (".dockercfg",),
    "kubernetes.io/dockerconfigjson": (".dockerconfigjson",),
    "kubernetes.io/ssh-auth": ("ssh-privatekey",),
    "kubernetes.io/tls": ("tls.crt", "tls.key"),
}


def _secret_type_causes(secret: Obj, data: Obj) -> list[Cause]:
    """The per-type rules of ``ValidateSecret``."""
    stype = secret.get("type") or "Opaque"
    if stype == "kubernetes.io/service-account-token":
        ann = (secret.get("metadata") or {}).get("annotations") or {}
        if not ann.get("kubernetes.io/service-account.name"):
            return [fe.required("metadata.annotations[kubernetes.io/service-account.name]")]
        return []
    if stype == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:
            return [fe.required("data[username]"), fe.required("data[password]")]
        return []
    causes = [fe.required(f"data[{k}]") for k in _SECRET_REQUIRED.get(stype, ()) if k not in data]
    if (
        stype == "kubernetes.io/ssh-auth"
        and "ssh-privatekey" in data
        and not data["ssh-privatekey"]
    ):
        causes.append(fe.required("data[ssh-privatekey]"))
    if stype in ("kubernetes.io/dockercfg", "kubernetes.io/dockerconfigjson") and not causes:
        key = _SECRET_REQUIRED[stype][0]
        try:
            if not isinstance(json.loads(base64.b64decode(str(data[key]))), dict):
                raise ValueError("not an object")
        except ValueError as e:
            causes.append(fe.invalid(f"data[{key}]", "<secret contents redacted>", str(e)))
    return causes


@defaulter("Secret")
def merge_string_data(secret: Obj, ctx: Context) -> None:
    """The v1 conversion: stringData entries overwrite data (encoded) and are dropped;
    SetDefaults_Secret: the type defaults to Opaque."""
    string_data = secret.pop("stringData", None)
    if isinstance(string_data, dict) and string_data:
        data = secret.get("data") if isinstance(secret.get("data"), dict) else {}
        assert isinstance(data, dict)
        for k, v in string_data.items():
            data[k] = base64.b64encode(str(v).encode()).decode()
        secret["data"] = data
    if not secret.get("type"):
        secret["type"] = "Opaque"


@validator("Secret")
def validate_secret(secret: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateSecret`` (keys, total size, the type's required keys) and
    ``ValidateSecretUpdate`` (type and immutable data)."""
    data = secret.get("data") if isinstance(secret.get("data"), dict) else {}
    assert isinstance(data, dict)
    causes: list[Cause] = []
    for k in data:
        causes += [fe.invalid(f"data[{k}]", k, e) for e in config_key_errors(k)]
    if sum(_decoded_len(v) for v in data.values()) > _MAX_TOTAL:
        causes.append(fe.too_long("data", _MAX_TOTAL))
    causes += _secret_type_causes(secret, data)
    if old is not None and (secret.get("type") or "Opaque") != (old.get("type") or "Opaque"):
        causes.append(fe.invalid("type", secret.get("type"), "field is immutable"))
    return causes + _immutable_causes(secret, old, ("data",))
