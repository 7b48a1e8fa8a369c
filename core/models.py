"""API machinery state (no business data): answered requests kept for idempotent replay."""

from django.db import models


class IdempotentRequest(models.Model):
    """One answered request, replayed when the same merchantTransactionId comes again.

    Unique per calling entity, operation and merchantTransactionId: the constraint, not a check,
    is what makes concurrent duplicates safe. The stored body never holds a token.
    """

    entity_id = models.CharField(max_length=8)
    operation = models.CharField(max_length=40)
    merchant_transaction_id = models.CharField(max_length=32)
    request_hash = models.CharField(max_length=64)
    response_body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["entity_id", "operation", "merchant_transaction_id"],
                name="idempotent_request_unique_mtid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.entity_id} {self.operation} {self.merchant_transaction_id}"
