"""API machinery conformance: the NamespaceLifecycle admission plugin.

kube-apiserver runs NamespaceLifecycle with default, kube-system and kube-public as its
immortal namespaces (k8s.io/apiserver ``plugin/namespace/lifecycle``): their DELETE is
refused in admission, which a delete runs before the store acts, dry runs included (so
the test asks in dry-run and cannot remove one even from a cluster without the plugin).
A namespace being terminated takes no new content.
"""

from __future__ import annotations

import pytest

from fixtures import Target
from fixtures.helpers.finalizers import release_finalizers
from fixtures.targets.extensions import DryRunWrites, dry_run_writes_of
from reference_impl.api import make_configmap, make_namespace
from reference_impl.errors import Forbidden, NotFound

pytestmark = pytest.mark.conformance

FINALIZER = "garhwal.dev/namespace-lifecycle-test"


@pytest.mark.parametrize("name", ["default", "kube-system", "kube-public"])
def test_an_immortal_namespace_may_not_be_deleted(target: Target, name: str) -> None:
    """Immortal namespaces.

    A DELETE of the namespace ``default``, ``kube-system`` or ``kube-public`` MUST be
    refused as 403 Forbidden, ``namespaces "<name>" is forbidden: this namespace may not
    be deleted``, and the namespace MUST stay without a deletionTimestamp.
    """
    dry: DryRunWrites | None = dry_run_writes_of(target)
    if dry is None:
        pytest.skip(f"target {target.name!r} does not send dry-run writes")
    with pytest.raises(Forbidden) as refused:
        dry.dry_run_delete("v1", "Namespace", name)
    assert refused.value.message == (
        f'namespaces "{name}" is forbidden: this namespace may not be deleted'
    )
    assert not target.get("v1", "Namespace", name)["metadata"].get("deletionTimestamp")


def test_a_terminating_namespace_takes_no_new_content(target: Target, namespace: str) -> None:
    """Creates into a terminating namespace.

    While a deleted namespace is held in Terminating (here by a ConfigMap's finalizer), a
    create in it MUST be refused as 403 Forbidden, ``configmaps "<name>" is forbidden:
    unable to create new content in namespace <ns> because it is being terminated``; once
    the finalizer is removed the namespace MUST go.
    """
    ns = f"{namespace}-term"
    target.apply(make_namespace(ns).build())
    held = make_configmap("held", ns, k="1").build()
    held["metadata"]["finalizers"] = [FINALIZER]
    target.apply(held)
    try:
        target.delete("v1", "Namespace", ns)

        def terminating() -> bool:
            return bool(target.get("v1", "Namespace", ns)["metadata"].get("deletionTimestamp"))

        target.wait_until(terminating, timeout=30, what=f"namespace {ns} terminating")
        with pytest.raises(Forbidden) as refused:
            target.apply(make_configmap("late", ns, k="2").build())
        assert refused.value.message == (
            f'configmaps "late" is forbidden: unable to create new content in namespace {ns} '
            "because it is being terminated"
        )
    finally:
        release_finalizers(target, "v1", "ConfigMap", "held", ns)

    def gone() -> bool:
        try:
            target.get("v1", "Namespace", ns)
        except NotFound:
            return True
        return False

    target.wait_until(gone, timeout=120, what=f"namespace {ns} gone")
