"""Replay the curl commands of the docs and of seed_demo through Django's test client.

Understands what the docs use: the URL, -H, -d, --data-urlencode, -G (the data as query
parameters, a GET) and -X DELETE. Shell variables are substituted from a mapping; an assignment
`NAME=$(curl ... | python3 -c '... json.load(sys.stdin)["a"]["b"] ...')` keeps that member of the
answer.
"""

import re
import shlex
from urllib.parse import quote, urlsplit

ASSIGNMENT = re.compile(r"^(\w+)=\$\((curl .*?)\s*\|\s*python3 -c (.*)\)$")
MEMBERS = re.compile(r'json\.load\(sys\.stdin\)((?:\["\w+"\])+)')


def curl_commands(text: str) -> list[str]:
    """The curl commands in ```sh blocks (or in plain text), joined across backslash newlines;
    `NAME=$(curl ... | python3 -c ...)` lines (which keep the answer's id) are included."""
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S) or [text]
    commands = []
    for block in blocks:
        joined = block.replace("\\\n", " ")
        for line in joined.splitlines():
            line = line.strip()
            if line.startswith("curl ") or ASSIGNMENT.match(line):
                commands.append(line)
    return commands


def run_all(client, commands: list[str], variables: dict[str, str]):  # type: ignore[no-untyped-def]
    """Replay commands in order; an assignment stores the answer's id in its variable."""
    for command in commands:
        assigned = ASSIGNMENT.match(command)
        response = replay(client, assigned.group(2) if assigned else command, variables)
        if assigned and response.status_code == 200:
            value = response.json()
            for key in re.findall(r'"(\w+)"', MEMBERS.search(assigned.group(3)).group(1)):
                value = value[key]
            variables[assigned.group(1)] = value
        yield command, response


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
            method = "GET" if method == "POST" else method
        elif arg == "-X":
            method = args[i + 1]
            i += 2
            continue
        elif not arg.startswith("-"):
            url = arg
        i += 1
    path = urlsplit(url).path
    body = "&".join(field.replace(" ", "%20") for field in fields)
    if method == "GET":
        return client.get(f"{path}?{body}", **headers)
    if method == "DELETE":
        return client.delete(f"{path}?{body}", **headers)
    return client.post(path, body, content_type="application/x-www-form-urlencoded", **headers)
