"""PodSecurity's warnings: ``pod-security-admission/admission/admission_test.go``'s
TestValidateNamespace and TestValidatePodAndController (warnings columns), then the
warnings through the reference apiserver in upstream's order (strategy, then admission)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.admission import pod_security
from reference_impl.apiserver.admission.pod_security import PodSecurity
from reference_impl.apiserver.admission.pod_security.checks import CheckResult
from reference_impl.apiserver.admission.pod_security.evaluate import Evaluator
from reference_impl.apiserver.admission.pod_security.levels import (
    LATEST,
    Level,
    LevelVersion,
    Policy,
    major_minor,
    policy_to_evaluate,
)
from reference_impl.apiserver.admission.pod_security.warnings import (
    POD_SPEC_RESOURCES,
    exempt_namespace_warning,
    extract_pod_spec,
    prioritize_pods,
)
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock
from reference_impl.errors import ApiError, Forbidden
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
P = "pod-security.kubernetes.io/"
IMAGE = "registry.k8s.io/pause:3.10"
PRIV = LevelVersion(Level.PRIVILEGED, LATEST)
RESTRICTED_LATEST = LevelVersion(Level.RESTRICTED, LATEST)


class FakeEvaluator(Evaluator):
    """``testEvaluator``: refuses a pod with its ``error`` annotation as the reason."""

    def __init__(self) -> None:
        self.lv: LevelVersion | None = None

    def evaluate_pod(self, lv: LevelVersion, meta: Obj, spec: Obj) -> list[CheckResult]:
        self.lv = lv
        msg = (meta.get("annotations") or {}).get("error")
        return [CheckResult(False, msg)] if msg else []


def _ctx(pods: list[Obj], warned: list[str], namespaces: dict[str, Obj] | None = None,
         subresource: str = "") -> Context:  # fmt: skip
    def get(api_version: str, kind: str, name: str, ns: str | None) -> Obj | None:
        return (namespaces or {}).get(name) if kind == "Namespace" else None

    def lst(api_version: str, kind: str, ns: str | None) -> list[Obj]:
        return pods if kind == "Pod" else []

    return Context(FeatureGates({}), get, lst, subresource, warn=warned.append)


def _tpod(name: str, error: str, rc: str | None = None, owner: str | None = None) -> Obj:
    meta: Obj = {"name": name, "annotations": {"error": error}}
    if owner is not None:
        meta["ownerReferences"] = [{"uid": owner, "controller": True}]
    return {"metadata": meta, "spec": {"runtimeClassName": rc} if rc else {}}


DEFAULT_PODS = [
    _tpod("noruntimeclasspod", "message"),
    _tpod("runtimeclass1pod", "message", "runtimeclass1"),
    _tpod("runtimeclass2pod", "message", "runtimeclass2"),
    _tpod("runtimeclass3pod", "message, message2"),
]
PRIORITIZED_PODS = (
    [_tpod(f"exemptpod{i}", "message1", "runtimeclass1") for i in range(1, 5)]
    + [_tpod(f"replicaset1pod{i}", "replicaset1error", owner="1") for i in range(1, 5)]
    + [_tpod(f"replicaset2pod{i}", "replicaset2error", owner="2") for i in range(1, 5)]
    + [_tpod(f"uniquepod{i}", f"uniquemessage{i}") for i in range(1, 5)]
)
EXISTING = 'existing pods in namespace "test" violate the new PodSecurity enforce level "restricted:latest"'
R, B, E, EV = Level.RESTRICTED.value, Level.BASELINE.value, P + "enforce", P + "enforce-version"

# (name, new labels, old labels or None for create, exempt namespaces, exempt runtime
# classes, default policy, pods, error substring, listed, evaluated, warnings)
NAMESPACE_ROWS: list[tuple[Any, ...]] = [
    ("create privileged", {E: "privileged", EV: "v1.0"}, None, [], [], None, None, "", False, None, []),
    ("create baseline", {E: B}, None, [], [], None, None, "", False, None, []),
    ("create restricted", {E: R}, None, [], [], None, None, "", False, None, []),
    ("create restricted exempt", {E: R}, None, ["test"], [], None, None, "", False, None,
     ['namespace "test" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored']),
    ("create malformed level", {E: "unknown"}, None, [], [], None, None,
     "must be one of privileged, baseline, restricted", False, None, []),
    ("create malformed version", {E: "privileged", EV: "unknown"}, None, [], [], None, None,
     'must be "latest" or "v1.x"', False, None, []),
    ("update no-op", {E: R, EV: "v1.0"}, {E: R, EV: "v1.0"}, [], [], None, None, "", False, None, []),
    ("update no-op malformed level", {E: "unknown"}, {E: "unknown"}, [], [], None, None, "", False, None, []),
    ("update no-op malformed version", {E: B, EV: "unknown"}, {E: B, EV: "unknown"}, [], [], None,
     None, "", False, None, []),
    ("update relax level identical version", {E: B, EV: "v1.0"}, {E: R, EV: "v1.0"}, [], [], None,
     None, "", False, None, []),
    ("update relax level explicit latest", {E: B, EV: "latest"}, {E: R, EV: "latest"}, [], [], None,
     None, "", False, None, []),
    ("update relax level implicit latest", {E: B}, {E: R}, [], [], None, None, "", False, None, []),
    ("update to explicit privileged", {E: "privileged"}, {E: R, EV: "v1.0"}, [], [], None, None, "",
     False, None, []),
    ("update to implicit privileged", {}, {E: R, EV: "v1.0"}, [], [], None, None, "", False, None, []),
    ("update exempt to restricted", {E: R, EV: "v1.0", P + "audit": R, P + "warn": B}, {}, ["test"],
     [], None, None, "", False, None,
     ['namespace "test" is exempt from Pod Security, and the policy (enforce=restricted:v1.0, '
      'audit=restricted:latest, warn=baseline:latest) will be ignored']),
    ("update malformed level", {E: "unknown"}, {E: R, EV: "v1.0"}, [], [], None, None,
     "must be one of privileged, baseline, restricted", False, None, []),
    ("update malformed version", {E: "privileged", EV: "unknown"}, {E: R, EV: "v1.0"}, [], [], None,
     None, 'must be "latest" or "v1.x"', False, None, []),
    ("update to implicit restricted", {}, {E: B, EV: "v1.0"}, [], [],
     Policy(RESTRICTED_LATEST, PRIV, PRIV), None, "", True, RESTRICTED_LATEST,
     [EXISTING, "noruntimeclasspod (and 2 other pods): message", "runtimeclass3pod: message, message2"]),
    ("update with runtimeclass exempt pods", {E: R}, {E: B}, [], ["runtimeclass1"], None, None, "",
     True, RESTRICTED_LATEST,
     [EXISTING, "noruntimeclasspod (and 1 other pod): message", "runtimeclass3pod: message, message2"]),
    ("bound number of pods", {E: R}, {E: B}, [], [], None,
     [_tpod(f"pod{i}", "message") for i in range(1, 6)], "", True, RESTRICTED_LATEST,
     ["new PodSecurity enforce level only checked against the first 4 of 5 existing pods", EXISTING,
      "pod1 (and 3 other pods): message"]),
    ("prioritized pods", {E: R}, {E: B}, [], ["runtimeclass1"], None, PRIORITIZED_PODS, "", True,
     RESTRICTED_LATEST,
     ["new PodSecurity enforce level only checked against the first 4 of 12 existing pods", EXISTING,
      "replicaset1pod1: replicaset1error", "replicaset2pod1: replicaset2error",
      "uniquepod1: uniquemessage1", "uniquepod2: uniquemessage2"]),
]  # fmt: skip
SKIPPED_NAMESPACE_ROWS = [
    pytest.param(
        "timeout on list",
        marks=pytest.mark.skip(
            reason="wall-clock pod list timeout not modelled (deterministic lister)"
        ),
    ),
    pytest.param(
        "timeout on evaluate",
        marks=pytest.mark.skip(reason="namespacePodCheckTimeout (wall clock) not modelled"),
    ),
]


@pytest.mark.parametrize("row", NAMESPACE_ROWS, ids=[r[0] for r in NAMESPACE_ROWS])
def test_validate_namespace(row: tuple[Any, ...]) -> None:
    """``TestValidateNamespace``."""
    _, new, old, exempt_ns, exempt_rc, defaults, pods, err, listed, evaluated, warnings = row
    evaluator = FakeEvaluator()
    plugin = PodSecurity(
        defaults or Policy(PRIV, PRIV, PRIV), exempt_namespaces=exempt_ns,
        exempt_runtime_classes=exempt_rc, evaluator=evaluator, namespace_max_pods_to_check=4,
    )  # fmt: skip
    listed_pods = copy.deepcopy(pods if pods is not None else DEFAULT_PODS)
    calls: list[str] = []
    warned: list[str] = []
    base = _ctx(listed_pods, warned)

    def lst(api_version: str, kind: str, ns: str | None) -> list[Obj]:
        calls.append(kind)
        return base.list(api_version, kind, ns)

    ctx = Context(base.gates, base.get, lst, warn=warned.append)
    obj = {"metadata": {"name": "test", "labels": new}}
    op = Operation.CREATE if old is None else Operation.UPDATE
    prior = None if old is None else {"metadata": {"name": "test", "labels": old}}
    causes = plugin.validate(op, _info("namespaces"), obj, prior, ctx)
    assert any(err in c.message for c in causes) if err else not causes
    assert bool(calls) is listed
    assert evaluator.lv == evaluated
    assert warned == warnings


@pytest.mark.parametrize("name", SKIPPED_NAMESPACE_ROWS)
def test_validate_namespace_skipped(name: str) -> None:
    raise AssertionError(name)


def _info(resource: str) -> ResourceInfo:
    api_version = "apps/v1" if resource == "deployments" else "v1"
    kind = {"namespaces": "Namespace", "pods": "Pod", "deployments": "Deployment"}[resource]
    return ResourceInfo(api_version, kind, resource, resource != "namespaces")


RESTRICTED_SC = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
POD_SC = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}


def _vpod(sc: Obj | None = None, pod_sc: Obj | None = None, image: str = IMAGE, **spec: Any) -> Obj:
    c: Obj = {"name": "c", "image": image}
    if sc is not None:
        c["securityContext"] = sc
    body: Obj = {"containers": [c], **spec}
    if pod_sc is not None:
        body["securityContext"] = pod_sc
    return {"metadata": {"name": "test-pod", "labels": {"foo": "bar"}}, "spec": body}


def _nsl(enforce: str = "", warn: str = "", audit: str = "") -> Obj:
    labels = {P + m: v for m, v in (("enforce", enforce), ("warn", warn), ("audit", audit)) if v}
    return {"metadata": {"labels": labels}}


NAMESPACES = {
    "exempt-ns": _nsl(R, R, R), "implicit-ns": _nsl(), "privileged-ns": _nsl("privileged", "privileged", "privileged"),
    "baseline-ns": _nsl(B, B, B), "baseline-warn-ns": _nsl(warn=B), "baseline-audit-ns": _nsl(audit=B),
    "restricted-ns": _nsl(R, R, R), "invalid-ns": _nsl("not-a-valid-level"),
}  # fmt: skip
RESTRICTED_POD = _vpod(RESTRICTED_SC, POD_SC)
BASELINE_POD = _vpod()
PRIVILEGED_POD = _vpod({"privileged": True})
EXEMPT_RC_POD = _vpod({"privileged": True}, runtimeClassName="exempt-runtimeclass")
TOLERANT_POD = _vpod({"privileged": True}, tolerations=[{"operator": "Exists"}])
DIFF_PRIVILEGED_POD = _vpod({"privileged": True}, image="https://example.com/a-different-image")
DIFF_RESTRICTED_POD = _vpod(RESTRICTED_SC, POD_SC, image="https://example.com/a-different-image")
EMPTY = {"metadata": {"name": "test-pod"}, "spec": {}}

# (desc, namespace, pod, old pod, subresource, pod outcome, warning level on the pod,
# warning level on the deployment, skip pod, skip deployment); outcome: "" allowed,
# else the error type's name. The deployment is always allowed.
POD_ROWS: list[tuple[Any, ...]] = [
    ("ignored subresource", "restricted-ns", PRIVILEGED_POD, None, "status", "", "", "", False, False),
    ("exempt namespace", "exempt-ns", PRIVILEGED_POD, None, "", "", "", "", False, False),
    ("exempt runtimeClass", "restricted-ns", EXEMPT_RC_POD, None, "", "", "", "", False, False),
    ("namespace not found", "missing-ns", RESTRICTED_POD, None, "", "ApiError", "", "", False, False),
    ("short-circuit privileged:latest (implicit)", "implicit-ns", PRIVILEGED_POD, None, "", "", "", "", False, False),
    ("short-circuit privileged:latest (explicit)", "privileged-ns", PRIVILEGED_POD, None, "", "", "", "", False, False),
    ("insignificant update", "restricted-ns", TOLERANT_POD, PRIVILEGED_POD, "", "", "", "", False, True),
    ("significant update denied", "restricted-ns", DIFF_PRIVILEGED_POD, PRIVILEGED_POD, "", "Forbidden", "", R, False, False),
    ("significant update allowed", "restricted-ns", DIFF_RESTRICTED_POD, RESTRICTED_POD, "", "", "", "", False, False),
    ("invalid namespace labels", "invalid-ns", BASELINE_POD, None, "", "Forbidden", "", "", False, False),
    ("enforce deny", "restricted-ns", PRIVILEGED_POD, None, "", "Forbidden", "", R, False, False),
    ("enforce allow", "baseline-ns", BASELINE_POD, None, "", "", "", "", False, False),
    ("warn deny", "baseline-warn-ns", PRIVILEGED_POD, None, "", "", B, B, False, False),
    ("audit deny", "baseline-audit-ns", PRIVILEGED_POD, None, "", "", "", "", False, False),
    ("no pod template", "restricted-ns", EMPTY, None, "", "", "", "", True, False),
]  # fmt: skip
SKIPPED_POD_ROWS = [
    pytest.param(d, marks=pytest.mark.skip(reason=why))
    for d, why in (
        ("exempt user", "request usernames not modelled"),
        ("failed decode", "typed decode errors of admission attributes not modelled"),
        ("invalid object", "typed decode errors of admission attributes not modelled"),
        ("failed decode old object", "typed decode errors of admission attributes not modelled"),
        ("invalid old object", "typed decode errors of admission attributes not modelled"),
    )
]


def _cases() -> list[Any]:
    out = []
    for row in POD_ROWS:
        desc, _, _, _, _, _, _, _, skip_pod, skip_deployment = row
        if not skip_pod:
            out.append(pytest.param("pods", row, id=f"pod:{desc}"))
        if not skip_deployment:
            out.append(pytest.param("deployments", row, id=f"deployment:{desc}"))
    return out


def _deployment(pod: Obj | None) -> Obj | None:
    if pod is None or pod is EMPTY:
        return None if pod is None else {"metadata": dict(pod["metadata"]), "spec": {}}
    return {"metadata": dict(pod["metadata"]),
            "spec": {"template": {"metadata": dict(pod["metadata"]), "spec": pod["spec"]}}}  # fmt: skip


@pytest.mark.parametrize(("resource", "row"), _cases())
def test_validate_pod_and_controller(resource: str, row: tuple[Any, ...]) -> None:
    """``TestValidatePodAndController``: allowed or refused, and whether it warns."""
    _, ns, pod, old, sub, outcome, pod_warn, deploy_warn, _, _ = row
    plugin = PodSecurity(
        exempt_namespaces=["exempt-ns"], exempt_runtime_classes=["exempt-runtimeclass"]
    )
    warned: list[str] = []
    ctx = _ctx([], warned, NAMESPACES, sub)
    obj, prior = copy.deepcopy(pod), copy.deepcopy(old)
    if resource == "deployments":
        obj, prior, outcome, level = _deployment(obj), _deployment(prior), "", deploy_warn
    else:
        level = pod_warn
    assert obj is not None
    obj["metadata"]["namespace"] = ns
    op = Operation.UPDATE if prior is not None else Operation.CREATE
    try:
        plugin.validate(op, _info(resource), obj, prior, ctx)
        got = ""
    except ApiError as e:
        got = type(e).__name__
    assert got == outcome
    if level:
        assert len(warned) == 1 and warned[0].startswith(
            f'would violate PodSecurity "{level}:latest": '
        )
    else:
        assert warned == []


@pytest.mark.parametrize("name", SKIPPED_POD_ROWS)
def test_validate_pod_and_controller_skipped(name: str) -> None:
    raise AssertionError(name)


# -- through the apiserver ----------------------------------------------------------------

PRIV_DETAIL = 'privileged (container "c" must not set securityContext.privileged=true)'
ARCH = ('spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use '
        '"kubernetes.io/arch" instead')  # fmt: skip


@pytest.fixture
def server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates({}))
    pod_security.install(s)
    for name, labels in (("default", {}), ("warned", {P + "warn": B})):
        ns = make_namespace(name).build()
        ns["metadata"]["labels"] = labels
        s.create(ns)
    return s


def _api_pod(name: str, ns: str, **spec: Any) -> Obj:
    body = _vpod({"privileged": True}, **spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": body["spec"]}  # fmt: skip


def test_privileged_namespace_adds_nothing(server: APIServer) -> None:
    server.create(_api_pod("p", "default"))
    assert server.warnings == []


def test_warn_mode_after_strategy_warnings(server: APIServer) -> None:
    """store.Create: BeforeCreate's strategy warnings, then validating admission's."""
    server.create(_api_pod("p", "warned", nodeSelector={"beta.kubernetes.io/arch": "amd64"}))
    assert server.warnings == [ARCH, f'would violate PodSecurity "baseline:latest": {PRIV_DETAIL}']


def test_deployment_template_warns(server: APIServer) -> None:
    pod = _api_pod("p", "warned")
    labels = {"app": "a"}
    server.create({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "d", "namespace": "warned"},
                   "spec": {"selector": {"matchLabels": labels},
                            "template": {"metadata": {"labels": labels}, "spec": pod["spec"]}}})  # fmt: skip
    assert server.warnings == [f'would violate PodSecurity "baseline:latest": {PRIV_DETAIL}']


def test_namespace_enforce_tightened_against_existing_pods(server: APIServer) -> None:
    server.create(_api_pod("b", "default"))
    server.create(_api_pod("a", "default"))
    ns = server.get("v1", "Namespace", "default", None)
    assert ns is not None
    ns = copy.deepcopy(ns)
    ns["metadata"]["labels"] = {E: B}
    server.update(ns)
    assert server.warnings == [
        'existing pods in namespace "default" violate the new PodSecurity enforce level "baseline:latest"',
        "a (and 1 other pod): privileged",
    ]
    with pytest.raises(Forbidden):
        server.create(_api_pod("c", "default"))


# -- helpers: TestExemptNamespaceWarning, TestDefaultExtractPodSpec/HasPodSpec, ----------
# -- TestPrioritizePods ------------------------------------------------------------------

BASELINE_123 = LevelVersion(Level.BASELINE, major_minor(1, 23))
EXEMPT_ROWS: list[tuple[str, Obj, Policy | None, str | None]] = [
    ("empty-case", {}, None, None),
    ("ignore-privileged", {E: "privileged", EV: "v1.24", P + "warn-version": "v1.25"}, None, None),
    ("warn-on-enforce", {E: B}, None, "(enforce=baseline:latest)"),
    ("warn-on-warn", {P + "warn": B}, None, "(warn=baseline:latest)"),
    ("warn-on-audit", {P + "audit": R}, None, "(audit=restricted:latest)"),
    ("ignore-default-policy", {}, Policy(BASELINE_123, BASELINE_123, BASELINE_123), None),
    ("warn-versions-default-policy", {P + "warn-version": "latest"},
     Policy(BASELINE_123, BASELINE_123, BASELINE_123), "(warn=baseline:latest)"),
]  # fmt: skip


@pytest.mark.parametrize("row", EXEMPT_ROWS, ids=[r[0] for r in EXEMPT_ROWS])
def test_exempt_namespace_warning(row: tuple[str, Obj, Policy | None, str | None]) -> None:
    """``TestExemptNamespaceWarning``: only pod-security labels are named."""
    name, labels, defaults, contains = row
    defaults = defaults or Policy(PRIV, PRIV, PRIV)
    labels = {**labels, "qqincegidneocgu": "vpmxkpcjphxrcpx"}
    policy, errs = policy_to_evaluate(labels, defaults)
    assert not errs
    warning = exempt_namespace_warning(name, policy, defaults, labels)
    if contains is None:
        assert warning == ""
        return
    assert "qqincegidneocgu" not in warning and "vpmxkpcjphxrcpx" not in warning
    assert contains in warning


TEMPLATE = {"metadata": {"name": "foo-pod"}, "spec": {"containers": [{"name": "foo-container"}]}}
EXTRACT_ROWS = [
    ("podtemplates", {"metadata": {"name": "foo-template"}, "template": TEMPLATE}),
    ("replicationcontrollers", {"metadata": {"name": "foo-rc"}, "spec": {"template": TEMPLATE}}),
    ("replicasets.apps", {"spec": {"template": TEMPLATE}}),
    ("deployments.apps", {"spec": {"template": TEMPLATE}}),
    ("statefulsets.apps", {"spec": {"template": TEMPLATE}}),
    ("daemonsets.apps", {"spec": {"template": TEMPLATE}}),
    ("jobs.batch", {"spec": {"template": TEMPLATE}}),
    ("cronjobs.batch", {"spec": {"jobTemplate": {"spec": {"template": TEMPLATE}}}}),
]


@pytest.mark.parametrize(("gr", "obj"), EXTRACT_ROWS, ids=[r[0] for r in EXTRACT_ROWS])
def test_default_extract_pod_spec(gr: str, obj: Obj) -> None:
    """``TestDefaultExtractPodSpec`` and the pod-like half of ``TestDefaultHasPodSpec``."""
    assert gr in POD_SPEC_RESOURCES
    assert extract_pod_spec(gr, obj) == (TEMPLATE["metadata"], TEMPLATE["spec"])


def test_default_has_pod_spec_non_pod_resources() -> None:
    """``TestDefaultHasPodSpec``'s non-pod resources; an RC without template has none."""
    for gr in ("services", "admissionreviews.admission.k8s.io", "foobars.apps"):
        assert gr not in POD_SPEC_RESOURCES
    assert extract_pod_spec("replicationcontrollers", {"spec": {}}) is None


def test_prioritize_pods() -> None:
    """``TestPrioritizePods``: one pod per controller first, none lost."""
    pods = [
        {"metadata": {"name": f"{uid}-{i}", "ownerReferences": [{"uid": uid, "controller": True}]}}
        for uid, n in (("u1", 4), ("u2", 3), ("u3", 6))
        for i in range(n)
    ]
    got = prioritize_pods(pods, frozenset())
    assert [p["metadata"]["ownerReferences"][0]["uid"] for p in got[:3]] == ["u1", "u2", "u3"]
    assert len(got) == len(pods)
