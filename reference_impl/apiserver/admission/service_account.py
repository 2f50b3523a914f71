"""Models plugin/pkg/admission/serviceaccount: the ServiceAccount plugin (default-on).

Pod create (no subresource): a pod without ``spec.serviceAccountName`` gets ``default``
(the deprecated alias ``spec.serviceAccount`` kept in step); the service account must
exist in the pod's namespace, else the create is Forbidden (``error looking up service
account NS/NAME: serviceaccount "NAME" not found``). Unless the pod's
``automountServiceAccountToken``, then the account's, is false, every container and init
container without a mount at ``/var/run/secrets/kubernetes.io/serviceaccount`` gets a
read-only mount of the projected volume ``kube-api-access-<5 random characters>`` (a
bound token, ``kube-root-ca.crt``'s ``ca.crt`` and the namespace; a pod that already has a
``kube-api-access-*`` volume keeps that one). Ephemeral containers are not mounted, as
upstream. A pod without ``imagePullSecrets`` takes the account's.

Validation on create: a mirror pod (``kubernetes.io/config.mirror``) is not mutated and may
reference neither a service account, nor a secret, nor a serviceAccountToken projection;
an account annotated ``kubernetes.io/enforce-mountable-secrets: "true"`` limits the
secrets the pod references (volumes, env, envFrom, imagePullSecrets) to its own. On the
``ephemeralcontainers`` subresource the ephemeral containers' env secrets are checked the
same way. Other pod updates are left alone (pod update validation keeps the service
account as it was).

Upstream looks the account up in its informer, then directly, and for ``default`` retries
ten times 100-200 ms apart, since the serviceaccounts controller may not have made it
yet. Here the lookup reads storage; the serviceaccounts controller creates ``default`` at
the instant its namespace is created, before that write returns, so there is no window
to wait through and a missing account is refused at once.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.api.well_known_annotations import MIRROR_POD
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.errors import Cause, Forbidden

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = [
    "DEFAULT_API_TOKEN_MOUNT_PATH",
    "DEFAULT_SERVICE_ACCOUNT_NAME",
    "ENFORCE_MOUNTABLE_SECRETS_ANNOTATION",
    "MIRROR_POD_ANNOTATION",
    "SERVICE_ACCOUNT_VOLUME_NAME",
    "WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS",
    "ServiceAccountAdmission",
    "install",
    "pod_secret_names",
    "token_volume_source",
]

Obj = dict[str, Any]
DEFAULT_SERVICE_ACCOUNT_NAME: Final = "default"
ENFORCE_MOUNTABLE_SECRETS_ANNOTATION: Final = "kubernetes.io/enforce-mountable-secrets"
SERVICE_ACCOUNT_VOLUME_NAME: Final = "kube-api-access"
DEFAULT_API_TOKEN_MOUNT_PATH: Final = "/var/run/secrets/kubernetes.io/serviceaccount"
MIRROR_POD_ANNOTATION: Final = MIRROR_POD
# serviceaccount.WarnOnlyBoundTokenExpirationSeconds: 1h + 7s
WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS: Final = 3607
_PROJECTED_DEFAULT_MODE: Final = 420  # corev1.ProjectedVolumeSourceDefaultMode (0644)
# Volume sources that name a secret through ``secretRef`` (VisitPodSecretNames).
_SECRET_REF_SOURCES: Final = (
    "cephfs",
    "cinder",
    "flexVolume",
    "rbd",
    "scaleIO",
    "iscsi",
    "storageos",
)


def token_volume_source() -> Obj:
    """``TokenVolumeSource``: the projected source of a ``kube-api-access-*`` volume."""
    return {
        "defaultMode": _PROJECTED_DEFAULT_MODE,
        "sources": [
            {"serviceAccountToken": {"path": "token", "expirationSeconds": WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [
                {"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}},
            ]}},
        ],
    }  # fmt: skip


def _containers(spec: Obj, *parts: str) -> Iterator[Obj]:
    for part in parts:
        for c in spec.get(part) or []:
            if isinstance(c, dict):
                yield c


def pod_secret_names(pod: Obj) -> Iterator[str]:
    """``VisitPodSecretNames`` over every container kind: the non-empty secret names the pod
    references, in upstream's visiting order."""
    spec = pod.get("spec") or {}

    def names() -> Iterator[Any]:
        for ref in spec.get("imagePullSecrets") or []:
            yield (ref or {}).get("name")
        for c in _containers(spec, "initContainers", "containers", "ephemeralContainers"):
            for ef in c.get("envFrom") or []:
                if (ef or {}).get("secretRef") is not None:
                    yield ef["secretRef"].get("name")
            for env in c.get("env") or []:
                ref = ((env or {}).get("valueFrom") or {}).get("secretKeyRef")
                if ref is not None:
                    yield ref.get("name")
        for vol in spec.get("volumes") or []:
            vol = vol or {}
            if vol.get("azureFile") is not None:
                yield vol["azureFile"].get("secretName")
            elif vol.get("projected") is not None:
                for src in vol["projected"].get("sources") or []:
                    if (src or {}).get("secret") is not None:
                        yield src["secret"].get("name")
            elif vol.get("secret") is not None:
                yield vol["secret"].get("secretName")
            elif vol.get("csi") is not None:
                if vol["csi"].get("nodePublishSecretRef") is not None:
                    yield vol["csi"]["nodePublishSecretRef"].get("name")
            else:
                for kind in _SECRET_REF_SOURCES:
                    if vol.get(kind) is not None:
                        if vol[kind].get("secretRef") is not None:
                            yield vol[kind]["secretRef"].get("name")
                        break

    for name in names():
        if name:
            yield str(name)


def _should_automount(sa: Obj, pod: Obj) -> bool:
    """``shouldAutomount``: the pod's preference, then the account's, then true."""
    mine = (pod.get("spec") or {}).get("automountServiceAccountToken")
    if mine is not None:
        return bool(mine)
    theirs = sa.get("automountServiceAccountToken")
    return True if theirs is None else bool(theirs)


def _enforce_mountable_secrets(sa: Obj) -> bool:
    """The account's ``kubernetes.io/enforce-mountable-secrets`` annotation, as
    ``strconv.ParseBool`` reads it (LimitSecretReferences is off in kube-apiserver)."""
    raw = (sa["metadata"].get("annotations") or {}).get(ENFORCE_MOUNTABLE_SECRETS_ANNOTATION)
    return raw in ("1", "t", "T", "TRUE", "true", "True")


def _names(refs: Any, key: str = "name") -> set[str]:
    return {str((r or {}).get(key) or "") for r in refs or []}


def _env_refs(c: Obj) -> Iterator[tuple[str, str | None]]:
    """(secret name, env var name or None for envFrom) the container's env references."""
    for env in c.get("env") or []:
        ref = ((env or {}).get("valueFrom") or {}).get("secretKeyRef")
        if ref is not None:
            yield str(ref.get("name") or ""), str(env.get("name") or "")
    for ef in c.get("envFrom") or []:
        if (ef or {}).get("secretRef") is not None:
            yield str(ef["secretRef"].get("name") or ""), None


def _container_secret_errors(sa: Obj, c: Obj, what: str, mountable: set[str]) -> str | None:
    for secret, env in _env_refs(c):
        if secret in mountable:
            continue
        via = f"with envVar {env}" if env is not None else "with envFrom"
        return (
            f'{what} {c.get("name") or ""} {via} referencing secret.secretName="{secret}" is not '
            f"allowed because service account {sa['metadata']['name']} does not reference that secret"
        )
    return None


def _limit_secret_references(sa: Obj, pod: Obj) -> str | None:
    """``limitSecretReferences``: the first reference the account does not allow."""
    spec = pod.get("spec") or {}
    sa_name = sa["metadata"]["name"]
    mountable = _names(sa.get("secrets"))
    for vol in spec.get("volumes") or []:
        source = (vol or {}).get("secret")
        if source is None:
            continue
        secret = str(source.get("secretName") or "")
        if secret not in mountable:
            return (
                f'volume with secret.secretName="{secret}" is not allowed because service '
                f"account {sa_name} does not reference that secret"
            )
    for part, what in (("initContainers", "init container"), ("containers", "container")):
        for c in _containers(spec, part):
            err = _container_secret_errors(sa, c, what, mountable)
            if err:
                return err
    pull = _names(sa.get("imagePullSecrets"))
    for i, ref in enumerate(spec.get("imagePullSecrets") or []):
        name = str((ref or {}).get("name") or "")
        if name not in pull:
            return (
                f'imagePullSecrets[{i}].name="{name}" is not allowed because service account '
                f"{sa_name} does not reference that imagePullSecret"
            )
    return None


def _mount_token(pod: Obj, generate_name: Callable[[str], str]) -> None:
    """``mountServiceAccountToken``."""
    spec = pod.setdefault("spec", {})
    volume_name = ""
    for vol in spec.get("volumes") or []:
        name = str((vol or {}).get("name") or "")
        if name.startswith(SERVICE_ACCOUNT_VOLUME_NAME + "-"):
            volume_name = name
            break
    has_volume = bool(volume_name)
    if not volume_name:
        volume_name = generate_name(SERVICE_ACCOUNT_VOLUME_NAME + "-")
    mount = {"name": volume_name, "readOnly": True, "mountPath": DEFAULT_API_TOKEN_MOUNT_PATH}
    needs_volume = False
    for c in _containers(spec, "initContainers", "containers"):
        mounts = c.get("volumeMounts") or []
        if any((m or {}).get("mountPath") == DEFAULT_API_TOKEN_MOUNT_PATH for m in mounts):
            continue
        c["volumeMounts"] = [*mounts, dict(mount)]
        needs_volume = True
    if not has_volume and needs_volume:
        spec["volumes"] = [
            *(spec.get("volumes") or []),
            {"name": volume_name, "projected": token_volume_source()},
        ]


class ServiceAccountAdmission:
    """Default, check and mount the pod's service account."""

    name = "ServiceAccount"

    def __init__(self, generate_name: Callable[[str], str]) -> None:
        # names.SimpleNameGenerator.GenerateName
        self._generate_name = generate_name

    @staticmethod
    def _ignores(info: ResourceInfo, obj: Obj | None, ctx: Context) -> bool:
        """``shouldIgnore``: pods only, with no subresource but ``ephemeralcontainers``."""
        return (
            info.group_resource != "pods"
            or ctx.subresource not in ("", "ephemeralcontainers")
            or not isinstance(obj, dict)
        )

    @staticmethod
    def _forbidden(pod: Obj, message: str) -> Forbidden:
        meta = pod.get("metadata") or {}
        name = meta.get("name") or meta.get("generateName") or ""
        return Forbidden(f'pods "{name}" is forbidden: {message}')

    def _service_account(self, pod: Obj, ctx: Context) -> Obj:
        """``getServiceAccount``; Forbidden when it does not exist."""
        ns = str(pod["metadata"].get("namespace") or "default")
        name = str((pod.get("spec") or {}).get("serviceAccountName") or "")
        sa = ctx.lister_get("v1", "ServiceAccount", name, ns)
        if sa is None:
            raise self._forbidden(
                pod,
                f'error looking up service account {ns}/{name}: serviceaccount "{name}" not found',
            )
        return sa

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Default the account, mount its token and take its image pull secrets (creates);
        then the checks of ``validate``, as upstream's Admit ends by calling Validate."""
        if self._ignores(info, obj, ctx) or op is not Operation.CREATE:
            return
        annotations = obj["metadata"].get("annotations") or {}
        if MIRROR_POD_ANNOTATION in annotations:
            self._check(op, obj, ctx)
            return
        spec = obj.setdefault("spec", {})
        if not spec.get("serviceAccountName"):
            # SetDefaults_PodSpec takes the deprecated alias when only it is set.
            spec["serviceAccountName"] = spec.get("serviceAccount") or DEFAULT_SERVICE_ACCOUNT_NAME
        # The v1 conversion writes the deprecated alias from serviceAccountName.
        spec["serviceAccount"] = spec["serviceAccountName"]
        sa = self._service_account(obj, ctx)
        if _should_automount(sa, obj):
            _mount_token(obj, self._generate_name)
        if not spec.get("imagePullSecrets"):
            pulls = [
                {"name": (r or {}).get("name") or ""} for r in sa.get("imagePullSecrets") or []
            ]
            if pulls:
                spec["imagePullSecrets"] = copy.deepcopy(pulls)
        self._check(op, obj, ctx)

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """Mirror pods' limits, the account's existence and its mountable secrets."""
        if not self._ignores(info, obj, ctx):
            self._check(op, obj, ctx)
        return []

    def _check(self, op: Operation, pod: Obj, ctx: Context) -> None:
        """Upstream's ``Validate``."""
        if op is Operation.UPDATE and ctx.subresource == "ephemeralcontainers":
            self._check_ephemeral(pod, ctx)
            return
        if op is not Operation.CREATE:
            return
        spec = pod.get("spec") or {}
        if MIRROR_POD_ANNOTATION in (pod["metadata"].get("annotations") or {}):
            if spec.get("serviceAccountName"):
                raise self._forbidden(pod, "a mirror pod may not reference service accounts")
            if next(pod_secret_names(pod), None) is not None:
                raise self._forbidden(pod, "a mirror pod may not reference secrets")
            for vol in spec.get("volumes") or []:
                for src in ((vol or {}).get("projected") or {}).get("sources") or []:
                    if (src or {}).get("serviceAccountToken") is not None:
                        raise self._forbidden(
                            pod, "a mirror pod may not use ServiceAccountToken volume projections"
                        )
            return
        if not spec.get("serviceAccountName"):
            ns = pod["metadata"].get("namespace") or ""
            raise self._forbidden(
                pod,
                f"no service account specified for pod {ns}/{pod['metadata'].get('name') or ''}",
            )
        sa = self._service_account(pod, ctx)
        if _enforce_mountable_secrets(sa):
            err = _limit_secret_references(sa, pod)
            if err:
                raise self._forbidden(pod, err)

    def _check_ephemeral(self, pod: Obj, ctx: Context) -> None:
        """``limitEphemeralContainerSecretReferences``."""
        spec = pod.get("spec") or {}
        if not spec.get("serviceAccountName"):
            ns = pod["metadata"].get("namespace") or ""
            raise self._forbidden(
                pod,
                f"no service account specified for pod {ns}/{pod['metadata'].get('name') or ''}",
            )
        sa = self._service_account(pod, ctx)
        if not _enforce_mountable_secrets(sa):
            return
        mountable = _names(sa.get("secrets"))
        for c in _containers(spec, "ephemeralContainers"):
            err = _container_secret_errors(sa, c, "ephemeral container", mountable)
            if err:
                raise self._forbidden(pod, err)


def install(server: APIServer) -> None:
    """Enable the plugin (default-on in kube-apiserver); generated volume names come from
    the apiserver's seeded randomness."""
    rng = server.rng_stream("serviceaccount-admission")
    server.admission.append(ServiceAccountAdmission(lambda base: f"{base}{rng.suffix()}"))
