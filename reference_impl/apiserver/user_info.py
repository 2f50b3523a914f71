"""Who a request comes from: apiserver pkg/authentication/user (``user.Info``,
``DefaultInfo``) and pkg/authentication/serviceaccount (``ServiceAccountInfo.UserInfo``,
``MakeUsername``, ``MakeGroupNames``).

The reference authenticates nobody: a request carries the user its caller set on the
apiserver (``APIServer.user``), or none."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["UserInfo", "admission_user_info", "service_account_user"]

_SA_PREFIX: Final = "system:serviceaccount:"
_SA_GROUP_PREFIX: Final = "system:serviceaccounts:"
_ALL_SA_GROUP: Final = "system:serviceaccounts"


@dataclass(frozen=True, slots=True)
class UserInfo:
    """``user.DefaultInfo``: name, uid, groups and extra."""

    name: str = ""
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def service_account_user(namespace: str, name: str, uid: str = "") -> UserInfo:
    """``ServiceAccountInfo.UserInfo`` without pod, node or credential extras."""
    return UserInfo(
        name=f"{_SA_PREFIX}{namespace}:{name}",
        uid=uid,
        groups=(_ALL_SA_GROUP, f"{_SA_GROUP_PREFIX}{namespace}"),
    )


def admission_user_info(user: UserInfo | None) -> dict[str, Any]:
    """``CreateAdmissionRequest``'s ``authenticationv1.UserInfo`` as CEL reads it (its
    fields are omitempty: an unset one is absent; no user gives ``{}``)."""
    if user is None:
        return {}
    out: dict[str, Any] = {}
    if user.name:
        out["username"] = user.name
    if user.uid:
        out["uid"] = user.uid
    if user.groups:
        out["groups"] = list(user.groups)
    if user.extra:
        out["extra"] = {k: list(v) for k, v in user.extra.items()}
    return out
