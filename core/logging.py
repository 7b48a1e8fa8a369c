import logging

from .context import get_ndc


class NdcFilter(logging.Filter):
    """Puts the current request's ndc on every log record (`%(ndc)s` in the format)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.ndc = get_ndc()
        return True
