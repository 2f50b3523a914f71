"""API machinery conformance: a label-selected watch, and a watch from resourceVersion "0".

After upstream's e2e test/e2e/apimachinery/watch.go ("should observe an object deletion
if it stops meeting the requirements of the selector") and k8s.io/apiserver's
cacheWatcher: an object that stops matching a watch's selector is DELETED to it (its
last matching state, at the revision of the change), one that starts matching ADDED; a
watch from resourceVersion "0" starts with the current objects as ADDED, not the history.
"""

from __future__ import annotations

import pytest

from fixtures import Target
from reference_impl.api import make_configmap
from reference_impl.api.watch import WatchEvent

pytestmark = pytest.mark.conformance

LABEL = "garhwal.dev/watch-selector"
SELECTOR = f"{LABEL}=yes"


def _cm(name: str, namespace: str, labelled: bool, **data: str) -> dict[str, object]:
    cm = make_configmap(name, namespace, **data).build()
    if labelled:
        cm["metadata"]["labels"] = {LABEL: "yes"}
    return cm


def test_label_selected_watch_and_watch_from_zero(target: Target, namespace: str) -> None:
    """API machinery, watch with a label selector; watch from resourceVersion 0.

    A watch with a label selector, started from the resourceVersion of a list, MUST
    deliver a labelled ConfigMap's create, update and the update removing its label as
    ADDED, MODIFIED and DELETED, in order; the DELETED object MUST be the last matching
    state (still labelled) at the resourceVersion of the update that removed the label.
    A later create and delete of another labelled ConfigMap MUST follow as ADDED and
    DELETED, and an unlabelled ConfigMap MUST never appear. A watch from resourceVersion
    "0" MUST then start with the current objects as ADDED, each once, in their current
    state, without the deleted object.
    """
    target.apply(_cm("mark", namespace, labelled=False))
    since = target.list_page("v1", "ConfigMap", namespace, SELECTOR)["metadata"]["resourceVersion"]
    target.apply(_cm("w", namespace, labelled=True, n="1"))
    target.apply(_cm("other", namespace, labelled=False))
    target.apply(_cm("w", namespace, labelled=True, n="2"))
    unlabelled = target.apply(_cm("w", namespace, labelled=False, n="2"))
    target.apply(_cm("x", namespace, labelled=True))
    target.delete("v1", "ConfigMap", "x", namespace)

    seen: list[WatchEvent] = []
    for ev in target.watch("v1", "ConfigMap", since, namespace=namespace, timeout=10,
                           label_selector=SELECTOR):  # fmt: skip
        if ev.type == "BOOKMARK":
            continue
        seen.append(ev)
        if ev.type == "DELETED" and ev.object["metadata"]["name"] == "x":
            break
    assert [(e.object["metadata"]["name"], e.type) for e in seen] == [
        ("w", "ADDED"), ("w", "MODIFIED"), ("w", "DELETED"), ("x", "ADDED"), ("x", "DELETED"),
    ]  # fmt: skip
    gone = seen[2].object
    assert gone["metadata"]["resourceVersion"] == unlabelled["metadata"]["resourceVersion"]
    assert (gone["metadata"].get("labels") or {}).get(LABEL) == "yes"
    assert gone.get("data") == {"n": "2"}

    # The watch above was served after every write: a watch from "0" sees them all.
    want = {"mark", "w", "other"}
    initial: dict[str, WatchEvent] = {}
    for ev in target.watch("v1", "ConfigMap", "0", namespace=namespace, timeout=10):
        name = ev.object["metadata"].get("name")
        if ev.type == "BOOKMARK" or name not in want | {"x"}:
            continue
        assert ev.type == "ADDED", (name, ev.type)
        assert name not in initial, f"{name} delivered twice"
        initial[name] = ev
        if set(initial) == want:
            break
    assert set(initial) == want
    w = initial["w"].object
    assert not (w["metadata"].get("labels") or {}).get(LABEL)
    assert w.get("data") == {"n": "2"}
    assert w["metadata"]["resourceVersion"] == unlabelled["metadata"]["resourceVersion"]
