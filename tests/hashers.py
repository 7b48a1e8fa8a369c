"""The tests' password hasher: Django's PBKDF2-SHA256 with 1,000 iterations instead of 1,000,000.

A hash costs half a second at Django's count, and about 280 tests make a user with a password (the
admin's and the portal's). The algorithm and the hash's format are Django's own, the iteration
count is written in the hash, so a server a test starts in another process, with the production
hashers, still verifies these passwords (and upgrades them to the full count at the first
sign-in, as it would any older hash)."""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1_000
