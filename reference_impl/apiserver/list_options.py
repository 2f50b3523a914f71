"""List semantics: ``limit``, ``continue``, ``resourceVersion`` and ``resourceVersionMatch``.

Ports, for facts only, k8s.io/apiserver v0.37.2: the handler's list option validation
(``apis/meta/internalversion/validation.ValidateListOptions``), the continue token
(``storage/continue.go``: ``EncodeContinue``, ``DecodeContinue``,
``PrepareContinueToken``), ``storage.ValidateListOptions`` and the etcd3 store's
``GetList`` (paging with a selector, the read revision, ``interpretListError``), and the
cacher's ``GetList`` where a list is served from the watch cache: ``resourceVersion="0"``
ignores ``limit`` (``computeListLimit``), and a resourceVersion newer than the cache ends
as "Too large resource version" with a 1 s retry (``WaitUntilFreshAndGetList``).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from reference_impl.apiserver.validation.field import forbidden, not_supported
from reference_impl.errors import BadRequest, Cause, Gone, Invalid, Timeout
from reference_impl.storage.mvcc import KeyValue, MVCCStore

__all__ = [
    "ListOptions",
    "decode_continue",
    "encode_continue",
    "page",
    "parse_resource_version",
    "validate_list_options",
    "validate_watch_options",
]

Obj = dict[str, Any]
EXACT: Final = "Exact"
NOT_OLDER_THAN: Final = "NotOlderThan"
TOKEN_VERSION: Final = "meta.k8s.io/v1"
_RAW_URL_B64: Final = re.compile(r"[A-Za-z0-9_-]*")
_GENERIC: Final = "continue key is not valid"
# etcd3/errors.go: what a list at a compacted revision answers (410 Expired).
EXPIRED: Final = "The resourceVersion for the provided list is too old."
INCONSISTENT_CONTINUE: Final = (
    "The provided continue parameter is too old to display a consistent list result. "
    "You can start a new list without the continue parameter, or use the continue token "
    "in this response to retrieve the remainder of the results. Continuing with the "
    "provided token results in an inconsistent list - objects that were created, "
    "modified, or deleted between the time the first chunk was returned and now may show "
    "up in the list."
)
CACHE_RETRY_AFTER_S: Final = 1  # watch_cache.go resourceVersionTooHighRetrySeconds


@dataclass(frozen=True, slots=True)
class ListOptions:
    """The list query parameters the reference models (metav1.ListOptions)."""

    limit: int = 0
    continue_: str = ""
    resource_version: str = ""
    resource_version_match: str = ""


def validate_list_options(opts: ListOptions) -> None:
    """The handler's ValidateListOptions (a non-watch list): Invalid ListOptions (422)."""
    causes: list[Cause] = []
    match = opts.resource_version_match
    if match:
        path = "resourceVersionMatch"
        if not opts.resource_version:
            causes.append(forbidden(path, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
        if opts.continue_:
            causes.append(forbidden(path, "resourceVersionMatch is forbidden when continue is provided"))
        if match not in (EXACT, NOT_OLDER_THAN):
            causes.append(not_supported(path, match, [EXACT, NOT_OLDER_THAN, ""]))
        if match == EXACT and opts.resource_version == "0":
            causes.append(forbidden(path, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
    if causes:
        raise Invalid("ListOptions.meta.k8s.io", "", causes)


def validate_watch_options(
    send_initial_events: bool | None,
    resource_version_match: str,
    continue_: str = "",
    *,
    watch_list_enabled: bool = True,
) -> None:
    """ValidateListOptions for a watch (``validateWatchOptions``): Invalid ListOptions
    (422). WatchList is on by default in 1.37; allowWatchBookmarks is not required."""
    causes: list[Cause] = []
    match = resource_version_match
    path = "resourceVersionMatch"
    if send_initial_events is not None:
        if match != NOT_OLDER_THAN:
            causes.append(forbidden(path, f"sendInitialEvents requires setting resourceVersionMatch to {NOT_OLDER_THAN}"))
        if not watch_list_enabled:
            causes.append(forbidden(
                "sendInitialEvents",
                "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
            ))  # fmt: skip
    if match:
        if send_initial_events is None:
            causes.append(forbidden(path, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
        if match != NOT_OLDER_THAN:
            causes.append(not_supported(path, match, [NOT_OLDER_THAN]))
        if continue_:
            causes.append(forbidden(path, "resourceVersionMatch is forbidden when continue is provided"))
    if causes:
        raise Invalid("ListOptions.meta.k8s.io", "", causes)


def encode_continue(key: str, key_prefix: str, resource_version: int) -> str:
    """EncodeContinue: base64url (no padding) of {"v","rv","start"}, start relative to the prefix."""
    if not key_prefix or not key.startswith(key_prefix):  # TrimPrefix changed nothing
        raise ValueError("unable to encode next field: the key and key prefix do not match")
    token = {"v": TOKEN_VERSION, "rv": resource_version, "start": key[len(key_prefix):]}
    data = json.dumps(token, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _go_clean(path: str) -> str:
    """Go's path.Clean for a rooted path."""
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/" + "/".join(parts)


def _raw_url_decode(value: str) -> bytes:
    m = _RAW_URL_B64.match(value)
    bad = m.end() if m else 0
    if bad < len(value):
        raise ValueError(f"illegal base64 data at input byte {bad}")
    if len(value) % 4 == 1:
        raise ValueError(f"illegal base64 data at input byte {len(value) - 1}")
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError) as e:  # pragma: no cover - the checks above
        raise ValueError(str(e)) from None


def decode_continue(value: str, key_prefix: str) -> tuple[str, int]:
    """DecodeContinue: (the key to start from, the token's resourceVersion); ValueError
    carrying the storage error's text when the token is not valid."""
    try:
        data = _raw_url_decode(value)
    except ValueError as e:
        raise ValueError(f"{_GENERIC}: {e}") from None
    try:
        token = json.loads(data)
    except ValueError:
        if not data.strip():
            raise ValueError(f"{_GENERIC}: unexpected end of JSON input") from None
        raise ValueError(f"{_GENERIC}: invalid character looking for beginning of value") from None
    if not isinstance(token, dict):
        raise ValueError(f"{_GENERIC}: json: cannot unmarshal into Go value of type storage.continueToken")
    version = token.get("v", "")
    rv = token.get("rv", 0)
    start = token.get("start", "")
    if not isinstance(version, str) or not isinstance(start, str) or type(rv) is not int:
        raise ValueError(f"{_GENERIC}: json: cannot unmarshal into Go struct field of storage.continueToken")
    if version != TOKEN_VERSION:
        raise ValueError(f"continue key is not valid: server does not recognize this encoded version {version}")
    if rv == 0:
        raise ValueError("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
    if not start:
        raise ValueError("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")
    key = start if start.startswith("/") else "/" + start
    cleaned = _go_clean(key)
    if cleaned != key:
        raise ValueError(f"{_GENERIC}: {start}")
    return key_prefix + cleaned[1:], rv


def _parse_rv(rv: str) -> int:
    """APIObjectVersioner.ParseResourceVersion, as storage.ValidateListOptions reports it."""
    if rv in ("", "0"):
        return 0
    if rv.isdigit() and rv.isascii() and int(rv) < 1 << 64:
        return int(rv)
    reason = "value out of range" if rv.isdigit() and rv.isascii() else "invalid syntax"
    raise BadRequest(
        f'invalid resource version: resourceVersion: Invalid value: "{rv}": '
        f'strconv.ParseUint: parsing "{rv}": {reason}'
    )


def parse_resource_version(rv: str) -> int:
    """A resourceVersion as a number ("" and "0" are 0); BadRequest when not one."""
    return _parse_rv(rv)


def too_large(minimum: int, current: int, retry_after: int = CACHE_RETRY_AFTER_S) -> Timeout:
    """storage.NewTooLargeResourceVersionError: 504 Timeout with a retry-after."""
    err = Timeout(f"Timeout: Too large resource version: {minimum}, current: {current}")
    err.retry_after = retry_after
    err.causes = (Cause("", "ResourceVersionTooLarge", "Too large resource version"),)
    return err


def page(
    store: MVCCStore,
    key_prefix: str,
    opts: ListOptions,
    matches: Callable[[KeyValue], bool] | None,
) -> tuple[list[KeyValue], Obj]:
    """The stored versions a list returns and its ListMeta (GetList).

    ``matches`` is the label/field predicate, None when empty (only then is
    remainingItemCount set, as PrepareContinueToken)."""
    validate_list_options(opts)
    limit = opts.limit if opts.limit > 0 and opts.resource_version != "0" else 0
    with_rev = 0
    start_key = ""
    if opts.continue_:
        try:
            start_key, continue_rv = decode_continue(opts.continue_, key_prefix)
        except ValueError as e:
            raise BadRequest(f"invalid continue token: {e}") from None
        if opts.resource_version not in ("", "0"):
            raise BadRequest("specifying resource version is not allowed when using continue")
        if continue_rv > 0:
            with_rev = continue_rv
    else:
        rv = _parse_rv(opts.resource_version)
        if opts.resource_version_match == EXACT or (
            not opts.resource_version_match and limit and rv > 0
        ):
            with_rev = rv
        elif rv > store.revision:  # NotOlderThan, from the cache: it is never fresh enough
            raise too_large(rv, store.revision)
    if with_rev > store.revision:
        raise too_large(with_rev, store.revision)
    if with_rev and with_rev < store.compacted_revision:
        if opts.continue_:
            err = Gone(INCONSISTENT_CONTINUE)
            err.continue_token = encode_continue(start_key, key_prefix, -1)
            raise err
        raise Gone(EXPIRED)
    # The range starts at the token's key (a page's last key plus NUL: the keys after it).
    res = store.range(key_prefix, start=start_key or None, revision=with_rev or None)
    kvs = res.kvs
    out: list[KeyValue] = []
    last = ""
    more = False
    for i, kv in enumerate(kvs):
        last = kv.key
        if matches is None or matches(kv):
            out.append(kv)
        if limit and len(out) >= limit:
            more = i < len(kvs) - 1
            break
    meta: Obj = {"resourceVersion": str(res.revision)}
    if more:
        meta["continue"] = encode_continue(last + "\x00", key_prefix, res.revision)
        if matches is None:
            meta["remainingItemCount"] = len(kvs) - limit
    return out, meta
