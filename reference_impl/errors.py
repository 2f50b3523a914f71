"""The error classes shared by the reference and the live target.

They model the apiserver's ``metav1.Status`` reasons (``k8s.io/apimachinery/pkg/api/errors``):
the reference raises them directly and the live target maps HTTP codes onto them, so a
suite can ``pytest.raises(Invalid)`` (or BadRequest, for a body that does not decode) on
either target.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "AlreadyExists",
    "ApiError",
    "BadRequest",
    "Cause",
    "Conflict",
    "Forbidden",
    "Gone",
    "InternalError",
    "Invalid",
    "MethodNotAllowed",
    "NotFound",
    "ServiceUnavailable",
    "Timeout",
    "TooManyRequests",
    "Unimplemented",
]


@dataclass(frozen=True, slots=True)
class Cause:
    """One field error, like ``metav1.StatusCause``: a field path, a reason and a message."""

    field: str
    reason: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.reason}: {self.message}" if self.field else self.message


class ApiError(Exception):
    """The root of every API error. ``code`` is the HTTP status the apiserver would send."""

    code: int = 500
    reason: str = "InternalError"
    causes: tuple[Cause, ...] = ()  # metav1.Status details.causes; most errors have none

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    @property
    def fields(self) -> tuple[str, ...]:
        """The field paths of all causes, in the order they were found."""
        return tuple(c.field for c in self.causes)


class BadRequest(ApiError):
    """The request itself is malformed (HTTP 400). A body that does not decode (a type
    error, unknown fields under strict validation) names its fields only in the message;
    ``causes`` holds them as field errors, for tests on either target."""

    code = 400
    reason = "BadRequest"

    def __init__(self, message: str, causes: list[Cause] | None = None) -> None:
        super().__init__(message)
        self.causes = tuple(causes or ())


class Forbidden(ApiError):
    """The request is refused, for example writes to a terminating namespace (HTTP 403)."""

    code = 403
    reason = "Forbidden"


class NotFound(ApiError):
    """The object, kind or API version does not exist or is not served (HTTP 404)."""

    code = 404
    reason = "NotFound"


class MethodNotAllowed(ApiError):
    """The verb is not supported for this resource (HTTP 405)."""

    code = 405
    reason = "MethodNotAllowed"


class AlreadyExists(ApiError):
    """A create names an object that exists already (HTTP 409)."""

    code = 409
    reason = "AlreadyExists"


class Conflict(ApiError):
    """A write carries a stale resourceVersion (HTTP 409)."""

    code = 409
    reason = "Conflict"


class Gone(ApiError):
    """A watch or list asked for a compacted revision (HTTP 410); relist and rewatch."""

    code = 410
    reason = "Expired"
    # An expired continue token's replacement (ListMeta.continue of the Status), if any.
    continue_token: str = ""


class Invalid(ApiError):
    """The object fails validation (HTTP 422). ``causes`` holds every field error found."""

    code = 422
    reason = "Invalid"

    def __init__(self, kind: str, name: str, causes: list[Cause]) -> None:
        self.kind = kind
        self.name = name
        self.causes = tuple(causes)
        detail = "; ".join(str(c) for c in causes)
        super().__init__(f'{kind} "{name}" is invalid: {detail}')


class TooManyRequests(ApiError):
    """Try again later (HTTP 429), e.g. an eviction a PodDisruptionBudget does not allow
    now. ``causes`` carry the budget's own words (cause type ``DisruptionBudget``)."""

    code = 429
    reason = "TooManyRequests"

    def __init__(self, message: str, causes: list[Cause] | None = None, retry_after: int = 0) -> None:
        self.causes = tuple(causes or ())
        self.retry_after = retry_after
        detail = "; ".join(str(c) for c in self.causes)
        super().__init__(f"{message} {detail}".strip())


class Timeout(ApiError):
    """``wait_until`` ran out of time (HTTP 504 in spirit)."""

    code = 504
    reason = "Timeout"
    retry_after: int = 0  # details.retryAfterSeconds


class InternalError(ApiError):
    """``apierrors.NewInternalError`` (HTTP 500): what a plain error from a registry
    becomes on the wire."""

    def __init__(self, message: str) -> None:
        super().__init__(f"Internal error occurred: {message}")


class ServiceUnavailable(ApiError):
    """The component is down, for example etcd during a restart (HTTP 503)."""

    code = 503
    reason = "ServiceUnavailable"


class Unimplemented(ApiError):
    """The peer does not implement the call, like gRPC ``Unimplemented`` (HTTP 501)."""

    code = 501
    reason = "Unimplemented"
