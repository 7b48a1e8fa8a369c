from django.apps import AppConfig


class ReconciliationConfig(AppConfig):
    name = "reconciliation"
    verbose_name = "Reconciliation"

    def ready(self) -> None:
        from core import metrics

        from . import results  # noqa: F401 - declares the app's result codes
        from .selectors import recon_files_last_day, settlement_last_final_day

        # Read at each scrape (core.metrics): an entity whose last file is old was not served.
        metrics.register_gauge(
            metrics.PREFIX + "recon_file_last_day_timestamp_seconds",
            "The business day of each entity's latest daily file (its start, Unix time, UTC).",
            recon_files_last_day,
            labels=("entity", "kind"),
        )
        metrics.register_gauge(
            metrics.PREFIX + "settlement_last_day_timestamp_seconds",
            "The latest business day with a final settlement run (its start, Unix time, UTC).",
            settlement_last_final_day,
        )
