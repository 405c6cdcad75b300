# pidfds from Python (os.pidfd_open, signal.pidfd_send_signal,
# os.waitid(P_PIDFD)) and a subprocess.run; recorded by ../record.sh.
import os
import signal
import subprocess

pid = os.fork()
if pid == 0:
    os._exit(7)
fd = os.pidfd_open(pid)
try:
    os.pidfd_open(pid, 12345)  # unknown flags: EINVAL
except OSError:
    pass
signal.pidfd_send_signal(fd, 0)
os.waitid(os.P_PIDFD, fd, os.WEXITED)
try:
    signal.pidfd_send_signal(fd, 0)  # reaped: ESRCH
except OSError:
    pass
os.close(fd)
subprocess.run(["/bin/true"], check=True)
