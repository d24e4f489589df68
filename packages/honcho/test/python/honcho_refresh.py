"""A Python Hermes refreshing the Honcho sign-in the way the reference does, under flock on
honcho.json.lock: lock, say "locked", wait for a line on stdin, run the refresh_token exchange,
save the rotated grant to honcho.json (atomic replace, 0600), unlock. Prints the new access token
as JSON. Usage: honcho_refresh.py <honcho.json> <host> <now epoch seconds>
"""
import fcntl
import json
import os
import sys
import urllib.parse
import urllib.request

path, host, now = sys.argv[1], sys.argv[2], float(sys.argv[3])
with open(path + ".lock", "a+") as lock:
    fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
    print("locked", flush=True)
    sys.stdin.readline()
    with open(path, encoding="utf-8") as fh:
        raw = json.load(fh)
    block = raw["hosts"][host]
    oauth = block["oauth"]
    form = urllib.parse.urlencode(
        {
            "grant_type": "refresh_token",
            "client_id": oauth["clientId"],
            "refresh_token": oauth["refreshToken"],
        }
    ).encode()
    with urllib.request.urlopen(urllib.request.Request(oauth["tokenEndpoint"], data=form), timeout=15) as resp:
        body = json.load(resp)
    block["apiKey"] = body["access_token"]
    oauth["refreshToken"] = body["refresh_token"]
    oauth["expiresAt"] = int(now + int(body.get("expires_in", 0)))
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(raw, indent=2) + "\n")
    os.replace(tmp, path)
    fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
print(json.dumps({"accessToken": body["access_token"]}), flush=True)
