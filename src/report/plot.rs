//! Line charts as PNG files: error-rate curves, win rate against pruning, with confidence
//! bands and the paper's reference points drawn in.
//!
//! Text is drawn with DejaVu Sans compiled into the binary (`fonts/`, free licence beside it),
//! so charts look the same on every machine and need no system fonts.

use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::prelude::*;
use thiserror::Error;

/// A chart could not be drawn or saved.
#[derive(Debug, Error)]
pub enum PlotError {
    #[error("drawing {path}: {message}")]
    Draw { path: PathBuf, message: String },
    #[error("saving {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesStyle {
    /// A solid line through the points.
    Line,
    /// Markers only (reference values from the paper, measured win rates).
    Points,
    /// A line with a marker on every point.
    LinePoints,
    /// A dashed line (a second form of a series drawn solid, in the same colour).
    Dashed,
}

/// One data series.
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub style: SeriesStyle,
    /// Optional interval: `(x, low, high)` triples, e.g. a 95% confidence interval. A line
    /// gets it as a shaded band; every marker also gets it as an error bar, so that a
    /// series of one point (where a band has no width) still shows its interval.
    pub band: Vec<(f64, f64, f64)>,
    /// The series' colour; by default the palette's colour of its position in the chart.
    /// Callers fix colours by role (see [`PAPER_COLOUR`], [`palette`]) so that a colour
    /// means the same thing in every chart they draw.
    pub colour: Option<RGBColor>,
}

impl Series {
    pub fn new(label: impl Into<String>, style: SeriesStyle, points: Vec<(f64, f64)>) -> Series {
        Series {
            label: label.into(),
            points,
            style,
            band: Vec::new(),
            colour: None,
        }
    }
    pub fn with_band(mut self, band: Vec<(f64, f64, f64)>) -> Series {
        self.band = band;
        self
    }
    pub fn colour(mut self, colour: RGBColor) -> Series {
        self.colour = Some(colour);
        self
    }
}

/// A whole chart.
#[derive(Debug, Clone)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
    pub series: Vec<Series>,
    /// Horizontal reference lines: `(y, label)`, drawn dashed-grey (e.g. the 0.37 baseline).
    pub hlines: Vec<(f64, String)>,
    /// The x values are categories (pruning depth: none, root, 1, 2): ticks only at whole
    /// numbers, named by `x_names` where given.
    pub categorical: bool,
    /// Names of x ticks (`(-1, "none")`); other ticks show their number.
    pub x_names: Vec<(f64, String)>,
    /// Write the x names upright, one per whole number (many long names: players).
    pub upright_x_names: bool,
    /// Width and height in pixels.
    pub size: (u32, u32),
}

impl Chart {
    pub fn new(title: &str, x_label: &str, y_label: &str) -> Chart {
        Chart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_range: (0.0, 1.0),
            y_range: (0.0, 1.0),
            series: Vec::new(),
            hlines: Vec::new(),
            categorical: false,
            x_names: Vec::new(),
            upright_x_names: false,
            size: DEFAULT_SIZE,
        }
    }
    pub fn x_range(mut self, lo: f64, hi: f64) -> Chart {
        self.x_range = (lo, hi);
        self
    }
    pub fn y_range(mut self, lo: f64, hi: f64) -> Chart {
        self.y_range = (lo, hi);
        self
    }
    pub fn series(mut self, s: Series) -> Chart {
        self.series.push(s);
        self
    }
    pub fn hline(mut self, y: f64, label: &str) -> Chart {
        self.hlines.push((y, label.into()));
        self
    }
    pub fn size(mut self, width: u32, height: u32) -> Chart {
        self.size = (width, height);
        self
    }
}

/// A chart's size unless the caller asks for another.
pub const DEFAULT_SIZE: (u32, u32) = (900, 600);

/// Parses a chart size `WIDTHxHEIGHT` (`1200x800`), each 200..=8000 pixels.
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("chart size `{text}`: expected WIDTHxHEIGHT, e.g. 1200x800"))?;
    let side = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (200..=8000).contains(n))
            .ok_or_else(|| format!("chart size `{text}`: each side must be 200 to 8000 pixels"))
    };
    Ok((side(w)?, side(h)?))
}

static FONT: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bundled font is valid; failure here would be a packaging bug.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// The colour of the paper's reference points in every chart (black: never a series').
pub const PAPER_COLOUR: RGBColor = RGBColor(0, 0, 0);

/// Colour `i` of the palette (wrapping): akushu's own main series is always colour 0.
pub fn palette(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Series colours, in order: the ten of matplotlib's "tab10" with its grey swapped for navy
/// (the reference lines are grey), then ten darker or lighter companions of them, so that a
/// chart of up to twenty series repeats none (the first ten keep their meaning in every
/// chart drawn before there were twenty).
const PALETTE: [RGBColor; 20] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(0, 0, 128),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(174, 199, 232),
    RGBColor(255, 152, 150),
    RGBColor(0, 90, 0),
    RGBColor(255, 187, 120),
    RGBColor(75, 0, 110),
    RGBColor(196, 156, 148),
    RGBColor(128, 0, 64),
    RGBColor(120, 120, 255),
    RGBColor(110, 110, 0),
    RGBColor(0, 110, 120),
];

/// The colour of the horizontal reference lines (`Chart::hlines`), in the plot and the legend.
const REFERENCE_GREY: RGBColor = RGBColor(120, 120, 120);

/// The most legend entries drawn inside the plot; a chart with more gets its legend in a
/// column beside the plot, where it hides no curve.
const LEGEND_INSIDE_MAX: usize = 10;

/// A corner of the plotting area, for the legend box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corner {
    UpperRight,
    LowerRight,
    UpperLeft,
    LowerLeft,
}

impl Corner {
    fn position(self) -> SeriesLabelPosition {
        match self {
            Corner::UpperRight => SeriesLabelPosition::UpperRight,
            Corner::LowerRight => SeriesLabelPosition::LowerRight,
            Corner::UpperLeft => SeriesLabelPosition::UpperLeft,
            Corner::LowerLeft => SeriesLabelPosition::LowerLeft,
        }
    }
}

/// The corner whose legend-sized region (45% of the width, 30% of the height) covers the
/// fewest data points, band edges included, so the legend does not hide the curves that
/// climb into the upper right (win rates and error rates against x both do). Ties go to
/// the first corner in the order upper right, lower right, upper left, lower left.
pub fn legend_corner(chart: &Chart) -> Corner {
    let (x0, x1) = chart.x_range;
    let (y0, y1) = chart.y_range;
    let (w, h) = ((x1 - x0) * 0.45, (y1 - y0) * 0.30);
    let points = chart.series.iter().flat_map(|s| {
        s.points
            .iter()
            .copied()
            .chain(s.band.iter().flat_map(|&(x, lo, hi)| [(x, lo), (x, hi)]))
    });
    let mut counts = [0usize; 4];
    for (x, y) in points {
        let (right, left) = (x >= x1 - w, x <= x0 + w);
        let (upper, lower) = (y >= y1 - h, y <= y0 + h);
        counts[0] += usize::from(right && upper);
        counts[1] += usize::from(right && lower);
        counts[2] += usize::from(left && upper);
        counts[3] += usize::from(left && lower);
    }
    let corners = [
        Corner::UpperRight,
        Corner::LowerRight,
        Corner::UpperLeft,
        Corner::LowerLeft,
    ];
    let best = (0..4).min_by_key(|&i| counts[i]).expect("four corners");
    corners[best]
}

/// The text chunk every akushu PNG carries right after its header: how the output rule tells
/// akushu's charts from other pictures that must not be replaced.
const PNG_MARK_KEYWORD: &[u8] = b"Software";
const PNG_MARK_TEXT: &[u8] = b"akushu";
const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// One PNG chunk: length, type, data and the CRC of type and data.
fn png_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    let mut out = Vec::with_capacity(12 + data.len());
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    out.extend_from_slice(&crc.finalize().to_be_bytes());
    out
}

/// Where a PNG's header chunk ends: magic (8) + IHDR's length (4), type (4), 13 data bytes
/// and CRC (4). akushu's mark follows right there.
const PNG_HEADER_END: usize = 8 + 4 + 4 + 13 + 4;

/// akushu's `tEXt` chunk: "Software" = "akushu".
fn mark_chunk() -> Vec<u8> {
    png_chunk(b"tEXt", &[PNG_MARK_KEYWORD, b"\0", PNG_MARK_TEXT].concat())
}

/// `png` with akushu's `tEXt` chunk inserted after the header chunk (PNG allows text chunks
/// anywhere between the header and the end). `None` if `png` does not start like a PNG.
pub fn mark_png(png: &[u8]) -> Option<Vec<u8>> {
    if png.len() < PNG_HEADER_END || !png.starts_with(PNG_MAGIC) || &png[12..16] != b"IHDR" {
        return None;
    }
    let mut out = png[..PNG_HEADER_END].to_vec();
    out.extend(mark_chunk());
    out.extend_from_slice(&png[PNG_HEADER_END..]);
    Some(out)
}

/// Whether the file at `path` is a PNG akushu drew (it carries [`mark_png`]'s chunk).
pub fn is_akushu_png(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(256).read_to_end(&mut head));
    if read.is_err() || !head.starts_with(PNG_MAGIC) {
        return false;
    }
    let chunk = mark_chunk();
    head.get(PNG_HEADER_END..PNG_HEADER_END + chunk.len()) == Some(&chunk[..])
}

/// The comment every akushu SVG carries before its root element (the PNG's `tEXt` mark in
/// SVG form: the output rule tells akushu's charts from other pictures by it).
const SVG_MARK: &str = "<!-- akushu chart -->\n";

/// Whether `path` names an SVG file (by extension); every other chart is a PNG.
pub fn is_svg(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"))
}

/// Whether the file at `path` is a chart akushu drew: a marked PNG ([`mark_png`]) or an
/// SVG starting with akushu's comment.
pub fn is_akushu_chart(path: &Path) -> bool {
    if is_akushu_png(path) {
        return true;
    }
    use std::io::Read;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(64).read_to_end(&mut head));
    read.is_ok() && head.starts_with(SVG_MARK.as_bytes())
}

/// Draws `chart` to `path`, atomically, marked as akushu's: an SVG when the name ends in
/// `.svg`, else a PNG, at the chart's size.
pub fn render_chart(chart: &Chart, path: &Path) -> Result<(), PlotError> {
    register_font();
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| PlotError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    }
    let svg = is_svg(path);
    // plotters picks the bitmap encoder from the extension, so the temporary name keeps it.
    let tmp = path.with_extension(format!(
        "tmp-{}.{}",
        std::process::id(),
        if svg { "svg" } else { "png" }
    ));
    let drawn = if svg {
        draw(chart, SVGBackend::new(&tmp, chart.size).into_drawing_area())
    } else {
        draw(
            chart,
            BitMapBackend::new(&tmp, chart.size).into_drawing_area(),
        )
    }
    .map_err(|message| PlotError::Draw {
        path: path.to_path_buf(),
        message,
    });
    if let Err(e) = drawn {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    let io = |source| PlotError::Io {
        path: path.to_path_buf(),
        source,
    };
    let marked = std::fs::read(&tmp).map_err(io).and_then(|bytes| {
        let marked = if svg {
            [SVG_MARK.as_bytes(), &bytes].concat()
        } else {
            mark_png(&bytes).ok_or_else(|| PlotError::Draw {
                path: path.to_path_buf(),
                message: "the encoder wrote no PNG header".into(),
            })?
        };
        std::fs::write(&tmp, marked).map_err(io)
    });
    if let Err(e) = marked {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path).map_err(|source| PlotError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// An axis tick as a reader writes it: whole numbers without decimals (`5`, not `5.0`), no
/// negative zero, and at most three decimals otherwise (`0.25`, `0.1`).
fn tick_label(v: f64) -> String {
    let v = if v.abs() < 1e-9 { 0.0 } else { v };
    if (v - v.round()).abs() < 1e-9 {
        return format!("{}", v.round() as i64);
    }
    let text = format!("{v:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The title's font size from 24 down to 12 points, the largest at which it fits the
/// chart's width (a centred title too wide is cut at both ends); a title too long even at 12
/// keeps its start and ends in an ellipsis.
fn fitted_title<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
) -> (String, u32) {
    const LARGEST: u32 = 24;
    const SMALLEST: u32 = 12;
    // The caption's margin (20 each side) and a little air.
    let room = root.dim_in_pixel().0.saturating_sub(50);
    let width = |text: &str, size: u32| {
        let style = TextStyle::from(("sans-serif", size).into_font());
        root.estimate_text_size(text, &style)
            .map_or(u32::MAX, |(w, _)| w)
    };
    for size in (SMALLEST..=LARGEST).rev() {
        if width(title, size) <= room {
            return (title.to_string(), size);
        }
    }
    let mut chars: Vec<char> = title.chars().collect();
    while chars.len() > 1 {
        chars.pop();
        let cut = format!("{}…", chars.iter().collect::<String>().trim_end());
        if width(&cut, SMALLEST) <= room {
            return (cut, SMALLEST);
        }
    }
    (title.to_string(), SMALLEST)
}

fn draw<DB: DrawingBackend>(
    chart: &Chart,
    root: DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), String> {
    let e = |err: &dyn std::fmt::Display| err.to_string();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let entries = legend_entries(chart);
    let legend_font = ("sans-serif", 14).into_font();
    let beside = entries.len() > LEGEND_INSIDE_MAX;
    let (root, legend_area) = if beside {
        let widest = entries
            .iter()
            .filter_map(|(label, _, _)| {
                root.estimate_text_size(label, &legend_font.clone().into())
                    .ok()
            })
            .map(|(w, _)| w)
            .max()
            .unwrap_or(0);
        // At most 40% of the width: a longer label is cut by the image's edge.
        let room = (widest + 50).min(root.dim_in_pixel().0 * 2 / 5);
        let (plot, legend) = root.split_horizontally(root.dim_in_pixel().0 - room);
        (plot, Some(legend))
    } else {
        (root.clone(), None)
    };
    let (x0, x1) = chart.x_range;
    let (y0, y1) = chart.y_range;
    let (title, size) = fitted_title(&root, &chart.title);
    // Upright names need the height of the longest one below the axis (at most 45% of the
    // chart); level tick labels need one line.
    let name_font = ("sans-serif", 12).into_font();
    let x_label_area = if chart.upright_x_names {
        let longest = chart
            .x_names
            .iter()
            .filter_map(|(_, n)| root.estimate_text_size(n, &name_font.clone().into()).ok())
            .map(|(w, _)| w)
            .max()
            .unwrap_or(0);
        (longest + 42).min(root.dim_in_pixel().1 * 45 / 100)
    } else {
        45
    };
    let mut ctx = ChartBuilder::on(&root)
        .caption(&title, ("sans-serif", size))
        .margin(20)
        .x_label_area_size(x_label_area)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|x| e(&x))?;
    // An axis of whole numbers (x = 5 and 8, say) over a short span gets one tick per whole
    // number and no ticks between them (not 5.5, 6.5).
    let whole_x = chart.categorical
        || chart
            .series
            .iter()
            .all(|s| s.points.iter().all(|p| p.0.fract() == 0.0));
    let span = x1 - x0;
    let x_ticks = if whole_x && (span <= 10.0 || chart.upright_x_names) {
        span.floor() as usize + 1
    } else {
        10
    };
    let x_name = |v: f64| {
        chart
            .x_names
            .iter()
            .find(|(x, _)| (x - v).abs() < 1e-9)
            .map(|(_, name)| name.clone())
    };
    ctx.configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .x_labels(x_ticks)
        .x_label_formatter(&|v| {
            // Upright names are drawn below, by hand: the mesh would centre them on the axis.
            if chart.upright_x_names || (whole_x && (v - v.round()).abs() > 1e-9) {
                String::new()
            } else {
                x_name(v.round()).unwrap_or_else(|| tick_label(*v))
            }
        })
        .y_label_formatter(&|v| tick_label(*v))
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(|x| e(&x))?;

    if chart.upright_x_names {
        // Each name starts just below its tick and runs down, clear of the plot.
        let style = TextStyle::from(name_font.transform(FontTransform::Rotate90));
        for (x, name) in &chart.x_names {
            let (px, py) = ctx.backend_coord(&(*x, y0));
            root.draw(&Text::new(name.as_str(), (px + 6, py + 8), style.clone()))
                .map_err(|x| e(&x))?;
        }
    }
    for (y, label) in &chart.hlines {
        let grey = REFERENCE_GREY;
        // dashes: short segments along the line
        let step = (x1 - x0) / 60.0;
        let dashes = (0..60).step_by(2).map(|k| {
            let a = x0 + k as f64 * step;
            PathElement::new(vec![(a, *y), (a + step, *y)], grey.stroke_width(1))
        });
        let drawn = ctx.draw_series(dashes).map_err(|x| e(&x))?;
        if !beside {
            drawn
                .label(label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], grey));
        }
    }
    // Labels go in the legend box inside the plot unless the legend stands beside it.
    let inside = |label: &str| !beside && !label.is_empty();

    for (k, s) in chart.series.iter().enumerate() {
        let color = s.colour.unwrap_or(palette(k));
        let with_line = matches!(
            s.style,
            SeriesStyle::Line | SeriesStyle::LinePoints | SeriesStyle::Dashed
        );
        let with_marks = matches!(s.style, SeriesStyle::Points | SeriesStyle::LinePoints);
        if with_line && !s.band.is_empty() {
            let mut poly: Vec<(f64, f64)> = s.band.iter().map(|&(x, lo, _)| (x, lo)).collect();
            poly.extend(s.band.iter().rev().map(|&(x, _, hi)| (x, hi)));
            ctx.draw_series(std::iter::once(Polygon::new(
                poly,
                color.mix(0.18).filled(),
            )))
            .map_err(|x| e(&x))?;
        }
        if with_marks && !s.band.is_empty() {
            // Error bars with caps: the interval of a lone point, or of points on a
            // categorical axis where no band is drawn between them.
            let cap = (x1 - x0) * 0.006;
            let bars = s.band.iter().flat_map(|&(x, lo, hi)| {
                [
                    vec![(x, lo), (x, hi)],
                    vec![(x - cap, lo), (x + cap, lo)],
                    vec![(x - cap, hi), (x + cap, hi)],
                ]
                .map(|p| PathElement::new(p, color.stroke_width(2)))
            });
            ctx.draw_series(bars).map_err(|x| e(&x))?;
        }
        if s.style == SeriesStyle::Dashed {
            let drawn = ctx
                .draw_series(DashedLineSeries::new(
                    s.points.clone(),
                    8,
                    5,
                    color.stroke_width(2),
                ))
                .map_err(|x| e(&x))?;
            if inside(&s.label) {
                drawn.label(s.label.as_str()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 8, y)], color.stroke_width(2))
                });
            }
        } else if with_line {
            let drawn = ctx
                .draw_series(LineSeries::new(s.points.clone(), color.stroke_width(2)))
                .map_err(|x| e(&x))?;
            if inside(&s.label) {
                drawn.label(s.label.as_str()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            }
        }
        if with_marks {
            let marks = ctx
                .draw_series(s.points.iter().map(|&p| Circle::new(p, 5, color.filled())))
                .map_err(|x| e(&x))?;
            if !with_line && inside(&s.label) {
                marks
                    .label(s.label.as_str())
                    .legend(move |(x, y)| Circle::new((x + 10, y), 5, color.filled()));
            }
        }
    }
    if let Some(area) = legend_area {
        // One row per entry from the top of the plot, its sample then its label.
        let row = 18;
        for (k, (label, colour, style)) in entries.iter().enumerate() {
            let y = 40 + row * k as i32;
            let line = colour.stroke_width(2);
            match style {
                SeriesStyle::Points => {
                    area.draw(&Circle::new((15, y), 5, colour.filled()))
                        .map_err(|x| e(&x))?;
                }
                SeriesStyle::Dashed => {
                    for a in [4, 16] {
                        area.draw(&PathElement::new(vec![(a, y), (a + 8, y)], line))
                            .map_err(|x| e(&x))?;
                    }
                }
                _ => {
                    area.draw(&PathElement::new(vec![(4, y), (28, y)], line))
                        .map_err(|x| e(&x))?;
                }
            }
            area.draw(&Text::new(
                label.as_str(),
                (36, y - 8),
                legend_font.clone().color(&BLACK),
            ))
            .map_err(|x| e(&x))?;
        }
    } else if !entries.is_empty() {
        ctx.configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 15))
            .position(legend_corner(chart).position())
            .draw()
            .map_err(|x| e(&x))?;
    }
    root.present().map_err(|x| e(&x))?;
    Ok(())
}

/// The chart's legend, in drawing order: every reference line, then every series with a
/// label (a series with an empty label is drawn but not named: one of several that a
/// shared entry explains), each with its colour and style.
fn legend_entries(chart: &Chart) -> Vec<(String, RGBColor, SeriesStyle)> {
    let lines = chart
        .hlines
        .iter()
        .map(|(_, label)| (label.clone(), REFERENCE_GREY, SeriesStyle::Dashed));
    let series = chart
        .series
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.label.is_empty())
        .map(|(k, s)| (s.label.clone(), s.colour.unwrap_or(palette(k)), s.style));
    lines.chain(series).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Twenty series get twenty colours; a series without a label is drawn but left out of
    /// the legend; a legend of more than `LEGEND_INSIDE_MAX` entries is drawn beside the
    /// plot (the image still renders, at the size asked).
    #[test]
    fn many_series_get_their_own_colours_and_a_legend_beside_the_plot() {
        let colours: std::collections::BTreeSet<(u8, u8, u8)> =
            (0..20).map(palette).map(|c| (c.0, c.1, c.2)).collect();
        assert_eq!(colours.len(), 20);
        let mut chart = Chart::new("t", "x", "y")
            .x_range(0.0, 10.0)
            .y_range(0.0, 1.0);
        for k in 0..17 {
            let pts = vec![(0.0, k as f64 / 20.0), (10.0, k as f64 / 17.0)];
            chart = chart
                .series(Series::new(
                    format!("model {k}"),
                    SeriesStyle::Line,
                    pts.clone(),
                ))
                .series(Series::new(String::new(), SeriesStyle::Dashed, pts));
        }
        let entries = legend_entries(&chart);
        assert_eq!(entries.len(), 17, "one entry per labelled series");
        assert!(entries.len() > LEGEND_INSIDE_MAX);
        let path = std::env::temp_dir().join(format!("akushu-legend-{}.png", std::process::id()));
        render_chart(&chart, &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        // PNG width and height: big-endian at bytes 16..24.
        let size = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
        assert_eq!((size(16), size(20)), DEFAULT_SIZE);
    }

    #[test]
    fn the_legend_avoids_the_corner_the_curve_climbs_into() {
        let rising = |pts: Vec<(f64, f64)>| {
            Chart::new("t", "x", "y")
                .x_range(0.0, 80.0)
                .y_range(0.0, 1.0)
                .series(Series::new("s", SeriesStyle::LinePoints, pts))
        };
        // Win rate rising from 0.5 to 0.95: the upper right is taken, the lower right free.
        let up = rising(
            (0..=8)
                .map(|k| (k as f64 * 10.0, 0.5 + k as f64 * 0.056))
                .collect(),
        );
        assert_eq!(legend_corner(&up), Corner::LowerRight);
        // A flat curve near 0.5 leaves every corner free: the default, upper right.
        let flat = rising((0..=8).map(|k| (k as f64 * 10.0, 0.5)).collect());
        assert_eq!(legend_corner(&flat), Corner::UpperRight);
        // Error rate 0 up to x = 50, then rising to 0.9: lower and upper right both taken.
        let err = rising(
            (0..=80)
                .map(|x| (x as f64, ((x as f64 - 50.0).max(0.0) / 30.0) * 0.9))
                .collect(),
        );
        assert_eq!(legend_corner(&err), Corner::UpperLeft);
    }

    /// A long title shrinks until it fits the chart's width instead of being cut at both
    /// ends; a short one keeps the full size.
    #[test]
    fn a_long_title_is_fitted_to_the_width() {
        register_font();
        let mut svg = String::new();
        let root =
            plotters::backend::SVGBackend::with_string(&mut svg, (900, 600)).into_drawing_area();
        let short = "Pruning error rate";
        assert_eq!(fitted_title(&root, short), (short.to_string(), 24));
        let long = "Pruning error rate of models/default on 5,000 positions of the committed games \
                    of strong against GNU Go";
        let (text, size) = fitted_title(&root, long);
        assert_eq!(text, long);
        assert!((12..24).contains(&size), "{size}");
        let style = TextStyle::from(("sans-serif", size).into_font());
        assert!(root.estimate_text_size(&text, &style).unwrap().0 <= 850);
        let endless = long.repeat(4);
        let (text, size) = fitted_title(&root, &endless);
        assert_eq!(size, 12);
        assert!(text.ends_with('…') && endless.starts_with(text.trim_end_matches('…')));
    }

    #[test]
    fn ticks_read_as_numbers_are_written() {
        assert_eq!(tick_label(5.0), "5");
        assert_eq!(tick_label(-0.0), "0");
        assert_eq!(tick_label(-1e-12), "0");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(0.1), "0.1");
        assert_eq!(tick_label(2000.5), "2000.5");
        assert_eq!(tick_label(-3.0), "-3");
    }

    #[test]
    fn only_marked_pngs_count_as_akushus() {
        let dir = std::env::temp_dir().join(format!("akushu-pngmark-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A minimal valid PNG header from another program: magic and a 1x1 greyscale IHDR.
        let ihdr = png_chunk(b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
        let other = [PNG_MAGIC, &ihdr[..], &png_chunk(b"IEND", &[])[..]].concat();
        let theirs = dir.join("theirs.png");
        std::fs::write(&theirs, &other).unwrap();
        assert!(!is_akushu_png(&theirs));
        let ours = dir.join("ours.png");
        let marked = mark_png(&other).unwrap();
        assert_eq!(marked.len(), other.len() + 12 + 15);
        std::fs::write(&ours, marked).unwrap();
        assert!(is_akushu_png(&ours));
        assert!(mark_png(b"GIF89a").is_none());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn draws_a_png_with_band_points_and_reference_line() {
        let dir = std::env::temp_dir().join(format!("akushu-plot-{}", std::process::id()));
        let path = dir.join("curve.png");
        let chart = Chart::new("error rate", "pruned points", "error")
            .x_range(0.0, 80.0)
            .y_range(0.0, 1.0)
            .hline(0.1, "10%")
            .series(
                Series::new(
                    "model",
                    SeriesStyle::Line,
                    (0..=80).map(|x| (x as f64, x as f64 / 80.0)).collect(),
                )
                .with_band(
                    (0..=80)
                        .map(|x| (x as f64, x as f64 / 90.0, x as f64 / 70.0))
                        .collect(),
                ),
            )
            .series(Series::new(
                "paper",
                SeriesStyle::Points,
                vec![(30.0, 0.1), (32.0, 0.1)],
            ));
        render_chart(&chart, &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        assert!(
            is_akushu_png(&path),
            "the chart carries akushu's text chunk"
        );
        assert!(bytes.len() > 5_000, "a real picture, not an empty file");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file left"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
