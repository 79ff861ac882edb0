"""on-tty.py OUT CMD...: run CMD with standard error on a new
pseudo-terminal and standard output into OUT.stdout; what the terminal
got goes to OUT (bytes as they came); exits with CMD's status.  Used by
tests/progress_tty.sh and tests/progress_read_tty.sh."""
import os
import pty
import subprocess
import sys

out, cmd = sys.argv[1], sys.argv[2:]
m, s = pty.openpty()
with open(out + ".stdout", "wb") as so:
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=so, stderr=s)
os.close(s)
got = b""
while True:
    try:
        d = os.read(m, 65536)
    except OSError:
        break
    if not d:
        break
    got += d
rc = p.wait()
with open(out, "wb") as f:
    f.write(got)
sys.exit(rc)
