//! `taskcore replay --timeline FILE`: the processes of a replayed trace
//! over time, from their records ([`taskcore_replay::ProcessRecord`]):
//! an HTML page with inline SVG ([`html`]), or, for a `.json` name, the
//! Chrome trace-event format ([`chrome`]).

mod chrome;
mod html;
mod tree;

use std::path::Path;

use taskcore_replay::ProcessRecord;

/// Writes the timeline of `records` (replayed from `source`) to `out`:
/// trace-event JSON when its name ends in `.json`, otherwise HTML.
/// Returns the number of rows (processes) written.
///
/// # Errors
/// The I/O error of writing `out`.
pub(crate) fn write(out: &Path, source: &str, records: &[ProcessRecord]) -> std::io::Result<usize> {
    let rows = tree::rows(records);
    let json = out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let text = if json {
        chrome::render(&rows)
    } else {
        html::render(&rows, source)
    };
    std::fs::write(out, text)?;
    Ok(rows.len())
}
