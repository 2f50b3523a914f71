"""Ports of upstream's handwritten and declarative validation (``pkg/apis/*/validation``).

``field`` builds field errors with upstream's reasons and messages; ``formats`` holds the
name formats; each API group has a subpackage (``resource`` for resource.k8s.io).
"""
