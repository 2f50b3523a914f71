"""resource.k8s.io validation (``pkg/apis/resource/validation`` and the declarative
``+k8s:`` rules of ``k8s.io/api/resource/v1``), on objects at the storage version (v1).

``claim`` (ResourceClaim and template specs), ``claim_status``, ``device_class``,
``slice`` (+ ``device``, ``capacity``), ``taints`` (DeviceTaintRule, tolerations). CEL
compilation lives above this layer (``reference_impl.dra.validation``).
"""
