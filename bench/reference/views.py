"""The reference views: the least each hot path's work needs (bench/reference/__init__.py)."""

from __future__ import annotations

import json
import time
import uuid
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import jwt
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from jwcrypto import jwe
from jwcrypto.common import JWException, json_encode
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from . import keys
from .models import Payment, UsedJti

SUCCESS = {"code": "000.000.000", "description": "Transaction succeeded"}
REQUEST_SUCCEEDED = {"code": "000.000.100", "description": "successful request"}
INVALID = {"code": "200.300.404", "description": "invalid or missing parameter"}
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
TOKEN_SECONDS = 3600  # the platform's ISSUER_ACCESS_TOKEN_SECONDS
JOSE = "application/jose"
ALGS = ["RSA-OAEP-256", "A128GCM"]


def healthz(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


# --- payment: a DRF view, four fields validated, one INSERT ------------------------------------


class PaymentSerializer(serializers.Serializer):
    merchantTransactionId = serializers.RegexField(r"^[A-Za-z0-9._-]{1,64}$")  # noqa: N815
    paymentType = serializers.ChoiceField(choices=["DB", "PA"])  # noqa: N815
    amount = serializers.DecimalField(max_digits=12, decimal_places=2, min_value=Decimal("0.01"))
    currency = serializers.RegexField(r"^[A-Z]{3}$")


class PaymentView(APIView):
    def post(self, request: Request) -> Response:
        serializer = PaymentSerializer(data=request.data)
        if not serializer.is_valid():
            errors = [
                {"name": name, "message": str(msgs[0])} for name, msgs in serializer.errors.items()
            ]
            return Response({"result": INVALID, "parameterErrors": errors}, status=400)
        data = serializer.validated_data
        try:
            payment = Payment.objects.create(
                merchant_transaction_id=data["merchantTransactionId"],
                payment_type=data["paymentType"],
                amount=data["amount"],
                currency=data["currency"],
            )
        except IntegrityError:
            errors = [{"name": "merchantTransactionId", "message": "already used"}]
            return Response({"result": INVALID, "parameterErrors": errors}, status=400)
        return Response(
            {
                "id": str(payment.pk),
                "paymentType": payment.payment_type,
                "amount": str(payment.amount),
                "currency": payment.currency,
                "merchantTransactionId": payment.merchant_transaction_id,
                "result": SUCCESS,
            }
        )


# --- token: PyJWT verifies the assertion, one INSERT of its jti, PyJWT signs the token ---------


def _oauth_error(status: int, error: str, description: str) -> JsonResponse:
    response = JsonResponse({"error": error, "error_description": description}, status=status)
    response["Cache-Control"] = "no-store"
    return response


@csrf_exempt
def token_view(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _oauth_error(405, "invalid_request", "use POST")
    form = request.POST
    if form.get("grant_type") != "client_credentials":
        return _oauth_error(400, "unsupported_grant_type", "grant_type must be client_credentials")
    if form.get("client_assertion_type") != ASSERTION_TYPE:
        return _oauth_error(400, "invalid_request", "client_assertion_type is not jwt-bearer")
    known = keys.loaded()
    client_id = form.get("client_id", "")
    if client_id != known.client_id:
        return _oauth_error(401, "invalid_client", "unknown client_id")
    try:
        claims = jwt.decode(
            form.get("client_assertion", ""),
            known.client_ec,
            algorithms=["ES256"],
            audience=f"{keys.base_url()}/oauth2/token",
            issuer=client_id,
            options={"require": ["exp", "iat", "jti", "sub"]},
        )
    except jwt.InvalidTokenError as exc:
        return _oauth_error(401, "invalid_client", f"client_assertion: {exc}")
    if claims["sub"] != client_id:
        return _oauth_error(401, "invalid_client", "client_assertion sub is not the client_id")
    try:
        UsedJti.objects.create(
            jti=str(claims["jti"])[:255],
            client_id=client_id,
            expires_at=datetime.fromtimestamp(int(claims["exp"]), UTC),
        )
    except IntegrityError:
        return _oauth_error(400, "invalid_grant", "client_assertion jti already used")
    now = int(time.time())
    scope = form.get("scope", "")
    token = jwt.encode(
        {
            "iss": keys.ISSUER,
            "sub": client_id,
            "aud": keys.AUDIENCE,
            "client_id": client_id,
            "scope": scope,
            "iat": now,
            "exp": now + TOKEN_SECONDS,
            "jti": uuid.uuid4().hex,
        },
        known.signing,
        algorithm="ES256",
        headers={"kid": known.signing_kid, "typ": "at+jwt"},
    )
    response = JsonResponse(
        {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": TOKEN_SECONDS,
            "scope": scope,
        }
    )
    response["Cache-Control"] = "no-store"
    return response


# --- JWE: bearer JWT checked (PyJWT), request decrypted and answer encrypted (jwcrypto) --------


@csrf_exempt
def jwe_view(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _oauth_error(405, "invalid_request", "use POST")
    known = keys.loaded()
    scheme, _, bearer = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not bearer:
        return _oauth_error(401, "invalid_token", "an access token is required")
    try:
        jwt.decode(
            bearer.strip(),
            known.signing_public,
            algorithms=["ES256"],
            audience=keys.AUDIENCE,
            issuer=keys.ISSUER,
            options={"require": ["exp", "iat", "sub"]},
        )
    except jwt.InvalidTokenError as exc:
        return _oauth_error(401, "invalid_token", f"the access token is not valid: {exc}")
    if request.content_type != JOSE:
        return _oauth_error(415, "invalid_request", f"the body must be a compact JWE ({JOSE})")
    try:
        message = jwe.JWE(algs=ALGS)
        message.deserialize(request.body.decode("ascii"), key=known.encryption)
        payload: Any = json.loads(message.plaintext)
        if not isinstance(payload, dict):
            raise ValueError("not a JSON object")
    except (JWException, ValueError, TypeError) as exc:
        return _oauth_error(400, "invalid_request", f"the JWE could not be decrypted: {exc}")
    answer = {"result": REQUEST_SUCCEEDED, "fields": sorted(payload)}
    header = {"alg": ALGS[0], "enc": ALGS[1], "kid": known.client_rsa_kid}
    out = jwe.JWE(json.dumps(answer).encode(), protected=json_encode(header), algs=ALGS)
    out.add_recipient(known.client_rsa)
    return HttpResponse(out.serialize(compact=True), content_type=JOSE)
