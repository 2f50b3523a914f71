"""The Pod Security levels, versions and registry (``k8s.io/pod-security-admission``
``api/helpers_test.go``, ``policy/registry_test.go``, ``policy/checks_test.go``)."""

from __future__ import annotations

import pytest

from reference_impl.apiserver.admission.pod_security.checks import (
    Check,
    CheckFn,
    CheckResult,
    Obj,
    VersionedCheck,
)
from reference_impl.apiserver.admission.pod_security.evaluate import (
    Evaluator,
    aggregate,
    default_checks,
    default_evaluator,
)
from reference_impl.apiserver.admission.pod_security.levels import (
    LATEST,
    Level,
    LevelVersion,
    Policy,
    Version,
    major_minor,
    parse_version,
    policy_to_evaluate,
)

B, R, P = Level.BASELINE, Level.RESTRICTED, Level.PRIVILEGED


@pytest.mark.parametrize(
    ("text", "want"),
    [("latest", LATEST), ("v1.0", Version(1, 0)), ("v1.1", Version(1, 1)),
     ("v1.20", Version(1, 20)), ("v1.10000", Version(1, 10000))],
)  # fmt: skip
def test_parse_version(text: str, want: Version) -> None:
    assert parse_version(text) == (want, None)


@pytest.mark.parametrize("text", ["foo", "", "v2.0", "v1", "1.1", "v1.01", "v1.x", " v1.2"])
def test_parse_version_failures(text: str) -> None:
    assert parse_version(text) == (LATEST, 'must be "latest" or "v1.x"')


def _lv(level: Level, version: Version = LATEST) -> LevelVersion:
    return LevelVersion(level, version)


PRIV = Policy(_lv(P), _lv(P), _lv(P))
V = major_minor


def _labels(*kv: str) -> dict[str, str]:
    return {f"pod-security.kubernetes.io/{kv[i]}": kv[i + 1] for i in range(0, len(kv), 2)}


@pytest.mark.parametrize(
    ("labels", "enforce", "warn", "audit", "errs"),
    [
        (("enforce", "baseline"), _lv(B), _lv(B), _lv(P), 0),
        (("warn", "restricted"), _lv(P), _lv(R), _lv(P), 0),
        (("audit", "baseline"), _lv(P), _lv(P), _lv(B), 0),
        (("enforce", "baseline", "warn", "restricted"), _lv(B), _lv(R), _lv(P), 0),
        (("enforce", "baseline", "enforce-version", "v1.22"), _lv(B, V(1, 22)), _lv(B, V(1, 22)), _lv(P), 0),
        (("enforce", "baseline", "enforce-version", "v1.22", "warn-version", "latest"),
         _lv(B, V(1, 22)), _lv(B), _lv(P), 0),
        (("enforce", "baseline", "warn-version", "v1.23"), _lv(B), _lv(B, V(1, 23)), _lv(P), 0),
        (("enforce", "baseline", "enforce-version", "v1.20", "warn", "restricted", "warn-version", "v1.21",
          "audit", "restricted", "audit-version", "v1.22"),
         _lv(B, V(1, 20)), _lv(R, V(1, 21)), _lv(R, V(1, 22)), 0),
        (("enforce", "baseline", "warn", "privileged"), _lv(B), _lv(P), _lv(P), 0),
        (("enforce", "baseline", "warn", "foo"), _lv(B), _lv(P), _lv(P), 1),
        (("enforce", "foo"), _lv(R), _lv(P), _lv(P), 1),
        (("enforce", "foo", "enforce-version", "bar", "audit", "x"), _lv(R), _lv(P), _lv(P), 3),
    ],
)  # fmt: skip
def test_policy_to_evaluate(
    labels: tuple[str, ...],
    enforce: LevelVersion,
    warn: LevelVersion,
    audit: LevelVersion,
    errs: int,
) -> None:
    policy, causes = policy_to_evaluate(_labels(*labels), PRIV)
    assert (policy.enforce, policy.warn, policy.audit) == (enforce, warn, audit)
    assert len(causes) == errs


def test_label_errors_are_worded_as_upstream() -> None:
    _, causes = policy_to_evaluate(_labels("enforce", "unknown", "warn-version", "v2"), PRIV)
    assert [str(c) for c in causes] == [
        'metadata.labels[pod-security.kubernetes.io/enforce]: FieldValueInvalid: Invalid value: "unknown": '
        "must be one of privileged, baseline, restricted",
        'metadata.labels[pod-security.kubernetes.io/warn-version]: FieldValueInvalid: Invalid value: "v2": '
        'must be "latest" or "v1.x"',
    ]  # fmt: skip


def _gen(cid: str, level: Level, versions: list[str], overrides: tuple[str, ...] = ()) -> Check:
    def fn(v: Version) -> CheckFn:
        def check(meta: Obj, spec: Obj) -> CheckResult:
            return CheckResult(False, f"{cid}:{v}")

        return check

    vs = tuple(
        VersionedCheck(parse_version(s)[0], fn(parse_version(s)[0]), overrides) for s in versions
    )
    return Check(cid, level, vs)


def _reasons(ev: Evaluator, level: Level, version: str) -> list[str]:
    return [
        r.reason for r in ev.evaluate_pod(LevelVersion(level, parse_version(version)[0]), {}, {})
    ]


def _registry_checks() -> list[Check]:
    multi = _gen("i", R, ["v1.10", "v1.21"])
    multi = Check("i", R, (VersionedCheck(multi.versions[0].minimum, multi.versions[0].check, ("c",)),
                           VersionedCheck(multi.versions[1].minimum, multi.versions[1].check, ("d",))))  # fmt: skip
    return [
        _gen("a", B, ["v1.0"]), _gen("b", B, ["v1.10"]), _gen("c", B, ["v1.0", "v1.5", "v1.10"]),
        _gen("d", B, ["v1.11", "v1.15", "v1.20"]), _gen("e", R, ["v1.0"]),
        _gen("f", R, ["v1.12", "v1.16", "v1.21"]), _gen("g", R, ["v1.10"], ("a",)),
        _gen("h", R, ["v1.0"], ("b",)), multi,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("level", "version", "want"),
    [
        (P, "v1.0", []), (P, "latest", []),
        (B, "v1.0", ["a:v1.0", "c:v1.0"]), (B, "v1.4", ["a:v1.0", "c:v1.0"]),
        (B, "v1.5", ["a:v1.0", "c:v1.5"]), (B, "v1.10", ["a:v1.0", "b:v1.10", "c:v1.10"]),
        (B, "v1.11", ["a:v1.0", "b:v1.10", "c:v1.10", "d:v1.11"]),
        (B, "latest", ["a:v1.0", "b:v1.10", "c:v1.10", "d:v1.20"]),
        (R, "v1.0", ["a:v1.0", "c:v1.0", "e:v1.0", "h:v1.0"]),
        (R, "v1.4", ["a:v1.0", "c:v1.0", "e:v1.0", "h:v1.0"]),
        (R, "v1.5", ["a:v1.0", "c:v1.5", "e:v1.0", "h:v1.0"]),
        (R, "v1.10", ["e:v1.0", "g:v1.10", "h:v1.0", "i:v1.10"]),
        (R, "v1.11", ["d:v1.11", "e:v1.0", "g:v1.10", "h:v1.0", "i:v1.10"]),
        (R, "latest", ["c:v1.10", "e:v1.0", "f:v1.21", "g:v1.10", "h:v1.0", "i:v1.21"]),
        (R, "v1.10000", ["c:v1.10", "e:v1.0", "f:v1.21", "g:v1.10", "h:v1.0", "i:v1.21"]),
    ],
)  # fmt: skip
def test_check_registry(level: Level, version: str, want: list[str]) -> None:
    assert _reasons(Evaluator(_registry_checks()), level, version) == want


def test_check_registry_empty_and_emulation() -> None:
    assert _reasons(Evaluator([]), R, "latest") == []
    ev = Evaluator(_registry_checks(), emulation_version=V(1, 11))
    assert _reasons(ev, B, "latest") == ["a:v1.0", "b:v1.10", "c:v1.10", "d:v1.11"]


@pytest.mark.parametrize(
    ("checks", "err"),
    [
        ([_gen("a", B, ["v1.0"]), _gen("a", R, ["v1.1"])], "multiple checks registered for ID a"),
        ([_gen("a", P, ["v1.0"])], "check a: invalid level privileged"),
        ([Check("a", B, ())], "check a: empty"),
        ([_gen("a", B, ["v1.1", "v1.1"])], "check a: duplicate version v1.1"),
        ([_gen("a", B, ["v1.2", "v1.1"])], "check a: versions must be strictly increasing"),
        ([_gen("a", B, ["latest"])], "check a: version cannot be 'latest'"),
        ([_gen("a", B, ["v1.0"], ("b",))], "check a: only restricted checks may set overrides"),
        ([_gen("a", R, ["v1.0"]), _gen("b", R, ["v1.0"], ("a",))], "check b: overrides restricted check a"),
    ],
)  # fmt: skip
def test_invalid_checks(checks: list[Check], err: str) -> None:
    with pytest.raises(ValueError, match=f"^{err}$"):
        Evaluator(checks)


def test_aggregate() -> None:
    agg = aggregate([CheckResult(True), CheckResult(False, "a", "x"), CheckResult(False, "", ""),
                     CheckResult(False, "b", "")])  # fmt: skip
    assert agg.forbidden_reason() == "a, unknown forbidden reason, b"
    assert agg.forbidden_detail() == "a (x), unknown forbidden reason, b"
    assert aggregate([CheckResult(True)]).allowed


def _ids(level: Level, version: str) -> list[str]:
    names = {id(v): c.id for c in default_checks() for v in c.versions}
    return [
        names[id(v)]
        for v in default_evaluator().checks_for(LevelVersion(level, parse_version(version)[0]))
    ]


def test_default_registry_order_and_overrides() -> None:
    """Baseline checks first, then restricted ones, each by ID (bytewise); restricted
    overrides drop hostPathVolumes always, seccomp from 1.19, capabilities from 1.22 and
    procMount from 1.35."""
    assert default_evaluator().max_version == V(1, 37)
    assert _ids(B, "latest") == [
        "appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPathVolumes", "hostPorts",
        "hostProbesAndHostLifecycle", "privileged", "procMount", "seLinuxOptions", "seccompProfile_baseline",
        "sysctls", "windowsHostProcess"]  # fmt: skip
    assert _ids(R, "latest") == [
        "appArmorProfile", "hostNamespaces", "hostPorts", "hostProbesAndHostLifecycle", "privileged",
        "seLinuxOptions", "sysctls", "windowsHostProcess", "allowPrivilegeEscalation", "capabilities_restricted",
        "procMount_restricted", "restrictedVolumes", "runAsNonRoot", "runAsUser", "seccompProfile_restricted"]  # fmt: skip
    v18 = _ids(R, "v1.18")
    assert "seccompProfile_baseline" in v18 and "seccompProfile_restricted" not in v18
    assert "capabilities_baseline" in _ids(R, "v1.21") and "runAsUser" not in _ids(R, "v1.22")
    assert "allowPrivilegeEscalation" not in _ids(R, "v1.7")
    assert "procMount" in _ids(R, "v1.34") and "procMount_restricted" not in _ids(R, "v1.34")
    assert "hostProbesAndHostLifecycle" not in _ids(B, "v1.33")
