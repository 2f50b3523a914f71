"""Event, core/v1 and events.k8s.io/v1 (``pkg/apis/core/validation/events.go`` and
``pkg/registry/core/event/strategy.go`` of upstream v1.37.2). The rules depend on the
request version; an events.k8s.io/v1 body is read under its internal field names, which
the error paths use."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.formats import label_key_errors
from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.go_time import instant_ns
from reference_impl.errors import Cause

__all__ = ["validate_event"]

Obj = dict[str, Any]
_EVENTS_V1: Final = "events.k8s.io/v1"
# events.k8s.io/v1 names of internal fields (core/v1 names reportingController alone).
_RENAMED: Final = {
    "regarding": "involvedObject",
    "note": "message",
    "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp",
    "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count",
    "reportingComponent": "reportingController",
}
_LIMITS: Final = (("reportingInstance", 128), ("action", 128), ("reason", 128))
_NOTE_LIMIT: Final = 1024
# ValidateEventUpdate's immutable fields, in upstream's order (reason twice, as upstream).
_IMMUTABLE: Final = (
    "involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp",
    "count", "reason", "type",
)
_IMMUTABLE_TAIL: Final = ("action", "related", "reportingController", "reportingInstance")


def _internal(event: Obj) -> Obj:
    return {_RENAMED.get(k, k): v for k, v in event.items()}


def _s(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _zero(v: Any) -> Any:
    """The value with Go's zero values (empty strings, 0, empty mappings) dropped, so that
    an omitted field equals an empty one, as ``Semantic.DeepEqual`` on the internal type."""
    if isinstance(v, dict):
        kept = {k: _zero(x) for k, x in v.items()}
        return {k: x for k, x in kept.items() if x not in (None, "", 0, {}, [])}
    return v


def _legacy_causes(event: Obj, ns: str, core_v1: bool) -> list[Cause]:
    """``legacyValidateEvent``."""
    involved_ns = _s(_o(event.get("involvedObject")).get("namespace"))
    ns_path = "involvedObject.namespace"
    if not event.get("eventTime"):
        if (not involved_ns and ns not in ("", "default")) or (involved_ns and ns != involved_ns):
            return [fe.invalid(ns_path, involved_ns, "does not match event.namespace")]
        return []
    out: list[Cause] = []
    if not involved_ns and ns not in ("default", "kube-system"):
        out.append(fe.invalid(ns_path, involved_ns, "does not match event.namespace"))
    controller_path = "reportingComponent" if core_v1 else "reportingController"
    controller = _s(event.get("reportingController"))
    if not controller:
        out.append(fe.required(controller_path))
    out += [fe.invalid(controller_path, controller, m) for m in label_key_errors(controller)]
    for f, limit in _LIMITS:
        value = _s(event.get(f))
        if not value:
            out.append(fe.required(f))
        if len(value) > limit:
            out.append(fe.invalid(f, "", f"can have at most {limit} characters"))
    if len(_s(event.get("message"))) > _NOTE_LIMIT:
        out.append(fe.invalid("message", "", f"can have at most {_NOTE_LIMIT} characters"))
    return out


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _series_causes(event: Obj) -> list[Cause]:
    """``validateV1EventSeries``."""
    series = event.get("series")
    if not isinstance(series, dict):
        return []
    out: list[Cause] = []
    count = series.get("count")
    if not isinstance(count, int) or count < 2:
        out.append(fe.invalid("series.count", "", "should be at least 2"))
    if not series.get("lastObservedTime"):
        out.append(fe.required("series.lastObservedTime"))
    return out


def _create_causes(event: Obj) -> list[Cause]:
    """The events.k8s.io half of ``ValidateEventCreate`` (metadata is ``strategies.meta``'s)."""
    out = _series_causes(event)
    if not event.get("eventTime"):
        out.append(fe.required("eventTime"))
    kind = _s(event.get("type"))
    if kind not in ("Normal", "Warning"):
        out.append(fe.invalid("type", "", f"has invalid value: {kind}"))
    for f in ("firstTimestamp", "lastTimestamp", "count"):
        if event.get(f):
            out.append(fe.invalid(f, "", "needs to be unset"))
    source = _o(event.get("source"))
    if source.get("component") or source.get("host"):
        out.append(fe.invalid("source", "", "needs to be unset"))
    return out


def _micro(v: Any) -> Any:
    """A MicroTime as an instant truncated to the microsecond (the value itself if it does
    not parse), so spellings of one instant compare equal as Go's ``Equal`` sees them."""
    at = instant_ns(v)
    return v if at is None else at // 1000


def _immutable(new: Obj, old: Obj, fields: tuple[str, ...]) -> list[Cause]:
    return [
        fe.invalid(f, fe.OMIT, "field is immutable")
        for f in fields
        if _zero({"v": new.get(f)}) != _zero({"v": old.get(f)})
    ]


def _update_causes(new: Obj, old: Obj) -> list[Cause]:
    """The events.k8s.io half of ``ValidateEventUpdate`` (metadata is ``strategies.meta``'s)."""
    out: list[Cause] = []
    if _zero({"v": new.get("series")}) != _zero({"v": old.get("series")}):
        out += _series_causes(new)
    out += _immutable(new, old, _IMMUTABLE)
    if _micro(new.get("eventTime")) != _micro(old.get("eventTime")):
        out.append(fe.invalid("eventTime", fe.OMIT, "field is immutable"))
    return out + _immutable(new, old, _IMMUTABLE_TAIL)


@validator("Event")
def validate_event(obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateEventCreate``/``ValidateEventUpdate`` at the request's version: core/v1
    gets only ``legacyValidateEvent`` (its metadata the generic check's)."""
    core_v1 = obj.get("apiVersion") != _EVENTS_V1
    event = _internal(obj)
    ns = _s(_o(obj.get("metadata")).get("namespace"))
    out = _legacy_causes(event, ns, core_v1)
    if core_v1:
        return out
    if old is None:
        return out + _create_causes(event)
    return out + _update_causes(event, _internal(old))
