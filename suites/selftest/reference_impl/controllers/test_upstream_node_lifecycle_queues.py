"""The node lifecycle controller's two work queues (pkg/controller/nodelifecycle/
node_lifecycle_controller.go v1.37.2). Upstream has no test rows for them; these follow
the source: ``podUpdateQueue`` is a rate-limiting queue with
``DefaultTypedControllerRateLimiter`` whose ``processPod`` re-adds a pod it failed to mark
NotReady (``AddRateLimited``; a pod already deleted is not retried), and
``nodeUpdateQueue`` is a plain queue whose worker only logs a failed NoSchedule taint or
label pass ("TODO: Add nodeName back to the queue"); ``AddOrUpdateLabelsOnNode`` retries a
Conflict (``UpdateLabelBackoff``: 5 tries). On the harness of ``test_upstream_node_lifecycle.py``.
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from test_upstream_node_lifecycle import NOW, Env, node, pod, ready

from reference_impl.clock import Instant, millis
from reference_impl.errors import ApiError, Conflict, NotFound, ServiceUnavailable

Obj = dict[str, Any]
POD: Final = "default/pod0"


def _failing(env: Env, monkeypatch: pytest.MonkeyPatch, method: str, kind: str, errors: list[ApiError]) -> list[str]:
    """``method`` of the server fails for ``kind`` with ``errors`` in turn, then works;
    every call is logged."""
    real = getattr(env.server, method)
    log: list[str] = []

    def wrapped(obj: Obj, *a: Any, **k: Any) -> Obj:
        if obj.get("kind") != kind:
            return real(obj, *a, **k)  # type: ignore[no-any-return]
        log.append(method)
        if errors:
            raise errors.pop(0)
        return real(obj, *a, **k)  # type: ignore[no-any-return]

    monkeypatch.setattr(env.server, method, wrapped)
    return log


def _not_ready_env() -> Env:
    env = Env(NOW, [node("node0", [ready("False", NOW)], None)], [pod("pod0", "node0")])
    env.ctrl.monitor_node_health()
    return env


def _pod_ready(env: Env) -> str:
    p = env.server.get("v1", "Pod", "pod0", "default")
    return str(next(c for c in p["status"]["conditions"] if c["type"] == "Ready")["status"])


def _step(env: Env, by: int) -> None:
    env.clock.run_until(Instant(env.clock.now() + by))


def test_process_pod_failure_is_rate_limited(monkeypatch: pytest.MonkeyPatch) -> None:
    env = _not_ready_env()
    log = _failing(env, monkeypatch, "update_status", "Pod", [ServiceUnavailable("fake error")] * 2)
    env.ctrl._pod_q.add(POD)
    _step(env, 0)
    assert log == ["update_status"] and env.ctrl._pod_q.num_requeues(POD) == 1
    _step(env, millis(5) - 1)
    assert len(log) == 1, "the first retry waits 5 ms"
    _step(env, 1)
    assert len(log) == 2 and env.ctrl._pod_q.num_requeues(POD) == 2
    _step(env, millis(10))
    assert len(log) == 3 and _pod_ready(env) == "False"
    assert env.ctrl._pod_q.num_requeues(POD) == 0


def test_process_pod_not_found_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    env = _not_ready_env()
    log = _failing(env, monkeypatch, "update_status", "Pod", [NotFound('pods "pod0" not found')])
    env.ctrl._pod_q.add(POD)
    _step(env, millis(1000))
    assert log == ["update_status"] and env.ctrl._pod_q.num_requeues(POD) == 0


_ARCH: Final = {"kubernetes.io/arch": "amd64"}


@pytest.mark.parametrize(
    ("errors", "calls", "labelled"),
    [
        pytest.param([Conflict("conflict")] * 4, 5, True, id="conflicts are retried up to 5 tries"),
        pytest.param([Conflict("conflict")] * 5, 5, False, id="a fifth conflict gives up, not requeued"),
        pytest.param([ServiceUnavailable("fake error")], 1, False, id="another error is logged, not requeued"),
    ],
)
def test_node_label_pass_retries(
    monkeypatch: pytest.MonkeyPatch, errors: list[ApiError], calls: int, labelled: bool
) -> None:
    env = Env(NOW, [node("node0", [ready("True", NOW)], None, extra=_ARCH)])
    log = _failing(env, monkeypatch, "update", "Node", list(errors))
    env.ctrl._process_node("node0")
    _step(env, millis(5000))
    labels = env.server.get("v1", "Node", "node0")["metadata"]["labels"]
    assert len(log) == calls
    assert (labels.get("beta.kubernetes.io/arch") == "amd64") is labelled
    assert len(env.ctrl._node_q) == 0
