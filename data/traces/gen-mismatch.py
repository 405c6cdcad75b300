#!/usr/bin/env python3
"""Writes a synthetic `strace -f -ttt` trace whose recorded results disagree
with Linux's rules on (about) every line: the replay's worst case.

usage: gen-mismatch.py [LINES] > FILE

Each round is a parent forking a child that exits, and then lines Linux
could not have printed: a wait reporting the wrong status, a kill of the
reaped child returning 0, getpgid of the reaped child giving a number, a
WNOHANG wait finding a child when none is left. The replay must report each
as a mismatch, in time linear in the count (see crates/taskcore-replay's
search budget).
"""
import sys

lines = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
parent, t, n, child = 1000, 1.0, 0, 2000
out = []


def line(pid, text):
    global t, n
    t += 0.000001
    n += 1
    out.append(f"{pid} {t:.6f} {text}")


line(parent, 'execve("/bin/sh", ["sh"], 0x7ffc /* 1 var */) = 0')
while n < lines:
    child += 1
    line(parent, f"clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = {child}")
    line(child, "exit_group(0) = ?")
    line(child, "+++ exited with 0 +++")
    line(parent, f"--- SIGCHLD {{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid={child}, si_uid=0, si_status=0, si_utime=0, si_stime=0}} ---")
    # Wrong: the child exited with 0.
    line(parent, f"wait4(-1, [{{WIFEXITED(s) && WEXITSTATUS(s) == 1}}], 0, NULL) = {child}")
    # Wrong: the child is reaped.
    line(parent, f"kill({child}, SIGTERM) = 0")
    # Wrong: the child is gone, so is its process group id.
    line(parent, f"getpgid({child}) = {parent}")
    # Wrong: there is no child left.
    line(parent, f"wait4(-1, [{{WIFEXITED(s) && WEXITSTATUS(s) == 0}}], WNOHANG, NULL) = {child}")
line(parent, "exit_group(0) = ?")
line(parent, "+++ exited with 0 +++")
sys.stdout.write("\n".join(out) + "\n")
