//! PNG plots of cost against size on log-log axes: drawn by plotters' bitmap
//! backend into a buffer, encoded by the `png` crate (plotters' own encoder
//! would pull in the `image` crate and its decoders, a third of the bench
//! crate's compile time).
//!
//! Text is drawn with `ab_glyph` from an embedded ASCII subset of DejaVu
//! Sans (`assets/DejaVuSans-ascii.ttf`, 14 KB, license in
//! `assets/DejaVu-LICENSE`), so plotting needs no fontconfig or system font.

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::FontStyle;

use super::harness::{PlotSpec, Report};

/// The embedded font (printable ASCII and `µ` only).
static FONT: &[u8] = include_bytes!("../assets/DejaVuSans-ascii.ttf");

/// Font family name the plots use.
const FAMILY: &str = "sans-serif";

fn register_font() -> Result<(), String> {
    static ONCE: Once = Once::new();
    let mut res = Ok(());
    ONCE.call_once(|| {
        res = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
            .map_err(|_| "embedded font rejected".to_string());
    });
    res
}

const COLORS: [RGBColor; 6] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
];

/// Draws `spec` from `report`'s rows into the PNG `path` (800x500).
pub(crate) fn draw(report: &Report, spec: &PlotSpec, path: &Path) -> Result<(), String> {
    register_font()?;
    let mut lines: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for (legend, series, key) in &spec.lines {
        let mut pts: Vec<(f64, f64)> = report
            .rows
            .iter()
            .filter(|r| &r.series == series)
            .filter_map(|r| Some((r.size.max(1) as f64, r.get_f64(key)?)))
            .filter(|&(_, y)| y > 0.0 && y.is_finite())
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        if !pts.is_empty() {
            lines.push((legend.clone(), pts));
        }
    }
    if lines.is_empty() {
        return Ok(());
    }
    let all = lines.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    let (x0, x1) = (x0 / 1.5, x1 * 1.5);
    let (y0, y1) = (y0 / 2.0, y1 * 2.0);
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let mut rgb = vec![0u8; WIDTH as usize * HEIGHT as usize * 3];
    render(&lines, spec, (x0, x1), (y0, y1), &mut rgb).map_err(|e| err(&e))?;
    write_png(path, &rgb).map_err(|e| err(&e))
}

/// Width and height of a plot, in pixels.
const WIDTH: u32 = 800;
const HEIGHT: u32 = 500;

type Lines = [(String, Vec<(f64, f64)>)];

/// Draws the chart into `rgb` (`WIDTH * HEIGHT` pixels, 3 bytes each).
fn render(
    lines: &Lines,
    spec: &PlotSpec,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
    rgb: &mut [u8],
) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::with_buffer(rgb, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(&spec.title, (FAMILY, 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?;
    chart
        .configure_mesh()
        .x_desc(spec.x_label.as_str())
        .y_desc(spec.y_label.as_str())
        .x_label_formatter(&|x| fmt_axis(*x))
        .y_label_formatter(&|y| fmt_axis(*y))
        .label_style((FAMILY, 13))
        .axis_desc_style((FAMILY, 14))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    for (i, (legend, pts)) in lines.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))?
            .label(legend.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font((FAMILY, 13))
        .draw()?;
    root.present()?;
    Ok(())
}

/// Writes `rgb` (8-bit RGB, `WIDTH * HEIGHT`) as a PNG file.
fn write_png(path: &Path, rgb: &[u8]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), WIDTH, HEIGHT);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Best);
    enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    w.write_image_data(rgb).map_err(|e| e.to_string())?;
    w.finish().map_err(|e| e.to_string())
}

/// Axis tick labels: 1, 10, 1k, 10k, 1M...
fn fmt_axis(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{}G", trim(v / 1e9))
    } else if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e3 {
        format!("{}k", trim(v / 1e3))
    } else {
        trim(v)
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::super::harness::Row;
    use super::*;

    #[test]
    fn axis_labels() {
        assert_eq!(fmt_axis(1.0), "1");
        assert_eq!(fmt_axis(1500.0), "1.5k");
        assert_eq!(fmt_axis(1e6), "1M");
    }

    #[test]
    fn draws_a_png() {
        let mut rep = Report::new("t", "N");
        for (n, y) in [(1u64, 10.0), (100, 20.0), (10_000, 40.0)] {
            let mut r = Row::new("s", n);
            r.set("taskcore_ns", y).set("old_ns", y * n as f64);
            rep.rows.push(r);
        }
        let spec = PlotSpec {
            file: "t".into(),
            title: "test plot".into(),
            x_label: "N".into(),
            y_label: "ns".into(),
            lines: vec![
                ("taskcore".into(), "s".into(), "taskcore_ns".into()),
                ("old".into(), "s".into(), "old_ns".into()),
            ],
        };
        let dir = std::env::temp_dir().join(format!("taskcore-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.png");
        draw(&rep, &spec, &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        // IHDR: width and height, big-endian, then 8-bit RGB.
        assert_eq!(&bytes[16..24], [0, 0, 3, 32, 0, 0, 1, 244]);
        assert_eq!(&bytes[24..26], [8, 2]);
        // Not blank: the image data is more than a white field compresses to.
        assert!(bytes.len() > 8_000, "{} bytes", bytes.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
