"""gunicorn's access log without what must not be logged: the request line, the path and the
referrer keep their paths only (no query strings, registered secrets masked: core.redaction);
credentials and cookies are never among the atoms a format may name; card numbers are masked in
every line (core.logging.MaskCardNumbers on gunicorn's handlers, and in the paths themselves).

With LOG_FORMAT=json (core.logging.log_format: the default with DJANGO_DEBUG false) gunicorn's
own lines are JSON objects too, like the application's: its messages under `message`, and an
access line's atoms under names of their own (`request`, `status`, `durationMs`, `ndc`, ...)."""

import logging
from typing import Any

from gunicorn.glogging import Logger

from core.logging import MaskCardNumbers, json_formatter, log_format
from core.redaction import safe_path

# An access line's fields in the JSON format: name -> gunicorn's atom.
JSON_ACCESS = {
    "remote": "h",
    "request": "r",
    "method": "m",
    "path": "U",
    "status": "s",
    "bytes": "B",
    "referrer": "f",
    "userAgent": "a",
    "durationMs": "M",
    "ndc": "{x-request-id}o",
}

HIDDEN = ("authorization", "cookie", "query_string", "http_authorization", "http_cookie")
PATHS = ("raw_uri", "path_info", "request_uri", "referer", "http_referer")


class AccessLogger(Logger):
    def atoms(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> dict:
        atoms = super().atoms(resp, req, environ, request_time)
        path = safe_path(environ.get("RAW_URI") or environ.get("PATH_INFO") or "")
        atoms["r"] = f"{environ['REQUEST_METHOD']} {path} {environ['SERVER_PROTOCOL']}"
        atoms["U"] = safe_path(environ.get("PATH_INFO") or "")
        atoms["q"] = ""
        referer = environ.get("HTTP_REFERER")
        atoms["f"] = safe_path(referer) if referer else "-"
        for key, value in list(atoms.items()):
            if not (key.startswith("{") and key[-2:] in ("}i", "}e")):
                continue  # response headers ({name}o) stay
            name = key[1:-2]
            if name in HIDDEN:
                atoms[key] = "-"
            elif name in PATHS and isinstance(value, str):
                atoms[key] = safe_path(value)
        return atoms

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.addFilter(MaskCardNumbers())
        self.json = log_format() == "json"
        if self.json:
            for log in (self.error_log, self.access_log):
                for handler in log.handlers:
                    handler.setFormatter(json_formatter())

    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> None:
        if not getattr(self, "json", False):
            return super().access(resp, req, environ, request_time)
        if not self.access_log_enabled:
            return None
        atoms = self.atoms_wrapper_class(self.atoms(resp, req, environ, request_time))
        fields = {name: atoms[atom] for name, atom in JSON_ACCESS.items()}
        for name in ("status", "bytes", "durationMs"):
            value = fields[name]
            fields[name] = int(value) if str(value).isdigit() else None
        try:
            self.access_log.log(logging.INFO, "%s", fields["request"], extra=fields)
        except Exception:  # noqa: BLE001 - as gunicorn's own access(): never fail a request
            self.exception("access log")
        return None
