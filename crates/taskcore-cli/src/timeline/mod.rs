//! `taskcore replay --timeline FILE` and `taskcore run --timeline FILE`:
//! the processes of a replayed trace or of a run over time, from their
//! records ([`taskcore_replay::ProcessRecord`], [`taskcore_replay::Mark`]):
//! an HTML page with inline SVG ([`html`]), or, for a `.json` name, the
//! Chrome trace-event format ([`chrome`]).

mod chrome;
mod html;
mod tree;

use std::path::Path;

use taskcore_replay::{Mark, ProcessRecord};

/// Writes the timeline of `records` and `marks` (of `source`: a trace's
/// path, or the command run)
/// to `out`:
/// trace-event JSON when its name ends in `.json`, otherwise HTML.
/// Returns the number of rows (processes) written.
///
/// # Errors
/// The I/O error of writing `out`.
pub(crate) fn write(
    out: &Path,
    source: &str,
    records: &[ProcessRecord],
    marks: &[Mark],
) -> std::io::Result<usize> {
    let rows = tree::rows(records, marks);
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
