"""RuntimeClass admission (``plugin/pkg/admission/runtimeclass``) and
``tolerations.MergeTolerations``, after upstream's ``admission_test.go`` and
``tolerations_test.go`` tables."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.admission.runtime_class import _is_superset, merge_tolerations
from reference_impl.cluster import Cluster
from reference_impl.errors import Forbidden

Obj = dict[str, Any]


def _t(key: str = "", op: str = "Exists", value: str = "", effect: str = "", secs: int | None = None) -> Obj:
    out: Obj = {"operator": op}
    for k, v in (("key", key), ("value", value), ("effect", effect)):
        if v:
            out[k] = v
    if secs is not None:
        out["tolerationSeconds"] = secs
    return out


T = {
    "all": _t(), "all-nosched": _t(effect="NoSchedule"), "all-noexec": _t(effect="NoExecute"),
    "foo": _t("foo"), "foo-bar": _t("foo", "Equal", "bar"),
    "foo-nosched": _t("foo", effect="NoSchedule"),
    "foo-bar-nosched": _t("foo", "Equal", "bar", "NoSchedule"),
    "foo-baz-nosched": _t("foo", "Equal", "baz", "NoSchedule"),
    "faz-nosched": _t("faz", effect="NoSchedule"),
    "faz-baz-nosched": _t("faz", "Equal", "baz", "NoSchedule"),
    "foo-prefnosched": _t("foo", effect="PreferNoSchedule"),
    "foo-noexec": _t("foo", effect="NoExecute"),
    "foo-bar-noexec": _t("foo", "Equal", "bar", "NoExecute"),
    "foo-noexec-10": _t("foo", effect="NoExecute", secs=10),
    "foo-noexec-0": _t("foo", effect="NoExecute", secs=0),
    "foo-bar-noexec-10": _t("foo", "Equal", "bar", "NoExecute", 10),
}  # fmt: skip

SUPERSETS = {
    "all": [n for n in T if n != "all"],
    "all-nosched": ["foo-nosched", "foo-bar-nosched", "foo-baz-nosched", "faz-nosched", "faz-baz-nosched"],
    "all-noexec": ["foo-noexec", "foo-bar-noexec", "foo-noexec-10", "foo-noexec-0", "foo-bar-noexec-10"],
    "foo": ["foo-bar", "foo-nosched", "foo-bar-nosched", "foo-baz-nosched", "foo-prefnosched", "foo-noexec",
            "foo-bar-noexec", "foo-noexec-10", "foo-noexec-0", "foo-bar-noexec-10"],
    "foo-bar": ["foo-bar-nosched", "foo-bar-noexec", "foo-bar-noexec-10"],
    "foo-nosched": ["foo-bar-nosched", "foo-baz-nosched"],
    "faz-nosched": ["faz-baz-nosched"],
    "foo-noexec": ["foo-bar-noexec", "foo-noexec-10", "foo-noexec-0", "foo-bar-noexec-10"],
    "foo-bar-noexec": ["foo-bar-noexec-10"],
    "foo-noexec-10": ["foo-noexec-0", "foo-bar-noexec-10"],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(T))
def test_is_superset_as_upstream_table(name: str) -> None:
    """TestIsSuperset: each toleration covers itself and exactly the listed ones."""
    for other in T:
        want = other == name or other in SUPERSETS.get(name, [])
        assert _is_superset(T[name], T[other]) is want, (name, other)


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        (["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"], ["foo-prefnosched", "foo-baz-nosched"],
         ["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10", "foo-prefnosched", "foo-baz-nosched"]),
        (["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"], ["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
         ["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"]),
        (["foo-bar-nosched", "foo-baz-nosched"], ["foo-nosched", "faz-baz-nosched"], ["foo-nosched", "faz-baz-nosched"]),
        (["foo-bar-nosched", "foo-baz-nosched", "foo-noexec-10"], ["all"], ["all"]),
        (["all"], ["foo-bar-nosched", "foo-baz-nosched", "foo-noexec-10"], ["all"]),
    ],
    ids=["disjoint", "duplicate", "merge-redundant", "merge-all", "merge-into-all"],
)  # fmt: skip
def test_merge_tolerations_as_upstream_table(a: list[str], b: list[str], want: list[str]) -> None:
    assert merge_tolerations([T[n] for n in a], [T[n] for n in b]) == [T[n] for n in want]


def _cluster() -> Cluster:
    c = Cluster(seed=3)
    c.apply({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"},
             "handler": "kata", "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}},
             "scheduling": {"nodeSelector": {"sandbox": "kata"},
                            "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}]}})  # fmt: skip
    return c


def _pod(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i"}], **spec}}  # fmt: skip


def test_overhead_and_scheduling_are_applied() -> None:
    """TestSetOverhead / TestSetScheduling: the class's overhead, node selector and
    tolerations land on the pod (beside DefaultTolerationSeconds' two)."""
    pod = _cluster().apply(_pod("p", runtimeClassName="kata", nodeSelector={"zone": "a"}))
    spec = pod["spec"]
    assert spec["overhead"] == {"cpu": "250m", "memory": "120Mi"}
    assert spec["nodeSelector"] == {"zone": "a", "sandbox": "kata"}
    assert {"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"runtimeClassName": "missing"}, 'pod rejected: RuntimeClass "missing" not found'),
        ({"runtimeClassName": "kata", "overhead": {"cpu": "1"}},
         "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"),
        ({"overhead": {"cpu": "1"}},
         "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"),
        ({"runtimeClassName": "kata", "nodeSelector": {"sandbox": "gvisor"}},
         "conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; pod.spec.nodeSelector[sandbox] = gvisor"),
    ],
    ids=["not-found", "overhead-mismatch", "overhead-without-class", "selector-conflict"],
)  # fmt: skip
def test_refusals_are_forbidden_with_upstream_messages(spec: Obj, message: str) -> None:
    with pytest.raises(Forbidden) as e:
        _cluster().apply(_pod("p", **spec))
    assert str(e.value) == f'pods "p" is forbidden: {message}'
