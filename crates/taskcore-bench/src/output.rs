//! An experiment's files: its table as CSV and JSON, and its plots as PNG.

use std::path::Path;

use crate::harness::Report;
use crate::plot;

/// Writes `NAME.csv`, `NAME.json` and the PNGs into `dir`.
pub(crate) fn write_files(report: &Report, dir: &Path) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut written = Vec::new();
    let csv = dir.join(format!("{}.csv", report.experiment));
    std::fs::write(&csv, report.csv()).map_err(|e| format!("{}: {e}", csv.display()))?;
    written.push(csv.display().to_string());
    let json = dir.join(format!("{}.json", report.experiment));
    let text = serde_json::to_string_pretty(&report.to_json()).map_err(|e| e.to_string())?;
    std::fs::write(&json, text + "\n").map_err(|e| format!("{}: {e}", json.display()))?;
    written.push(json.display().to_string());
    for p in &report.plots {
        let path = dir.join(format!("{}.png", p.file));
        plot::draw(report, p, &path)?;
        written.push(path.display().to_string());
    }
    Ok(written)
}
