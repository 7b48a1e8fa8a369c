"""Replay the curl commands of the docs and of seed_demo through Django's test client.

Understands what the docs use: the URL, -H, -d, --data-urlencode and -G (GET with the data as
query parameters). Shell variables are substituted from a mapping.
"""

import re
import shlex
from urllib.parse import quote, urlsplit


def curl_commands(text: str) -> list[str]:
    """The curl commands in ```sh blocks (or in plain text), joined across backslash newlines."""
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S) or [text]
    commands = []
    for block in blocks:
        joined = block.replace("\\\n", " ")
        commands += [
            line.strip() for line in joined.splitlines() if line.strip().startswith("curl ")
        ]
    return commands


def replay(client, command: str, variables: dict[str, str]):  # type: ignore[no-untyped-def]
    for name, value in variables.items():
        command = command.replace(f"${name}", value)
    args = shlex.split(command)[1:]
    url, headers, fields, method = "", {}, [], "POST"
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-H", "-d", "--data-urlencode"):
            value = args[i + 1]
            if arg == "-H":
                key, _, header_value = value.partition(": ")
                headers["HTTP_" + key.upper().replace("-", "_")] = header_value
            else:
                name, _, field_value = value.partition("=")
                # curl -d sends the text as it is (a "+" means a space); --data-urlencode encodes.
                encoded = quote(field_value, safe="") if arg == "--data-urlencode" else field_value
                fields.append(f"{name}={encoded}")
            i += 2
            continue
        if arg == "-G":
            method = "GET"
        elif not arg.startswith("-"):
            url = arg
        i += 1
    path = urlsplit(url).path
    body = "&".join(field.replace(" ", "%20") for field in fields)
    if method == "GET":
        return client.get(f"{path}?{body}", **headers)
    return client.post(path, body, content_type="application/x-www-form-urlencoded", **headers)
