//! What the unit tests share: replaying trace text.

use crate::{Options, Replayer, Summary};

/// The summary of a replay of `text` (one `strace -f` trace named `t`)
/// with the default options.
pub(crate) fn summary(text: &str) -> Summary {
    summary_with(text, Options::default())
}

/// [`summary`] with options `opts`.
pub(crate) fn summary_with(text: &str, opts: Options) -> Summary {
    let parsed = taskcore_strace::parse_str("t", text);
    let mut r = Replayer::new(opts);
    for e in &parsed.events {
        r.push(e);
    }
    r.finish()
}
