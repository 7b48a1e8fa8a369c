from tests.payments.conftest import enrolled, payer  # noqa: F401 - fixtures shared with payments
