//! Reading the answers an oracle program under `tests/oracle/` recorded
//! from real Linux: its `.out` file has one `KEY ANSWER` line per call,
//! where ANSWER is `ok` or the errno's name (what `strerrorname_np` gives),
//! or a value the program printed.

#![allow(dead_code)]

use taskcore::Errno;

/// The answer recorded for `key` in `out` (the text after `KEY `).
///
/// Panics, naming the key, when the recording has no such line: a test
/// must never pass on a call Linux was not asked about.
pub(crate) fn want(out: &'static str, key: &str) -> &'static str {
    out.lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')))
        .unwrap_or_else(|| panic!("{key} not recorded"))
}

/// A result as the oracle programs print it: `ok`, or the errno's name.
pub(crate) fn ans<T>(r: Result<T, Errno>) -> String {
    match r {
        Ok(_) => "ok".into(),
        Err(e) => format!("{e:?}"),
    }
}

/// Asserts that `r` is what Linux answered for `key` in `out`.
pub(crate) fn check<T>(out: &'static str, key: &str, r: Result<T, Errno>) {
    assert_eq!(ans(r), want(out, key), "{key}");
}
