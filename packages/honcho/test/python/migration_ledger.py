"""Read or build state/honcho_migration.json with the Python agent's key derivation.

  migration_ledger.py read <ledger> <endpoint> <workspace> <user peer> <ai peer> <dir>...
      prints {"<dir>": {<file>: true, ...}} for the target's entry of each source directory
  migration_ledger.py write <ledger> <endpoint> <workspace> <user peer> <ai peer> <dir> <file>...
      records <file>s as completed for that source, as the agent does after an upload"""
import hashlib
import json
import sys
from pathlib import Path

action, ledger, endpoint, workspace, user, ai, *rest = sys.argv[1:]
target = {"endpoint": endpoint, "workspace_id": workspace, "user_peer_id": user, "ai_peer_id": ai}
target_key = hashlib.sha256(
    json.dumps(target, sort_keys=True, separators=(",", ":")).encode("utf-8")
).hexdigest()


def source_of(directory):
    path = str(Path(directory).expanduser().resolve())
    return path, hashlib.sha256(path.encode("utf-8")).hexdigest()


if action == "read":
    state = json.loads(Path(ledger).read_text(encoding="utf-8-sig"))
    assert state["version"] == 1 and isinstance(state["targets"], dict)
    sources = state["targets"].get(target_key, {}).get("sources", {})
    out = {}
    for directory in rest:
        path, key = source_of(directory)
        entry = sources.get(key, {})
        assert entry == {} or entry["path"] == path
        out[directory] = entry.get("files", {})
    print(json.dumps(out, sort_keys=True))
else:
    directory, *files = rest
    path, key = source_of(directory)
    ledger_path = Path(ledger)
    state = (
        json.loads(ledger_path.read_text(encoding="utf-8"))
        if ledger_path.exists()
        else {"version": 1, "targets": {}}
    )
    entry = state["targets"].setdefault(target_key, {**target, "sources": {}})
    source = entry["sources"].setdefault(key, {"path": path, "files": {}})
    for name in files:
        source["files"][name] = True
    ledger_path.parent.mkdir(parents=True, exist_ok=True)
    ledger_path.write_text(json.dumps(state, indent=2, sort_keys=True), encoding="utf-8")
    print(json.dumps({"target_key": target_key, "source_key": key}))
