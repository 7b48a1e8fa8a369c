from django.apps import AppConfig


class ReconciliationConfig(AppConfig):
    name = "reconciliation"
    verbose_name = "Reconciliation"

    def ready(self) -> None:
        from core import metrics

        from . import results  # noqa: F401 - declares the app's result codes
        from .selectors import recon_files_last_day

        # Read at each scrape (core.metrics): an entity whose last file is old was not served.
        metrics.register_gauge(
            metrics.PREFIX + "recon_file_last_day_timestamp_seconds",
            "The business day of each entity's latest daily file (its start, Unix time, UTC).",
            recon_files_last_day,
            labels=("entity", "kind"),
        )
