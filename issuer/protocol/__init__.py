"""The issuer authorization protocol: OAuth 2.0 client credentials with private_key_jwt (RFC 7523)
at /oauth2/token, ES256 access tokens, the JWK set, and the JWE authorization API that carries
the operations (issuer.operations). The requestor client (client.py) is its other side."""
