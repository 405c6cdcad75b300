//! Profiling aid: fork + exit + wait4(pid) in a loop with N children present.
use taskcore::{Config, Kernel};
fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let iters: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let mut k = Kernel::new(Config {
        pid_max: 4 << 20,
        ..Config::default()
    })
    .unwrap();
    let init = k.init_task().unwrap();
    for _ in 0..n {
        k.fork(init).unwrap();
    }
    k.take_notifications();
    let t = std::time::Instant::now();
    for i in 0..iters {
        let c = k.fork(init).unwrap();
        let pid = k.pid_vnr(init, c).unwrap();
        k.exit_group(c, 0).unwrap();
        k.wait4(init, if i % 2 == 0 { pid } else { -1 }, 0).unwrap();
        if i % 1024 == 0 {
            k.take_notifications();
        }
    }
    println!("{:.1} ns/op", t.elapsed().as_nanos() as f64 / iters as f64);
}
