#!/usr/bin/env python3
"""A small MEMORY.md / USER.md client that behaves as the Python Hermes agent does.

It follows the reference's protocol (tools/memory_tool.py), written here from its description:
  * every mutation takes ``fcntl.flock(LOCK_EX)`` on the sidecar ``<file>.lock`` (opened "a+",
    never deleted), re-reads the file under the lock, mutates, and replaces the file atomically
    (``.mem_*.tmp`` in the same directory, fsync, ``os.replace``);
  * files are read with ``encoding="utf-8-sig"`` in text mode (BOM dropped, universal newlines),
    split on "\\n§\\n", each entry ``str.strip()``-ed, empty ones dropped;
  * sizes are ``len()`` of the joined text: code points.

Commands (JSON on stdout):
  add <file> <worker> <count> [limit]   append "py <worker> entry <i>" count times
  add-text <file> <limit> <text>        one add; prints the result
  parse <file>                          the entries and their joined length
  hold <file>                           take the lock, print "locked", release on a line on stdin
  try-lock <file>                       {"lock": "free"} or {"lock": "held"} (LOCK_NB)
"""

import fcntl
import json
import os
import sys
import tempfile
from contextlib import contextmanager

DELIMITER = "\n§\n"


@contextmanager
def file_lock(path):
    lock_path = path + ".lock"
    fd = open(lock_path, "a+", encoding="utf-8")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        fd.close()


def read_entries(path):
    if not os.path.exists(path):
        return []
    with open(path, "r", encoding="utf-8-sig") as f:
        raw = f.read()
    if not raw.strip():
        return []
    entries = [e.strip() for e in raw.split(DELIMITER)]
    return list(dict.fromkeys(e for e in entries if e))


def write_entries(path, entries):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".mem_", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(DELIMITER.join(entries))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def add(path, content, limit):
    content = content.strip()
    with file_lock(path):
        entries = read_entries(path)
        if content in entries:
            return {"success": True, "message": "duplicate", "usage": len(DELIMITER.join(entries))}
        total = len(DELIMITER.join(entries + [content]))
        if total > limit:
            return {"success": False, "usage": len(DELIMITER.join(entries)), "would_be": total}
        entries.append(content)
        write_entries(path, entries)
        return {"success": True, "usage": total}


def main(argv):
    cmd, path = argv[1], argv[2]
    if cmd == "add":
        worker, count = argv[3], int(argv[4])
        limit = int(argv[5]) if len(argv) > 5 else 10**9
        for i in range(count):
            r = add(path, f"py {worker} entry {i}", limit)
            if not r["success"]:
                print(json.dumps(r))
                return 1
        print(json.dumps({"done": count}))
    elif cmd == "add-text":
        print(json.dumps(add(path, argv[4], int(argv[3])), ensure_ascii=False))
    elif cmd == "parse":
        entries = read_entries(path)
        print(json.dumps({"entries": entries, "chars": len(DELIMITER.join(entries))}, ensure_ascii=False))
    elif cmd == "hold":
        with file_lock(path):
            print("locked", flush=True)
            sys.stdin.readline()
    elif cmd == "try-lock":
        fd = open(path + ".lock", "a+", encoding="utf-8")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            print(json.dumps({"lock": "free"}))
        except BlockingIOError:
            print(json.dumps({"lock": "held"}))
        finally:
            fd.close()
    else:
        print(f"unknown command {cmd}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
