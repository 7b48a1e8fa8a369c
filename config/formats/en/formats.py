"""How the admin (and any template without a format of its own) writes dates and times: ISO
8601, as the API, the portal and the files do, with the zone named (TIME_ZONE is UTC), instead
of Django's English "Nov. 27, 2026, 3:21 a.m.". Read through FORMAT_MODULE_PATH; the input
formats stay Django's (ISO 8601 among them)."""

DATE_FORMAT = "Y-m-d"
DATETIME_FORMAT = "Y-m-d H:i:s T"
TIME_FORMAT = "H:i:s"
SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i T"
