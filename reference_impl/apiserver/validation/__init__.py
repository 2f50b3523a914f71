"""Upstream's validation, ported: field-error constructors with upstream's messages
(``fielderr``), the string formats of the declarative tags (``formats``), a small engine
that runs ``+k8s:`` tag tables (``declarative``) and the shared imperative rules
(``conditions``). The per-kind tables and rules live beside the strategies."""
