"""Run a command as an interactive shell runs a job: SIGHUP is passed on to it (as bash does
to its jobs when the terminal hangs up), and its exit status is written to a file.

    python forward_hup.py STATUS_FILE OUT_FILE COMMAND...

The command's stdout goes to OUT_FILE; stdin and stderr are this process's (the terminal).
"""

import signal
import subprocess
import sys

status_file, out_file, *command = sys.argv[1:]
with open(out_file, "w") as out:
    child = subprocess.Popen(command, stdout=out)
signal.signal(signal.SIGHUP, lambda signum, frame: child.send_signal(signal.SIGHUP))
code = child.wait()
with open(status_file, "w") as status:
    status.write(f"{code if code >= 0 else 128 - code}\n")
