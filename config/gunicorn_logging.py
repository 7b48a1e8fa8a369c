"""gunicorn's access log without what must not be logged: the request line, the path and the
referrer keep their paths only (no query strings, registered secrets masked: core.redaction);
credentials and cookies are never among the atoms a format may name."""

from typing import Any

from gunicorn.glogging import Logger

from core.redaction import safe_path

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
