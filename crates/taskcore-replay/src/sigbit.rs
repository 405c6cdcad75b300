//! Signal sets as the replay keeps them: bit `sig - 1` of a `u64`, as in
//! Linux's `sigset_t` on x86_64 (`sigmask()`). Imports nothing.

/// Bit of signal `sig` in a mask; 0 for a number outside 1..=64.
pub(crate) fn bit(sig: i32) -> u64 {
    if (1..=64).contains(&sig) {
        1 << (sig - 1)
    } else {
        0
    }
}
