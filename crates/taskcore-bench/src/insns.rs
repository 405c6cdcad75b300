//! Instructions per operation from the CPU's retired-instructions counter
//! (`perf_event_open(2)` through the `perf-event2` crate), beside the times.
//!
//! Instruction counts do not depend on the machine's load, so they compare
//! runs that wall-clock times cannot. Many kernels refuse the counter: a VM
//! without a virtual PMU, `perf_event_paranoid` too high, a seccomp filter.
//! Then [`per_op`] returns `None` and the experiment says "not supported".

use perf_event::events::Hardware;
use perf_event::{Builder, Counter};
use std::sync::OnceLock;

/// Why the counter is unavailable, found once per process; `None` when it
/// works.
fn refusal() -> Option<&'static str> {
    static WHY: OnceLock<Option<String>> = OnceLock::new();
    WHY.get_or_init(|| counter().err()).as_deref()
}

/// A user-space retired-instructions counter of this thread, disabled.
fn counter() -> Result<Counter, String> {
    let mut c = Builder::new(Hardware::INSTRUCTIONS)
        .exclude_kernel(true)
        .exclude_hv(true)
        .build()
        .map_err(|e| format!("perf_event_open: {e}"))?;
    // A counter the PMU cannot schedule (no virtual PMU) opens but never
    // counts: check that it does.
    c.enable().map_err(|e| e.to_string())?;
    std::hint::black_box((0..1000u64).sum::<u64>());
    c.disable().map_err(|e| e.to_string())?;
    match c.read() {
        Ok(n) if n > 0 => Ok(c),
        Ok(_) => Err("the instructions counter opens but counts nothing".into()),
        Err(e) => Err(format!("reading the counter: {e}")),
    }
}

/// The counter's state, for the notes under a table: "supported" or
/// "not supported (why)".
pub(crate) fn status() -> String {
    match refusal() {
        None => {
            "instructions per operation: user-space retired instructions (perf_event_open)".into()
        }
        Some(why) => format!("instructions per operation: not supported by this kernel ({why})"),
    }
}

/// Mean user-space instructions per call of `op` over `iters` calls, or
/// `None` when the kernel refuses the counter. `op` must leave the state as
/// it found it, as for the timings.
pub(crate) fn per_op(iters: u64, mut op: impl FnMut()) -> Option<f64> {
    if refusal().is_some() || iters == 0 {
        return None;
    }
    let mut c = counter().ok()?;
    // Warm the caches and the allocator as the timed batches do.
    for _ in 0..iters.min(1000) {
        op();
    }
    c.reset().ok()?;
    c.enable().ok()?;
    for _ in 0..iters {
        op();
    }
    c.disable().ok()?;
    let n = c.read().ok()?;
    Some(n as f64 / iters as f64)
}
