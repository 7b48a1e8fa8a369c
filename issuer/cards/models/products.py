"""Card products, the catalogue's letter of each operation for a product, and BIN ranges."""

from django.db import models
from django.db.models import Q


class ProductKind(models.TextChoices):
    PREPAID = "prepaid", "Prepaid"
    DEBIT = "debit", "Debit"


class Letter(models.TextChoices):
    M = "M", "M: mandatory (always runs)"
    O = "O", "O: optional (runs unless switched off)"  # noqa: E741 - the specification's letter
    C = "C", "C: conditional (runs when the product's configuration allows it)"
    NA = "NA", "NA: not applicable (never runs)"


class CardProduct(models.Model):
    code = models.CharField(max_length=32, unique=True, help_text="e.g. PREPAID-EUR")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=10, choices=ProductKind.choices)
    brand = models.CharField(max_length=16, default="VISA")
    currency = models.CharField(max_length=3)
    card_years = models.PositiveSmallIntegerField(default=3, help_text="Validity of a new card.")
    max_balance = models.DecimalField(
        max_digits=16,
        decimal_places=3,
        null=True,
        blank=True,
        help_text="Prepaid: the most its account may hold (empty: no maximum).",
    )
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.code} ({self.get_kind_display()})"


class ProductOperation(models.Model):
    """A catalogue operation's letter for a product, and whether the product offers it."""

    product = models.ForeignKey(CardProduct, on_delete=models.CASCADE, related_name="operations")
    operation = models.CharField(max_length=64, help_text="group/Operation")
    letter = models.CharField(max_length=2, choices=Letter.choices)
    enabled = models.BooleanField(
        default=True,
        help_text="O: offered unless unticked. C: runs only when ticked. M always, NA never.",
    )

    class Meta:
        ordering = ["product", "operation"]
        constraints = [
            models.UniqueConstraint(
                fields=["product", "operation"], name="product_operation_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.operation} {self.letter}"


class BinRange(models.Model):
    """A BIN (6 or 8 digits) the issuer owns; cards of `product` are numbered in it."""

    bin = models.CharField("BIN", max_length=8, unique=True)
    pan_length = models.PositiveSmallIntegerField("PAN length", default=16)
    product = models.ForeignKey(CardProduct, on_delete=models.PROTECT, related_name="bin_ranges")
    active = models.BooleanField(default=True)

    class Meta:
        verbose_name = "BIN range"
        constraints = [
            models.CheckConstraint(
                condition=Q(pan_length__gte=12, pan_length__lte=19), name="bin_pan_length"
            )
        ]

    def __str__(self) -> str:
        return f"{self.bin} ({self.product.code})"
