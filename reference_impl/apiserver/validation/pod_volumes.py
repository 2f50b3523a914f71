"""Pod volumes: ``ValidateVolumes`` and ``validateVolumeSource`` of upstream v1.37.2's
``pkg/apis/core/validation/validation.go`` (one source per volume, each source's own
rules, and the local-path rules of items and projections)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from reference_impl.api.meta import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_key_errors,
    parse_quantity,
)
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = [
    "azure_disk_causes", "default_azure_disk", "default_claim_template", "flex_causes", "flocker_causes",
    "iscsi_name_ok", "local_path_causes", "no_backsteps", "partitioned", "quobyte_causes", "volume_causes",
    "volume_source_causes",
]  # fmt: skip

Obj = dict[str, Any]
_HOST_PATH_TYPES: Final = (
    "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket",
)
_PULL: Final = ("Always", "IfNotPresent", "Never")
_DOWNWARD_FIELDS: Final = (
    "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
)
# podshelper.ConvertDownwardAPIFieldLabel's known paths (beyond subscripted ones).
_CONVERTIBLE: Final = frozenset((
    "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
    "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName",
    "status.phase", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
))
_IQN: Final = re.compile(r"^iqn\.\d{4}-\d{2}\.([[:alnum:]-.]+)(:[^,;*&$|\s]+)$".replace("[:alnum:]", "a-zA-Z0-9"))
_EUI: Final = re.compile(r"^eui\.[0-9A-Fa-f]{16}$")
_NAA: Final = re.compile(r"^naa\.[0-9A-Fa-f]{32}$")
_MODE_MSG: Final = "must be a number between 0 and 0777 (octal), both inclusive"


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def no_backsteps(value: str, path: str) -> list[Cause]:
    """``validatePathNoBacksteps``."""
    return [fe.invalid(path, value, "must not contain '..'")] if ".." in value.split("/") else []


def local_path_causes(value: str, path: str) -> list[Cause]:
    """``ValidateLocalNonReservedPath``: relative, no backsteps, not starting with ".."."""
    out = [fe.invalid(path, value, "must be a relative path")] if value.startswith("/") else []
    out += no_backsteps(value, path)
    if value.startswith("..") and not value.startswith("../"):
        out.append(fe.invalid(path, value, "must not start with '..'"))
    return out


def _mode(src: Obj, key: str, path: str) -> list[Cause]:
    m = src.get(key)
    return [fe.invalid(f"{path}.{key}", m, _MODE_MSG)] if isinstance(m, int) and not 0 <= m <= 0o777 else []


def _key_to_path(kp: Obj, path: str) -> list[Cause]:
    """``validateKeyToPath``."""
    out = [] if kp.get("key") else [fe.required(f"{path}.key")]
    p = str(kp.get("path") or "")
    if not p:
        out.append(fe.required(f"{path}.path"))
    return out + local_path_causes(p, f"{path}.path") + _mode(kp, "mode", path)


def _items(src: Obj, path: str) -> list[Cause]:
    out: list[Cause] = []
    for i, kp in enumerate(src.get("items") or []):
        out += _key_to_path(_o(kp), f"{path}.items[{i}]")
    return out


def _required(*keys: str) -> Callable[[Obj, str], list[Cause]]:
    def check(src: Obj, path: str) -> list[Cause]:
        return [fe.required(f"{path}.{k}") for k in keys if not src.get(k)]

    return check


def _empty_dir(src: Obj, path: str) -> list[Cause]:
    try:
        negative = src.get("sizeLimit") is not None and parse_quantity(src["sizeLimit"]) < 0
    except ValueError:
        negative = False
    if negative:
        return [fe.forbidden(f"{path}.sizeLimit", "SizeLimit field must be a valid resource quantity")]
    return []


def _host_path(src: Obj, path: str) -> list[Cause]:
    p = str(src.get("path") or "")
    if not p:
        return [fe.required(f"{path}.path")]
    out = no_backsteps(p, f"{path}.path")
    t = src.get("type")
    if t is not None and t not in _HOST_PATH_TYPES:
        out.append(fe.not_supported(f"{path}.type", t, _HOST_PATH_TYPES))
    return out


def _git_repo(src: Obj, path: str) -> list[Cause]:
    out = _required("repository")(src, path)
    d = str(src.get("directory") or "")
    if d.startswith("/"):
        out.append(fe.invalid(f"{path}.directory", d, "must be a relative path"))
    return out + no_backsteps(d, f"{path}.directory")


def _secret(src: Obj, path: str) -> list[Cause]:
    return _required("secretName")(src, path) + _mode(src, "defaultMode", path) + _items(src, path)


def _config_map(src: Obj, path: str) -> list[Cause]:
    return _required("name")(src, path) + _mode(src, "defaultMode", path) + _items(src, path)


def _nfs(src: Obj, path: str) -> list[Cause]:
    out = _required("server", "path")(src, path)
    if not str(src.get("path") or "").startswith("/"):
        out.append(fe.invalid(f"{path}.path", src.get("path", ""), "must be an absolute path"))
    return out


def _iscsi(src: Obj, path: str) -> list[Cause]:
    out = _required("targetPortal", "iqn")(src, path)
    iqn = str(src.get("iqn") or "")
    if iqn:
        if not iqn.startswith(("iqn", "eui", "naa")):
            out.append(fe.invalid(f"{path}.iqn", iqn, "must be valid format starting with iqn, eui, or naa"))
        elif not {"iqn": _IQN, "eui": _EUI, "naa": _NAA}[iqn[:3]].match(iqn):
            out.append(fe.invalid(f"{path}.iqn", iqn, "must be valid format"))
    lun = src.get("lun", 0)
    if isinstance(lun, int) and not 0 <= lun <= 255:
        out.append(fe.invalid(f"{path}.lun", lun, "must be between 0 and 255, inclusive"))
    if (src.get("chapAuthDiscovery") or src.get("chapAuthSession")) and src.get("secretRef") is None:
        out.append(fe.required(f"{path}.secretRef"))
    initiator = src.get("initiatorName")
    if isinstance(initiator, str):  # the path is upstream's lower-case "initiatorname"
        if not initiator.startswith(("iqn", "eui", "naa")):
            out.append(fe.invalid(f"{path}.initiatorname", initiator, "must be valid format starting with iqn, eui, or naa"))
        elif not iscsi_name_ok(initiator):
            out.append(fe.invalid(f"{path}.initiatorname", initiator, "must be valid format"))
    return out


def flocker_causes(src: Obj, path: str) -> list[Cause]:
    """``validateFlockerVolumeSource``."""
    name, uuid = str(src.get("datasetName") or ""), str(src.get("datasetUUID") or "")
    out: list[Cause] = []
    if not name and not uuid:
        out.append(fe.required(path, "one of datasetName and datasetUUID is required"))
    if name and uuid:
        out.append(fe.invalid(path, "resource", "datasetName and datasetUUID can not be specified simultaneously"))
    if "/" in name:
        out.append(fe.invalid(f"{path}.datasetName", name, "must not contain '/'"))
    return out


def _host_port_ok(pair: str) -> bool:
    """Go's ``net.SplitHostPort`` succeeds: one colon outside brackets, or ``[host]:port``."""
    if pair.startswith("["):
        end = pair.find("]")
        return end > 0 and pair[end + 1 : end + 2] == ":" and "[" not in pair[1:] and "]" not in pair[end + 1 :]
    return pair.count(":") == 1 and "[" not in pair and "]" not in pair


def quobyte_causes(src: Obj, path: str) -> list[Cause]:
    """``validateQuobyteVolumeSource``: a too-long tenant is reported as Required, as upstream."""
    registry = str(src.get("registry") or "")
    msg = "must be a host:port pair or multiple pairs separated by commas"
    out: list[Cause] = []
    if not registry:
        out.append(fe.required(f"{path}.registry", msg))
    elif len(str(src.get("tenant") or "")) >= 65:
        out.append(fe.required(f"{path}.tenant", "must be a UUID and may not exceed a length of 64 characters"))
    else:
        out += [fe.invalid(f"{path}.registry", registry, msg) for p in registry.split(",") if not _host_port_ok(p)]
    if not src.get("volume"):
        out.append(fe.required(f"{path}.volume"))
    return out


def default_azure_disk(src: Any) -> None:
    """The generated v1 defaults of ``AzureDiskVolumeSource`` (pods and volumes alike)."""
    if isinstance(src, dict):
        for key, value in (("cachingMode", "ReadWrite"), ("fsType", "ext4"), ("readOnly", False), ("kind", "Shared")):
            if src.get(key) is None:
                src[key] = value


def default_claim_template(src: Any) -> None:
    """``SetDefaults_PersistentVolumeClaimSpec`` of an ephemeral volume's claim template."""
    tmpl = _o(src).get("volumeClaimTemplate")
    if isinstance(tmpl, dict):
        spec = tmpl.setdefault("spec", {})
        if isinstance(spec, dict) and spec.get("volumeMode") is None:
            spec["volumeMode"] = "Filesystem"


def azure_disk_causes(src: Obj, path: str) -> list[Cause]:
    """``validateAzureDisk``."""
    out = _required("diskName", "diskURI")(src, path)
    mode, kind, uri = src.get("cachingMode"), src.get("kind"), str(src.get("diskURI") or "")
    if mode is not None and mode not in ("None", "ReadOnly", "ReadWrite"):
        out.append(fe.not_supported(f"{path}.cachingMode", mode, ("None", "ReadOnly", "ReadWrite")))
    if kind is not None and kind not in ("Dedicated", "Managed", "Shared"):
        out.append(fe.not_supported(f"{path}.kind", kind, ("Dedicated", "Managed", "Shared")))
    if kind == "Managed" and not uri.startswith("/subscriptions/"):
        out.append(fe.not_supported(f"{path}.diskURI", uri, (
            "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}",)))
    if kind is not None and kind != "Managed" and not uri.startswith("https://"):
        out.append(fe.not_supported(f"{path}.diskURI", uri, (
            "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd",)))
    return out


def iscsi_name_ok(value: str) -> bool:
    """Whether an iSCSI IQN or initiator name has the iqn, eui or naa format."""
    regex = {"iqn": _IQN, "eui": _EUI, "naa": _NAA}.get(value[:3])
    return regex is not None and regex.match(value) is not None


def _fc(src: Obj, path: str) -> list[Cause]:
    out: list[Cause] = []
    wwns, wwids = src.get("targetWWNs") or [], src.get("wwids") or []
    if not wwns and not wwids:
        out.append(fe.required(f"{path}.targetWWNs", "must specify either targetWWNs or wwids, but not both"))
    if wwns and wwids:
        out.append(fe.invalid(f"{path}.targetWWNs", wwns, "targetWWNs and wwids can not be specified simultaneously"))
    if wwns:
        lun = src.get("lun")
        if lun is None:
            out.append(fe.required(f"{path}.lun", "lun is required if targetWWNs is specified"))
        elif isinstance(lun, int) and not 0 <= lun <= 255:
            out.append(fe.invalid(f"{path}.lun", lun, "must be between 0 and 255, inclusive"))
    return out


def partitioned(key: str) -> Callable[[Obj, str], list[Cause]]:
    """``validateGCEPersistentDiskVolumeSource`` / ``validateAWSElasticBlockStoreVolumeSource``."""

    def check(src: Obj, path: str) -> list[Cause]:
        out = _required(key)(src, path)
        p = src.get("partition", 0)
        if isinstance(p, int) and not 0 <= p <= 255:  # upstream's message says 1, its check 0
            out.append(fe.invalid(f"{path}.partition", p, "must be between 1 and 255, inclusive"))
        return out

    return check


def _storageos(src: Obj, path: str) -> list[Cause]:
    """``validateStorageOSVolumeSource``: a pod's secret reference has only a name."""
    name, ns = str(src.get("volumeName") or ""), str(src.get("volumeNamespace") or "")
    out = [fe.invalid(f"{path}.volumeName", name, e) for e in dns1123_label_errors(name)] if name else [
        fe.required(f"{path}.volumeName")]
    out += [fe.invalid(f"{path}.volumeNamespace", ns, e) for e in dns1123_label_errors(ns)] if ns else []
    ref = src.get("secretRef")
    if ref is not None and not _o(ref).get("name"):
        out.append(fe.required(f"{path}.secretRef.name"))
    return out


def flex_causes(src: Obj, path: str) -> list[Cause]:
    """``validateFlexVolumeSource`` (and its PersistentVolume twin): option keys may not
    sit in the kubernetes.io or k8s.io namespaces."""
    out = _required("driver")(src, path)
    for k in _o(src.get("options")):
        ns = k.split("/", 1)[0]
        if ("." + ns.lower()).endswith((".kubernetes.io", ".k8s.io")):
            out.append(fe.invalid(f"{path}.options[{k}]", k, "kubernetes.io and k8s.io namespaces are reserved"))
    return out


def object_field_selector_causes(ref: Obj, allowed: tuple[str, ...], path: str) -> list[Cause]:
    """``validateObjectFieldSelector`` (apiVersion defaulted to v1): the path must convert
    (``ConvertDownwardAPIFieldLabel``), then be one of ``allowed``; a labels or
    annotations subscript is a qualified name."""
    version, fp = ref.get("apiVersion") or "v1", str(ref.get("fieldPath") or "")
    if not fp:
        return [fe.required(f"{path}.fieldPath")]
    bad = "error converting fieldPath: "
    if version != "v1":
        return [fe.invalid(f"{path}.fieldPath", fp, f"{bad}unsupported pod version: {version}")]
    base, sep, sub = fp.removesuffix("']").partition("['")
    if fp.endswith("']") and sep and base:  # fieldpath.SplitMaybeSubscriptedPath
        if base not in ("metadata.annotations", "metadata.labels"):
            return [fe.invalid(f"{path}.fieldPath", fp, f"{bad}field label does not support subscript: {fp}")]
        key = sub.lower() if base == "metadata.annotations" else sub
        return [fe.invalid(path, key, e) for e in label_key_errors(key)]
    fp = "spec.nodeName" if fp == "spec.host" else fp  # old v1 clients' name for it
    if fp not in _CONVERTIBLE:
        return [fe.invalid(f"{path}.fieldPath", fp, f"{bad}field label not supported: {fp}")]
    if fp not in allowed:
        return [fe.not_supported(f"{path}.fieldPath", fp, allowed)]
    return []


def _downward_file(f: Obj, path: str) -> list[Cause]:
    """``validateDownwardAPIVolumeFile`` (its path is the source's, without an index)."""
    p = str(f.get("path") or "")
    out = [] if p else [fe.required(f"{path}.path")]
    out += local_path_causes(p, f"{path}.path")
    if f.get("fieldRef") is not None:
        out += object_field_selector_causes(_o(f["fieldRef"]), _DOWNWARD_FIELDS, f"{path}.fieldRef")
        if f.get("resourceFieldRef") is not None:
            out.append(fe.invalid(path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
    elif f.get("resourceFieldRef") is not None:
        ref = _o(f["resourceFieldRef"])
        if not ref.get("containerName"):
            out.append(fe.required(f"{path}.resourceFieldRef.containerName"))
    else:
        out.append(fe.required(path, "one of fieldRef and resourceFieldRef is required"))
    return out + _mode(f, "mode", path)


def _downward(src: Obj, path: str) -> list[Cause]:
    out = _mode(src, "defaultMode", path)
    for f in src.get("items") or []:
        out += _downward_file(_o(f), path)
    return out


def _claimed_path(p: str, paths: set[str], path: str, value: Any) -> list[Cause]:
    if p in paths:
        return [fe.invalid(path, value, "conflicting duplicate paths")]
    paths.add(p)
    return []


def _projected(src: Obj, path: str, allow_non_local: bool = False) -> list[Cause]:
    """``validateProjectionSources`` (``allow_non_local``: AllowNonLocalProjectedTokenPath)."""
    out = _mode(src, "defaultMode", path)
    paths: set[str] = set()
    for i, s in enumerate(src.get("sources") or []):
        s, sp = _o(s), f"{path}.sources[{i}]"
        for kind in ("secret", "configMap"):
            if s.get(kind) is None:
                continue
            ref = _o(s[kind])
            if not ref.get("name"):
                out.append(fe.required(f"{sp}.{kind}.name"))
            for j, kp in enumerate(ref.get("items") or []):
                out += _key_to_path(_o(kp), f"{sp}.{kind}.items[{j}]")
                if _o(kp).get("path"):
                    out += _claimed_path(kp["path"], paths, path, ref.get("name", ""))
        if s.get("downwardAPI") is not None:
            for f in _o(s["downwardAPI"]).get("items") or []:
                out += _downward_file(_o(f), f"{sp}.downwardAPI")
                if _o(f).get("path"):
                    out += _claimed_path(f["path"], paths, path, f["path"])
        if s.get("serviceAccountToken") is not None:
            out += _token(_o(s["serviceAccountToken"]), f"{sp}.serviceAccountToken", path, allow_non_local)
        if s.get("clusterTrustBundle") is not None:
            out += _trust_bundle(_o(s["clusterTrustBundle"]), f"{sp}.clusterTrustBundle", paths, path)
        if s.get("podCertificate") is not None:
            from reference_impl.apiserver.validation.pod_volumes_podcert import (
                pod_certificate_causes,
            )

            out += pod_certificate_causes(_o(s["podCertificate"]), f"{sp}.podCertificate", paths, path)
        kinds = [k for k in ("secret", "configMap", "downwardAPI", "serviceAccountToken", "clusterTrustBundle", "podCertificate") if s.get(k) is not None]
        if len(kinds) > 1:
            out.append(fe.forbidden(sp, "may not specify more than 1 volume type per source"))
    return out


def _token(t: Obj, path: str, projected: str, allow_non_local: bool) -> list[Cause]:
    out: list[Cause] = []
    exp = t.get("expirationSeconds")  # defaulted to 3600 when unset
    if isinstance(exp, int):
        if exp < 600:
            out.append(fe.invalid(f"{path}.expirationSeconds", exp, "may not specify a duration less than 10 minutes"))
        if exp > 1 << 32:
            out.append(fe.invalid(f"{path}.expirationSeconds", exp, "may not specify a duration larger than 2^32 seconds"))
    p = str(t.get("path") or "")
    if not p:
        out.append(fe.required(f"{projected}.path"))
    elif not allow_non_local:
        out += local_path_causes(p, f"{projected}.path")
    return out


def _trust_bundle(b: Obj, path: str, paths: set[str], projected: str) -> list[Cause]:
    """A projected ``clusterTrustBundle``: a name (checked as a bundle of the signer its
    name implies) or a signerName with a label selector, and a path. (``user`` is dropped
    on write while AtomicWriteVolumeUserFields is off, so its check never shows.)"""
    # Imported here: the strategies package imports this module.
    from reference_impl.apiserver.strategies.certificates_names import signer_name_causes
    from reference_impl.apiserver.strategies.meta import name_errors
    from reference_impl.apiserver.strategies.policy import label_selector_causes

    out: list[Cause] = []
    name, signer = b.get("name"), b.get("signerName")
    if name is not None and signer is not None:
        out.append(fe.invalid(path, b, "only one of name and signerName may be used"))
    elif name is not None:
        name = str(name)
        if not name:
            out.append(fe.required(f"{path}.name", "must be a valid object name"))
        # extractSignerNameFromClusterTrustBundleName: up to the last ":", ":" as "/".
        owner = name[: name.rfind(":")].replace(":", "/") if ":" in name else ""
        errs = name_errors("ClusterTrustBundle", name, False, {"spec": {"signerName": owner}})
        out += [fe.invalid(f"{path}.name", name, f"not a valid clustertrustbundlename: {e}") for e in errs]
        if b.get("labelSelector") is not None:
            out.append(fe.invalid(f"{path}.labelSelector", b["labelSelector"], "labelSelector must be unset if name is specified"))
    elif signer is not None:
        if not signer:
            out.append(fe.required(f"{path}.signerName", "must be a valid signer name"))
        out += signer_name_causes(f"{path}.signerName", str(signer))
        out += label_selector_causes(b.get("labelSelector"), f"{path}.labelSelector")
    else:
        out.append(fe.required(path, "either name or signerName must be specified"))
    p = str(b.get("path") or "")
    if not p:
        out.append(fe.required(f"{path}.path"))
    out += local_path_causes(p, f"{path}.path")
    return out + _claimed_path(p, paths, projected, p)


def _csi(src: Obj, path: str) -> list[Cause]:
    """``validateCSIVolumeSource`` with ``ValidateCSIDriverName``."""
    driver = str(src.get("driver") or "")
    out: list[Cause] = []
    if not driver:
        out.append(fe.required(f"{path}.driver"))
    else:
        if len(driver) > 63:
            out.append(Cause(f"{path}.driver", "FieldValueTooLong", "Too long: may not be more than 63 bytes"))
        out += [fe.invalid(f"{path}.driver", driver, e) for e in dns1123_subdomain_errors(driver.lower())]
    ref = src.get("nodePublishSecretRef")
    if ref is not None:
        name = str(_o(ref).get("name") or "")
        if not name:
            out.append(fe.required(f"{path}.nodePublishSecretRef.name"))
        else:
            out += [fe.invalid(f"{path}.name", name, e) for e in dns1123_subdomain_errors(name)]
    return out


def _ephemeral(src: Obj, path: str) -> list[Cause]:
    from reference_impl.apiserver.strategies.meta import annotations_causes, labels_causes
    from reference_impl.apiserver.strategies.service_pvc import _claim_spec_causes
    from reference_impl.apiserver.validation.resource.device_class import meta_field_set

    tmpl = src.get("volumeClaimTemplate")
    if tmpl is None:
        return [fe.required(f"{path}.volumeClaimTemplate")]
    tp = f"{path}.volumeClaimTemplate"
    meta = _o(_o(tmpl).get("metadata"))
    # ValidateTemplateObjectMeta; other fields are forbidden under Go's field names (UID: "uID").
    out = labels_causes(_o(meta.get("labels")), f"{tp}.metadata.labels")
    out += annotations_causes(_o(meta.get("annotations")), f"{tp}.metadata.annotations")
    out += [fe.forbidden(f"{tp}.metadata.{'uID' if k == 'uid' else k}", "cannot be set")
            for k in sorted(meta) if k not in ("labels", "annotations") and meta_field_set(k, meta[k])]
    for c in _claim_spec_causes(_o(_o(tmpl).get("spec"))):
        out.append(Cause(f"{tp}.{c.field}", c.reason, c.message))
    return out


def _image(src: Obj, path: str, allow_empty: bool = False) -> list[Cause]:
    """``validateImageVolumeSource`` (``allow_empty``: AllowEmptyImageVolumeReference)."""
    out = [] if allow_empty else _required("reference")(src, path)
    policy = src.get("pullPolicy")
    if policy is not None and policy not in _PULL:
        out.append(fe.not_supported(f"{path}.pullPolicy", policy, _PULL))
    return out


# validateVolumeSource's order: the first source set is validated, later ones forbidden.
_SOURCES: Final[tuple[tuple[str, Callable[[Obj, str], list[Cause]]], ...]] = (
    ("emptyDir", _empty_dir),
    ("hostPath", _host_path),
    ("gitRepo", _git_repo),
    ("gcePersistentDisk", partitioned("pdName")),
    ("awsElasticBlockStore", partitioned("volumeID")),
    ("secret", _secret),
    ("nfs", _nfs),
    ("iscsi", _iscsi),
    ("glusterfs", _required("endpoints", "path")),
    ("flocker", flocker_causes),
    ("persistentVolumeClaim", _required("claimName")),
    ("rbd", _required("monitors", "image")),
    ("cinder", _required("volumeID")),
    ("cephfs", _required("monitors")),
    ("quobyte", quobyte_causes),
    ("downwardAPI", _downward),
    ("fc", _fc),
    ("flexVolume", flex_causes),
    ("configMap", _config_map),
    ("azureFile", _required("secretName", "shareName")),
    ("vsphereVolume", _required("volumePath")),
    ("photonPersistentDisk", _required("pdID")),
    ("portworxVolume", _required("volumeID")),
    ("azureDisk", azure_disk_causes),
    ("storageos", _storageos),
    ("projected", _projected),
    ("scaleIO", _required("gateway", "system", "volumeName")),
    ("csi", _csi),
    ("ephemeral", _ephemeral),
    ("image", _image),
)


def volume_source_causes(key: str, src: Obj, path: str) -> list[Cause]:
    """One source's own rules (PersistentVolume sources share hostPath, nfs and fc)."""
    return dict(_SOURCES)[key](src, path)


# Where a source's own errors sit when upstream's path differs from the field name.
_RULE_PATHS: Final = {"gcePersistentDisk": "persistentDisk"}
# Where upstream puts a second source's Forbidden when it differs from the field name.
_EXTRA_PATHS: Final = {"cephfs": "cephFS", "downwardAPI": "downwarAPI"}


def _source(vol: Obj, path: str, lenient: tuple[bool, bool] = (False, False)) -> list[Cause]:
    """``validateVolumeSource``; ``lenient``: (AllowNonLocalProjectedTokenPath,
    AllowEmptyImageVolumeReference)."""
    out: list[Cause] = []
    seen = 0
    for key, check in _SOURCES:
        if vol.get(key) is None:
            continue
        if seen:
            extra = _EXTRA_PATHS.get(key, key)
            out.append(fe.forbidden(f"{path}.{extra}", "may not specify more than 1 volume type"))
            continue
        seen += 1
        src, sp = _o(vol[key]), f"{path}.{_RULE_PATHS.get(key, key)}"
        if key == "projected":
            out += _projected(src, sp, lenient[0])
        elif key == "image":
            out += _image(src, sp, lenient[1])
        else:
            out += check(src, sp)
    if not seen:
        out.append(fe.required(path, "must specify a volume type"))
    return out


def volume_causes(
    volumes: list[Any], path: str, pod_name: str = "", *,
    allow_non_local_token_path: bool = False, allow_empty_image_reference: bool = False,
) -> tuple[list[Cause], dict[str, Obj]]:
    """``ValidateVolumes``: the causes, and the valid volumes by name. With the pod's name,
    a PVC volume may not name a claim one of its ephemeral volumes creates."""
    out: list[Cause] = []
    valid: dict[str, Obj] = {}
    names: set[str] = set()
    created = {
        f"{pod_name}-{_o(v).get('name') or ''}"
        for v in volumes
        if pod_name and _o(v).get("ephemeral") is not None
    }
    for i, v in enumerate(volumes):
        vol, vp = _o(v), f"{path}[{i}]"
        name = str(vol.get("name") or "")
        pvc = vol.get("persistentVolumeClaim")
        if isinstance(pvc, dict) and str(pvc.get("claimName") or "") in created:
            msg = "must not reference a PVC that gets created for an ephemeral volume"
            out.append(fe.invalid(f"{vp}.persistentVolumeClaim.claimName", pvc.get("claimName"), msg))
        errs = _source(vol, vp, (allow_non_local_token_path, allow_empty_image_reference))
        if not name:
            errs.append(fe.required(f"{vp}.name"))
        else:
            errs += [fe.invalid(f"{vp}.name", name, e) for e in dns1123_label_errors(name)]
        if name in names:
            errs.append(fe.duplicate(f"{vp}.name", name))
        if errs:
            out += errs
        else:
            names.add(name)
            valid[name] = vol
    return out, valid



