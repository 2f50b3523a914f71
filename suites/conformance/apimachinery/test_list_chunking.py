"""API machinery conformance: chunked lists (``limit`` and ``continue``).

After upstream's e2e test/e2e/apimachinery/chunking.go: a list with ``limit`` returns
pages in key (name) order, each page but the last carrying a continue token, all read at
the first page's resourceVersion; ``remainingItemCount`` counts what is left only when no
selector is used (storage.PrepareContinueToken); a malformed continue token is a 400.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Target
from reference_impl.api import make_configmap
from reference_impl.errors import BadRequest

pytestmark = pytest.mark.conformance

COUNT = 25
PAGE = 10


def _pages(target: Target, namespace: str, selector: str | None) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = []
    token = ""
    while True:
        page = target.list_page("v1", "ConfigMap", namespace, selector, limit=PAGE, continue_=token)
        pages.append(page)
        token = str(page["metadata"].get("continue") or "")
        if not token:
            return pages
        assert len(pages) < 50, "the continue tokens never ran out"


def _names(pages: list[dict[str, Any]]) -> list[str]:
    return [item["metadata"]["name"] for page in pages for item in page["items"]]


def test_list_pages_through_continue_tokens(target: Target, namespace: str) -> None:
    """API machinery, chunked list.

    Listing 25 labelled ConfigMaps with limit=10 MUST return every one exactly once, in
    name order, over pages of at most 10; every page but the last MUST carry a continue
    token, and every page MUST report the first page's resourceVersion. With a label
    selector no page carries remainingItemCount; without one, each page but the last
    MUST carry the count of the objects left after it. A malformed continue token MUST
    be refused with 400 BadRequest.
    """
    created = [f"chunk-{i:02d}" for i in range(COUNT)]
    for name in created:
        cm = make_configmap(name, namespace, i=name).build()
        cm["metadata"]["labels"] = {"garhwal.dev/chunking": "yes"}
        target.apply(cm)

    # With a label selector: exactly the labelled objects, no remainingItemCount.
    pages = _pages(target, namespace, "garhwal.dev/chunking=yes")
    assert _names(pages) == created
    assert [len(p["items"]) for p in pages] == [10, 10, 5]
    rv = pages[0]["metadata"]["resourceVersion"]
    for page in pages:
        assert page["metadata"]["resourceVersion"] == rv
        assert "remainingItemCount" not in page["metadata"]
    assert all(p["metadata"].get("continue") for p in pages[:-1])

    # Without a selector: the namespace may hold other ConfigMaps (kube-root-ca.crt).
    pages = _pages(target, namespace, None)
    names = _names(pages)
    assert names == sorted(names) and len(set(names)) == len(names)
    assert [n for n in names if n.startswith("chunk-")] == created
    rv = pages[0]["metadata"]["resourceVersion"]
    seen = 0
    for page in pages[:-1]:
        seen += len(page["items"])
        assert len(page["items"]) == PAGE
        assert page["metadata"]["resourceVersion"] == rv
        assert page["metadata"]["remainingItemCount"] == len(names) - seen
    assert pages[-1]["metadata"]["resourceVersion"] == rv
    assert "remainingItemCount" not in pages[-1]["metadata"]

    with pytest.raises(BadRequest):
        target.list_page("v1", "ConfigMap", namespace, limit=PAGE, continue_="not-a-token!")
