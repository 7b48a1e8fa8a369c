"""Acting on a payment from the admin (bank staff) and the portal (merchant operators and
administrators): capture, reverse, refund through the same services as the API, idempotent,
recorded, and above BACKOFFICE_APPROVAL_AMOUNT approved by a second staff member (four eyes)."""
