"""The apiserver model: CRUD, status, binding, watch, validation and admission.

Models ``k8s.io/apiserver/pkg/registry/generic/registry/store.go``: every write is
decoded strictly against the 1.37 schema of the version the client sent, converted to
the kind's storage version (``conversion``), defaulted, admitted, validated and only
then stored, so an invalid write leaves storage untouched. Objects are keyed by group
and resource, not version (``keys``); every read, list and watch converts the stored
object to the version asked for. Deletion lives in ``deletion``, the pod subresources
in ``pod_subresources`` and ``pod_ephemeral_update``, namespaces/finalize and CSR
approval in ``subresource_updates``, ``<resource>/scale`` in ``scale``, decoding in
``decode`` and the event types in ``watch``.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
from collections.abc import Callable, Iterator
from typing import Any, Final

from reference_impl.api.meta import parse_selector
from reference_impl.api.resources import RESOURCES, ResourceInfo
from reference_impl.api.watch import WatchEvent
from reference_impl.apiserver import (
    access_reviews,
    conversion,
    customresource,
    default_service_cidr,
    deletion,
    keys,
    list_options,
    lookups,
    pod_ephemeral_update,
    pod_subresources,
    rbac_bootstrap,
    scale,
    service_ipaddresses,
    strategies,
    subresource_updates,
    warnings,
)
from reference_impl.apiserver import dry_run as dryrun
from reference_impl.apiserver import eviction as eviction_subresource
from reference_impl.apiserver.admission.attributes import add_annotation
from reference_impl.apiserver.admission.chain import Request
from reference_impl.apiserver.customresource import handler as cr_handler
from reference_impl.apiserver.customresource import schema as cr_schema
from reference_impl.apiserver.decode import (
    SERVER_META,
    Decoded,
    annotations_bump,
    carry_meta,
    content,
    decode,
    spec_part,
    status_schema_causes,
)
from reference_impl.apiserver.delete_options import validate_delete_options
from reference_impl.apiserver.generation import bumps_generation, sets_generation
from reference_impl.apiserver.registry import (
    DEFAULT_SERVICE_CIDRS,
    AdmissionPlugin,
    Context,
    Operation,
    strategy_for,
)
from reference_impl.apiserver.status_meta import metadata_changed, status_metadata
from reference_impl.apiserver.stored_shape import drop_empty_collections
from reference_impl.apiserver.strategies.meta import generic_meta_only, meta_causes
from reference_impl.apiserver.user_info import UserInfo
from reference_impl.apiserver.warnings.delete import delete_warnings
from reference_impl.apiserver.warnings.deprecation import deprecation_warnings
from reference_impl.apiserver.warnings.recorder import header_texts
from reference_impl.apiserver.watch import ObjectEvent, object_event, open_watch
from reference_impl.clock import SimClock, rfc3339
from reference_impl.errors import (
    AlreadyExists,
    BadRequest,
    Cause,
    Forbidden,
    Invalid,
    MethodNotAllowed,
    NotFound,
)
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage import codec
from reference_impl.storage.mvcc import KeyValue, MVCCStore, StoreEvent

__all__ = ["APIServer", "ObjectEvent"]

_ = strategies, warnings  # imported for their registrations

Obj = dict[str, Any]
MAX_NAME_GENERATION_CREATE_ATTEMPTS = 8  # store.go's maxNameGenerationCreateAttempts
_LISTER_LIMIT: Final = 20_000  # lister entries kept; the cache restarts beyond


def _object_filter(
    label_selector: str | None, field_selector: Callable[[Obj], bool] | None
) -> Callable[[Obj], bool] | None:
    """A list's or watch's label and field selectors as one predicate over objects; None
    when neither selects (every object matches). A bad label selector is BadRequest."""
    if not (label_selector or "").strip() and field_selector is None:
        return None
    try:
        sel = parse_selector(label_selector)
    except ValueError as e:
        raise BadRequest(str(e)) from None

    def keep(obj: Obj) -> bool:
        return sel.matches(obj["metadata"].get("labels")) and (
            field_selector is None or field_selector(obj)
        )

    return keep


def _custom(manifest: object) -> bool:
    """Whether a write body names a custom resource (the static tables do not know it)."""
    if not isinstance(manifest, dict):
        return False
    av, kind = manifest.get("apiVersion"), manifest.get("kind")
    if type(av) is str and type(kind) is str and (av, kind) in RESOURCES:
        return False  # a built-in kind, the usual case: answered by the table alone
    return customresource.is_custom(av, kind)


class APIServer:
    """One apiserver over one store, with the 1.37 kinds switched by feature gates."""

    def __init__(
        self,
        store: MVCCStore,
        clock: SimClock,
        rng: Rng,
        gates: FeatureGates,
        service_cidrs: tuple[str, ...] = DEFAULT_SERVICE_CIDRS,
    ) -> None:
        self.store = store
        self.service_cidrs = service_cidrs  # --service-cluster-ip-range, primary first
        self.clock = clock
        self.gates = gates
        self._rng = rng
        self.admission: list[AdmissionPlugin] = []
        self._handlers: list[Callable[[ObjectEvent], None]] = []
        self._by_group_resource: dict[str, ResourceInfo] = {}
        # (apiVersion, kind) -> a built-in resource no feature gate switches: every request
        # resolves its kind, and these answer the same every time.
        self._resolved: dict[tuple[str, str], ResourceInfo] = {}
        # (apiVersion, kind) -> schema of each custom resource version read or written:
        # reads default stored objects, as the CR storage codec does (empty: no CRs).
        self._cr_schemas: dict[tuple[str, str], Obj] = {}
        self.writes = 0
        # The "Warning:" texts of the last create, update, apply or status update (upstream
        # sends them as 299 headers with the reply, failed or not); [] when there were none.
        self.warnings: builtins.list[str] = []
        # The deprecation warnings of the last get, list or watch (installer.go warns on
        # every route of a deprecated version, reads included).
        self.read_warnings: builtins.list[str] = []
        # Validating admission's warning.AddWarning texts of the write under way; they
        # follow the strategy's (store.Create/Update validate after BeforeCreate/Update).
        self._admission_warned: builtins.list[str] = []
        # The user the requests come from (``request.UserFrom``): the reference
        # authenticates nobody, so its caller sets it; None: no user.
        self.user: UserInfo | None = None
        # The audit annotations admission recorded (``Attributes.AddAnnotation``) for the
        # last create, update or delete that ran admission, failed or not; {} for none.
        self.audit_annotations: dict[str, str] = {}
        # key -> the object of the last event delivered for it (read-only, shared with
        # handlers and informer caches), reused as the next event's ``old``.
        self._delivered: dict[str, Obj] = {}
        # (key, api version) -> (mod revision, object) for the admission listers.
        self._lister: dict[tuple[str, str], tuple[int, Obj]] = {}
        # Whether a group resource has a stored object, as last seen; a write to it drops
        # the entry (_on_store_event).
        self._stored: dict[str, bool] = {}
        # Set while a ``dryRun=All`` write runs (``dry_run``); its uids and generated names
        # come from their own stream, so a dry run shifts no later object's.
        self._dry = False
        self._dry_rng = rng.child("dry-run")
        # The rbac post-start hook; before this apiserver listens, having no handlers yet.
        rbac_bootstrap.ensure_rbac_policy(self)
        # The Service REST's IPAddress writes, and the default ServiceCIDR's first sync.
        service_ipaddresses.install(self)
        default_service_cidr.sync(self)
        store.add_listener(self._on_store_event)
        self._stored.clear()  # what was seen before the listener heard writes

    # -- resolution -------------------------------------------------------------------

    def resource(self, api_version: str, kind: str) -> ResourceInfo:
        """The served resource, or NotFound naming why (unknown, or gated off)."""
        hit = self._resolved.get((api_version, kind))
        if hit is not None:
            return hit
        try:
            info = lookups.resolve(api_version, kind, self.gates)
        except NotFound:  # only when the static tables miss: a CRD's resource, if any
            cr = customresource.lookup(self.store, api_version, kind)
            if cr is None:
                raise
            self._by_group_resource[cr.group_resource] = cr.storage_info()
            self._cr_schemas[(cr.api_version, cr.kind)] = cr.schema
            return cr
        if info.group_resource not in self._by_group_resource:
            # Commit events name the resource at its storage version, whichever version asked.
            self._by_group_resource[info.group_resource] = conversion.storage_info(info)
        if not info.gates:
            self._resolved[(api_version, kind)] = info
        return info

    # -- reads ------------------------------------------------------------------------

    def _read(self, api_version: str, kind: str) -> ResourceInfo:
        """The resource a read asks for; its route's warnings go to ``read_warnings``."""
        self.read_warnings = []
        info = self.resource(api_version, kind)
        self.read_warnings = deprecation_warnings(api_version, info.kind)
        if isinstance(info, customresource.CustomResourceInfo):
            self.read_warnings += info.deprecation_warnings  # a deprecated CRD version's
        return info

    def get(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        resource_version: str = "",
    ) -> Obj:
        """The stored object, converted to ``api_version``; NotFound when absent.

        ``resource_version`` (GetOptions, ``CacheDelegator.Get``): "" reads etcd, "0" the
        watch cache (any age), "N" the cache once at least N, else "Too large resource
        version" 504 (``watchCache.WaitUntilFreshAndGet`` gives up). The reference's
        cache is always current, so each answers the newest stored object."""
        info = self._read(api_version, kind)
        if resource_version:
            minimum = list_options.parse_resource_version(resource_version)
            if minimum > self.store.revision:
                raise list_options.too_large(minimum, self.store.revision)
        kv = self.store.get(keys.key(info, name, keys.namespace_for(info, namespace)))
        if kv is None:
            raise NotFound(f'{info.group_resource} "{name}" not found')
        return self._out(kv, api_version)

    def try_get(
        self, api_version: str, kind: str, name: str, namespace: str | None = None
    ) -> Obj | None:
        """Like ``get`` but None when absent."""
        try:
            return self.get(api_version, kind, name, namespace)
        except NotFound:
            return None

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: Callable[[Obj], bool] | None = None,
    ) -> builtins.list[Obj]:
        """Objects in key order (namespace, then name), filtered by a label selector."""
        info = self._read(api_version, kind)
        keep = _object_filter(label_selector, field_selector)
        out = []
        for kv in self.store.range(keys.prefix(info, namespace)).kvs:
            obj = self._out(kv, api_version)
            if keep is None or keep(obj):
                out.append(obj)
        return out

    def list_page(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: Callable[[Obj], bool] | None = None,
        *,
        options: list_options.ListOptions | None = None,
    ) -> Obj:
        """The list object (``<Kind>List``: items and ListMeta) for a list with ``limit``,
        ``continue``, ``resourceVersion`` and ``resourceVersionMatch`` (``list_options``)."""
        info = self._read(api_version, kind)
        keep = _object_filter(label_selector, field_selector)
        decoded: dict[str, Obj] = {}

        def matches(kv: KeyValue) -> bool:
            obj = decoded[kv.key] = self._out(kv, api_version)
            return keep is None or keep(obj)

        kvs, meta = list_options.page(
            self.store, keys.prefix(info, namespace), options or list_options.ListOptions(),
            None if keep is None else matches,
        )  # fmt: skip
        items = [decoded.get(kv.key) or self._out(kv, api_version) for kv in kvs]
        return {"apiVersion": api_version, "kind": f"{info.kind}List", "metadata": meta,
                "items": items}  # fmt: skip

    def _out(self, kv: KeyValue, api_version: str) -> Obj:
        # A fresh decode, so converting it in place aliases nothing.
        obj = conversion.convert(kv.decode(), api_version)
        if self._cr_schemas and (s := self._cr_schemas.get((api_version, obj.get("kind", "")))):
            cr_schema.apply_defaults(obj, s)
        obj["metadata"]["resourceVersion"] = str(kv.mod_revision)
        return obj

    def _context(
        self,
        subresource: str = "",
        warn: Callable[[str], None] | None = None,
        *,
        annotate: Callable[[str, str], None] | None = None,
        kind: tuple[str, str, str] | None = None,
    ) -> Context:
        """The hooks' Context; ``annotate``: the audit sink where not the server's."""
        return Context(self.gates, self.try_get, self._list_any, subresource,
                       self._shared_get, self._shared_list, self.clock.now(), warn,
                       self.service_cidrs, self.user, annotate or self._annotate,
                       kind, self._dry)  # fmt: skip

    def _annotate(self, key: str, value: str) -> None:
        """The request's ``AddAnnotation``; a refused key or overwrite is dropped (logged upstream)."""
        add_annotation(self.audit_annotations, key, value)

    # -- listers: decoded once per stored revision, shared with admission read-only -----

    def _shared(self, kv: KeyValue, api_version: str) -> Obj:
        slot = (kv.key, api_version)
        hit = self._lister.get(slot)
        if hit is not None and hit[0] == kv.mod_revision:
            return hit[1]
        if len(self._lister) > _LISTER_LIMIT:
            self._lister.clear()
        obj = self._out(kv, api_version)
        self._lister[slot] = (kv.mod_revision, obj)
        return obj

    def _shared_get(self, api_version: str, kind: str, name: str, ns: str | None) -> Obj | None:
        info = self.resource(api_version, kind)
        kv = self.store.get(keys.key(info, name, keys.namespace_for(info, ns)))
        return None if kv is None else self._shared(kv, api_version)

    def _shared_list(self, api_version: str, kind: str, ns: str | None) -> builtins.list[Obj]:
        info = self.resource(api_version, kind)
        if self._stored.get(info.group_resource) is False and self.store.available:
            return []  # nothing stored (no policy bindings, quotas: the usual case)
        kvs = self.store.range(keys.prefix(info, ns)).kvs
        if not kvs:
            self._note_empty(info, ns)
        return [self._shared(kv, api_version) for kv in kvs]

    def _list_any(self, api_version: str, kind: str, namespace: str | None) -> builtins.list[Obj]:
        info = self.resource(api_version, kind)
        if self._stored.get(info.group_resource) is False and self.store.available:
            return []
        out = self.list(api_version, kind, namespace)
        if not out:
            self._note_empty(info, namespace)
        return out

    def _note_empty(self, info: ResourceInfo, ns: str | None) -> None:
        """After a lister read found nothing under ``ns``: remember whether the resource
        has any object at all, until the next write to it, so reads of an empty resource
        skip the store."""
        if info.group_resource in self._stored:
            return
        whole = keys.prefix(info, None)
        self._stored[info.group_resource] = whole != keys.prefix(info, ns) and bool(
            self.store.range(whole, limit=1).kvs
        )

    # -- writes -----------------------------------------------------------------------

    def _generate_name(self, kind: str, base: str) -> str:
        """The strategy's name generator: IPAddress's is a no-op (its name is its IP)."""
        rng = self._dry_rng if self._dry else self._rng
        return base if kind == "IPAddress" else f"{base[:58]}{rng.suffix()}"

    @contextlib.contextmanager
    def dry_running(self, dry_run: bool) -> Iterator[None]:
        """Run the write inside as ``dryRun=All`` when ``dry_run`` (see ``dry_run``)."""
        before = self._dry
        self._dry = before or dry_run
        try:
            yield
        finally:
            self._dry = before

    def create(self, manifest: Obj, *, dry_run: bool = False) -> Obj:
        """Create; AlreadyExists when the name is taken. ``warnings`` holds its warnings.
        ``dry_run``: all of it but the store (``dry_run``)."""
        if not dry_run:  # the usual write: the flag stays as it is, no context manager
            return self._create(manifest)
        with self.dry_running(dry_run):
            return self._create(manifest)

    def _create(self, manifest: Obj) -> Obj:
        self.warnings = []
        if access_reviews.is_review(manifest):  # answered, never stored
            return access_reviews.review(manifest, self.resource, self._shared_get, self._shared_list)
        if _custom(manifest):
            return cr_handler.create(self, manifest)
        d = self._decode(manifest)
        info, obj = d.info, d.obj
        meta = obj["metadata"]
        if meta.get("resourceVersion"):
            raise BadRequest("resourceVersion should not be set on objects to be created")
        generated = not meta.get("name") and bool(meta.get("generateName"))
        if generated:
            # SimpleNameGenerator: the base is cut to 58 characters, plus 5 random ones.
            meta["name"] = self._generate_name(info.kind, meta["generateName"])
        ns = keys.namespace_for(info, meta.get("namespace"))
        if ns is not None:
            meta["namespace"] = ns
            self._check_namespace(ns, info, "" if generated else str(meta.get("name") or ""))
        else:
            meta.pop("namespace", None)
        sent_generation = meta.get("generation")
        for k in SERVER_META:
            meta.pop(k, None)
        meta["uid"] = self._uid()
        meta["creationTimestamp"] = rfc3339(self.clock.now())
        if sets_generation(info):
            meta["generation"] = 1
        elif sent_generation is not None:
            meta["generation"] = sent_generation  # kept: nothing manages it (validated >= 0)
        # Validation (a missing name included) comes before the storage's AlreadyExists.
        self._prepare(d, None)
        warned, audited = self._warn(d, None, status=False), self.audit_annotations
        key = keys.key(info, meta["name"], ns)
        # The registry's createWithGenerateNameRetry: a generated name that is taken is
        # drawn again, up to maxNameGenerationCreateAttempts (8) attempts in all.
        for _ in range(MAX_NAME_GENERATION_CREATE_ATTEMPTS - 1):
            if not generated or self.store.get(key) is None:
                break
            meta["name"] = self._generate_name(info.kind, meta["generateName"])
            key = keys.key(info, meta["name"], ns)
        if self.store.get(key) is not None:
            # rest.CheckGeneratedNameError: a generated name gets NewGenerateNameConflict's text.
            why = ", the server was not able to generate a unique name for the object" if generated else ""
            raise AlreadyExists(f'{info.group_resource} "{meta["name"]}" already exists{why}')
        if self._dry:
            return dryrun.reply(self, obj, d.api_version, None)
        out = self._commit(key, obj, d.api_version)
        # again: an event handler's own write may have reset them
        self.warnings, self.audit_annotations = warned, audited
        return out

    def update(self, manifest: Obj, *, dry_run: bool = False) -> Obj:
        """Replace the object (status kept for kinds with a status subresource)."""
        if not dry_run:  # the usual write: the flag stays as it is, no context manager
            return self._update(manifest)
        with self.dry_running(dry_run):
            return self._update(manifest)

    def _update(self, manifest: Obj) -> Obj:
        self.warnings = []
        if _custom(manifest):
            return cr_handler.update(self, manifest)
        peek = lookups.StoredPeek(self.store)
        d = decode(manifest, self.resource, peek, protobuf=self.clock.in_event)
        info, obj = d.info, d.obj
        meta = obj["metadata"]
        ns = keys.namespace_for(info, meta.get("namespace"))
        key, old = self._current(info, meta, peek)
        if ns is not None:
            meta["namespace"] = ns
        carry_meta(old, obj)
        if info.status and "status" in old:
            obj["status"] = old["status"]
        elif info.status:
            obj.pop("status", None)
        self._refuse_new_finalizers(info, obj, old)
        self._prepare(d, old)
        if bumps_generation(info) and (
            spec_part(obj) != spec_part(old) or annotations_bump(info, obj, old)
        ):
            meta["generation"] = int(old["metadata"].get("generation", 0)) + 1
        warned = self._warn(d, old, status=False)  # after PrepareForUpdate's generation bump
        audited = self.audit_annotations
        out = self._finish_update(key, d, old)
        self.warnings, self.audit_annotations = warned, audited
        return out

    def apply(self, manifest: Obj) -> Obj:
        """Create, or update when the object exists (a whole-object apply)."""
        info = self.resource(str(manifest.get("apiVersion")), str(manifest.get("kind")))
        raw = manifest.get("metadata")
        meta: Obj = raw if isinstance(raw, dict) else {}
        name = meta.get("name")
        if isinstance(name, str) and name:
            ns = keys.namespace_for(info, meta.get("namespace"))
            if self.store.get(keys.key(info, name, ns)) is not None:
                return self.update(manifest)
        body = copy.deepcopy(manifest)
        if isinstance(body.get("metadata"), dict):
            body["metadata"].pop("resourceVersion", None)
        return self.create(body)

    def update_status(self, manifest: Obj, *, dry_run: bool = False) -> Obj:
        """Replace only ``status`` through the /status subresource."""
        if not dry_run:  # the usual write: the flag stays as it is, no context manager
            return self._update_status(manifest)
        with self.dry_running(dry_run):
            return self._update_status(manifest)

    def _update_status(self, manifest: Obj) -> Obj:
        self.warnings = []
        if _custom(manifest):
            return cr_handler.update_status(self, manifest)
        peek = lookups.StoredPeek(self.store)
        d = decode(manifest, self.resource, peek, protobuf=self.clock.in_event)
        info, obj = d.info, d.obj
        if not info.status:
            raise MethodNotAllowed(f"{info.group_resource} has no status subresource")
        meta = obj["metadata"]
        key, old = self._current(info, meta, peek)
        # ``old`` is a fresh decode private to this call: a shallow copy (own metadata,
        # which _commit edits) suffices, as validators only read both.
        new = {k: v for k, v in old.items() if k != "status"}
        new["metadata"] = status_metadata(info.kind, meta, old)
        self._refuse_new_finalizers(info, new, old)
        if "status" in obj:
            new["status"] = obj["status"]
        req = Request(self, "status")  # the whole chain, as on every write
        req.admit(Operation.UPDATE, info, new, old)
        ctx = self._context("status")
        strat = strategy_for(info.kind)
        if strat.status_preparers:  # drop gated status fields first, as upstream
            now = rfc3339(self.clock.now())
            for prepare in strat.status_preparers:
                prepare(new, old, now, ctx)
        causes: builtins.list[Cause] = status_schema_causes(new, d.api_version)
        if metadata_changed(new, old):  # rest.BeforeUpdate's validateCommonFields
            causes += meta_causes(info, new, old)
        for v in strat.status_validators:
            causes += v(new, old, ctx)
        causes = causes or req.validate(Operation.UPDATE, info, new, old)
        if causes:
            raise Invalid(info.kind, meta.get("name", ""), causes)
        d = Decoded(info, new, d.api_version)
        warned = self._warn(d, old, status=True, ctx=ctx)
        if req.warnings:
            warned = self.warnings = header_texts(warned + req.warnings)
        out = self._finish_update(key, d, old)
        self.warnings = warned
        req.done()
        return out

    def resize(self, manifest: Obj) -> Obj:
        """The pods/resize subresource: only container resources and resizePolicy may change."""
        self.warnings = []  # podResizeStrategy.WarningsOnUpdate: none
        return pod_subresources.resize(self, manifest)

    def update_ephemeralcontainers(self, manifest: Obj) -> Obj:
        """The pods/ephemeralcontainers subresource: add ephemeral containers."""
        return pod_ephemeral_update.update_ephemeral_containers(self, manifest)

    def update_finalize(self, manifest: Obj) -> Obj:
        """The namespaces/finalize subresource: replace spec.finalizers (and metadata)."""
        return subresource_updates.finalize(self, manifest)

    def update_approval(self, manifest: Obj) -> Obj:
        """The certificatesigningrequests/approval subresource: replace the conditions."""
        return subresource_updates.approve(self, manifest)

    def get_scale(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj:
        """GET ``<resource>/scale`` (autoscaling/v1 Scale) of a Deployment, ReplicaSet,
        StatefulSet, ReplicationController or custom resource with a scale subresource."""
        return scale.get_scale(self, api_version, kind, name, namespace)

    def update_scale(self, api_version: str, kind: str, body: Obj, *, dry_run: bool = False) -> Obj:
        """PUT ``<resource>/scale``: the Scale ``body`` names the parent; its replicas go
        into the parent's spec through the parent's update (``dry_run``: a dry one)."""
        self.warnings = []
        meta = body.get("metadata") if isinstance(body, dict) else None
        meta = meta if isinstance(meta, dict) else {}
        with self.dry_running(dry_run):
            return scale.update_scale(self, api_version, kind, str(meta.get("name", "")),
                                      meta.get("namespace"), body)  # fmt: skip

    def patch_scale(
        self, api_version: str, kind: str, name: str, namespace: str | None, patch: Obj,
        *, dry_run: bool = False,
    ) -> Obj:
        """PATCH ``<resource>/scale`` with a merge patch over the current Scale."""
        self.warnings = []
        with self.dry_running(dry_run):
            return scale.patch_scale(self, api_version, kind, name, namespace, patch)

    def evict(self, namespace: str, name: str, eviction: Obj) -> Obj:
        """The pods/eviction subresource: delete the pod as its PodDisruptionBudget allows."""
        return eviction_subresource.evict(self, namespace, name, eviction)

    def bind(self, namespace: str, name: str, node_name: str) -> Obj:
        """The pods/binding subresource: set spec.nodeName once, as the scheduler does.
        The reply is a success Status, as upstream's BindingREST answers, not the pod."""
        return pod_subresources.bind(self, namespace, name, node_name)

    def delete(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        grace_period_seconds: int | None = None,
        propagation_policy: str | None = None,
        uid: str | None = None,
        dry_run: bool = False,
        resource_version: str | None = None,
    ) -> Obj | None:
        """Delete; with finalizers or a graceful pod, only mark deletionTimestamp. Without
        ``propagation_policy`` the kind's default applies (Orphan for v1 Jobs and
        ReplicationControllers, as upstream keeps for back compatibility).

        Returns the object as it now is (marked), or None when it is gone. ``dry_run``:
        nothing changes; the marked object, or the object as stored where it would go.
        ``uid`` / ``resource_version``: the DeleteOptions preconditions (409 when unmet).
        ``warnings`` holds its warnings (``warnings.delete``, then validating admission's).
        """
        audited: dict[str, str] = {}
        self.audit_annotations = audited
        self.warnings = []
        validate_delete_options(propagation_policy)  # handlers/delete.go, before the store
        warned = self.warnings = delete_warnings(api_version, kind, propagation_policy)
        try:
            with self.dry_running(dry_run):
                return deletion.delete(
                    self,
                    api_version,
                    kind,
                    name,
                    namespace,
                    grace_period_seconds,
                    propagation_policy,
                    uid,
                    warned.append,
                    resource_version=resource_version,
                )
        finally:
            self.audit_annotations = audited  # not an event handler's nested write's
            self.warnings = header_texts(warned) if warned else []

    def delete_collection(
        self, api_version: str, kind: str, namespace: str | None,
        label_selector: str = "", field_selector: str = "", propagation_policy: str | None = None,
        grace_period_seconds: int | None = None, dry_run: bool = False, *, limit: int = 0,
    ) -> Obj:  # fmt: skip
        """DELETE on a collection (``delete_collection``): each item the selectors list
        deleted as by ``delete`` with the same options; the ``<Kind>List`` listed.
        ``warnings`` holds its warnings, as ``delete``'s."""
        from reference_impl.apiserver.delete_collection import delete_collection

        audited: dict[str, str] = {}
        self.audit_annotations = audited
        warned: builtins.list[str] = []
        self.warnings = warned
        try:
            with self.dry_running(dry_run):
                return delete_collection(self, api_version, kind, namespace, label_selector,
                                         field_selector, propagation_policy, grace_period_seconds,
                                         limit, warned)  # fmt: skip
        finally:
            self.audit_annotations = audited
            self.warnings = header_texts(warned) if warned else []

    def finalize_namespace(self, name: str, finalizers: builtins.list[str] | None = None) -> Obj | None:
        """The namespaces/finalize subresource: set spec.finalizers (default: none); with
        none left, complete deletion."""
        return deletion.finalize_namespace(self, name, finalizers)

    # -- watch ------------------------------------------------------------------------

    def watch(
        self,
        api_version: str,
        kind: str,
        since: str | None = None,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: Callable[[Obj], bool] | None = None,
        allow_bookmarks: bool = False,
        send_initial_events: bool | None = None,
        resource_version_match: str = "",
        timeout_seconds: float | None = None,
    ) -> Iterator[WatchEvent]:
        """A watch from ``since`` (its resourceVersion) with upstream's watch options;
        ``watch.open_watch`` has the rules (initial events, selectors, bookmarks).

        The iterator yields what has happened so far and stops; iterate again after more
        simulated time to get more. Bad options are Invalid (ListOptions), a compacted
        resourceVersion Gone, as a real apiserver's watch ends with an ERROR event. Every
        event's object is converted to ``api_version``.
        """
        info = self._read(api_version, kind)
        list_options.validate_watch_options(send_initial_events, resource_version_match)
        matches = _object_filter(label_selector, field_selector)
        ns = keys.namespace_for(info, namespace) if namespace else None
        return open_watch(
            self.store, keys.prefix(info, ns), api_version, since, self._out, kind=info.kind,
            matches=matches, allow_bookmarks=allow_bookmarks,
            send_initial_events=send_initial_events, clock=self.clock,
            timeout_seconds=timeout_seconds,
        )  # fmt: skip

    def add_event_handler(self, fn: Callable[[ObjectEvent], None]) -> None:
        """Call ``fn`` synchronously after every committed object write, in commit order.

        Objects are in their kind's storage version (``conversion.storage_version``)."""
        self._handlers.append(fn)

    # -- internals --------------------------------------------------------------------

    def _decode(self, manifest: Obj) -> Decoded:
        return decode(manifest, self.resource, protobuf=self.clock.in_event)

    @staticmethod
    def _refuse_new_finalizers(info: ResourceInfo, obj: Obj, old: Obj) -> None:
        """rest.BeforeUpdate: a deleting object takes no new finalizers."""
        if old["metadata"].get("deletionTimestamp") and len(
            obj["metadata"].get("finalizers") or []
        ) > len(old["metadata"].get("finalizers") or []):
            raise Forbidden(
                f'no new finalizers can be added if the object is being deleted: {info.group_resource} "{obj["metadata"]["name"]}"'
            )

    def _prepare(self, d: Decoded, old: Obj | None) -> None:
        info, obj = d.info, d.obj
        self._admission_warned.clear()
        self.audit_annotations = {}
        ctx = self._context(warn=self._admission_warned.append)
        strat = strategy_for(info.kind)
        for defaulter in strat.defaulters:
            defaulter(obj, ctx)
        # Upstream's order: mutating admission, then the strategy's PrepareFor* and
        # validation, then validating admission only for an object that passed.
        op = Operation.UPDATE if old else Operation.CREATE
        for plugin in self.admission:
            plugin.admit(op, info, obj, old, ctx)
        if strat.preparers:
            now = rfc3339(self.clock.now())
            for prepare in strat.preparers:
                prepare(obj, old, now, ctx)
        causes = [] if generic_meta_only(info) else meta_causes(info, obj, old)
        for v in strat.validators:
            causes += v(obj, old, ctx)
        if not causes and generic_meta_only(info):
            causes = meta_causes(info, obj, old)  # rest.BeforeCreate's generic check
        if not causes:
            for plugin in self.admission:
                causes += plugin.validate(op, info, obj, old, ctx)
        if causes:
            causes = conversion.wire_causes(causes, info, d.api_version)
            raise Invalid(info.kind, obj["metadata"].get("name", ""), causes)
        conversion.stored_default(obj, info)  # what a read of the stored object would add

    def _warn(
        self, d: Decoded, old: Obj | None, *, status: bool, ctx: Context | None = None
    ) -> builtins.list[str]:
        """rest.BeforeCreate/BeforeUpdate's ``warning.AddWarnings`` of the strategy's
        WarningsOnCreate/Update, set on ``warnings`` and returned; most kinds have none, so
        nothing is built for them. ``ctx``: the request's, where already built."""
        strat = strategy_for(d.info.kind)
        warners = strat.status_warners if status else strat.warners
        texts = deprecation_warnings(d.api_version, d.info.kind)  # the route's, first
        if warners:
            if ctx is None:
                ctx = self._context("status" if status else "")
            texts += [t for w in warners for t in w(d.obj, old, ctx)]
        if self._admission_warned and not status:
            texts += self._admission_warned
            self._admission_warned.clear()
        # This write's own: a nested write (an event handler's) may have set another's.
        self.warnings = header_texts(texts) if texts else []
        return self.warnings

    def _check_namespace(self, ns: str, info: ResourceInfo, name: str = "") -> None:
        lookups.check_namespace(self.store, ns, info, name)

    def _current(
        self, info: ResourceInfo, meta: Obj, peek: lookups.StoredPeek | None = None
    ) -> tuple[str, Obj]:
        """The storage key and stored object a write replaces."""
        return lookups.current(self.store, info, meta, peek)

    def _finish_update(self, key: str, d: Decoded, old: Obj) -> Obj:
        obj = d.obj
        if self._dry:
            return dryrun.finish_update(self, key, d, old, goes=deletion.goes_now(d.info, obj))
        if deletion.goes_now(d.info, obj):
            self.store.delete(key)
            self.writes += 1
            out = conversion.convert(copy.deepcopy(obj), d.api_version)
            out["metadata"].pop("resourceVersion", None)
            return out
        obj["metadata"].pop("resourceVersion", None)
        data = self._stored_bytes(obj)  # compared as stored, then stored as they are
        if content(obj) == content(old):
            kv = self.store.get(key)
            assert kv is not None
            return self._out(kv, d.api_version)  # a no-op write does not bump the revision
        return self._out(self._put(key, obj, data), d.api_version)

    def _commit(self, key: str, obj: Obj, api_version: str) -> Obj:
        """Store ``obj`` (in its storage version); the reply is in ``api_version``."""
        return self._out(self._put(key, obj), api_version)

    def _put(self, key: str, obj: Obj, data: bytes | None = None) -> KeyValue:
        """Store ``obj`` (in its storage version), for a write whose reply is not the object;
        ``data``: its stored bytes when already made (``_stored_bytes``)."""
        obj["metadata"].pop("resourceVersion", None)
        kv = self.store.put(key, self._stored_bytes(obj) if data is None else data)
        self.writes += 1
        return kv

    @staticmethod
    def _stored_bytes(obj: Obj) -> bytes:
        """``obj`` as stored, its empty omitempty lists and maps dropped first (in place), as
        protobuf storage gives them back."""
        data = codec.dumps(obj, sort_keys=True)
        return codec.dumps(obj, sort_keys=True) if drop_empty_collections(obj, data) else data

    def _uid(self) -> str:
        return (self._dry_rng if self._dry else self._rng).uuid4()

    def rng_stream(self, name: str) -> Rng:
        """An independent seeded stream of the apiserver's randomness, for an admission
        plugin (its draws shift neither uids nor generated object names)."""
        return self._rng.child(name)

    def _on_store_event(self, ev: StoreEvent) -> None:
        group_resource = keys.group_resource_of(ev.kv.key)
        if self._stored:
            self._stored.pop(group_resource, None)
        if not self._handlers:
            return
        info = self._by_group_resource.get(group_resource)
        if info is None:
            return
        key = ev.kv.key
        event = object_event(ev, info, self._delivered.pop(key, None))
        if event.type != "DELETED":
            self._delivered[key] = event.obj
        for fn in list(self._handlers):
            fn(event)
