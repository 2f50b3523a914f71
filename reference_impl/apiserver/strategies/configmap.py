"""ConfigMap and Secret keys (``ValidateConfigMap``/``ValidateSecret``, core 1.37.2):
each key of ``data`` and ``binaryData`` is a config key, no key in both, at most 1 MiB."""

from __future__ import annotations

import re
from typing import Any, Final

from reference_impl.apiserver.registry import Context, validator
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
        causes.append(fe.too_long("", _MAX_TOTAL))
    return causes


@validator("Secret")
def validate_secret(secret: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """Keys of data and stringData."""
    causes: list[Cause] = []
    for f in ("data", "stringData"):
        for k in secret.get(f) or {}:
            causes += [fe.invalid(f"{f}[{k}]", k, e) for e in config_key_errors(k)]
    return causes
