//! The random operations: what a step can be, and its strategies.

use super::*;

#[derive(Clone, Debug)]
pub(crate) enum PidArg {
    /// The tid of the `n`-th created task (modulo), as the caller sees it.
    Task(usize),
    /// The tgid of the `n`-th created task.
    Tgid(usize),
    Zero,
    Raw(i32),
}

#[derive(Clone, Debug)]
pub(crate) enum KillArg {
    Pid(PidArg),
    /// A child process of the caller (modulo), or -1 when it has none.
    Child(usize),
    /// The process group of a child of the caller, negated.
    ChildPgrp(usize),
    MinusOne,
    NegPgid(usize),
    Min,
}

#[derive(Clone, Debug)]
pub(crate) enum CloneKind {
    Fork,
    Vfork,
    Thread,
    Parent,
    ExitSig(i32),
    NewPid,
    SetTid(Vec<i32>),
    Ptrace,
    Raw(u64, i32),
    Clone3(Clone3Args),
}

/// A set*id call.
#[derive(Clone, Debug)]
pub(crate) enum IdCall {
    Setuid(u32),
    Setreuid(u32, u32),
    Setresuid(u32, u32, u32),
    Setgid(u32),
    Setregid(u32, u32),
    Setresgid(u32, u32, u32),
    Setfsuid(u32),
    Setfsgid(u32),
    Setgroups(Vec<u32>),
}

pub(crate) fn id_call() -> impl Strategy<Value = IdCall> {
    let id = || prop_oneof![2 => Just(0u32), 3 => Just(1000u32), 2 => Just(1001u32), 2 => Just(u32::MAX)];
    prop_oneof![
        3 => id().prop_map(IdCall::Setuid),
        3 => (id(), id()).prop_map(|(r, e)| IdCall::Setreuid(r, e)),
        3 => (id(), id(), id()).prop_map(|(r, e, s)| IdCall::Setresuid(r, e, s)),
        2 => id().prop_map(IdCall::Setgid),
        2 => (id(), id()).prop_map(|(r, e)| IdCall::Setregid(r, e)),
        2 => (id(), id(), id()).prop_map(|(r, e, s)| IdCall::Setresgid(r, e, s)),
        1 => id().prop_map(IdCall::Setfsuid),
        1 => id().prop_map(IdCall::Setfsgid),
        1 => prop::collection::vec(id(), 0..4).prop_map(IdCall::Setgroups),
    ]
}

/// Which entry a clone step goes through.
pub(crate) enum CloneCall {
    Legacy(CloneArgs),
    V3(Clone3Args),
}

#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// Does nothing: first among the alternatives, so that shrinking turns
    /// irrelevant steps into it (a sequence cannot shrink below 50 steps).
    Nop,
    Clone(usize, CloneKind),
    /// `setresuid`, or with `u32::MAX` as "kind" markers: see `apply`.
    SetIds(usize, IdCall),
    /// `prlimit64(0, RLIMIT_NPROC, {n, n})`.
    SetNproc(usize, u64),
    Exit(usize, i32),
    ExitGroup(usize, i32),
    Exec(usize),
    Setpgid(usize, PidArg, PidArg),
    Setsid(usize),
    Getpgid(usize, PidArg),
    Getsid(usize, PidArg),
    Getppid(usize),
    Kill(usize, KillArg, i32),
    Tgkill(usize, PidArg, PidArg, i32),
    Tkill(usize, PidArg, i32),
    Sigaction(usize, i32, Option<(SigHandler, u64)>),
    Subreaper(usize, bool),
    Attach(usize, PidArg, bool),
    Traceme(usize),
    Cont(usize, PidArg, i32),
    Detach(usize, PidArg, i32),
    Wait4(usize, KillArg, i32),
    Waitid(usize, i32, PidArg, i32),
    Churn(usize, u16),
    /// Forks `n` children without reaping them (fills a small pid space).
    Fill(usize, u16),
    /// `unshare(flags)`: mostly `CLONE_NEWPID` (the next child is a new
    /// namespace's init; a second one, or a thread or `CLONE_NEWPID` clone
    /// after it, is EINVAL).
    Unshare(usize, u64),
    /// `rt_sigprocmask(how, set)`; `None`: only read the mask.
    Sigprocmask(usize, i32, Option<u64>),
    /// `rt_sigpending()`.
    Sigpending(usize),
    /// `rt_sigtimedwait(set, NULL, {0, 0})`.
    Sigtimedwait(usize, u64),
    /// `pidfd_open(pid, flags)`; a pidfd both sides open is kept.
    PidfdOpen(usize, PidArg, u32),
    /// `pidfd_send_signal(fd, sig, NULL, flags)` on a kept pidfd (modulo).
    PidfdSignal(usize, usize, i32, u32),
    /// `waitid(P_PIDFD, fd, options)`.
    WaitidPidfd(usize, usize, i32),
    /// `setns(fd, nstype)` with a kept pidfd.
    SetnsPidfd(usize, usize, u64),
    /// Closes a kept pidfd (its slot stays: later uses are `EBADF`).
    PidfdClose(usize),
    /// `prctl(PR_SET_DUMPABLE, arg)`, then `prctl(PR_GET_DUMPABLE)`.
    Dumpable(usize, u64),
    /// `prctl(PR_SET_PDEATHSIG, sig)` (when given; sometimes an invalid
    /// signal), then `prctl(PR_GET_PDEATHSIG)`.
    Pdeathsig(usize, Option<i32>),
    /// The parent-death signal of a parent *thread*: the caller (if
    /// `thread`, a new thread of it) forks a child, which sets `sig` as its
    /// parent-death signal (and, if `grandchild`, forks a child that sets
    /// it too; if `block`, the children block it, to keep it pending);
    /// then that parent thread exits (`exit`) or its whole process does
    /// (`exit_group`, if `group`), after giving up its root ids if
    /// `drop_ids` (the signal then needs `kill()`'s permission). The
    /// children's pending signals and parent-death signals are compared
    /// after.
    PdeathExit {
        caller: usize,
        sig: i32,
        thread: bool,
        grandchild: bool,
        group: bool,
        block: bool,
        drop_ids: bool,
    },
    /// A seized tracee in a group stop, listening: the caller seizes a
    /// child of its own (the `n`-th, modulo; a new one if it has none),
    /// stops it with SIGSTOP (or `PTRACE_INTERRUPT` if `interrupt`), waits
    /// for its stop and tells it `PTRACE_LISTEN`; the later random steps
    /// (SIGCONT, SIGKILL, interrupts, waits) act on the listener.
    SeizeListen(usize, usize, bool),
    /// `prctl(PR_SET_NAME, name)` (when given), then `prctl(PR_GET_NAME)`:
    /// names set, inherited by clones and replaced by exec.
    Name(usize, Option<Vec<u8>>),
    /// Opens `/proc/PID/ns/pid` (false) or `pid_for_children` (true) of
    /// the `n`-th created task; a file both sides open is kept.
    NsOpen(usize, bool),
    /// `setns(fd, nstype)` with a kept namespace file.
    SetnsFile(usize, usize, u64),
    /// Closes a kept namespace file.
    NsClose(usize),
    // --- CLONE_PIDFD (keep these together) ---
    /// clone or clone3 through their `CLONE_PIDFD` entries; the pidfd both
    /// sides return is kept for the pidfd ops.
    ClonePidfd(usize, PidfdClone),
    /// `PTRACE_SEIZE` with options (sometimes invalid ones), mostly of a
    /// child of the caller.
    Seize(usize, KillArg, u32),
    /// The caller enters (false) or leaves (true) a system call: a tracee
    /// resumed with `PTRACE_SYSCALL` stops there.
    SyscallReport(usize, bool),
    /// `op` (a clone, exec, exit or syscall report) by a runnable traced
    /// task (the `n`-th), or by any runnable task if none is traced: the
    /// event and syscall stops.
    ByTracee(usize, Box<Op>),
    /// A ptrace request by a tracer (the `n`-th runnable task that traces
    /// any, or any runnable task if none does) to its `m`-th tracee.
    Tracer(usize, usize, TraceReq),
}

/// A request of [`Op::Tracer`].
#[derive(Clone, Debug)]
pub(crate) enum TraceReq {
    /// `PTRACE_SETOPTIONS`.
    Setoptions(u32),
    /// `PTRACE_GETEVENTMSG`.
    Geteventmsg,
    /// `PTRACE_CONT` with a signal (ignored in event stops).
    Cont(i32),
    /// `PTRACE_DETACH` with a signal.
    Detach(i32),
    /// `wait4(tracee, options)`.
    Wait(i32),
    /// `PTRACE_INTERRUPT`.
    Interrupt,
    /// `PTRACE_SYSCALL` with a signal (sent from a syscall stop).
    Syscall(i32),
    /// `PTRACE_LISTEN`.
    Listen,
}

/// `PTRACE_O_*` options: mostly a random subset of the valid ones that
/// matter here, sometimes with an invalid bit.
pub(crate) fn ptrace_options() -> impl Strategy<Value = u32> {
    use taskcore_model::ptrace_event::{PTRACE_O_EXITKILL, PTRACE_O_TRACESECCOMP};
    prop_oneof![
        2 => Just(0u32),
        8 => (0u32..0x80, any::<bool>(), prop::bool::weighted(0.1)).prop_map(|(b, kill, sec)| {
            b | if kill { PTRACE_O_EXITKILL } else { 0 } | if sec { PTRACE_O_TRACESECCOMP } else { 0 }
        }),
        1 => prop_oneof![Just(1u32 << 8), Just(1 << 19), Just(1 << 22), Just(1 << 31), Just(0x4e | 1 << 12)],
    ]
}

pub(crate) fn trace_req() -> impl Strategy<Value = TraceReq> {
    prop_oneof![
        4 => ptrace_options().prop_map(TraceReq::Setoptions),
        3 => Just(TraceReq::Geteventmsg),
        5 => signal().prop_map(TraceReq::Cont),
        1 => signal().prop_map(TraceReq::Detach),
        5 => wait4_options().prop_map(TraceReq::Wait),
        2 => Just(TraceReq::Interrupt),
        3 => signal().prop_map(TraceReq::Syscall),
        3 => Just(TraceReq::Listen),
    ]
}

/// A clone step with `CLONE_PIDFD` (mostly), and its refusals.
#[derive(Clone, Debug)]
pub(crate) enum PidfdClone {
    /// Legacy clone: flags, exit signal.
    Legacy(u64, i32),
    /// clone3.
    V3(Clone3Args),
}

/// `CLONE_PIDFD` clones: each child kind, with the combinations Linux
/// refuses (tests/oracle/pidfd_rules.out: `CLONE_PARENT_SETTID` and
/// `CLONE_DETACHED` in legacy clone; clone3 takes `CLONE_PARENT_SETTID`).
pub(crate) fn pidfd_clone() -> impl Strategy<Value = PidfdClone> {
    let kind = || {
        prop_oneof![
            6 => Just(0u64),
            4 => Just(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM),
            1 => Just(CLONE_VFORK | CLONE_VM),
            2 => Just(CLONE_PARENT),
            1 => Just(CLONE_NEWPID),
            1 => Just(CLONE_PTRACE),
            1 => Just(CLONE_THREAD | CLONE_VM),
        ]
    };
    let extra = prop_oneof![
        10 => Just(CLONE_PIDFD),
        2 => Just(CLONE_PIDFD | CLONE_PARENT_SETTID),
        2 => Just(CLONE_PIDFD | CLONE_DETACHED),
        1 => Just(CLONE_PIDFD | CLONE_DETACHED | CLONE_PARENT_SETTID),
        1 => Just(CLONE_DETACHED),
        1 => Just(0u64),
    ];
    let legacy = (
        kind(),
        extra,
        prop_oneof![4 => Just(SIGCHLD), 1 => Just(0), 1 => Just(SIGUSR1)],
    )
        .prop_map(|(k, e, sig)| PidfdClone::Legacy(k | e, sig));
    let v3_extra = prop_oneof![
        6 => Just(CLONE_PIDFD),
        2 => Just(CLONE_PIDFD | CLONE_PARENT_SETTID),
        1 => Just(CLONE_PIDFD | CLONE_DETACHED),
    ];
    let v3 = prop_oneof![
        3 => (kind(), v3_extra.clone(), prop_oneof![3 => Just(SIGCHLD as u64), 2 => Just(0u64)])
            .prop_map(|(k, e, sig)| {
                let exit_signal = if k & (CLONE_THREAD | CLONE_PARENT) != 0 { 0 } else { sig };
                Clone3Args { flags: k | e, exit_signal, ..Clone3Args::default() }
            }),
        1 => (clone3_args(), v3_extra).prop_map(|(mut a, e)| {
            a.flags |= e;
            a
        }),
    ];
    prop_oneof![3 => legacy, 2 => v3.prop_map(PidfdClone::V3)]
}

/// A signal set drawn from the signals the other ops send.
pub(crate) fn sigset() -> impl Strategy<Value = u64> {
    let sigs = [
        SIGSTOP, SIGCONT, SIGTERM, SIGKILL, SIGTSTP, SIGHUP, SIGUSR1, SIGSEGV, SIGCHLD, 40,
    ];
    prop::collection::vec(prop::sample::select(sigs.to_vec()), 0..4)
        .prop_map(|v| v.into_iter().fold(0u64, |m, s| m | 1 << (s - 1)))
}

pub(crate) fn sel() -> impl Strategy<Value = usize> {
    0usize..1000
}

pub(crate) fn pid_arg() -> impl Strategy<Value = PidArg> {
    prop_oneof![
        6 => sel().prop_map(PidArg::Task),
        2 => sel().prop_map(PidArg::Tgid),
        1 => Just(PidArg::Zero),
        1 => prop_oneof![Just(-1), Just(1), Just(599), Just(9999), Just(-5)].prop_map(PidArg::Raw),
    ]
}

pub(crate) fn kill_arg() -> impl Strategy<Value = KillArg> {
    prop_oneof![
        6 => pid_arg().prop_map(KillArg::Pid),
        1 => Just(KillArg::MinusOne),
        2 => sel().prop_map(KillArg::NegPgid),
        1 => Just(KillArg::Min),
    ]
}

pub(crate) fn signal() -> impl Strategy<Value = i32> {
    prop_oneof![
        2 => Just(0),
        3 => Just(SIGSTOP),
        3 => Just(SIGCONT),
        3 => Just(SIGTERM),
        3 => Just(SIGKILL),
        2 => Just(SIGTSTP),
        2 => Just(SIGHUP),
        2 => Just(SIGUSR1),
        1 => Just(SIGSEGV),
        1 => Just(SIGCHLD),
        1 => Just(65),
        1 => Just(-1),
    ]
}

/// A parent-death signal: mostly valid ones (their default actions
/// differ), 0, and some `PR_SET_PDEATHSIG` refuses.
pub(crate) fn pdeath_signal() -> impl Strategy<Value = i32> {
    prop_oneof![
        1 => Just(0),
        3 => Just(SIGUSR1),
        2 => Just(SIGTERM),
        2 => Just(SIGKILL),
        2 => Just(SIGHUP),
        1 => Just(SIGCONT),
        1 => Just(SIGSTOP),
        1 => Just(SIGCHLD),
        1 => Just(40),
        1 => Just(64),
        1 => prop_oneof![Just(65), Just(-1), Just(1000), Just(i32::MIN)],
    ]
}

pub(crate) fn clone_kind() -> impl Strategy<Value = CloneKind> {
    prop_oneof![
        10 => Just(CloneKind::Fork),
        2 => Just(CloneKind::Vfork),
        6 => Just(CloneKind::Thread),
        2 => Just(CloneKind::Parent),
        3 => prop_oneof![
            Just(0), Just(SIGUSR1), Just(SIGUSR2), Just(SIGTERM), Just(SIGHUP),
            Just(SIGKILL), Just(SIGSTOP), Just(SIGCHLD)
        ].prop_map(CloneKind::ExitSig),
        2 => Just(CloneKind::NewPid),
        1 => prop::collection::vec(prop_oneof![Just(1), 2i32..40, 290i32..310, Just(599)], 1..3)
            .prop_map(CloneKind::SetTid),
        1 => Just(CloneKind::Ptrace),
        1 => prop_oneof![
            Just((CLONE_THREAD, 0)),
            Just((CLONE_SIGHAND, 0)),
            Just((CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | CLONE_NEWPID, 0)),
            Just((0, 65)),
            Just((0, 256)),
            Just((0, -1)),
            Just((CLONE_PARENT, SIGUSR1)),
            Just((CLONE_PIDFD | CLONE_PARENT_SETTID, SIGCHLD)),
        ].prop_map(|(f, s)| CloneKind::Raw(f, s)),
        3 => clone3_args().prop_map(CloneKind::Clone3),
    ]
}

/// clone3 arguments: mostly valid, with each of clone3's refusals.
pub(crate) fn clone3_args() -> impl Strategy<Value = Clone3Args> {
    let flags = prop_oneof![
        6 => Just(0u64),
        2 => Just(CLONE_PARENT),
        2 => Just(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM),
        1 => Just(CLONE_NEWPID),
        1 => Just(CLONE_CLEAR_SIGHAND),
        1 => Just(CLONE_CLEAR_SIGHAND | CLONE_SIGHAND | CLONE_VM),
        1 => Just(CLONE_DETACHED),
        1 => Just(CLONE_NEWTIME),
        1 => Just(0x11u64),
        1 => Just(1u64 << 40),
        1 => Just(CLONE_INTO_CGROUP),
        1 => Just(CLONE_THREAD | CLONE_VM),
    ];
    let exit_signal = prop_oneof![
        5 => Just(SIGCHLD as u64),
        3 => Just(0u64),
        1 => Just(64u64),
        1 => Just(65u64),
        1 => Just((1u64 << 32) | SIGCHLD as u64),
    ];
    let set_tid = prop_oneof![
        8 => Just((None, 0u64)),
        1 => Just((None, 1u64)),
        1 => Just((Some(vec![]), 0u64)),
        1 => Just((Some(vec![]), 1u64)),
        1 => Just((Some(vec![0; 33]), 33u64)),
        2 => prop::collection::vec(prop_oneof![Just(1), 2i32..40, 290i32..310], 1..3)
            .prop_map(|v| { let n = v.len() as u64; (Some(v), n) }),
    ];
    let cgroup = prop_oneof![4 => Just(0u64), 1 => Just(3u64), 1 => Just(1u64 << 32)];
    let stack = prop_oneof![6 => Just((0u64, 0u64)), 1 => Just((0, 4096)), 1 => Just((4096, 0))];
    (flags, exit_signal, set_tid, cgroup, stack).prop_map(
        |(flags, exit_signal, (set_tid, set_tid_size), cgroup, (stack, stack_size))| Clone3Args {
            flags,
            exit_signal,
            set_tid,
            set_tid_size,
            cgroup,
            stack,
            stack_size,
            pidfd_fault: false,
        },
    )
}

pub(crate) fn sigaction_op() -> impl Strategy<Value = (i32, Option<(SigHandler, u64)>)> {
    let h = prop_oneof![
        Just(SigHandler::Default),
        Just(SigHandler::Ignore),
        Just(SigHandler::Handler)
    ];
    let flags = prop_oneof![
        Just(0u64),
        Just(SA_NOCLDWAIT),
        Just(SA_NOCLDSTOP),
        Just(SA_RESETHAND),
        Just(SA_SIGINFO | SA_NOCLDWAIT)
    ];
    prop_oneof![
        6 => (Just(SIGCHLD), (h.clone(), flags.clone()).prop_map(Some)),
        4 => (prop_oneof![Just(SIGTERM), Just(SIGHUP), Just(SIGTSTP), Just(SIGUSR1)],
              (h, flags).prop_map(Some)),
        1 => (prop_oneof![Just(SIGKILL), Just(SIGSTOP), Just(0), Just(65)],
              Just(Some((SigHandler::Ignore, 0)))),
        1 => (prop_oneof![Just(SIGCHLD), Just(SIGTERM), Just(SIGKILL)], Just(None)),
    ]
}

pub(crate) fn wait4_options() -> impl Strategy<Value = i32> {
    (
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.4),
        prop::bool::weighted(0.4),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.05),
    )
        .prop_map(|(nohang, untraced, cont, wall, wclone, nothread, bad)| {
            let mut o = 0;
            o |= if nohang { WNOHANG } else { 0 };
            o |= if untraced { WUNTRACED } else { 0 };
            o |= if cont { WCONTINUED } else { 0 };
            o |= if wall { __WALL } else { 0 };
            o |= if wclone { __WCLONE } else { 0 };
            o |= if nothread { __WNOTHREAD } else { 0 };
            o |= if bad { WNOWAIT } else { 0 };
            o
        })
}

pub(crate) fn waitid_options() -> impl Strategy<Value = i32> {
    (
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.7),
        prop::bool::weighted(0.4),
        prop::bool::weighted(0.4),
        prop::bool::weighted(0.25),
        (
            prop::bool::weighted(0.2),
            prop::bool::weighted(0.2),
            prop::bool::weighted(0.15),
            prop::bool::weighted(0.05),
        ),
    )
        .prop_map(
            |(nohang, exited, stopped, cont, nowait, (wall, wclone, nothread, bad))| {
                let mut o = 0;
                o |= if nohang { WNOHANG } else { 0 };
                o |= if exited { WEXITED } else { 0 };
                o |= if stopped { WSTOPPED } else { 0 };
                o |= if cont { WCONTINUED } else { 0 };
                o |= if nowait { WNOWAIT } else { 0 };
                o |= if wall { __WALL } else { 0 };
                o |= if wclone { __WCLONE } else { 0 };
                o |= if nothread { __WNOTHREAD } else { 0 };
                o |= if bad { 0x10 } else { 0 };
                o
            },
        )
}

pub(crate) fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => Just(Op::Nop),
        14 => (sel(), clone_kind()).prop_map(|(c, k)| Op::Clone(c, k)),
        3 => (sel(), id_call()).prop_map(|(c, k)| Op::SetIds(c, k)),
        2 => (sel(), prop_oneof![1u64..8, Just(u64::MAX)]).prop_map(|(c, n)| Op::SetNproc(c, n)),
        4 => (sel(), 0i32..300).prop_map(|(c, x)| Op::Exit(c, x)),
        5 => (sel(), 0i32..300).prop_map(|(c, x)| Op::ExitGroup(c, x)),
        3 => sel().prop_map(Op::Exec),
        3 => (sel(), pid_arg(), pid_arg()).prop_map(|(c, a, b)| Op::Setpgid(c, a, b)),
        2 => sel().prop_map(Op::Setsid),
        1 => (sel(), pid_arg()).prop_map(|(c, a)| Op::Getpgid(c, a)),
        1 => (sel(), pid_arg()).prop_map(|(c, a)| Op::Getsid(c, a)),
        1 => sel().prop_map(Op::Getppid),
        8 => (sel(), kill_arg(), signal()).prop_map(|(c, a, s)| Op::Kill(c, a, s)),
        2 => (sel(), pid_arg(), pid_arg(), signal()).prop_map(|(c, a, b, s)| Op::Tgkill(c, a, b, s)),
        2 => (sel(), pid_arg(), signal()).prop_map(|(c, a, s)| Op::Tkill(c, a, s)),
        4 => (sel(), sigaction_op()).prop_map(|(c, (s, a))| Op::Sigaction(c, s, a)),
        2 => (sel(), any::<bool>()).prop_map(|(c, b)| Op::Subreaper(c, b)),
        2 => (sel(), prop_oneof![
                6 => Just(CLONE_NEWPID),
                1 => Just(0u64),
                1 => Just(CLONE_NEWPID | CLONE_FILES),
                1 => Just(CLONE_NEWUTS),
                1 => Just(CLONE_SIGHAND),
                1 => Just(CLONE_PARENT),
            ]).prop_map(|(c, f)| Op::Unshare(c, f)),
        4 => (sel(), prop_oneof![Just(0), Just(1), Just(2), Just(3)],
              prop::option::weighted(0.9, sigset()))
            .prop_map(|(c, h, s)| Op::Sigprocmask(c, h, s)),
        1 => sel().prop_map(Op::Sigpending),
        2 => (sel(), sigset()).prop_map(|(c, s)| Op::Sigtimedwait(c, s)),
        3 => (sel(), pid_arg(), any::<bool>()).prop_map(|(c, a, b)| Op::Attach(c, a, b)),
        1 => sel().prop_map(Op::Traceme),
        3 => (sel(), pid_arg(), signal()).prop_map(|(c, a, s)| Op::Cont(c, a, s)),
        2 => (sel(), pid_arg(), signal()).prop_map(|(c, a, s)| Op::Detach(c, a, s)),
        10 => (sel(), prop_oneof![
                3 => Just(KillArg::MinusOne),
                1 => Just(KillArg::Pid(PidArg::Zero)),
                3 => sel().prop_map(|s| KillArg::Pid(PidArg::Task(s))),
                1 => sel().prop_map(KillArg::NegPgid),
                1 => Just(KillArg::Min),
                1 => Just(KillArg::Pid(PidArg::Raw(9999))),
            ], wait4_options()).prop_map(|(c, a, o)| Op::Wait4(c, a, o)),
        8 => (sel(), prop_oneof![4 => Just(P_ALL), 3 => Just(P_PID), 2 => Just(P_PGID), 1 => Just(P_PIDFD), 1 => Just(7)],
              pid_arg(), waitid_options()).prop_map(|(c, t, a, o)| Op::Waitid(c, t, a, o)),
        1 => (sel(), prop_oneof![1u16..20, 100u16..400]).prop_map(|(c, n)| Op::Churn(c, n)),
        // Job control aimed at the caller's own children.
        6 => (sel(), prop_oneof![
                2 => sel().prop_map(KillArg::Child),
                1 => sel().prop_map(KillArg::ChildPgrp),
            ], prop_oneof![
                Just(SIGSTOP), Just(SIGTSTP), Just(SIGCONT), Just(SIGCONT), Just(SIGTERM),
                Just(SIGHUP), Just(SIGKILL)
            ]).prop_map(|(c, a, s)| Op::Kill(c, a, s)),
        4 => (sel(), sel().prop_map(KillArg::Child), wait4_options())
            .prop_map(|(c, a, o)| Op::Wait4(c, a, o | WUNTRACED | WCONTINUED)),
        1 => (sel(), 50u16..600).prop_map(|(c, n)| Op::Fill(c, n)),
        4 => (sel(), pid_arg(), prop_oneof![
                4 => Just(0u32),
                2 => Just(PIDFD_NONBLOCK),
                2 => Just(PIDFD_THREAD),
                1 => Just(PIDFD_NONBLOCK | PIDFD_THREAD),
                1 => Just(1u32),
            ]).prop_map(|(c, a, f)| Op::PidfdOpen(c, a, f)),
        4 => (sel(), sel(), signal(), prop_oneof![
                6 => Just(0u32),
                2 => Just(PIDFD_SIGNAL_THREAD),
                2 => Just(PIDFD_SIGNAL_THREAD_GROUP),
                2 => Just(PIDFD_SIGNAL_PROCESS_GROUP),
                1 => Just(PIDFD_SIGNAL_THREAD | PIDFD_SIGNAL_THREAD_GROUP),
                1 => Just(8u32),
            ]).prop_map(|(c, f, s, fl)| Op::PidfdSignal(c, f, s, fl)),
        4 => (sel(), sel(), waitid_options()).prop_map(|(c, f, o)| Op::WaitidPidfd(c, f, o)),
        2 => (sel(), sel(), prop_oneof![
                4 => Just(CLONE_NEWPID),
                1 => Just(0u64),
                1 => Just(CLONE_NEWPID | CLONE_NEWUTS),
                1 => Just(CLONE_NEWUTS),
                1 => Just(CLONE_VM),
            ]).prop_map(|(c, f, t)| Op::SetnsPidfd(c, f, t)),
        1 => sel().prop_map(Op::PidfdClose),
        2 => (sel(), prop_oneof![Just(0u64), Just(1), Just(1), Just(2)])
            .prop_map(|(c, a)| Op::Dumpable(c, a)),
        2 => (sel(), prop_oneof![
                2 => Just(None),
                1 => Just(Some(b"worker".to_vec())),
                1 => Just(Some(b"a-name-longer-than-15".to_vec())),
                1 => Just(Some(b"nul\0after".to_vec())),
                1 => Just(Some(Vec::new())),
            ]).prop_map(|(c, n)| Op::Name(c, n)),
        3 => (sel(), prop::option::weighted(0.8, pdeath_signal()))
            .prop_map(|(c, s)| Op::Pdeathsig(c, s)),
        4 => (sel(), pdeath_signal(), any::<bool>(), prop::bool::weighted(0.3), prop::bool::weighted(0.3),
              prop::bool::weighted(0.3), prop::bool::weighted(0.2))
            .prop_map(|(caller, sig, thread, grandchild, group, block, drop_ids)| Op::PdeathExit {
                caller, sig, thread, grandchild, group, block, drop_ids,
            }),
        3 => (sel(), sel(), prop::bool::weighted(0.3)).prop_map(|(c, n, i)| Op::SeizeListen(c, n, i)),
        2 => (sel(), any::<bool>()).prop_map(|(t, k)| Op::NsOpen(t, k)),
        2 => (sel(), sel(), prop_oneof![3 => Just(CLONE_NEWPID), 2 => Just(0u64), 1 => Just(CLONE_NEWUTS)])
            .prop_map(|(c, f, t)| Op::SetnsFile(c, f, t)),
        1 => sel().prop_map(Op::NsClose),
        6 => (sel(), pidfd_clone()).prop_map(|(c, k)| Op::ClonePidfd(c, k)),
        6 => (sel(), prop_oneof![
                3 => sel().prop_map(KillArg::Child),
                1 => pid_arg().prop_map(KillArg::Pid),
            ], ptrace_options()).prop_map(|(c, a, o)| Op::Seize(c, a, o)),
        20 => (sel(), sel(), trace_req()).prop_map(|(c, t, r)| Op::Tracer(c, t, r)),
        4 => (sel(), any::<bool>()).prop_map(|(c, x)| Op::SyscallReport(c, x)),
        24 => (sel(), prop_oneof![
                4 => clone_kind().prop_map(|k| Op::Clone(0, k)),
                2 => Just(Op::Exec(0)),
                1 => (0i32..300).prop_map(|x| Op::Exit(0, x)),
                1 => (0i32..300).prop_map(|x| Op::ExitGroup(0, x)),
                5 => any::<bool>().prop_map(|x| Op::SyscallReport(0, x)),
            ]).prop_map(|(c, op)| Op::ByTracee(c, Box::new(op))),
    ]
}
