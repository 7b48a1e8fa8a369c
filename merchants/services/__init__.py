"""Every write to entities and merchants. Admin actions, API views and commands call these.

Status changes and 3DS enrolment lock the merchant row (`select_for_update`), check the
transition after the lock, write the new state and an append-only history row in one transaction.
Refusals raise `ApplicationError` with their result code before anything is written.

One module per entity: `entities` (entities and their tokens), `merchants` (merchants, their
status and 3DS enrolment, the test notification), `portal_users`, `limits` (amount limits).
"""

from .entities import (
    MAX_TOKEN_OVERLAP,
    PREVIOUS_TOKEN_COLUMNS,
    TOKEN_COLUMNS,
    TOKEN_PURPOSE,
    entity_create,
    entity_end_previous_token,
    entity_rotate_token,
    entity_token_plaintext,
    entity_update,
    free_entity_id,
    notification_credentials,
)
from .limits import amount_limit_remove, amount_limit_set
from .merchants import (
    MERCHANT_STATUS,
    TEST_TOPIC,
    THREEDS_ENROLMENT,
    merchant_3ds_delete,
    merchant_3ds_enrol,
    merchant_create,
    merchant_set_status,
    merchant_set_test_mode,
    merchant_set_threeds_mode,
    merchant_update,
    notification_test,
)
from .portal_users import (
    PORTAL_PASSWORD_BYTES,
    portal_user_create,
    portal_user_email_problem,
    portal_user_password_changed,
    portal_user_reset_password,
    portal_user_set_active,
    portal_user_set_role,
)

__all__ = [
    "MAX_TOKEN_OVERLAP",
    "MERCHANT_STATUS",
    "PORTAL_PASSWORD_BYTES",
    "PREVIOUS_TOKEN_COLUMNS",
    "TEST_TOPIC",
    "THREEDS_ENROLMENT",
    "TOKEN_COLUMNS",
    "TOKEN_PURPOSE",
    "amount_limit_remove",
    "amount_limit_set",
    "entity_create",
    "entity_end_previous_token",
    "entity_rotate_token",
    "entity_token_plaintext",
    "entity_update",
    "free_entity_id",
    "merchant_3ds_delete",
    "merchant_3ds_enrol",
    "merchant_create",
    "merchant_set_status",
    "merchant_set_test_mode",
    "merchant_set_threeds_mode",
    "merchant_update",
    "notification_credentials",
    "notification_test",
    "portal_user_create",
    "portal_user_email_problem",
    "portal_user_password_changed",
    "portal_user_reset_password",
    "portal_user_set_active",
    "portal_user_set_role",
]
