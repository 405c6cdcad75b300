"""pytest for the taskcore Python bindings (`.ci/run` builds the wheel with
maturin, installs it and runs this)."""
import errno
import os
import pathlib

import pytest
import taskcore

DATA = pathlib.Path(__file__).resolve().parents[3] / "data" / "traces"


def test_fork_exit_wait_and_errnos():
    k = taskcore.Kernel()
    init = k.init_task()
    child = k.fork(init)
    pid = k.pid(init, child)
    assert pid == 2 and k.getppid(child) == 1
    assert k.wait4(init, -1, taskcore.WNOHANG) is None
    with pytest.raises(BlockingIOError):
        k.wait4(init, -1)
    k.exit_group(child, 3)
    assert k.wait4(init, -1) == (pid, 3 << 8)
    with pytest.raises(ChildProcessError) as e:
        k.wait4(init, -1)
    assert e.value.errno == errno.ECHILD
    assert e.value.strerror == os.strerror(errno.ECHILD)
    with pytest.raises(ProcessLookupError) as e:
        k.kill(init, 4242, 0)
    assert e.value.errno == errno.ESRCH


def test_groups_sessions_waitid_and_proc():
    k = taskcore.Kernel()
    init = k.init_task()
    a = k.fork(init)
    assert k.setsid(a) == k.pid(init, a)
    b = k.fork(a)
    k.setpgid(b, 0, 0)
    pb = k.pid(init, b)
    assert k.getpgid(b) == pb and k.getsid(b) == k.pid(init, a)
    with pytest.raises(PermissionError):
        k.setsid(a)  # already a session leader: EPERM
    k.kill(a, pb, taskcore.SIGKILL)
    info = k.waitid(a, taskcore.P_PID, pb, taskcore.WEXITED)
    assert info["pid"] == pb and info["status"] == taskcore.SIGKILL
    stat = k.proc_read(f"{k.pid(init, a)}/stat").decode()
    assert stat.startswith(f"{k.pid(init, a)} (")
    t = k.clone(a, taskcore.CLONE_THREAD | taskcore.CLONE_VM | taskcore.CLONE_SIGHAND, 0)
    assert k.getpid(t) == k.pid(init, a)


def test_replay_yields_process_records():
    r = taskcore.replay(str(DATA / "python-multiprocessing.strace.gz"))
    assert r.summary is None
    recs = list(r)
    s = r.summary
    assert s["mismatches"] == 0 and s["unusable"] is None and s["checked"] > 5000
    assert r.mismatches == []
    assert 30 < len(recs) < s["tasks"]
    pids = {p["pid"] for p in recs}
    assert len(pids) == len(recs)
    for p in recs:
        assert p["end"] is None or p["end"] >= p["start"]
        assert p["ppid"] == 0 or p["ppid"] in pids
    assert any("mp.py" in " ".join(p["argv"]) for p in recs)


def test_replay_of_a_missing_file_raises():
    with pytest.raises(ValueError):
        taskcore.replay("/nonexistent.strace")


def test_readme_examples_run():
    import re

    readme = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    # A scenario, raw system calls, delivering signals, a trace analysis.
    assert len(blocks) == 4
    cwd = os.getcwd()
    os.chdir(DATA.parents[1])
    try:
        for b in blocks:
            exec(b, {})
    finally:
        os.chdir(cwd)


def test_raw_syscalls_decode_and_dispatch():
    k = taskcore.Kernel()
    init = k.init_task()
    nr = taskcore.nr
    pid = k.syscall(init, nr.FORK)
    child = k.task(init, pid)
    assert k.syscall(child, nr.GETPPID) == 1
    assert k.syscall(child, nr.SETSID) == pid
    with pytest.raises(PermissionError) as e:
        k.syscall(child, nr.SETSID)
    assert e.value.errno == errno.EPERM
    # Registers are C's: -1 is "any child"; 0x1_0000_0000 | 0 truncates.
    with pytest.raises(BlockingIOError):
        k.syscall(init, nr.WAIT4, [-1])
    # A pointer argument: the sigset of rt_sigprocmask, read from `mem`.
    usr1 = 1 << (taskcore.SIGUSR1 - 1)
    mem = {0x1000: usr1.to_bytes(8, "little")}
    assert k.syscall(child, nr.RT_SIGPROCMASK, [taskcore.SIG_BLOCK, 0x1000, 0, 8], mem) == 0
    with pytest.raises(OSError) as e:
        k.syscall(child, nr.RT_SIGPROCMASK, [taskcore.SIG_BLOCK, 0x2000, 0, 8], mem)
    assert e.value.errno == errno.EFAULT
    with pytest.raises(OSError) as e:
        k.syscall(child, nr.RT_SIGPROCMASK, [taskcore.SIG_BLOCK, 0x1000, 0, 16], mem)
    assert e.value.errno == errno.EINVAL
    # Pidfds get numbers from 3; a signal and a wait through one.
    fd = k.syscall(init, nr.PIDFD_OPEN, [pid, 0])
    assert fd == 3
    assert k.syscall(init, nr.PIDFD_SEND_SIGNAL, [fd, taskcore.SIGKILL, 0, 0]) == 0
    assert k.syscall(init, nr.WAITID, [taskcore.P_PIDFD, fd, 0, taskcore.WEXITED]) == 0
    k.close(fd)
    with pytest.raises(OSError) as e:
        k.syscall(init, nr.PIDFD_SEND_SIGNAL, [fd, 0, 0, 0])
    assert e.value.errno == errno.EBADF
    # A call the core does not model, and a bad argument count.
    with pytest.raises(OSError) as e:
        k.syscall(init, 0, [0, 0, 0])  # read(2)
    assert e.value.errno == errno.ENOSYS
    with pytest.raises(ValueError):
        k.syscall(init, nr.GETPID, [0] * 7)


def test_signal_masks_actions_and_delivery():
    k = taskcore.Kernel(signal_delivery="on_get_signal")
    init = k.init_task()
    child = k.fork(init)
    pid = k.pid(init, child)
    bit = lambda s: 1 << (s - 1)
    old = k.sigaction(child, taskcore.SIGUSR1, 0x401000, taskcore.SA_RESTART, bit(taskcore.SIGUSR2))
    assert old == {"handler": "default", "flags": 0, "mask": 0}
    assert k.sigaction(child, taskcore.SIGUSR1)["handler"] == 0x401000
    with pytest.raises(OSError) as e:
        k.sigaction(child, taskcore.SIGKILL, "ignore")
    assert e.value.errno == errno.EINVAL
    # Blocked: pending, no wake-up; unblocked: the task must take it.
    assert k.sigprocmask(child, taskcore.SIG_BLOCK, bit(taskcore.SIGUSR1)) == 0
    k.take_notifications()
    k.kill(init, pid, taskcore.SIGUSR1)
    assert [n for n in k.take_notifications() if n["kind"] == "sig_pending"] == []
    assert k.get_signal(child) is None
    k.sigprocmask(child, taskcore.SIG_UNBLOCK, bit(taskcore.SIGUSR1))
    assert {"kind": "sig_pending", "task": child} in k.take_notifications()
    a = k.get_signal(child)
    assert a["action"] == "handler" and a["sig"] == taskcore.SIGUSR1
    assert a["handler"] == 0x401000 and a["flags"] & taskcore.SA_RESTART
    assert a["info"]["signo"] == taskcore.SIGUSR1 and a["info"]["pid"] == 1
    # The handler runs with its mask and the signal itself blocked.
    running = k.sigprocmask(child, taskcore.SIG_BLOCK)
    assert running == bit(taskcore.SIGUSR1) | bit(taskcore.SIGUSR2)
    k.rt_sigreturn(child, a["old_mask"])
    assert k.sigprocmask(child, taskcore.SIG_BLOCK) == 0
    assert k.get_signal(child) is None
    # A stop signal stops it; SIGKILL makes it exit.
    k.kill(init, pid, taskcore.SIGSTOP)
    assert k.get_signal(child) == {"action": "stopped"}
    k.kill(init, pid, taskcore.SIGKILL)
    assert k.wait4(init, pid) == (pid, taskcore.SIGKILL)
    with pytest.raises(ValueError):
        taskcore.Kernel(signal_delivery="later")


def test_a_kernel_loop_restarts_or_fails_an_interrupted_wait():
    """The loop of examples/signal_loop.rs: a shell handles SIGUSR1 with
    SA_RESTART and SIGUSR2 without, and waits for any child; its first
    child's SIGUSR1 restarts the wait, its second's SIGUSR2 fails it with
    EINTR (Linux's rule for ERESTARTSYS)."""
    k = taskcore.Kernel(signal_delivery="on_get_signal")
    init = k.init_task()
    shell = k.fork(init)
    k.sigaction(shell, taskcore.SIGUSR1, 0x40100A, taskcore.SA_RESTART)
    k.sigaction(shell, taskcore.SIGUSR2, 0x40100C, 0)
    log = []

    def wait_and_signal(sig, code):
        child = k.fork(shell)
        with pytest.raises(BlockingIOError):
            k.wait4(shell, -1)  # asleep until a notification wakes it
        k.take_notifications()
        k.kill(child, k.getpid(shell), sig)
        woken = [n for n in k.take_notifications() if n["kind"] == "sig_pending"]
        assert woken == [{"kind": "sig_pending", "task": shell}]
        with pytest.raises(InterruptedError) as e:
            k.wait4(shell, -1)
        assert e.value.errno == 512
        flags = None
        while (a := k.get_signal(shell)) is not None:
            log.append(f"handler {a['handler']:#x} for {a['sig']}")
            k.rt_sigreturn(shell, a["old_mask"])
            flags = a["flags"]
        outcome = taskcore.resolve_restart(e.value.errno, flags)
        log.append(outcome)
        k.exit_group(child, code)
        log.append(k.wait4(shell, -1))

    wait_and_signal(taskcore.SIGUSR1, 2)
    wait_and_signal(taskcore.SIGUSR2, 1)
    assert log == [
        "handler 0x40100a for 10",
        "restart",
        (3, 0x200),
        "handler 0x40100c for 12",
        "eintr",
        (4, 0x100),
    ]
    assert taskcore.resolve_restart(514) == "restart"
    assert taskcore.resolve_restart(516, 0) == "eintr"
    with pytest.raises(ValueError):
        taskcore.resolve_restart(4)
