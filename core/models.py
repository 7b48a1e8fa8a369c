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


class OutboxStatus(models.TextChoices):
    PENDING = "PENDING", "Pending: to be delivered (or retried)"
    DELIVERED = "DELIVERED", "Delivered: acknowledged with a 2xx"
    FAILED = "FAILED", "Failed: every attempt of the schedule was refused"


class OutboxMessage(models.Model):
    """An outbound notification, written in the transaction that changed what it reports (a
    change that rolls back sends nothing), delivered after commit and swept by beat
    (core.outbox). `event_id` is stable across attempts; `sequence` orders one subject's events."""

    event_id = models.CharField(primary_key=True, max_length=32)
    topic = models.CharField(max_length=40)
    subject = models.CharField(max_length=64, help_text="What the event is about (a token).")
    sequence = models.PositiveIntegerField()
    url = models.URLField(max_length=2048)
    credential = models.CharField(
        max_length=64,
        blank=True,
        help_text="Whose access token goes in the Authorization header (none for a sealed one).",
    )
    sealing = models.CharField(
        max_length=80,
        blank=True,
        help_text="How the body is sealed instead (`webhook:<id>`: encrypted with the "
        "webhook's secret, no token); empty: JSON with the credential's token.",
    )
    body = models.JSONField()
    status = models.CharField(
        max_length=10, choices=OutboxStatus.choices, default=OutboxStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "next_attempt_at"])]
        constraints = [
            models.UniqueConstraint(
                fields=["topic", "subject", "sequence"], name="outbox_sequence_per_subject"
            )
        ]

    def __str__(self) -> str:
        return f"{self.topic} {self.subject} #{self.sequence} ({self.status})"


class DeliveryAttempt(models.Model):
    message = models.ForeignKey(OutboxMessage, on_delete=models.CASCADE, related_name="deliveries")
    attempted_at = models.DateTimeField()
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField()
    excerpt = models.CharField(max_length=200, blank=True, help_text="The start of the answer.")
    error = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["attempted_at", "pk"]

    def __str__(self) -> str:
        return f"{self.http_status or self.error} in {self.latency_ms} ms"
