"""Name formats of ``k8s.io/apimachinery/pkg/util/validation`` with upstream's texts.

Each ``*_errors`` function returns the detail strings (empty when the value is valid);
callers wrap them in ``field.invalid`` at their own path.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "c_identifier_errors", "dns1035_label_errors", "dns1123_label_errors", "dns1123_subdomain_errors",
    "label_key_errors", "label_value_errors", "regex_error", "uuid_ok",
]

_LABEL_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUB_FMT: Final = _LABEL_FMT + "(\\." + _LABEL_FMT + ")*"
_LABEL_RE: Final = re.compile(f"^{_LABEL_FMT}$")
_DNS1035_FMT: Final = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_RE: Final = re.compile(f"^{_DNS1035_FMT}$")
_SUB_RE: Final = re.compile(f"^{_SUB_FMT}$")
_SUB_CASELESS_RE: Final = re.compile(f"^{_SUB_FMT}$", re.IGNORECASE)
_KEY_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_KEY_RE: Final = re.compile(f"^{_KEY_FMT}$")
_KEY_MSG: Final = ("must consist of alphanumeric characters, '-', '_' or '.', and must start "
                   "and end with an alphanumeric character")
_VALUE_RE: Final = re.compile(f"^({_KEY_FMT})?$")
_C_ID_FMT: Final = "[A-Za-z_][A-Za-z0-9_]*"
_C_ID_RE: Final = re.compile(f"^{_C_ID_FMT}$")
_UUID_RE: Final = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``content.RegexError``."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len(n: int, unit: str = "characters") -> str:
    # util/validation says characters; api/validate/content (declarative rules) says bytes
    return f"must be no more than {n} {unit}"


def dns1035_label_errors(value: str) -> list[str]:
    """``IsDNS1035Label``."""
    errs = [_max_len(63)] if len(value) > 63 else []
    if not _DNS1035_RE.match(value):
        errs.append(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
            "with an alphabetic character, and end with an alphanumeric character",
            _DNS1035_FMT, "my-name", "abc-123"))
    return errs


def dns1123_label_errors(value: str) -> list[str]:
    errs = [_max_len(63)] if len(value) > 63 else []
    if not _LABEL_RE.match(value):
        if _SUB_RE.match(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
                "or '-', and must start and end with an alphanumeric character",
                _LABEL_FMT, "my-name", "123-abc"))
    return errs


def dns1123_subdomain_errors(value: str, caseless: bool = False, unit: str = "characters") -> list[str]:
    errs = [_max_len(253, unit)] if len(value) > 253 else []
    if caseless and not _SUB_CASELESS_RE.match(value):
        errs.append(regex_error(
            "an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and "
            "must start and end with an alphanumeric character", _SUB_FMT, "Example.com"))
    elif not caseless and not _SUB_RE.match(value):
        errs.append(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
            "characters, '-' or '.', and must start and end with an alphanumeric character",
            _SUB_FMT, "example.com"))
    return errs


def label_key_errors(value: str, unit: str = "characters") -> list[str]:
    """``content.IsLabelKey`` (also metav1 ``ValidateLabelName``); with ``unit="bytes"``
    ``content.IsQualifiedName`` as the declarative rules call it."""
    parts = value.split("/")
    errs: list[str] = []
    if len(parts) > 2:
        return [f"a valid label key {regex_error(_KEY_MSG, _KEY_FMT, 'MyName', 'my.name', '123-abc')}"
                " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    name = parts[-1]
    if len(parts) == 2:
        if not parts[0]:
            errs.append("prefix part must be non-empty")
        else:
            errs += [f"prefix part {m}" for m in dns1123_subdomain_errors(parts[0], unit=unit)]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append(f"name part {_max_len(63, unit)}")
    if not _KEY_RE.match(name):
        errs.append("name part " + regex_error(_KEY_MSG, _KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


def label_value_errors(value: str) -> list[str]:
    errs = [_max_len(63)] if len(value) > 63 else []
    if not _VALUE_RE.match(value):
        errs.append(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric character",
            f"({_KEY_FMT})?", "MyValue", "my_value", "12345"))
    return errs


def c_identifier_errors(value: str) -> list[str]:
    if _C_ID_RE.match(value):
        return []
    return [regex_error("a valid C identifier must start with alphabetic character or '_', "
                        "followed by a string of alphanumeric characters or '_'",
                        _C_ID_FMT, "my_name", "MY_NAME", "MyName")]


def uuid_ok(value: str) -> bool:
    """The ``k8s-uuid`` format: lowercase 8-4-4-4-12 hex."""
    return bool(_UUID_RE.match(value))
