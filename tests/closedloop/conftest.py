"""The issuer's key fixtures and the payments' enrolled merchant, shared with the closed loop's
tests."""

from tests.issuer.conftest import _issuer_key_files, issuer_keys  # noqa: F401 - fixtures
from tests.payments.conftest import enrolled  # noqa: F401 - a fixture
