"""Pod annotation keys that Kubernetes itself reads (k8s.io/api core/v1 annotation_key_constants.go)."""

from __future__ import annotations

from typing import Final

__all__ = ["APPARMOR_CONTAINER_PREFIX", "MIRROR_POD"]

# A static pod's mirror in the apiserver (the kubelet writes it; kubetypes.ConfigMirrorAnnotationKey).
MIRROR_POD: Final = "kubernetes.io/config.mirror"
# The deprecated per-container AppArmor profile annotation, followed by the container name.
APPARMOR_CONTAINER_PREFIX: Final = "container.apparmor.security.beta.kubernetes.io/"
