"""garhwal's reports: the results model, verdicts and renderers (junit, json, e2e.log, html,
certification bundles). Sits between the plugin (``fixtures``) and the simulator."""

from reports.verdicts import Outcome, TestResult, Verdict, feature_verdicts

__all__ = ["Outcome", "TestResult", "Verdict", "feature_verdicts"]
