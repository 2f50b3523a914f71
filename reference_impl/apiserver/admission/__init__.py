"""Admission plugins of kube-apiserver (``plugin/pkg/admission``), one module per plugin."""

from reference_impl.apiserver.admission.priority import PriorityAdmission, install_priority

__all__ = ["PriorityAdmission", "install_priority"]
