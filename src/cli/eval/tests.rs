use super::*;

#[test]
fn a_zoomed_view_keeps_its_points_and_cuts_a_curve_where_it_leaves_the_top() {
    let view = CurveView {
        x: (2, 5),
        y_max: 0.5,
    };
    let curve = [0.0, 0.1, 0.2, 0.3, 0.4, 0.7, 0.9];
    // x 2..=4 inside; from 0.4 at x = 4 to 0.7 at x = 5 it crosses 0.5 a third of the way.
    let got = view.clip(&curve);
    assert_eq!(got.len(), 4);
    assert_eq!(&got[..3], &[(2.0, 0.2), (3.0, 0.3), (4.0, 0.4)]);
    assert!((got[3].0 - (4.0 + 1.0 / 3.0)).abs() < 1e-9 && got[3].1 == 0.5);
    // A curve above the top from the first x shows nothing.
    assert!(view.clip(&[0.9; 81]).is_empty());
    assert_eq!(x_range_arg("55..80"), Ok((55, 80)));
    for bad in ["80..55", "0..81", "5", "a..b", "7..7"] {
        assert!(x_range_arg(bad).is_err(), "{bad}");
    }
    assert_eq!(y_max_arg("0.2"), Ok(0.2));
    assert!(y_max_arg("0").is_err() && y_max_arg("1.5").is_err() && y_max_arg("nan").is_err());
}

#[test]
fn redraw_reads_a_curve_csv_and_refuses_a_short_or_shuffled_one() {
    let dir = std::env::temp_dir().join(format!("akushu-redraw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.csv");
    let mut text = String::from("pruned,error_all,error_legal\n");
    for x in 0..NN {
        text += &format!("{x},{},{}\n", x as f64 / 100.0, x as f64 / 80.0);
    }
    std::fs::write(&good, &text).unwrap();
    let c = read_curve_csv(&format!("cnn={}", good.display())).unwrap();
    assert_eq!(c.label, "cnn");
    assert_eq!((c.all.len(), c.legal.len()), (NN, NN));
    assert_eq!((c.all[30], c.legal[80]), (0.3, 1.0));
    let short = dir.join("short.csv");
    std::fs::write(&short, "pruned,error_all,error_legal\n0,0,0\n").unwrap();
    let e = read_curve_csv(&format!("x={}", short.display())).unwrap_err();
    assert!(format!("{e:#}").contains("expected 81"), "{e:#}");
    let shuffled = dir.join("shuffled.csv");
    std::fs::write(&shuffled, text.replacen("0,0,0\n", "", 1)).unwrap();
    let e = read_curve_csv(&format!("x={}", shuffled.display())).unwrap_err();
    assert!(format!("{e:#}").contains("expected 0"), "{e:#}");
    assert!(read_curve_csv("no-label.csv").is_err());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn models_with_one_base_name_get_distinct_labels() {
    let names: Vec<String> = ["runs/a/cnn", "models/cnn", "random", "models/cnn", "mlp"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        model_labels(&names),
        ["a/cnn", "models/cnn", "random", "models/cnn#2", "mlp"]
    );
    let p = csv_path_for(Path::new("out/curve.csv"), 1, "a/cnn");
    assert_eq!(p, Path::new("out/curve-a_cnn.csv"));
    let p = csv_path_for(Path::new("out/curve.csv"), 1, "nnq:models/cnn");
    assert_eq!(p, Path::new("out/curve-nnq_models_cnn.csv"));
}
