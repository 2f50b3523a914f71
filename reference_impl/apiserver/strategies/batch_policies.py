"""batch/v1 Job: the completion-mode, backoff-per-index, pod failure policy, success
policy and pod replacement policy rules of ``validateJobSpec`` (1.37.2)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.meta import label_key_errors
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["index_interval", "indexes_format", "job_policy_causes"]

Obj = dict[str, Any]
_MAX_INDEXED_PARALLELISM: Final = 100_000
_MAX_FAILED_INDEXES: Final = 100_000
_MAX_PFP_RULES: Final = 20
_MAX_EXIT_CODES: Final = 255
_MAX_CONDITION_PATTERNS: Final = 20
_MAX_SUCCESS_RULES: Final = 20
_ACTIONS: Final = ("Count", "FailIndex", "FailJob", "Ignore")
_EXIT_OPS: Final = ("In", "NotIn")
_STATUSES: Final = ("False", "True", "Unknown")
_REPLACEMENT: Final = ("Failed", "TerminatingOrFailed")
_COMPLETIONS_SOFT_LIMIT: Final = 100_000
_PARALLELISM_HIGH_COMPLETIONS: Final = 10_000
_MAX_FAILED_HIGH_COMPLETIONS: Final = 10_000
_MAX_SUCCEEDED_INDEXES_LEN: Final = 64 * 1024
_HIGH: Final = f"when completions are above {_COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index"


def _atoi(text: str) -> int | None:
    """Go's ``strconv.Atoi``: an optional sign and decimal digits, within int64."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not (body.isdigit() and body.isascii()) or len(body) > 19:
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def index_interval(text: str, completions: int) -> tuple[int, int] | str:
    """``parseIndexInterval``: ``x`` or ``x-y`` below ``completions``; else the error."""
    parts = text.split("-")
    if len(parts) > 2:
        return (
            f"the fragment {text!r} violates the requirement that an index interval can have "
            "at most two parts separated by '-'"
        )
    bounds: list[int] = []
    for part in parts:
        x = _atoi(part)
        if x is None:
            return f'cannot convert string to integer for index: "{part}"'
        if x >= completions:
            return f'too large index: "{part}"'
        bounds.append(x)
    if len(bounds) == 2 and bounds[0] >= bounds[1]:
        return f"non-increasing order, previous: {bounds[0]}, current: {bounds[1]}"
    return bounds[0], bounds[-1]


def indexes_format(text: str, completions: int) -> tuple[int, str | None]:
    """``validateIndexesFormat``: the number of indexes, or the parse error."""
    if not text:
        return 0, None
    last: int | None = None
    total = 0
    for part in text.split(","):
        got = index_interval(part, completions)
        if isinstance(got, str):
            return 0, got
        x, y = got
        if last is not None and last >= x:
            return 0, f"non-increasing order, previous: {last}, current: {x}"
        total += y - x + 1
        last = y
    return total, None


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def job_policy_causes(spec: Obj) -> list[Cause]:
    """The rules above for a Job spec (paths under ``spec``)."""
    out: list[Cause] = []
    completions, parallelism = _int(spec.get("completions")), _int(spec.get("parallelism"))
    per_index, max_failed = _int(spec.get("backoffLimitPerIndex")), _int(spec.get("maxFailedIndexes"))
    for f, v in (("backoffLimitPerIndex", per_index), ("maxFailedIndexes", max_failed)):
        if v is not None and v < 0:
            out.append(fe.invalid(f"spec.{f}", v, "must be greater than or equal to 0"))
    if max_failed is not None and per_index is None:
        out.append(fe.required("spec.backoffLimitPerIndex", "when maxFailedIndexes is specified"))
    indexed = spec.get("completionMode") == "Indexed"
    if indexed:
        if completions is None:
            out.append(fe.required("spec.completions", "when completion mode is Indexed"))
        if parallelism is not None and parallelism > _MAX_INDEXED_PARALLELISM:
            out.append(
                fe.invalid(
                    "spec.parallelism",
                    parallelism,
                    f"must be less than or equal to {_MAX_INDEXED_PARALLELISM} when completion mode is Indexed",
                )
            )
        if completions is not None and max_failed is not None and max_failed > completions:
            out.append(fe.invalid("spec.maxFailedIndexes", max_failed, "must be less than or equal to completions"))
        if max_failed is not None and max_failed > _MAX_FAILED_INDEXES:
            out.append(fe.invalid("spec.maxFailedIndexes", max_failed, f"must be less than or equal to {_MAX_FAILED_INDEXES}"))
        if completions is not None and completions > _COMPLETIONS_SOFT_LIMIT and per_index is not None:
            out += _high_completions(parallelism, max_failed)
    else:
        for f, v in (("backoffLimitPerIndex", per_index), ("maxFailedIndexes", max_failed)):
            if v is not None:
                out.append(fe.invalid(f"spec.{f}", v, "requires indexed completion mode"))
    pfp = spec.get("podFailurePolicy")
    if isinstance(pfp, dict):
        out += _pod_failure_policy(spec, pfp)
    success = spec.get("successPolicy")
    if isinstance(success, dict) and indexed:
        out += _success_policy(success, completions or 0)
    replacement = spec.get("podReplacementPolicy")
    if replacement is not None:
        allowed = ("Failed",) if isinstance(pfp, dict) else _REPLACEMENT
        if replacement not in allowed:
            out.append(fe.not_supported("spec.podReplacementPolicy", replacement, allowed))
    rp = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy")
    if isinstance(pfp, dict) and rp == "OnFailure":
        out.append(
            fe.invalid(
                "spec.template.spec.restartPolicy",
                rp,
                'only "Never" is supported when podFailurePolicy is specified',
            )
        )
    return out


def _high_completions(parallelism: int | None, max_failed: int | None) -> list[Cause]:
    """``validateJobSpec``'s limits for indexed jobs of over 100000 completions with a
    backoff limit per index."""
    out: list[Cause] = []
    if max_failed is None:
        msg = f"must be specified when completions is above {_COMPLETIONS_SOFT_LIMIT}"
        out.append(fe.required("spec.maxFailedIndexes", msg))
    if parallelism is not None and parallelism > _PARALLELISM_HIGH_COMPLETIONS:
        msg = f"must be less than or equal to {_PARALLELISM_HIGH_COMPLETIONS} {_HIGH}"
        out.append(fe.invalid("spec.parallelism", parallelism, msg))
    if max_failed is not None and max_failed > _MAX_FAILED_HIGH_COMPLETIONS:
        msg = f"must be less than or equal to {_MAX_FAILED_HIGH_COMPLETIONS} {_HIGH}"
        out.append(fe.invalid("spec.maxFailedIndexes", max_failed, msg))
    return out


def _pod_failure_policy(spec: Obj, pfp: Obj) -> list[Cause]:
    out: list[Cause] = []
    rules = [r if isinstance(r, dict) else {} for r in pfp.get("rules") or []]
    path = "spec.podFailurePolicy.rules"
    if len(rules) > _MAX_PFP_RULES:
        out.append(fe.too_many(path, len(rules), _MAX_PFP_RULES))
    pod = (spec.get("template") or {}).get("spec") or {}
    names = {c.get("name") for lst in ("containers", "initContainers") for c in pod.get(lst) or [] if isinstance(c, dict)}
    for i, rule in enumerate(rules):
        p = f"{path}[{i}]"
        action = rule.get("action") or ""
        if not action:
            out.append(fe.required(f"{p}.action", f"valid values: {list(_ACTIONS)}"))
        elif action == "FailIndex":
            if spec.get("backoffLimitPerIndex") is None:
                out.append(fe.invalid(f"{p}.action", action, "requires the backoffLimitPerIndex to be set"))
        elif action not in _ACTIONS:
            out.append(fe.not_supported(f"{p}.action", action, _ACTIONS))
        codes, conditions = rule.get("onExitCodes"), rule.get("onPodConditions") or []
        if isinstance(codes, dict):
            out += _exit_codes(codes, f"{p}.onExitCodes", names)
        if conditions:
            out += _conditions(conditions, f"{p}.onPodConditions")
        if codes is not None and conditions:
            out.append(fe.invalid(p, "", "specifying both OnExitCodes and OnPodConditions is not supported"))
        if codes is None and not conditions:
            out.append(fe.invalid(p, "", "specifying one of OnExitCodes and OnPodConditions is required"))
    return out


def _exit_codes(codes: Obj, path: str, names: set[Any]) -> list[Cause]:
    out: list[Cause] = []
    op = codes.get("operator") or ""
    if not op:
        out.append(fe.required(f"{path}.operator", f"valid values: {list(_EXIT_OPS)}"))
    elif op not in _EXIT_OPS:
        out.append(fe.not_supported(f"{path}.operator", op, _EXIT_OPS))
    name = codes.get("containerName")
    if name is not None and name not in names:
        out.append(
            fe.invalid(f"{path}.containerName", name, "must be one of the container or initContainer names in the pod template")
        )
    values = [v for v in codes.get("values") or [] if isinstance(v, int)]
    if not values:
        out.append(fe.invalid(f"{path}.values", values, "at least one value is required"))
    elif len(values) > _MAX_EXIT_CODES:
        out.append(fe.too_many(f"{path}.values", len(values), _MAX_EXIT_CODES))
    seen: set[int] = set()
    for j, v in enumerate(values):
        if op == "In" and v == 0:
            out.append(fe.invalid(f"{path}.values[{j}]", v, "must not be 0 for the In operator"))
        if v in seen:
            out.append(fe.duplicate(f"{path}.values[{j}]", v))
        seen.add(v)
    if any(a > b for a, b in zip(values, values[1:], strict=False)):
        out.append(fe.invalid(f"{path}.values", values, "must be ordered"))
    return out


def _conditions(conditions: list[Any], path: str) -> list[Cause]:
    out: list[Cause] = []
    if len(conditions) > _MAX_CONDITION_PATTERNS:
        out.append(fe.too_many(path, len(conditions), _MAX_CONDITION_PATTERNS))
    for j, pat in enumerate(c if isinstance(c, dict) else {} for c in conditions):
        ctype = str(pat.get("type") or "")
        out += [fe.invalid(f"{path}[{j}].type", ctype, e) for e in label_key_errors(ctype)]
        status = pat.get("status") or ""
        if not status:
            out.append(fe.required(f"{path}[{j}].status", f"valid values: {list(_STATUSES)}"))
        elif status not in _STATUSES:
            out.append(fe.not_supported(f"{path}[{j}].status", status, _STATUSES))
    return out


def _success_policy(policy: Obj, completions: int) -> list[Cause]:
    out: list[Cause] = []
    rules = [r if isinstance(r, dict) else {} for r in policy.get("rules") or []]
    path = "spec.successPolicy.rules"
    if not rules:
        out.append(fe.required(path, "at least one rules must be specified when the successPolicy is specified"))
    if len(rules) > _MAX_SUCCESS_RULES:
        out.append(fe.too_many(path, len(rules), _MAX_SUCCESS_RULES))
    for i, rule in enumerate(rules):
        p = f"{path}[{i}]"
        count = _int(rule.get("succeededCount"))
        if count is None and rule.get("succeededIndexes") is None:
            out.append(fe.required(p, "at least one of succeededCount or succeededIndexes must be specified"))
        indexes, total = rule.get("succeededIndexes"), 0
        if isinstance(indexes, str):
            ip = f"{p}.succeededIndexes"
            if len(indexes) > _MAX_SUCCEEDED_INDEXES_LEN:
                out.append(fe.too_long(ip, _MAX_SUCCEEDED_INDEXES_LEN))
            total, err = indexes_format(indexes, completions)
            if err is not None:
                out.append(fe.invalid(ip, indexes, f"error parsing succeededIndexes: {err}"))
        if count is not None:
            if count < 0:
                out.append(fe.invalid(f"{p}.succeededCount", count, "must be greater than or equal to 0"))
            if count > completions:
                out.append(
                    fe.invalid(
                        f"{p}.succeededCount",
                        count,
                        f"must be less than or equal to {completions} (the number of specified completions)",
                    )
                )
            if isinstance(indexes, str) and count > total:
                msg = f"must be less than or equal to {total} (the number of indexes in the specified succeededIndexes field)"
                out.append(fe.invalid(f"{p}.succeededCount", count, msg))
    return out
