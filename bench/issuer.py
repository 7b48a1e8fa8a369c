"""Issuer load benchmark: the token endpoint and JWE round trips through the authorization API,
against gunicorn (config/gunicorn.conf.py) on PostgreSQL, driven over HTTP.

    .venv/bin/python bench/issuer.py --mode token --duration 20 --concurrency 16 --workers 4
    .venv/bin/python bench/issuer.py --mode api --duration 20 --concurrency 16 --workers 4
    .venv/bin/python bench/issuer.py --profile 300              # where the time goes, in-process

Setup (every run): the database named by --database-url is created if needed and migrated; the
issuer keys live in bench/results/issuer-keys (`issuer_keys generate` makes them once); the
requestor "bench-client" has its own key pair (EC P-256 + RSA 3072, made once in
bench/results/issuer-requestor-private.json) and is (re-)registered with every scope.

Load mode starts gunicorn on a free loopback port (ISSUER_BASE_URL points at it, so client
assertions carry the right aud), waits for /healthz, then runs --concurrency client threads over
--client-procs processes for --warmup + --duration seconds:

- token: each request is a client-credentials grant with a fresh client assertion (ES256, new
  jti). The assertions are signed before the clock starts, so the load generator's CPU goes to
  HTTP, not to ECDSA. A 200 with an access_token counts; anything else is an error.
- api: authentication/OOBResultInquiry of one authentication, with one access token fetched
  first. Request JWEs (RSA-OAEP-256 to the issuer's RSA 3072 key, A128GCM) are encrypted before
  the clock starts and reused round robin. A 200 with an application/jose body counts; every
  --verify-every'th answer is decrypted with the requestor's RSA key and its result.code
  checked (decrypting all of them would spend the load generator's CPU on RSA, on the same two
  cores the server needs).

Profile mode (--profile [N]): N token requests and N API round trips through Django's test
Client in this process under cProfile (top 22 by cumulative time), then micro-timings of the
pieces (key look-up, JWE decrypt and encrypt, token validation and signing).

Prints throughput, p50/p90/p99/max latency and errors, writes
bench/results/issuer-<timestamp>-<mode>.json, and stops gunicorn at the end, also on Ctrl-C.
See the "Issuer" section of bench/README.md for the measured results.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import itertools
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

# Run as a script, bench/ is first on sys.path and "payments" would name the bench script, not
# the Django app: the project root goes first instead.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from bench import _load, _server  # noqa: E402 - after the sys.path fix above
from bench.payments import (  # noqa: E402
    HEALTH_TIMEOUT_S,
    cpu_snapshot,
    cpu_usage,
    ensure_database,
    machine_info,
    summarize,
)

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/cardplatform_bench_issuer"
KEYS_DIR = _server.RESULTS_DIR / "issuer-keys"
REQUESTOR_FILE = _server.RESULTS_DIR / "issuer-requestor-private.json"
CLIENT_ID = "bench-client"
SCOPES = "START_OOB CHECK_OOB OTP TRANSACTION"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
SUCCESS = "000.000.100"
TARGETS: dict[str, dict[str, Any]] = {
    "token": {"throughput_per_s": 2000, "p99_ms": 10},
    "api": {"throughput_per_s": 1500, "p99_ms": None},
    "purchase": {"throughput_per_s": None, "p99_ms": None},
}
PURCHASE_SUCCESS = "000.000.000"
BENCH_PRODUCT = "BENCH-PREPAID-EUR"
BENCH_CARDS = 64  # purchases spread over these cards (each card's purchases queue on its lock)
REQUEST_POOL = 64  # distinct request JWEs reused round robin in api mode


# --- setup --------------------------------------------------------------------------------------


def django_setup(database_url: str, port: int) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ["ISSUER_KEYS_DIR"] = str(KEYS_DIR)
    os.environ["ISSUER_BASE_URL"] = f"http://127.0.0.1:{port}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["DJANGO_DEBUG"] = "false"
    os.environ["LOG_LEVEL"] = "WARNING"
    _server.use_bench_keys()
    import django

    django.setup()


def migrate_and_seed() -> dict[str, Any]:
    """Migrate; make the issuer keys, the requestor's keys and registration, and one OOB
    authentication to inquire about. Returns what the load clients need."""
    from io import StringIO

    from django.core.management import call_command

    from issuer import services as oob
    from issuer.protocol import keys, requestors
    from issuer.protocol.client import generate_keys, public_jwks

    call_command("migrate", interactive=False, verbosity=0)
    call_command("issuer_keys", "generate", stdout=StringIO())
    _server.RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    if not REQUESTOR_FILE.exists():
        REQUESTOR_FILE.write_text(json.dumps(generate_keys(rsa_bits=3072)))
        REQUESTOR_FILE.chmod(0o600)
    private = json.loads(REQUESTOR_FILE.read_text())
    requestors.requestor_register(client_id=CLIENT_ID, jwks=public_jwks(private), scopes=SCOPES)
    auth, _link = oob.oob_start(
        client_id=CLIENT_ID,
        card_reference="411111******1111",
        transaction_id=f"bench-{uuid.uuid4().hex}",
        amount=Decimal("10.00"),
        currency="EUR",
        merchant_name="Bench Shop",
        expiry_seconds=900,
    )
    return {
        "private_jwks": private,
        "authentication_id": auth.pk,
        "cards": bench_cards(),
        "issuer_jwks": keys.published_jwks(),  # what GET /.well-known/jwks.json answers
    }


def bench_cards() -> list[str]:
    """BENCH_CARDS active prepaid cards of the bench requestor, each loaded with a million EUR
    (made once); their references."""
    from issuer.cards import money, services
    from issuer.cards.models import Card, CardProduct, KycStatus

    if not CardProduct.objects.filter(code=BENCH_PRODUCT).exists():
        services.product_create(
            code=BENCH_PRODUCT, name="Bench prepaid", kind="prepaid", currency="EUR",
            bins=["45970000"], enabled={"transaction/Purchase": True},
        )  # fmt: skip
    references = [f"bench_card_{i:03d}" for i in range(BENCH_CARDS)]
    for reference in references:
        if Card.objects.filter(client_id=CLIENT_ID, reference=reference).exists():
            continue
        card = services.card_apply(
            client_id=CLIENT_ID, product_code=BENCH_PRODUCT, form="VIRTUAL", actor="bench",
            customer_fields={"first_name": "Bench", "last_name": reference,
                             "kyc_status": KycStatus.VERIFIED},
            reference=reference,
        )  # fmt: skip
        services.card_activate(card=card, actor="bench")
        request = money.Request(client_id=CLIENT_ID, requestor_reference=f"load-{reference}",
                                digest="bench")  # fmt: skip
        money.load(request=request, card=card, amount=Decimal("1000000.00"), currency="EUR")
    return references


# --- request material (made before the clock starts) --------------------------------------------


def _requestor(seed: dict[str, Any], port: int) -> Any:
    from issuer.protocol.client import RequestorClient, split_keys

    ec, rsa = split_keys(seed["private_jwks"])
    return RequestorClient.for_issuer(
        f"http://127.0.0.1:{port}",
        client_id=CLIENT_ID,
        ec_key=ec,
        rsa_key=rsa,
        issuer_jwks=seed["issuer_jwks"],
    )


def token_bodies(seed: dict[str, Any], port: int, count: int) -> list[str]:
    client = _requestor(seed, port)
    return [
        urlencode(
            {
                "grant_type": "client_credentials",
                "client_id": CLIENT_ID,
                "scope": "CHECK_OOB",
                "client_assertion_type": ASSERTION_TYPE,
                "client_assertion": client.assertion(lifetime=290),
            }
        )
        for _ in range(count)
    ]


def api_bodies(seed: dict[str, Any], port: int) -> list[str]:
    client = _requestor(seed, port)
    payload = {"authenticationId": seed["authentication_id"]}
    return [client.encrypt_request(payload) for _ in range(REQUEST_POOL)]


def purchase_bodies(seed: dict[str, Any], port: int, count: int) -> list[str]:
    """Single-use Purchase requests (each its own requestorReference), round robin over the
    bench cards."""
    client = _requestor(seed, port)
    cards = seed["cards"]
    return [
        client.encrypt_request(
            {
                "cardReference": cards[i % len(cards)],
                "requestorReference": uuid.uuid4().hex,
                "amount": "1.00",
                "currency": "EUR",
                "channel": "ECOMMERCE",
                "merchantName": "Bench Shop",
            }
        )
        for i in range(count)
    ]


# --- load clients -------------------------------------------------------------------------------


class Loader(_load.KeepAliveClient):
    """One client thread: posts its bodies in turn."""

    def __init__(self, mode: str, port: int, bodies: list[str], seed: dict[str, Any], **kw: Any):
        super().__init__(port)
        self.mode, self.bodies = mode, bodies
        self.verify_every = kw.get("verify_every", 20)
        self.token = kw.get("token", "")
        self.rsa = None
        if mode in ("api", "purchase"):
            from issuer.protocol.client import split_keys

            self.rsa = split_keys(seed["private_jwks"])[1]
        self.lat: list[float] = []
        self.verified = 0
        self.exhausted = False

    def one(self, body: str, record: bool, count: int) -> None:
        if self.mode == "token":
            path = "/oauth2/token"
            headers = {"Content-Type": "application/x-www-form-urlencoded"}
        else:
            path = {
                "api": "/issuer/v1/authentication/OOBResultInquiry",
                "purchase": "/issuer/v1/transaction/Purchase",
            }[self.mode]
            headers = {"Content-Type": "application/jose", "Authorization": f"Bearer {self.token}"}
        started = time.perf_counter()
        try:
            status, media, data = self.post(path, body, headers)
        except (OSError, http.client.HTTPException) as exc:
            self.error(record, repr(exc))
            return
        elapsed_ms = (time.perf_counter() - started) * 1000
        if status != 200:
            self.error(record, f"HTTP {status} {data[:200]!r}")
            return
        if self.mode == "token":
            if b'"access_token"' not in data:
                self.error(record, f"no access_token: {data[:200]!r}")
                return
        elif not media.startswith("application/jose") or not data.startswith(b"eyJ"):
            self.error(record, f"not a JWE: {media} {data[:100]!r}")
            return
        elif count % self.verify_every == 0:
            from issuer.protocol import jwe

            rsa = self.rsa
            _header, answer = jwe.decrypt(data.decode(), lambda kid: rsa)
            expected = PURCHASE_SUCCESS if self.mode == "purchase" else SUCCESS
            if answer.get("result", {}).get("code") != expected:
                self.error(record, f"result {answer.get('result')}")
                return
            self.verified += 1
        if record:
            self.lat.append(elapsed_ms)

    def run(self, measure_at: float, end_at: float, stop: Any) -> None:
        single_use = self.mode in ("token", "purchase")
        source = iter(self.bodies) if single_use else itertools.cycle(self.bodies)
        for count in itertools.count():
            now = time.time()
            if now >= end_at or stop.is_set():
                break
            body = next(source, None)
            if body is None:
                self.exhausted = True  # every single-use body (assertion, purchase) is used
                break
            self.one(body, now >= measure_at, count)
        self.close()

    def result(self) -> dict[str, Any]:
        return {
            "lat": self.lat,
            **self.counts(),
            "verified": self.verified,
            "exhausted": self.exhausted,
        }


def client_process(
    mode: str, threads: int, port: int, seed: dict[str, Any], per_thread: int, token: str,
    verify_every: int, ready: Any, start_at: Any, times: tuple[float, float], stop: Any, out: Any,
) -> None:  # fmt: skip
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    if mode in ("token", "purchase"):
        make = token_bodies if mode == "token" else purchase_bodies
        material = make(seed, port, threads * per_thread)
        shares = [material[i * per_thread : (i + 1) * per_thread] for i in range(threads)]
    else:
        pool = api_bodies(seed, port)
        shares = [pool[i % len(pool) :] + pool[: i % len(pool)] for i in range(threads)]
    loaders = [
        Loader(mode, port, share, seed, token=token, verify_every=verify_every) for share in shares
    ]
    ready.put(os.getpid())
    while start_at.value == 0.0:  # set by the parent once every process is ready
        time.sleep(0.01)
    delay = start_at.value - time.time()
    if delay > 0:
        time.sleep(delay)
    measure_at, end_at = start_at.value + times[0], start_at.value + times[0] + times[1]

    def body(loader: Loader) -> None:
        try:
            loader.run(measure_at, end_at, stop)
        except Exception as exc:  # noqa: BLE001 - reported, never silently lost
            loader.errors += 1
            loader.error_samples.append(f"client crashed: {exc!r}")

    workers = [threading.Thread(target=body, args=(loader,), daemon=True) for loader in loaders]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=end_at - time.time() + 2 * _load.REQUEST_TIMEOUT_S + 5)
    out.put([loader.result() for loader in loaders])


# --- load mode ----------------------------------------------------------------------------------


def fetch_token(port: int, seed: dict[str, Any], scope: str = "CHECK_OOB") -> str:
    client = _requestor(seed, port)
    return str(client.fetch_token([scope])["access_token"])


def run_load(args: argparse.Namespace, seed: dict[str, Any], port: int) -> dict[str, Any]:
    _server.RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    log_path = _server.RESULTS_DIR / f"gunicorn-issuer-{stamp}.log"
    gunicorn: subprocess.Popen[bytes] | None = None
    procs: list[Any] = []
    stop: Any = None
    results: list[dict[str, Any]] = []
    cpu: dict[str, Any] = {}
    try:
        gunicorn = _server.start_gunicorn(
            database_url=args.database_url,
            workers=args.workers,
            port=port,
            log_path=log_path,
            env={"ISSUER_KEYS_DIR": str(KEYS_DIR), "ISSUER_BASE_URL": f"http://127.0.0.1:{port}"},
        )
        started = time.monotonic()
        _server.wait_healthy(port, gunicorn, HEALTH_TIMEOUT_S)
        print(
            f"gunicorn pid {gunicorn.pid} on 127.0.0.1:{port}, {args.workers} workers, healthy "
            f"after {time.monotonic() - started:.1f} s; log {log_path}"
        )
        token = {
            "api": lambda: fetch_token(port, seed),
            "purchase": lambda: fetch_token(port, seed, "TRANSACTION"),
        }.get(args.mode, lambda: "")()
        ctx = multiprocessing.get_context("spawn")
        stop, ready, queue = ctx.Event(), ctx.Queue(), ctx.Queue()
        start_at = ctx.Value("d", 0.0)
        procs_n = max(1, min(args.client_procs, args.concurrency))
        shares = [
            args.concurrency // procs_n + (1 if i < args.concurrency % procs_n else 0)
            for i in range(procs_n)
        ]
        # Enough single-use assertions for every thread at the target rate, and then some.
        total = int((args.warmup + args.duration) * args.token_rate_cap)
        per_thread = max(1, total // args.concurrency)
        for share in shares:
            proc = ctx.Process(
                target=client_process,
                args=(args.mode, share, port, seed, per_thread, token, args.verify_every,
                      ready, start_at, (args.warmup, args.duration), stop, queue),
                daemon=True,
            )  # fmt: skip
            proc.start()
            procs.append(proc)
        prepared = time.monotonic()
        for _ in procs:
            ready.get(timeout=600)
        print(
            f"{args.mode}: request material ready in {time.monotonic() - prepared:.1f} s "
            f"({per_thread * args.concurrency if args.mode != 'api' else REQUEST_POOL} bodies); "
            f"{args.concurrency} clients in {procs_n} process(es), warm-up {args.warmup:g} s, "
            f"measuring {args.duration:g} s"
        )
        start_at.value = time.time() + 0.5
        measure_at = start_at.value + args.warmup
        time.sleep(max(0.0, measure_at - time.time()))
        client_pids = [p.pid for p in procs if p.pid]
        before = cpu_snapshot(gunicorn.pid, [os.getpid(), *client_pids])
        time.sleep(max(0.0, measure_at + args.duration - time.time()))
        after = cpu_snapshot(gunicorn.pid, [os.getpid(), *client_pids])
        cpu = cpu_usage(before, after, args.duration)
        for _ in procs:
            with contextlib.suppress(Exception):
                results.extend(queue.get(timeout=2 * _load.REQUEST_TIMEOUT_S + 30))
    except KeyboardInterrupt:
        _load.interrupted()
        raise
    finally:
        _load.stop_all(stop, procs, gunicorn)
    return report(args, results, cpu, stamp, port)


def report(
    args: argparse.Namespace,
    results: list[dict[str, Any]],
    cpu: dict[str, Any],
    stamp: str,
    port: int,
) -> dict[str, Any]:
    every = [v for r in results for v in r["lat"]]
    errors = sum(r["errors"] for r in results)
    samples = [s for r in results for s in r["error_samples"]][: _load.MAX_ERROR_SAMPLES]
    if len(results) != args.concurrency:
        errors += args.concurrency - len(results)
        samples.append(f"only {len(results)} of {args.concurrency} clients reported")
    exhausted = sum(1 for r in results if r["exhausted"])
    stats = summarize(every)
    target = TARGETS[args.mode]
    outcome: dict[str, Any] = {
        "timestamp": stamp,
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "mode": args.mode,
        "settings": {
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "concurrency": args.concurrency,
            "workers": args.workers,
            "client_procs": args.client_procs,
            "verify_every": args.verify_every,
            "database_url": args.database_url,
            "port": port,
        },
        "machine": machine_info(args.database_url),
        "requests": len(every),
        "throughput_per_s": round(len(every) / args.duration, 1),
        **{k: v for k, v in stats.items() if k != "count"},
        "errors": errors,
        "error_samples": samples,
        "answers_decrypted_and_checked": sum(r["verified"] for r in results),
        "clients_out_of_assertions": exhausted,
        "connections_opened": sum(r["connects"] for r in results),
        "cpu_cores_used": cpu,
        "target": target,
    }
    if every:
        outcome["cpu_ms_per_request"] = {
            group: round(cpu[group] * args.duration * 1000 / len(every), 2)
            for group in ("gunicorn", "postgres", "client")
            if group in cpu
        }
    met = errors == 0  # purchase mode has no throughput target: it is measured and recorded
    if target["throughput_per_s"] is not None:
        met = met and outcome["throughput_per_s"] >= target["throughput_per_s"]
    if target["p99_ms"] is not None:
        met = met and outcome["p99_ms"] < target["p99_ms"]
    outcome["target_met"] = met
    path = (
        _server.RESULTS_DIR / f"issuer-{stamp}-{args.mode}-w{args.workers}-c{args.concurrency}.json"
    )
    path.write_text(json.dumps(outcome, indent=2) + "\n")
    print()
    print(
        f"{args.mode}: workers={args.workers} concurrency={args.concurrency} "
        f"client_procs={args.client_procs} duration={args.duration:g}s"
    )
    print(
        f"requests {outcome['requests']}  throughput {outcome['throughput_per_s']}/s  "
        f"p50 {outcome['p50_ms']} ms  p90 {outcome['p90_ms']} ms  p99 {outcome['p99_ms']} ms  "
        f"max {outcome['max_ms']} ms  errors {errors}"
    )
    if exhausted:
        print(f"  {exhausted} client(s) used up their assertions (raise --token-rate-cap)")
    print(f"  cpu (cores): {cpu}")
    print(f"  cpu ms per request: {outcome.get('cpu_ms_per_request')}")
    for sample in samples:
        print(f"  error: {sample}")
    wanted = f"{target['throughput_per_s']}/s" + (
        f" with p99 < {target['p99_ms']} ms" if target["p99_ms"] is not None else ""
    )
    print(f"target {wanted}: {'MET' if met else 'not met'}")
    print(f"result: {path}")
    return outcome


# --- profile mode -------------------------------------------------------------------------------


# Where the time of one request goes: inclusive time of these functions, by (file suffix, name).
BREAKDOWN = {
    "token request": {
        "whole request (test Client -> response)": ("django/test/client.py", "request"),
        "  oauth.token_view": ("issuer/oauth.py", "token_view"),
        "    token_request_parse (form)": ("issuer/oauth.py", "token_request_parse"),
        "    requestors.requestor_get (1 query)": ("issuer/requestors.py", "requestor_get"),
        "    assertion_verify (ES256 verify, claims)": ("issuer/assertions.py", "assertion_verify"),
        "    assertion_consume (jti insert)": ("issuer/assertions.py", "assertion_consume"),
        "    tokens.issue_access_token (ES256 sign)": ("issuer/tokens.py", "issue_access_token"),
        "    Atomic.__exit__ (COMMIT)": ("django/db/transaction.py", "__exit__"),
    },
    "API round trip": {
        "whole request (test Client -> response)": ("django/test/client.py", "request"),
        "  api.operation_view": ("issuer/api.py", "operation_view"),
        "    tokens.validate_access_token": ("issuer/tokens.py", "validate_access_token"),
        "    api.encryption_key_of (1 query)": ("issuer/api.py", "encryption_key_of"),
        "    jwe.decrypt (RSA-OAEP-256 3072 unwrap)": ("issuer/jwe.py", "decrypt"),
        "    operations.perform (1 query, envelope)": ("issuer/operations.py", "perform"),
        "    jwe.encrypt (answer)": ("issuer/jwe.py", "encrypt"),
        "psycopg Cursor.execute (all queries)": ("psycopg/cursor.py", "execute"),
    },
}


def breakdown(stats: Any, count: int, entries: dict[str, tuple[str, str]]) -> dict[str, float]:
    found: dict[str, float] = {}
    for (filename, _line, name), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():
        for label, (suffix, wanted) in entries.items():
            if suffix == "~":
                hit = filename == "~" and name.startswith(wanted)
            else:
                hit = name == wanted and filename.endswith(suffix)
            if hit:
                found[label] = max(found.get(label, 0.0), ct * 1000 / count)
    return {label: found[label] for label in entries if label in found}


def run_profile(count: int, seed: dict[str, Any], port: int) -> None:
    """N token requests and N API round trips through Django's test Client in this process,
    under cProfile, plus micro-timings of the pieces."""
    import cProfile
    import io
    import pstats

    from django.test import Client as DjangoClient

    from issuer.protocol import access_tokens as tokens
    from issuer.protocol import jwe, keys

    client = _requestor(seed, port)
    django_client = DjangoClient()

    def token() -> str:
        body = token_bodies(seed, port, 1)[0]
        response = django_client.post(
            "/oauth2/token", body, content_type="application/x-www-form-urlencoded"
        )
        assert response.status_code == 200, response.content
        return str(response.json()["access_token"])

    access = token()
    request_body = api_bodies(seed, port)[0]

    def api() -> None:
        response = django_client.post(
            "/issuer/v1/authentication/OOBResultInquiry",
            request_body,
            content_type="application/jose",
            HTTP_AUTHORIZATION=f"Bearer {access}",
        )
        assert response.status_code == 200, response.content

    for name, call in (("token request", token), ("API round trip", api)):
        for _ in range(5):
            call()
        started = time.perf_counter()
        for _ in range(count):
            call()
        plain = (time.perf_counter() - started) * 1000 / count
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(count):
            call()
        profiler.disable()
        print(f"\n=== {name}: {plain:.2f} ms each in-process (test Client, no profiler) ===")
        stats = pstats.Stats(profiler)
        print("inclusive ms per request under cProfile (the profiler inflates Python-heavy code):")
        for label, ms in breakdown(stats, count, BREAKDOWN[name]).items():
            print(f"  {label:52s} {ms:7.3f}")
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("cumulative").print_stats(22)
        text = out.getvalue()
        print(text[text.find("   ncalls") :].rstrip())

    enc = keys.active_key(keys.ENC)
    loaded = keys.key_by_kid(keys.ENC, enc.kid)
    assert loaded is not None
    jwe.decrypt(request_body, lambda kid: loaded.key)  # builds and keeps the private key object
    micro = {
        "keys.key_by_kid(enc)": (
            lambda: keys.key_by_kid(keys.ENC, enc.kid),
            20,
        ),
        "jwe.decrypt via keys.key_by_kid": (
            lambda: jwe.decrypt(request_body, lambda kid: keys.key_by_kid(keys.ENC, kid).key),  # type: ignore[union-attr]
            20,
        ),
        "jwe.decrypt, key object kept": (
            lambda: jwe.decrypt(request_body, lambda kid: loaded.key),
            500,
        ),
        "jwe.encrypt (answer, RSA 3072 public)": (
            lambda: jwe.encrypt({"a": "b"}, client.rsa_key, "kid"),
            500,
        ),
        "keys.key_by_kid(sig)": (lambda: keys.key_by_kid(keys.SIG, "x"), 500),
        "tokens.validate_access_token": (lambda: tokens.validate_access_token(access), 500),
        "tokens.issue_access_token": (
            lambda: tokens.issue_access_token(client_id=CLIENT_ID, scope="CHECK_OOB"),
            500,
        ),
        "client assertion (jwcrypto ES256 sign)": (lambda: client.assertion(), 500),
    }
    print("\nmicro-timings:")
    for label, (call, n) in micro.items():
        started = time.perf_counter()
        for _ in range(n):
            call()
        print(f"  {label:52s} {(time.perf_counter() - started) / n * 1000:8.3f} ms")


# --- main ---------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--mode", choices=("token", "api", "purchase"), default="token")
    parser.add_argument("--duration", type=float, default=20.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=3.0, help="unrecorded seconds first")
    parser.add_argument("--concurrency", type=int, default=16, help="client threads in all")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument("--client-procs", type=int, default=2, help="load processes")
    parser.add_argument(
        "--verify-every", type=int, default=20, help="api: decrypt every n-th answer"
    )
    parser.add_argument(
        "--token-rate-cap",
        type=int,
        default=2500,
        help="token: assertions signed beforehand, per second of the run",
    )
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--fresh", action="store_true", help="drop and recreate the database")
    parser.add_argument("--profile", type=int, nargs="?", const=300, default=None, metavar="N")
    args = parser.parse_args(argv)
    if not 0 < args.duration <= 240 or not 0 <= args.warmup <= 60:
        # Pre-signed assertions live 290 s: the whole run must fit in that.
        parser.error("--duration must be in (0, 240] and --warmup in [0, 60]")
    if not 1 <= args.concurrency <= 256 or not 1 <= args.workers <= 64:
        parser.error("--concurrency must be 1..256 and --workers 1..64")
    if not 1 <= args.client_procs <= 16 or args.verify_every < 1:
        parser.error("--client-procs must be 1..16 and --verify-every at least 1")
    if not 1 <= args.token_rate_cap <= 20000:
        parser.error("--token-rate-cap must be 1..20000")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    port = _server.free_port()

    def prepare() -> dict[str, Any]:
        ensure_database(args.database_url, fresh=args.fresh)
        django_setup(args.database_url, port)
        return migrate_and_seed()

    def profile(seed: dict[str, Any]) -> None:
        run_profile(args.profile, seed, port)

    return _load.run_main(
        prepare=prepare,
        profile=profile if args.profile is not None else None,
        load=lambda seed: run_load(args, seed, port),
    )


if __name__ == "__main__":
    sys.exit(main())
