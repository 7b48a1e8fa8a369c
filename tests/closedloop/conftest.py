"""The issuer's key fixtures, shared with the closed loop's tests."""

from tests.issuer.conftest import _issuer_key_files, issuer_keys  # noqa: F401 - fixtures
