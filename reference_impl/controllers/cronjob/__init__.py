"""The CronJob controller (``pkg/controller/cronjob``): ``schedule`` parses cron specs,
``utils`` does the schedule arithmetic, ``sync`` one sync, ``controller`` the loop."""

from reference_impl.controllers.cronjob.controller import CronJobController

__all__ = ["CronJobController"]
