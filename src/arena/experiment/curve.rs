//! Curve experiments (`kind = "curve"`): the command that writes the CSV, and the curve
//! read back from it.

use super::*;

pub(super) fn run_curve(file: &ExperimentFile, opts: &RunOptions) -> anyhow::Result<Outcome> {
    let spec = file.curve.as_ref().expect("checked by load");
    let out_dir = opts.out.join(&file.name);
    let mut vars = BTreeMap::from([("out".to_string(), out_dir.display().to_string())]);
    let csv = PathBuf::from(substitute(&spec.csv, &vars).map_err(anyhow::Error::msg)?);
    let summary = match &spec.summary {
        Some(t) => Some(PathBuf::from(
            substitute(t, &vars).map_err(anyhow::Error::msg)?,
        )),
        None => None,
    };
    if let Some(p) = &summary {
        vars.insert("summary".into(), p.display().to_string());
    }
    let command = if opts.quick && !spec.quick_command.is_empty() {
        &spec.quick_command
    } else {
        &spec.command
    };
    if !opts.play && !csv.exists() {
        return Ok(Outcome::Skipped(format!(
            "no results yet ({} does not exist)",
            csv.display()
        )));
    }
    let need_run = opts.play
        && !command.is_empty()
        && (!opts.quick || !spec.quick_command.is_empty() || !csv.exists());
    if need_run {
        let mut v = vars.clone();
        v.insert("csv".into(), csv.display().to_string());
        let args = command
            .iter()
            .map(|a| substitute(a, &v))
            .collect::<Result<Vec<String>, String>>()
            .map_err(anyhow::Error::msg)?;
        check_curve_inputs(&args)?;
        std::fs::create_dir_all(&out_dir)
            .with_context(|| format!("creating {}", out_dir.display()))?;
        let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("akushu"));
        crate::errln!("[{}] running akushu {}", file.name, args.join(" "));
        let status = std::process::Command::new(&exe)
            .args(&args)
            .status()
            .with_context(|| format!("running {}", exe.display()))?;
        if !status.success() {
            bail!(
                "`akushu {}` failed ({status}; its error is printed above it)",
                args.join(" ")
            );
        }
    }
    let mut data = read_curve(&csv, &spec.x, &spec.y)?;
    data.positions = match summary.filter(|p| p.exists()) {
        Some(p) => Some(summary_positions(&p)?),
        None => None,
    };
    Ok(Outcome::Curve(data))
}

/// The flags of a curve command that name an input: game records and datasets.
pub(super) const CURVE_INPUT_FLAGS: [&str; 2] = ["--sgf", "--data"];

/// Refuses a curve command whose input files do not exist, naming the file and how to get
/// it, so that the report says what is missing instead of only an exit status.
pub(super) fn check_curve_inputs(args: &[String]) -> anyhow::Result<()> {
    for pair in args.windows(2) {
        let path = Path::new(&pair[1]);
        // A packed games folder's `sgf/` is read from its `sgf.tar.xz` (`util::pack`).
        if CURVE_INPUT_FLAGS.contains(&pair[0].as_str()) && !crate::util::pack::found(path) {
            bail!("{}", crate::util::fsio::missing_input(&pair[0], path));
        }
    }
    Ok(())
}

/// The `positions` of the first row of an `eval --summary` CSV.
pub(super) fn summary_positions(path: &Path) -> anyhow::Result<u64> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("opening {}", path.display()))?;
    let headers = reader.headers()?.clone();
    let col = headers
        .iter()
        .position(|h| h == "positions")
        .with_context(|| format!("{}: no column \"positions\"", path.display()))?;
    let row = reader
        .records()
        .next()
        .with_context(|| format!("{}: no rows", path.display()))??;
    row.get(col)
        .and_then(|v| v.trim().parse().ok())
        .with_context(|| format!("{}: row 1 has no number of positions", path.display()))
}

/// Reads columns `x` and `ys` of a CSV; rows with an unreadable number are skipped.
pub fn read_curve(path: &Path, x: &str, ys: &[String]) -> anyhow::Result<CurveData> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("opening {}", path.display()))?;
    let headers = reader.headers()?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim() == name)
            .with_context(|| format!("{}: no column {name:?} (has {:?})", path.display(), headers))
    };
    let xi = col(x)?;
    let yi: Vec<usize> = ys.iter().map(|y| col(y)).collect::<anyhow::Result<_>>()?;
    let mut data = CurveData {
        csv: path.to_path_buf(),
        series: ys.iter().map(|y| (y.clone(), Vec::new())).collect(),
        ..CurveData::default()
    };
    for row in reader.records() {
        let row = row.with_context(|| format!("reading {}", path.display()))?;
        let parse = |i: usize| row.get(i).and_then(|t| t.trim().parse::<f64>().ok());
        let (Some(xv), Some(yv)) = (
            parse(xi),
            yi.iter().map(|&i| parse(i)).collect::<Option<Vec<f64>>>(),
        ) else {
            continue;
        };
        data.x.push(xv);
        for (s, v) in data.series.iter_mut().zip(yv) {
            s.1.push(v);
        }
    }
    Ok(data)
}
