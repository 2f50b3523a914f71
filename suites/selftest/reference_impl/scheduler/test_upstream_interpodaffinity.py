"""InterPodAffinity Filter rows ported from upstream
pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go (v1.37.2):
TestRequiredAffinitySingleNode, TestRequiredAffinityMultipleNodes, TestPreFilterDisabled,
TestRemovePodHostScopedAffinityCount, TestMultipleAffinityTermsRequireSingleMatchingPod,
TestFastTrackInterPodAffinity, TestPreFilterStateAddRemovePod,
TestGetTPMapMatchingIncomingAffinityAntiAffinity.

Rows run with InterPodAffinityHostnameFastPath off (the reference models that state only;
upstream expects the same results with it on)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.scheduler.framework.cycle_state import CycleState
from reference_impl.scheduler.framework.registry import SchedulerFeatures
from reference_impl.scheduler.plugins import inter_pod_affinity as ipa
from suites.selftest.reference_impl.scheduler.upstream_st_b import (
    REQ,
    code_reasons,
    make_pod,
    namespace,
    node,
    sel_exists,
    sel_in,
    sel_not_in,
    snapshot,
)

Obj = dict[str, Any]
UU, U = "UNSCHEDULABLE_AND_UNRESOLVABLE", "UNSCHEDULABLE"
AFF = (UU, (ipa.ERR_REASON_AFFINITY,))
ANTI = (U, (ipa.ERR_REASON_ANTI_AFFINITY,))
EXIST = (U, (ipa.ERR_REASON_EXISTING_ANTI_AFFINITY,))
OKS = ("SUCCESS", ())
SKIP = ("SKIP", ())

# scoring_test.go's package-level namespaces, which TestRequiredAffinitySingleNode uses.
NAMESPACES = [
    namespace("subteam1.team1", {"team": "team1"}), namespace("subteam2.team1", {"team": "team1"}),
    namespace("subteam1.team2", {"team": "team2"}), namespace("subteam2.team2", {"team": "team2"}),
]


def _run(pod: Obj, pods: list[Obj], nodes: list[Obj], objs: list[Obj]) -> tuple[Any, list[Any]]:
    h = snapshot(pods, nodes, objs)
    pl = ipa.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, ipa.InterPodAffinity)
    state = CycleState()
    _, pre = pl.pre_filter(state, pod, h.nodes())
    if not pre.is_success():
        return code_reasons(pre), []
    return OKS, [code_reasons(pl.filter(state, pod, h.node_info(n["metadata"]["name"]))) for n in nodes]


POD_LABEL = {"service": "securityscan"}
POD_LABEL2 = {"security": "S1"}
NODE1 = node("node1", {"region": "r1", "zone": "z11"})


def _p0() -> Obj:
    return make_pod().labels(POD_LABEL).node("node1").obj()


def _svc_term(key: str, ns_selector: Obj | None = None, namespaces: tuple[str, ...] = ()) -> Any:
    return key, sel_in("service", "securityscan", "value2"), namespaces, ns_selector


def _with_terms(ns: str, labels: dict[str, str], aff: list[Any], anti: list[Any]) -> Obj:
    """``createPodWithAffinityTerms``."""
    w = make_pod().ns(ns).labels(labels)
    for key, sel, nss, ns_sel in aff:
        w.affinity(key, sel, REQ, namespaces=nss, ns_selector=ns_sel)
    for key, sel, nss, ns_sel in anti:
        w.anti(key, sel, REQ, namespaces=nss, ns_selector=ns_sel)
    return w.obj()


def _two(a: Obj, b: Obj) -> Obj:
    return {"matchExpressions": a["matchExpressions"] + b["matchExpressions"]}


TEAM1 = sel_in("team", "team1")
BAD_VALUE = (
    'parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: "{{.bad-value.}}": a valid label '
    "must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation "
    "is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)

SINGLE = [
    ("A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
     make_pod().obj(), [], SKIP, None),
    ("satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
     make_pod().labels(POD_LABEL2).affinity("region", sel_in("service", "securityscan", "value2")).obj(),
     [_p0()], OKS, OKS),
    ("satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
     make_pod().labels(POD_LABEL2).affinity("region", sel_not_in("service", "securityscan3", "value3")).obj(),
     [_p0()], OKS, OKS),
    ("Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
     _with_terms("", POD_LABEL2, [("", sel_in("service", "securityscan", "value2"), ("DiffNameSpace",), None)], []),
     [make_pod().ns("ns").label("service", "securityscan").node("node1").obj()], OKS, AFF),
    ("Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
     make_pod().labels(POD_LABEL).affinity("", sel_in("service", "antivirusscan", "value2")).obj(),
     [_p0()], OKS, AFF),
    ("satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution ",
     _with_terms("", POD_LABEL2, [
         ("region", _two(sel_exists("service"), {"matchExpressions": [{"key": "wrongkey", "operator": "DoesNotExist"}]}), (), None),
         ("region", _two(sel_in("service", "securityscan"), sel_not_in("service", "WrongValue")), (), None)], []),
     [_p0()], OKS, OKS),
    ("The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
     _with_terms("", POD_LABEL2, [
         ("region", _two(sel_exists("service"), {"matchExpressions": [{"key": "wrongkey", "operator": "DoesNotExist"}]}), (), None),
         ("region", _two(sel_in("service", "securityscan2"), sel_not_in("service", "WrongValue")), (), None)], []),
     [_p0()], OKS, AFF),
    ("satisfies the PodAffinity and PodAntiAffinity with the existing pod",
     make_pod().labels(POD_LABEL2).affinity("region", sel_in("service", "securityscan", "value2"))
     .anti("node", sel_in("service", "antivirusscan", "value2")).obj(),
     [_p0()], OKS, OKS),
    ("satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
     make_pod().labels(POD_LABEL2).affinity("region", sel_in("service", "securityscan", "value2"))
     .anti("node", sel_in("service", "antivirusscan", "value2")).obj(),
     [make_pod().node("node1").labels(POD_LABEL).anti("node", sel_in("service", "antivirusscan", "value2")).obj()],
     OKS, OKS),
    ("satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
     make_pod().labels(POD_LABEL2).affinity("region", sel_in("service", "securityscan", "value2"))
     .anti("zone", sel_in("service", "securityscan", "value2")).obj(),
     [_p0()], OKS, ANTI),
    ("satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
     make_pod().labels(POD_LABEL).affinity("region", sel_in("service", "securityscan", "value2"))
     .anti("node", sel_in("service", "antivirusscan", "value2")).obj(),
     [make_pod().labels(POD_LABEL).node("node1").anti("zone", sel_in("service", "securityscan", "value2")).obj()],
     OKS, EXIST),
    ("pod matches its own Label in PodAffinity and that matches the existing pod Labels",
     make_pod().labels(POD_LABEL).affinity("region", sel_not_in("service", "securityscan", "value2")).obj(),
     [make_pod().label("service", "securityscan").node("node2").obj()], OKS, AFF),
    ("verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
     make_pod().labels(POD_LABEL).obj(),
     [make_pod().node("node1").labels(POD_LABEL).anti("zone", sel_in("service", "securityscan", "value2")).obj()],
     OKS, EXIST),
    ("verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
     make_pod().labels(POD_LABEL).obj(),
     [make_pod().node("node1").labels(POD_LABEL).anti("zone", sel_not_in("service", "securityscan", "value2")).obj()],
     SKIP, None),
    ("satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
     make_pod().labels(POD_LABEL).anti("region", sel_exists("service")).anti("region", sel_exists("security")).obj(),
     [make_pod().node("node1").labels(POD_LABEL2).anti("zone", sel_exists("security")).obj()], OKS, ANTI),
    ("PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on AffinityTerms",
     make_pod().labels(POD_LABEL).anti("zone", sel_exists("service")).anti("zone", sel_exists("security")).obj(),
     [make_pod().node("node1").labels(POD_LABEL2).anti("zone", sel_exists("security")).obj()], OKS, ANTI),
    ("PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on AffinityTerms",
     make_pod().labels(POD_LABEL2).anti("zone", sel_exists("security")).obj(),
     [make_pod().node("node1").labels(POD_LABEL).anti("zone", sel_exists("service"))
      .anti("zone", sel_exists("security")).obj()], OKS, EXIST),
    ("PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on AffinityTerms",
     make_pod().labels({"abc": "", "xyz": ""}).anti("zone", sel_exists("abc")).anti("zone", sel_exists("def")).obj(),
     [make_pod().node("node1").labels({"def": "", "xyz": ""}).anti("zone", sel_exists("abc"))
      .anti("zone", sel_exists("def")).obj()], OKS, ANTI),
    ("PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on AffinityTerms",
     make_pod().labels({"def": "", "xyz": ""}).anti("zone", sel_exists("abc")).anti("zone", sel_exists("def")).obj(),
     [make_pod().node("node1").labels({"abc": "", "xyz": ""}).anti("zone", sel_exists("abc"))
      .anti("zone", sel_exists("def")).obj()], OKS, ANTI),
    ("PodAffinity fails PreFilter with an invalid affinity label syntax",
     make_pod().labels(POD_LABEL).affinity("region", sel_in("service", "{{.bad-value.}}"))
     .affinity("node", sel_in("service", "antivirusscan", "value2")).obj(),
     [], (UU, (BAD_VALUE,)), None),
    ("PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax",
     make_pod().labels(POD_LABEL).affinity("region", sel_in("service", "foo"))
     .affinity("node", sel_in("service", "{{.bad-value.}}")).obj(),
     [], (UU, (BAD_VALUE,)), None),
    ("affinity with NamespaceSelector",
     _with_terms("", POD_LABEL2, [_svc_term("region", TEAM1)], []),
     [make_pod().ns("subteam1.team1").labels(POD_LABEL).node("node1").obj()], OKS, OKS),
    ("affinity with non-matching NamespaceSelector",
     _with_terms("", POD_LABEL2, [_svc_term("region", TEAM1)], []),
     [make_pod().ns("subteam1.team2").labels(POD_LABEL).node("node1").obj()], OKS, AFF),
    ("anti-affinity with matching NamespaceSelector",
     _with_terms("subteam1.team1", POD_LABEL2, [], [_svc_term("zone", TEAM1)]),
     [make_pod().ns("subteam2.team1").labels(POD_LABEL).node("node1").obj()], OKS, ANTI),
    ("anti-affinity with matching all NamespaceSelector",
     _with_terms("subteam1.team1", POD_LABEL2, [], [_svc_term("zone", {})]),
     [make_pod().ns("subteam2.team1").labels(POD_LABEL).node("node1").obj()], OKS, ANTI),
    ("anti-affinity with non-matching NamespaceSelector",
     _with_terms("subteam1.team1", POD_LABEL2, [], [_svc_term("zone", TEAM1)]),
     [make_pod().ns("subteam1.team2").labels(POD_LABEL).node("node1").obj()], OKS, OKS),
]


@pytest.mark.parametrize(("pod", "pods", "want_pre", "want"), [pytest.param(*r[1:], id=r[0]) for r in SINGLE])
def test_required_affinity_single_node(pod: Obj, pods: list[Obj], want_pre: Any, want: Any) -> None:
    pre, got = _run(pod, pods, [NODE1], NAMESPACES)
    assert pre == want_pre
    if want is not None:
        assert got == [want]


CHINA = {"region": "China"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
INDIA = {"region": "India"}


def _n3(a: dict[str, str], b: dict[str, str], c: dict[str, str], names: str = "ABC") -> list[Obj]:
    return [node(f"node{x}", lab) for x, lab in zip(names, (a, b, c), strict=True)]


def _hosts(*zones: str, region: str = "r1") -> list[Obj]:
    return [node(f"node{x}", {"region": region, "zone": z, "hostname": f"node{x}"})
            for x, z in zip("ABC", zones, strict=False)]


MULTI = [
    ("A pod can be scheduled onto all the nodes that have the same topology key & label value with one of them has an existing pod that matches the affinity rules",
     make_pod().affinity("region", sel_in("foo", "bar")).obj(),
     [make_pod("p1").node("node1").labels({"foo": "bar"}).obj()],
     _n3(CHINA, CHINA_AZ1, INDIA, "123"), OKS, [OKS, OKS, AFF]),
    ("The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod of the collection "
     "should not be blocked from being scheduled onto any node, even there's no existing pod that matches the rule anywhere.",
     make_pod().labels({"foo": "bar", "service": "securityscan"}).affinity("zone", sel_in("foo", "bar"))
     .affinity("zone", sel_in("service", "securityscan")).obj(),
     [make_pod("p1").node("nodeA").labels({"foo": "bar"}).obj()],
     [node("nodeA", {"zone": "az1", "hostname": "h1"}), node("nodeB", {"zone": "az2", "hostname": "h2"})],
     OKS, [OKS, OKS]),
    ("The first pod of the collection can only be scheduled on nodes labelled with the requested topology keys",
     make_pod().labels({"foo": "bar", "service": "securityscan"}).affinity("zone", sel_in("foo", "bar"))
     .affinity("zone", sel_in("service", "securityscan")).obj(),
     [make_pod("p1").node("nodeA").labels({"foo": "bar"}).obj()],
     [node("nodeA", {"zoneLabel": "az1", "hostname": "h1"}), node("nodeB", {"zoneLabel": "az2", "hostname": "h2"})],
     OKS, [AFF, AFF]),
    ("NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
     make_pod().anti("region", sel_in("foo", "abc")).obj(),
     [make_pod().node("nodeA").labels({"foo": "abc"}).obj()],
     [node("nodeA", {"region": "r1", "hostname": "nodeA"}), node("nodeB", {"region": "r1", "hostname": "nodeB"})],
     OKS, [ANTI, ANTI]),
    ("This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a pod.",
     make_pod().anti("region", sel_in("foo", "abc")).anti("zone", sel_in("service", "securityscan")).obj(),
     [make_pod().node("nodeA").labels({"foo": "abc", "service": "securityscan"}).obj()],
     _hosts("z1", "z2"), OKS, [ANTI, ANTI]),
    ("NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
     make_pod().anti("region", sel_in("foo", "abc")).obj(),
     [make_pod().node("nodeA").labels({"foo": "abc"}).obj()],
     _n3(CHINA, CHINA_AZ1, INDIA), OKS, [ANTI, ANTI, OKS]),
    ("NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity rule but in different namespace)",
     make_pod().ns("NS1").labels({"foo": "123"}).anti("region", sel_in("foo", "bar")).obj(),
     [make_pod().node("nodeA").ns("NS1").labels({"foo": "bar"}).obj(),
      make_pod().node("nodeC").ns("NS2").anti("region", sel_in("foo", "123")).obj()],
     _n3(CHINA, CHINA_AZ1, INDIA), OKS, [ANTI, ANTI, OKS]),
    ("Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the term is also checked",
     make_pod().label("foo", "").obj(),
     [make_pod().node("nodeA").anti("invalid-node-label", sel_exists("foo")).obj()],
     _hosts("z1", "z1"), SKIP, None),
    ("Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey matches",
     make_pod().node("nodeA").anti("invalid-node-label", sel_exists("foo")).obj(),
     [make_pod().node("nodeA").labels({"foo": ""}).obj()],
     _hosts("z1", "z1"), OKS, [OKS, OKS]),
    ("Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each existingPod's terms on all nodes",
     make_pod().label("foo", "").label("bar", "").obj(),
     [make_pod().node("nodeA").anti("zone", sel_exists("foo")).obj(),
      make_pod().node("nodeA").anti("region", sel_exists("bar")).obj()],
     _hosts("z1", "z2"), OKS, [EXIST, EXIST]),
    ("Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least violates one anti-affinity rule of existingPod",
     make_pod().anti("zone", sel_exists("foo")).anti("region", sel_exists("bar")).obj(),
     [make_pod().node("nodeA").labels({"foo": ""}).obj(), make_pod().node("nodeB").labels({"bar": ""}).obj()],
     _hosts("z1", "z2"), OKS, [ANTI, ANTI]),
    ("Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
     make_pod().label("foo", "").label("bar", "").obj(),
     [make_pod().node("nodeA").anti("invalid-node-label", sel_exists("foo")).anti("zone", sel_exists("bar")).obj()],
     _hosts("z1", "z2"), OKS, [EXIST, OKS]),
    ("Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
     make_pod().anti("invalid-node-label", sel_exists("foo")).anti("zone", sel_exists("bar")).obj(),
     [make_pod("podA").node("nodeA").labels({"foo": "", "bar": ""}).obj()],
     _hosts("z1", "z2"), OKS, [ANTI, OKS]),
    ("Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
     make_pod().label("foo", "").label("bar", "").obj(),
     [make_pod().node("nodeA").anti("region", sel_exists("foo")).anti("zone", sel_exists("bar")).obj()],
     _hosts("z1", "z2"), OKS, [EXIST, EXIST]),
    ("Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
     make_pod().anti("region", sel_exists("foo")).anti("zone", sel_exists("bar")).obj(),
     [make_pod().node("nodeA").labels({"foo": "", "bar": ""}).obj()],
     _hosts("z1", "z2"), OKS, [ANTI, ANTI]),
    ("Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
     make_pod().label("foo", "").label("bar", "").obj(),
     [make_pod().node("nodeA").anti("zone", sel_exists("foo")).anti("zone", sel_exists("labelA")).obj(),
      make_pod().node("nodeB").anti("zone", sel_exists("bar")).anti("zone", sel_exists("labelB")).obj()],
     _hosts("z1", "z2", "z3"), OKS, [EXIST, EXIST, OKS]),
    ("Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match",
     make_pod().affinity("region", sel_exists("foo")).affinity("zone", sel_exists("bar")).obj(),
     [make_pod("pod1").labels({"foo": "", "bar": ""}).node("nodeA").obj()],
     _hosts("z1", "z1"), OKS, [OKS, OKS]),
    ("Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match, and the match logic should be satisfied on the same pod",
     make_pod().affinity("region", sel_exists("foo")).affinity("zone", sel_exists("bar")).obj(),
     [make_pod("pod1").node("nodeA").labels({"foo": ""}).obj(), make_pod("pod2").node("nodeB").labels({"bar": ""}).obj()],
     _hosts("z1", "z2"), OKS, [AFF, AFF]),
    ("Test incoming pod's host-scoped affinity (fast path)",
     make_pod().affinity("kubernetes.io/hostname", sel_exists("foo")).obj(),
     [make_pod("pod1").labels({"foo": ""}).node("nodeA").obj()],
     [node("nodeA", {"kubernetes.io/hostname": "nodeA"}), node("nodeB", {"kubernetes.io/hostname": "nodeB"})],
     OKS, [OKS, AFF]),
    ("Test incoming pod's host-scoped anti-affinity (fast path)",
     make_pod().anti("kubernetes.io/hostname", sel_exists("foo")).obj(),
     [make_pod("pod1").labels({"foo": ""}).node("nodeA").obj()],
     [node("nodeA", {"kubernetes.io/hostname": "nodeA"}), node("nodeB", {"kubernetes.io/hostname": "nodeB"})],
     OKS, [ANTI, OKS]),
]


@pytest.mark.parametrize(("pod", "pods", "nodes", "want_pre", "want"),
                         [pytest.param(*r[1:], id=r[0]) for r in MULTI])
def test_required_affinity_multiple_nodes(pod: Obj, pods: list[Obj], nodes: list[Obj], want_pre: Any,
                                          want: Any) -> None:
    pre, got = _run(pod, pods, nodes, [namespace("NS1")])
    assert pre == want_pre
    if want is not None:
        assert got == want


def test_pre_filter_disabled() -> None:
    """Filter without PreFilter's state is an error (``fwk.AsStatus(fwk.ErrNotFound)``)."""
    h = snapshot([], [])
    pl = ipa.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, ipa.InterPodAffinity)
    ni = snapshot([], [node("n")]).node_info("n")
    with pytest.raises(KeyError):
        pl.filter(CycleState(), make_pod().obj(), ni)


def _filters(h: Any, pl: Any, pod: Obj, names: list[str]) -> list[str]:
    state = CycleState()
    _, pre = pl.pre_filter(state, pod, h.nodes())
    assert pre.is_success() or pre.is_skip(), pre
    if pre.is_skip():
        return ["SUCCESS" for _ in names]
    return [pl.filter(state, pod, h.node_info(n)).code.name for n in names]


def test_remove_pod_host_scoped_affinity_count() -> None:
    """TestRemovePodHostScopedAffinityCount: after the only matching pod is removed (the
    reference recounts in ``refresh_pre_filter``, upstream's RemovePod), self-affinity
    lets the pod onto every node."""
    pending = make_pod("pending").labels({"foo": "bar"}).affinity("kubernetes.io/hostname", sel_in("foo", "bar")).obj()
    existing = make_pod("existing").node("nodeA").labels({"foo": "bar"}).obj()
    nodes = [node("nodeA", {"kubernetes.io/hostname": "nodeA"}), node("nodeB", {"kubernetes.io/hostname": "nodeB"})]
    h = snapshot([existing], nodes)
    pl = ipa.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, ipa.InterPodAffinity)
    state = CycleState()
    assert pl.pre_filter(state, pending, h.nodes())[1].is_success()
    assert pl.filter(state, pending, h.node_info("nodeA")).is_success()
    assert not pl.filter(state, pending, h.node_info("nodeB")).is_success()
    h.cache.remove_pod({**existing, "spec": {**existing["spec"], "nodeName": "nodeA"}})
    pl.refresh_pre_filter(state, pending, h.nodes())
    assert pl.filter(state, pending, h.node_info("nodeA")).is_success()
    assert pl.filter(state, pending, h.node_info("nodeB")).is_success()


def test_multiple_affinity_terms_require_single_matching_pod() -> None:
    """TestMultipleAffinityTermsRequireSingleMatchingPod."""
    two = (make_pod("pod-1").ns("default").affinity("kubernetes.io/hostname", sel_in("foo", "bar"))
           .affinity("kubernetes.io/hostname", sel_in("baz", "qux")).obj())
    pod_a = make_pod("podA").ns("default").label("foo", "bar").node("node-1").obj()
    pod_b = make_pod("podB").ns("default").label("baz", "qux").node("node-1").obj()
    pod_c = make_pod("podC").ns("default").label("foo", "bar").label("baz", "qux").node("node-3").obj()
    nodes = [node(n, {"kubernetes.io/hostname": n}) for n in ("node-1", "node-2", "node-3")]
    h = snapshot([pod_a, pod_b, pod_c], nodes, [namespace("default")])
    pl = ipa.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert _filters(h, pl, two, ["node-1", "node-3", "node-2"]) == [
        "UNSCHEDULABLE_AND_UNRESOLVABLE", "SUCCESS", "UNSCHEDULABLE_AND_UNRESOLVABLE"]
    self_pod = {**two, "metadata": {**two["metadata"], "labels": {"foo": "bar", "baz": "qux"}}}
    h2 = snapshot([pod_a, pod_b], nodes, [namespace("default")])
    pl2 = ipa.new(None, h2, SchedulerFeatures())  # type: ignore[arg-type]
    assert _filters(h2, pl2, self_pod, ["node-1"]) == ["SUCCESS"]


def test_fast_track_inter_pod_affinity() -> None:
    """TestFastTrackInterPodAffinity: zone- and host-scoped anti-affinity, and a namespace
    selector that excludes namespaces labelled ``team``."""
    zone, host = "topology.kubernetes.io/zone", "kubernetes.io/hostname"
    zone_anti = make_pod("pod-1").ns("default").label("app", "foo").anti(zone, sel_in("app", "foo")).obj()
    host_anti = make_pod("pod-2").ns("default").label("app", "bar").anti(host, sel_in("app", "bar")).obj()
    ns_anti = (make_pod("pod-3").ns("other").label("app", "baz")
               .anti(zone, sel_in("app", "blocked"),
                     ns_selector={"matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]}).obj())
    pods = [make_pod("pod-no-rules-foo").ns("default").label("app", "foo").node("node-1").obj(),
            make_pod("pod-no-rules-bar").ns("default").label("app", "bar").node("node-2").obj(),
            make_pod("pod-in-ns-with-team-label").ns("blue-ns").label("app", "blocked").label("team", "blue")
            .node("node-1").obj()]
    nodes = [node("node-1", {host: "node-1", zone: "zone-a"}), node("node-2", {host: "node-2", zone: "zone-b"})]
    h = snapshot(pods, nodes, [namespace("default"), namespace("other"), namespace("blue-ns", {"team": "blue"})])
    pl = ipa.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert _filters(h, pl, zone_anti, ["node-1", "node-2"]) == ["UNSCHEDULABLE", "SUCCESS"]
    assert _filters(h, pl, host_anti, ["node-1", "node-2"]) == ["SUCCESS", "UNSCHEDULABLE"]
    assert _filters(h, pl, ns_anti, ["node-1"]) == ["SUCCESS"]


# -- TestPreFilterStateAddRemovePod ----------------------------------------------------------
FOO_BAR_ANTI = [("region", sel_in("foo", "bar"))]
COMPLEX = [("region", sel_in("foo", "bar", "buzz")), ("zone", sel_not_in("service", "bar", "security", "test"))]
L1, L2, L3 = {"region": "r1", "zone": "z11"}, {"region": "r1", "zone": "z12"}, {"region": "r2", "zone": "z21"}
ABC = [node("nodeA", L1), node("nodeB", L2), node("nodeC", L3)]


def _pod(name: str, on: str = "", labels: dict[str, str] | None = None, aff: Any = (), anti: Any = ()) -> Obj:
    w = make_pod(name).labels(labels or {})
    if on:
        w.node(on)
    for key, sel in aff:
        w.affinity(key, sel)
    for key, sel in anti:
        w.anti(key, sel)
    return w.obj()


SEL1 = {"foo": "bar"}
EXISTING = [_pod("p1", "nodeA", SEL1), _pod("p2", "nodeC", anti=FOO_BAR_ANTI)]
ADD_REMOVE = [
    ("preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
     _pod("pending", labels=SEL1, anti=FOO_BAR_ANTI), EXISTING, _pod("addedPod", "nodeB", SEL1, anti=FOO_BAR_ANTI),
     ABC, {("region", "r1"): 2}, {}),
    ("preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
     _pod("pending", labels=SEL1, anti=COMPLEX), EXISTING, _pod("addedPod", "nodeA", SEL1, anti=COMPLEX), ABC,
     {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1}, {}),
    ("preFilterState matching pod affinity and anti-affinity are updated correctly after adding and removing a pod",
     _pod("pending", labels=SEL1, aff=COMPLEX), [EXISTING[0], _pod("p2", "nodeC", aff=COMPLEX, anti=FOO_BAR_ANTI)],
     _pod("addedPod", "nodeA", SEL1, anti=COMPLEX), ABC, {}, {("region", "r1"): 2, ("zone", "z11"): 2}),
    ("preFilterState anti-affinity terms with both hostname and non-hostname are updated correctly after adding "
     "and removing a pod",
     _pod("pending", labels=SEL1, anti=FOO_BAR_ANTI), [EXISTING[0]],
     _pod("addedPod", "nodeA", SEL1, anti=[*FOO_BAR_ANTI, ("kubernetes.io/hostname", sel_in("foo", "bar"))]),
     [node("nodeA", {**L1, "kubernetes.io/hostname": "nodeA"}), node("nodeB", {**L2, "kubernetes.io/hostname": "nodeB"})],
     {("region", "r1"): 2}, {}),
]


def _ipa_state(pending: Obj, pods: list[Obj], nodes: list[Obj]) -> tuple[Any, Any, CycleState]:
    h = snapshot(pods, nodes)
    pl = ipa.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, ipa.InterPodAffinity)
    state = CycleState()
    assert pl.pre_filter(state, pending, h.nodes())[1].is_success()
    return h, pl, state


def _counts(s: Any) -> tuple[dict[Any, int], ...]:
    return tuple({k: v for k, v in c.items() if v} for c in (s.existing_anti, s.affinity_counts, s.anti_counts))


@pytest.mark.parametrize(("pending", "existing", "added", "nodes", "want_anti", "want_aff"),
                         [pytest.param(*r[1:], id=r[0]) for r in ADD_REMOVE])
def test_pre_filter_state_add_remove_pod(pending: Obj, existing: list[Obj], added: Obj, nodes: list[Obj],
                                         want_anti: dict[Any, int], want_aff: dict[Any, int]) -> None:
    """TestPreFilterStateAddRemovePod: AddPod/RemovePod are the reference's recount after
    the snapshot changed (``refresh_pre_filter``)."""
    key = ipa._PRE_FILTER  # the state upstream's test reads too
    *_, all_state = _ipa_state(pending, [*existing, added], nodes)
    h, pl, state = _ipa_state(pending, existing, nodes)
    original = _counts(state.read(key))
    h.cache.add_pod(added)
    pl.refresh_pre_filter(state, pending, h.nodes())
    got = state.read(key)
    assert _counts(got)[2] == want_anti
    assert _counts(got)[1] == want_aff
    assert _counts(got) == _counts(all_state.read(key))
    h.cache.remove_pod(added)
    pl.refresh_pre_filter(state, pending, h.nodes())
    assert _counts(state.read(key)) == original
    h2, pl2, state2 = _ipa_state(pending, [*existing, added], nodes)
    h2.cache.remove_pod(added)
    pl2.refresh_pre_filter(state2, pending, h2.nodes())
    assert _counts(state2.read(key)) == original


# -- TestGetTPMapMatchingIncomingAffinityAntiAffinity ----------------------------------------
def _normal(*labels: str) -> Obj:
    return make_pod("normal").node("nodeA").labels({k: "" for k in labels}).obj()


def _terms(name: str, aff: tuple[str, ...], anti: tuple[str, ...]) -> Obj:
    w = make_pod(name)
    for k in aff:
        w.affinity("kubernetes.io/hostname", sel_exists(k))
    for k in anti:
        w.anti("kubernetes.io/hostname", sel_exists(k))
    return w.obj()


HOST_A = ("kubernetes.io/hostname", "nodeA")
TP_MAP = [
    ("nil test", [], make_pod("aaa-normal").obj(), {}, {}),
    ("incoming pod without affinity/anti-affinity causes a no-op", [_normal("aaa")], make_pod("aaa-normal").obj(),
     {}, {}),
    ("no pod has label that violates incoming pod's affinity and anti-affinity", [_normal("bbb")],
     _terms("aaa-anti", ("aaa",), ("aaa",)), {}, {}),
    ("existing pod matches incoming pod's affinity and anti-affinity - single term case", [_normal("aaa")],
     _terms("affi-antiaffi", ("aaa",), ("aaa",)), {HOST_A: 1}, {HOST_A: 1}),
    ("existing pod matches incoming pod's affinity and anti-affinity - multiple terms case", [_normal("aaa", "bbb")],
     _terms("affi-antiaffi", ("aaa", "bbb"), ("aaa",)), {HOST_A: 2}, {HOST_A: 1}),
    ("existing pod not match incoming pod's affinity but matches anti-affinity", [_normal("aaa")],
     _terms("affi-antiaffi", ("aaa", "bbb"), ("aaa", "bbb")), {}, {HOST_A: 1}),
    ("incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 1",
     [_normal("aaa", "bbb")], _terms("anaffi-antiaffiti", ("aaa", "ccc"), ("aaa", "ccc")), {}, {HOST_A: 1}),
    ("incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 2",
     [_normal("bbb")], _terms("affi-antiaffi", ("aaa", "bbb"), ("aaa", "bbb")), {}, {HOST_A: 1}),
]


@pytest.mark.parametrize(("pods", "pod", "want_aff", "want_anti"), [pytest.param(*r[1:], id=r[0]) for r in TP_MAP])
def test_get_tp_map_matching_incoming_affinity_anti_affinity(pods: list[Obj], pod: Obj, want_aff: dict[Any, int],
                                                             want_anti: dict[Any, int]) -> None:
    """The incoming pod's affinity and anti-affinity counts (``getIncomingAffinityAntiAffinityCounts``);
    a PreFilter SKIP (no terms anywhere) means both are empty."""
    h = snapshot(pods, [node("nodeA", {"kubernetes.io/hostname": "nodeA"})])
    pl = ipa.new(None, h, SchedulerFeatures())  # type: ignore[arg-type]
    assert isinstance(pl, ipa.InterPodAffinity)
    state = CycleState()
    pl.pre_filter(state, pod, h.nodes())
    got = state.try_read(ipa._PRE_FILTER)  # the state upstream's test reads too
    _, aff, anti = _counts(got) if got is not None else ({}, {}, {})
    assert (aff, anti) == (want_aff, want_anti)
