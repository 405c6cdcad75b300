//! Profiling aid: one operation in a loop, for callgrind's instruction
//! counts (`valgrind --tool=callgrind target/release/examples/prof_ops OP N`
//! at two N; the difference over the extra iterations is the cost of one).
//! OP: getpid, kill, setpgid, clone_thread.
use taskcore::{CloneArgs, Config, Kernel};
fn main() {
    let op = std::env::args().nth(1).unwrap_or_else(|| "kill".into());
    let iters: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let w = k.fork(init).unwrap();
    let mut child = w;
    for _ in 0..100 {
        child = k.fork(w).unwrap();
    }
    let pid = k.pid_vnr(w, child).unwrap();
    let wpgid = k.getpgid(w, 0).unwrap();
    let args = CloneArgs::thread();
    let t = std::time::Instant::now();
    for i in 0..iters {
        match op.as_str() {
            "getpid" => {
                std::hint::black_box(k.getpid(child).unwrap());
            }
            "kill" => k.kill(w, pid, 0).unwrap(),
            "setpgid" => k
                .setpgid(w, pid, if i % 2 == 0 { pid } else { wpgid })
                .unwrap(),
            "clone_thread" => {
                let t = k.clone(w, &args).unwrap();
                k.exit(t, 0).unwrap();
            }
            _ => panic!("unknown op {op}"),
        }
        if i % 1024 == 0 {
            k.take_notifications();
        }
    }
    println!(
        "{op}: {:.1} ns/op",
        t.elapsed().as_nanos() as f64 / iters as f64
    );
}
