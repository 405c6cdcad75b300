//! Targets over text: the strace parser, the replay, `/proc`, maps.

use std::collections::VecDeque;

use taskcore::procfs::{DType, DirContext, DirCursor, ProcClock, ProcFs};
use taskcore::{Config, Kernel};
use taskcore_replay::{Options, Replayer};
use taskcore_strace::Parser;

use crate::bytes::Bytes;

/// Parses `data` as strace text line by line, checking the parser's
/// ordering contract.
pub fn strace(data: &[u8]) {
    let mut p = Parser::new("fuzz");
    let mut out = VecDeque::new();
    for line in data.split(|&c| c == b'\n') {
        p.feed(&String::from_utf8_lossy(line), &mut out);
    }
    p.finish(&mut out);
    let mut last = 0;
    for e in &out {
        assert!(e.line >= last, "events out of line order");
        assert!(e.entry_line <= e.line, "entry after completion");
        last = e.line;
    }
    assert!(p.stats().error_lines <= p.stats().lines + 1);
    assert!(p
        .errors()
        .iter()
        .all(|e| e.msg.len() <= taskcore_strace::MAX_MSG + 16));
}

/// Line shapes the replay models, with holes for pids and values.
const SHAPES: [&str; 16] = [
    "{P} 1.0 clone(child_stack=NULL, flags=SIGCHLD) = {Q}",
    "{P} 1.0 clone(child_stack=NULL, flags=CLONE_VM|CLONE_THREAD|CLONE_SIGHAND) = {Q}",
    "{P} 1.0 vfork( <unfinished ...>",
    "{P} 1.0 <... vfork resumed>) = {Q}",
    "{P} 1.0 exit_group({V}) = ?",
    "{P} 1.0 +++ exited with {V} +++",
    "{P} 1.0 +++ killed by SIGKILL +++",
    "{P} 1.0 wait4({Q}, [{WIFEXITED(s) && WEXITSTATUS(s) == {V}}], 0, NULL) = {Q}",
    "{P} 1.0 wait4(-1, 0x7ffc, WNOHANG, NULL) = -1 ECHILD (No child processes)",
    "{P} 1.0 waitid(P_PGID, {Q}, {}, WNOHANG|WEXITED, NULL) = 0",
    "{P} 1.0 setpgid({Q}, {Q}) = 0",
    "{P} 1.0 setpgid(0, {Q}) = -1 EPERM (Operation not permitted)",
    "{P} 1.0 kill({Q}, SIGKILL) = 0",
    "{P} 1.0 getpgid({Q}) = {Q}",
    "{P} 1.0 mmap(NULL, 4096, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f{V}000",
    "{P} 1.0 --- stopped by SIGSTOP ---",
];

/// Replays a trace built from `data`: the first byte chooses between the
/// bytes as raw text and lines assembled from modelled shapes with pids
/// from a small pool (so they name each other).
pub fn replay(data: &[u8]) {
    let text = if data.first().is_some_and(|&c| c & 1 == 0) {
        String::from_utf8_lossy(&data[1.min(data.len())..]).into_owned()
    } else {
        let mut b = Bytes::new(data.get(1..).unwrap_or(&[]));
        let mut s = String::new();
        while !b.is_empty() {
            let shape = SHAPES[b.below(SHAPES.len())];
            let p = 100 + b.below(8);
            let line = shape
                .replacen("{P}", &p.to_string(), 1)
                .replace("{Q}", &(100 + b.below(10)).to_string())
                .replace("{V}", &b.u8().to_string());
            s.push_str(&line);
            s.push('\n');
        }
        s
    };
    let parsed = taskcore_strace::parse_str("fuzz", &text);
    let mut r = Replayer::new(Options::default());
    for e in &parsed.events {
        r.push(e);
        r.watermark(e.line + 1);
        r.kernel().check_invariants();
    }
    let _ = r.finish();
}

/// Collects listing entries.
struct Names(Vec<Vec<u8>>);

impl DirContext for Names {
    fn emit(&mut self, name: &[u8], _ino: u64, _t: DType, _pos: u64) -> bool {
        self.0.push(name.to_vec());
        self.0.len() < 64
    }
}

/// Resolves and reads arbitrary `/proc` paths of a small process table.
pub fn procfs(data: &[u8]) {
    let mut b = Bytes::new(data);
    let Ok(mut k) = Kernel::new(Config::default()) else {
        return;
    };
    let Ok(init) = k.init_task() else { return };
    let mut tasks = vec![init];
    for _ in 0..(b.u8() % 6) {
        let parent = tasks[b.below(tasks.len())];
        let r = if b.u8() & 1 == 0 {
            k.fork(parent)
        } else {
            k.clone(parent, &taskcore::CloneArgs::thread())
        };
        if let Ok(t) = r {
            tasks.push(t);
        }
    }
    if b.u8() & 1 == 0 {
        let t = tasks[b.below(tasks.len())];
        let _ = k.exit(t, 0);
    }
    let Ok(fs) = ProcFs::new(&k, k.root_ns(), ProcClock::from_kernel(&k, 0)) else {
        return;
    };
    let fs = match b.u8() % 2 {
        0 => fs
            .with_current(tasks[b.below(tasks.len())])
            .unwrap_or_else(|_| {
                ProcFs::new(&k, k.root_ns(), ProcClock::default()).expect("root namespace")
            }),
        _ => fs,
    };
    while !b.is_empty() {
        let n = b.u8() as usize % 40;
        let path: Vec<u8> = (0..n).map(|_| b.u8()).collect();
        let Ok(node) = fs.resolve(&path) else {
            continue;
        };
        let _ = fs.read(node);
        let _ = fs.readlink(node);
        let mut cur = DirCursor {
            pos: b.u64() % 1024,
            tid_hint: b.u32(),
        };
        let _ = fs.readdir(node, &mut cur, &mut Names(Vec::new()));
    }
}

/// Parses `data` as `/proc/PID/maps`; what parses renders and parses back
/// to the same VMAs.
pub fn maps(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(vmas) = taskcore::mm::parse_maps(&text) else {
        return;
    };
    let mut out = String::new();
    taskcore::mm::render_maps(&mut out, &vmas).expect("render to a String");
    let again = taskcore::mm::parse_maps(&out).expect("rendered maps parse");
    assert_eq!(vmas, again);
}
