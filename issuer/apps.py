from django.apps import AppConfig


class IssuerConfig(AppConfig):
    name = "issuer"
    verbose_name = "Issuer: protocol, cards and ledger"

    def ready(self) -> None:
        # The implemented operations register themselves; the app's result codes are declared.
        from core.redaction import register_secret_path

        from . import operations, results  # noqa: F401

        # The cardholder link's secret never reaches a log line.
        register_secret_path(r"^/issuer/oob/[^/]+/([^/]+)")

        # The ledger's holds, read at each scrape (core.metrics).
        from core import metrics

        from .selectors import ledger_holds_in_force

        metrics.register_gauge(
            metrics.PREFIX + "ledger_holds",
            "Holds in force on the issuer's ledger (authorizations not released nor expired).",
            lambda: [((c,), n) for c, n, _ in ledger_holds_in_force()],
            labels=("currency",),
        )
        metrics.register_gauge(
            metrics.PREFIX + "ledger_held_amount",
            "The amount those holds set aside, in the currency's units.",
            lambda: [((c,), amount) for c, _, amount in ledger_holds_in_force()],
            labels=("currency",),
        )

        from .protocol.keys import active_key_ages

        metrics.register_gauge(
            metrics.PREFIX + "issuer_key_age_seconds",
            "Age of the issuer's active signing (sig) and encryption (enc) key: rotate before "
            "the bank's policy says (docs/runbook.md, Key rotation due).",
            active_key_ages,
            labels=("use",),
        )

        # The issuer's card numbers are in the vault: rotation reaches them.
        from core import vault
        from core.cards import PAN_PURPOSE

        from .cards.models import Card

        vault.register(Card, "pan_ciphertext", purpose=PAN_PURPOSE)

        # The closed loop: a token request for one of the issuer's cards is the issuer's to
        # decide (TokenRequest's rule), not the network's.
        from tokenization import services as tokenization

        from .cards.tokens import decide_token_request

        tokenization.decider_register(decide_token_request)

        # The closed loop's payments: the platform's own acquirer reaches the issuer through its
        # port (payments never imports the issuer); an issuer without an acquirer runs alone.
        from django.apps import apps

        if apps.is_installed("payments"):
            from payments.connectors import onus_port

            from .acquiring import AcquirerPort

            onus_port.issuer_register(AcquirerPort())
