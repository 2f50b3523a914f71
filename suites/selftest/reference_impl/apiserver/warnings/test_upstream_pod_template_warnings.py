"""``pkg/api/pod/warnings_test.go`` ``TestTemplateOnlyWarnings`` (AppArmor annotations warn
only in templates: ``podspec_`` rows at path "template", ``pod_`` rows expect nothing) and
``TestCheckForOverLap``."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.warnings.pod import (
    check_for_overlap,
    pod_spec_warnings,
    pod_template_warnings,
)

Obj = dict[str, Any]
KEY = "container.apparmor.security.beta.kubernetes.io/foo"
WARN = f'template.metadata.annotations[{KEY}]: deprecated since v1.30; use the "appArmorProfile" field instead'


def _t(value: str, pod_profile: Obj | None = None, container_profile: Obj | None = None) -> Obj:
    spec: Obj = {"containers": [{"name": "foo"}]}
    if pod_profile is not None:
        spec["securityContext"] = {"appArmorProfile": pod_profile}
    if container_profile is not None:
        spec["containers"][0]["securityContext"] = {"appArmorProfile": container_profile}
    return {"metadata": {"annotations": {KEY: value}}, "spec": spec}


TEMPLATE_ROWS = [
    ("AppArmor annotations", _t("unconfined"), [WARN]),
    ("AppArmor matching pod field", _t("unconfined", {"type": "Unconfined"}), []),
    ("AppArmor different pod field",
     _t("localhost/foo", {"type": "Localhost", "localhostProfile": "bar"}), [WARN]),
    ("AppArmor container field", _t("unconfined", None, {"type": "Unconfined"}), []),
]  # fmt: skip


@pytest.mark.parametrize(("template", "expected"),
                         [pytest.param(t, e, id=f"podspec_{n}") for n, t, e in TEMPLATE_ROWS])  # fmt: skip
def test_template_only_podspec(template: Obj, expected: list[str]) -> None:
    assert set(pod_template_warnings("template", template, None)) == set(expected)


@pytest.mark.parametrize("template", [pytest.param(t, id=f"pod_{n}") for n, t, _ in TEMPLATE_ROWS])
def test_template_only_pod(template: Obj) -> None:
    assert pod_spec_warnings("", template["spec"], template["metadata"]) == []


PS = tuple[str, str]
OVERLAP_ROWS: list[tuple[str, list[PS], PS, list[PS]]] = [
    ("exact match", [("path/path1", "src1")], ("path/path1", "src2"), [("path/path1", "src1")]),
    ("no match", [("path/path1", "src1")], ("path2/path1", "src2"), []),
    ("empty checkPaths", [], ("path2/path1", "src2"), []),
    ("empty string in checkPaths", [("", "src1")], ("path2/path1", "src2"), []),
    ("empty path", [("test", "src1")], ("", ""), []),
    ("empty strings in checkPaths and path", [("", "src1")], ("", ""), []),
    ("between file and dir", [("path/path1", "src1")], ("path", "src2"), [("path/path1", "src1")]),
    ("between dir and file", [("path", "src1")], ("path/path1", "src2"), [("path", "src1")]),
    ("multiple paths without overlap", [("path1/path", "src1"), ("path2/path", "src2"), ("path3/path", "src3")],
     ("path4/path", "src4"), []),
    ("multiple paths with 1 overlap", [("path1/path", "src1"), ("path2/path", "src2"), ("path3/path", "src3")],
     ("path3/path", "src4"), [("path3/path", "src3")]),
    ("multiple paths with multiple overlap",
     [("path/path1", "src1"), ("path/path2", "src2"), ("path/path3", "src3")], ("path", "src4"),
     [("path/path1", "src1"), ("path/path2", "src2"), ("path/path3", "src3")]),
    ("partial overlap", [("path1/path", "src1"), ("path2/path", "src2"), ("path3/path", "src3")],
     ("path101/path3", "src4"), []),
    ("partial overlap in path", [("dir/path1", "src1"), ("dir/path2", "src2"), ("dir/path3", "src3")],
     ("dir/path345", "src4"), []),
    ("trailing slash in path", [("path1/path3", "src1")], ("path1/path3/", "src2"), [("path1/path3", "src1")]),
    ("trailing slash in checkPaths", [("path1/path3/", "src1")], ("path1/path3", "src2"),
     [("path1/path3/", "src1")]),
]  # fmt: skip


@pytest.mark.parametrize(("haystack", "needle", "expected"),
                         [pytest.param(h, n, e, id=name) for name, h, n, e in OVERLAP_ROWS])  # fmt: skip
def test_check_for_overlap(haystack: list[PS], needle: PS, expected: list[PS]) -> None:
    # Upstream checks "found" and, when found, the matches.
    assert check_for_overlap(haystack, needle) == expected
