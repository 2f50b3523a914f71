"""DaemonSet conformance: the apiserver keeps the template generation that apps/v1 shows as
the ``deprecated.daemonset.template.generation`` annotation (``daemonSetStrategy``)."""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import make_pod
from reference_impl.api.builders import ManifestBuilder

pytestmark = pytest.mark.conformance

TGEN = "deprecated.daemonset.template.generation"
Obj = dict[str, Any]


def _daemonset(name: str, namespace: str, image: str, generation: str | None = None) -> Obj:
    pod = make_pod("x").image(image).node_selector(**{"garhwal.dev/none": "x"}).build()
    template = {"metadata": {"labels": {"app": name}}, "spec": pod["spec"]}
    spec = {"selector": {"matchLabels": {"app": name}}, "template": template}
    ds = ManifestBuilder("apps/v1", "DaemonSet", name, namespace).set("spec", spec).build()
    if generation is not None:
        ds["metadata"]["annotations"] = {TGEN: generation}
    return ds


def _seen(target: Target, name: str, namespace: str) -> tuple[str | None, int | None]:
    meta = target.get("apps/v1", "DaemonSet", name, namespace)["metadata"]
    return (meta.get("annotations") or {}).get(TGEN), meta.get("generation")


def test_a_new_daemonset_starts_at_template_generation_1_or_the_clients_higher_value(
    target: Target, namespace: str
) -> None:
    """Template generation on create.

    A DaemonSet created without the annotation MUST read back with template generation "1";
    one created with "5" MUST keep 5; one created with "0" MUST read back "1" (never below 1).
    Each MUST start at metadata.generation 1.
    """
    for name, given, want in (("plain", None, "1"), ("five", "5", "5"), ("zero", "0", "1")):
        target.apply(_daemonset(name, namespace, "busybox", given))
        assert _seen(target, name, namespace) == (want, 1), name


def test_the_template_generation_grows_only_when_the_template_changes(
    target: Target, namespace: str
) -> None:
    """Template generation on update.

    Changing only the annotation MUST leave template generation and generation as stored (a
    client cannot set it); changing the pod template's image MUST add one to both.
    """
    target.apply(_daemonset("ds", namespace, "busybox"))
    target.apply(_daemonset("ds", namespace, "busybox", "9"))
    assert _seen(target, "ds", namespace) == ("1", 1)
    target.apply(_daemonset("ds", namespace, "nginx"))
    assert _seen(target, "ds", namespace) == ("2", 2)
    target.apply(_daemonset("ds", namespace, "nginx", "1"))
    assert _seen(target, "ds", namespace) == ("2", 2)
