"""Ports of upstream's handwritten and declarative validation (``pkg/apis/*/validation``).

``field`` and ``fielderr`` build field errors with upstream's reasons and messages;
``formats`` holds the name formats and ``tag_formats`` the string formats of the
declarative tags, which ``declarative`` runs as tables; ``conditions`` and
``status_conditions`` are upstream's condition rules; ``resource`` holds resource.k8s.io's
rules, and the other groups' tables and rules live beside their strategies.
"""
