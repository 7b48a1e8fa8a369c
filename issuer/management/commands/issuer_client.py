"""Try the issuer authorization API as a requestor (issuer.client).

    manage.py issuer_client keygen --out var/my-requestor/private.json \\
        --public-out var/my-requestor/public.json
    manage.py register_requestor --client-id my-requestor \\
        --jwks-file var/my-requestor/public.json --scopes "START_OOB CHECK_OOB OTP"
    manage.py issuer_client --base-url http://127.0.0.1:8000 --client-id my-requestor \\
        --key-file var/my-requestor/private.json --scopes "START_OOB CHECK_OOB" \\
        authentication StartOOBAuthen '{"cardReference": "411111******1111", ...}'
    manage.py issuer_client ... token          # print the token endpoint's answer
    manage.py issuer_client ... --scopes TOKEN token TokenInquiry '{"cardReference": "..."}'
                                               # three words: the Token group's operations

A key file may name its `client_id` and the issuer's `base_url` beside its `keys` (the demo
requestor's file, var/demo-requestor/oob-client.json, does): they are the defaults of
--client-id and --base-url, which otherwise default to oob-client and ISSUER_BASE_URL.
The payload is JSON text, `@file` or `-` (stdin). The decrypted answer is printed as JSON.
"""

import json
import os
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from issuer.protocol.client import (
    DEFAULT_RSA_BITS,
    IssuerClientError,
    RequestorClient,
    generate_keys,
    public_jwks,
    split_keys,
)

DEFAULT_CLIENT_ID = "oob-client"


class Command(BaseCommand):
    help = (
        "Requestor client of the issuer API: `keygen`, `token`, or GROUP OPERATION PAYLOAD "
        "(fetch a token, encrypt the payload, post it, print the decrypted answer)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "words",
            nargs="+",
            metavar="ARG",
            help="keygen | token | GROUP OPERATION PAYLOAD (e.g. authentication StartOOBAuthen "
            "'{...}'; PAYLOAD is JSON, @file or - for standard input)",
        )
        parser.add_argument(
            "--base-url", help="the issuer; default: the key file's base_url, else ISSUER_BASE_URL"
        )
        parser.add_argument(
            "--client-id", help="default: the key file's client_id, else oob-client"
        )
        parser.add_argument("--key-file", help="the requestor's private JWK set (keygen --out)")
        parser.add_argument("--scopes", default="", help='space separated, e.g. "START_OOB"')
        parser.add_argument("--token-url", help="default: BASE/oauth2/token")
        parser.add_argument("--api-base", help="default: BASE/issuer/v1")
        parser.add_argument(
            "--jwks-url", help="the issuer JWKS; default BASE/.well-known/jwks.json"
        )
        parser.add_argument("--timeout", type=float, default=10.0)
        parser.add_argument("--out", help="keygen: the private key file to write")
        parser.add_argument("--public-out", help="keygen: the public JWK set to register")
        parser.add_argument("--rsa-bits", type=int, default=DEFAULT_RSA_BITS)
        parser.add_argument("--force", action="store_true", help="keygen: overwrite files")

    def handle(self, *args: Any, **options: Any) -> None:
        words: list[str] = options["words"]
        if words[0] == "keygen":
            if len(words) != 1:
                raise CommandError("keygen takes no positional arguments")
            self.keygen(options)
            return
        client = self.client(options)
        try:
            if words == ["token"]:
                answer = client.fetch_token(options["scopes"].split() or None)
            elif len(words) == 3:  # also the Token group: token TokenInquiry PAYLOAD
                group, operation, payload = words
                answer = client.call(group, operation, self.payload(payload))
            else:
                raise CommandError(
                    "give GROUP OPERATION PAYLOAD (e.g. token TokenInquiry '{...}'), keygen, "
                    "or token alone (print the token endpoint's answer)"
                )
        except IssuerClientError as exc:
            if exc.body is not None:
                self.stderr.write(json.dumps(exc.body, indent=2, ensure_ascii=False))
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(answer, indent=2, ensure_ascii=False))

    def keygen(self, options: dict[str, Any]) -> None:
        if not options["out"] or not options["public_out"]:
            raise CommandError("keygen needs --out (private) and --public-out (to register)")
        out, public_out = Path(options["out"]), Path(options["public_out"])
        for path in (out, public_out):
            if path.exists() and not options["force"]:
                raise CommandError(f"{path} exists (use --force to overwrite)")
        for path in (out, public_out):
            # A new folder (var/my-requestor/) is its owner's only.
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            private = generate_keys(rsa_bits=options["rsa_bits"])
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        # The private file is created readable by its owner only.
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump(private, handle, indent=2)
            handle.write("\n")
        public_out.write_text(json.dumps(public_jwks(private), indent=2) + "\n")
        kids = ", ".join(f"{k['kty']} {k['kid']} ({k['use']})" for k in private["keys"])
        self.stdout.write(f"wrote {out} (private, keep it secret) and {public_out} (public)")
        self.stdout.write(f"keys: {kids}")
        self.stdout.write(
            f"register it: python manage.py register_requestor --client-id "
            f"{options['client_id'] or DEFAULT_CLIENT_ID} --jwks-file {public_out} "
            '--scopes "START_OOB CHECK_OOB OTP"'
        )

    def client(self, options: dict[str, Any]) -> RequestorClient:
        if not options["key_file"]:
            raise CommandError("--key-file is required (the requestor's private JWK set)")
        try:
            key_file = json.loads(Path(options["key_file"]).read_text())
            if not isinstance(key_file, dict):
                raise ValueError('a key file is a JWK set {"keys": [...]}')
            ec_key, rsa_key = split_keys(key_file)
        except (OSError, ValueError, TypeError) as exc:
            raise CommandError(f"{options['key_file']}: {exc}") from exc
        base = options["base_url"] or key_file.get("base_url") or settings.ISSUER_BASE_URL
        client = RequestorClient.for_issuer(
            str(base),
            client_id=options["client_id"] or key_file.get("client_id") or DEFAULT_CLIENT_ID,
            ec_key=ec_key,
            rsa_key=rsa_key,
            scopes=options["scopes"].split(),
            timeout=options["timeout"],
        )
        if options["token_url"]:
            client.token_url = options["token_url"]
        if options["api_base"]:
            client.api_base = options["api_base"].rstrip("/")
        if options["jwks_url"]:
            client.jwks_url = options["jwks_url"]
        return client

    def payload(self, text: str) -> dict[str, Any]:
        if text == "-":
            text = sys.stdin.read()
        elif text.startswith("@"):
            try:
                text = Path(text[1:]).read_text()
            except OSError as exc:
                raise CommandError(str(exc)) from exc
        try:
            payload = json.loads(text)
        except ValueError as exc:
            raise CommandError(f"the payload is not JSON: {exc}") from exc
        if not isinstance(payload, dict):
            raise CommandError("the payload must be a JSON object")
        return payload
