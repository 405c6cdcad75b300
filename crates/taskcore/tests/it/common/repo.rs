//! The repository around this crate, for tests that read its shared data
//! (`data/`), and a stated skip when they run from a packaged copy of the
//! crate (`cargo package`, `scripts/check-package.sh`), which ships only
//! small fixtures.

use std::path::{Path, PathBuf};

/// `REPO/rel` when this crate sits in the taskcore workspace
/// (`REPO/crates/NAME`); `None`, after printing why `test` is skipped, when
/// it runs from a packaged copy without the repository around it. Inside
/// the workspace the file must exist: the caller's read fails loudly.
pub(crate) fn path(rel: &str, test: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if root.join("crates/taskcore/Cargo.toml").is_file() {
        Some(root.join(rel))
    } else {
        eprintln!(
            "SKIPPED {test}: needs the repository's {rel}, which the packaged crate does not ship"
        );
        None
    }
}
