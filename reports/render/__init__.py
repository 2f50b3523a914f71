"""Renderers, one format per module: results.json, e2e.log, report.html, PRODUCT.yaml."""
