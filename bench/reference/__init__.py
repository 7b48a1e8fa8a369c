"""The references of bench/compare.py: a tiny Django project, one view per hot path of the
platform, doing the least that the same work needs (bench/README.md, "compare.py: the project
beside its references").

- `POST /pay`: a Django REST framework view that validates four fields and INSERTs one row;
- `POST /oauth2/token`: verifies an ES256 client assertion with PyJWT, INSERTs its jti and signs
  an ES256 access token;
- `POST /jwe`: checks the bearer access token (PyJWT), decrypts an RSA-OAEP-256/A128GCM request
  with jwcrypto and encrypts the answer to the client's RSA key.

It runs under the platform's gunicorn conf (config/gunicorn.conf.py: sync workers, preload),
DEBUG off, on its own database of the same PostgreSQL server with the platform's CONN_MAX_AGE and
CONN_HEALTH_CHECKS. Nothing of the platform is imported here.
"""
