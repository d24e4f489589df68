"""Hold flock(LOCK_EX) on a file the way the Python agent does (open "a+", fcntl.flock) until a line
arrives on stdin. Prints "locked" once held. Usage: hold_lock.py <lock file>"""
import fcntl
import sys

with open(sys.argv[1], "a+") as lock:
    fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
    print("locked", flush=True)
    sys.stdin.readline()
    fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
print("released", flush=True)
