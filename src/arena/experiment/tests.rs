use super::*;

/// `reproduce --quick` runs on a plain clone: every input a committed experiment's
/// quick curve reads lies inside the checkout and is committed, never `../shared`.
#[test]
fn quick_curves_read_only_what_the_checkout_holds() {
    let mut curves = 0;
    for entry in std::fs::read_dir("experiments").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let file = load(&path).unwrap();
        let Some(curve) = &file.curve else { continue };
        curves += 1;
        let command = if curve.quick_command.is_empty() {
            &curve.command
        } else {
            &curve.quick_command
        };
        for pair in command.windows(2) {
            if !CURVE_INPUT_FLAGS.contains(&pair[0].as_str()) {
                continue;
            }
            let input = Path::new(&pair[1]);
            assert!(
                input.is_relative()
                    && input
                        .components()
                        .all(|c| c != std::path::Component::ParentDir),
                "{}: {} {} lies outside the checkout",
                path.display(),
                pair[0],
                pair[1]
            );
            // What the run checks before it runs the curve: a packed games folder's `sgf/`
            // is read from its `sgf.tar.xz`.
            if let Err(e) = check_curve_inputs(&[pair[0].clone(), pair[1].clone()]) {
                panic!("{}: {e:#}", path.display());
            }
        }
    }
    assert!(curves > 0, "no curve experiment found");
}

/// Every committed experiment whose arms sit on an x axis says what x is: a chart's axis
/// labelled "x" tells a reader nothing.
#[test]
fn committed_charts_name_their_x_axis() {
    for entry in std::fs::read_dir("experiments").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let file = load(&path).unwrap();
        let on_axis = file.arms.iter().any(|a| a.x.is_some()) || file.sweep.is_some();
        assert!(
            !on_axis || !file.plot.x_label.trim().is_empty(),
            "{}: arms with x but no [plot] x_label",
            path.display()
        );
    }
}

/// A curve whose input is missing fails before it runs, naming the file and how to get
/// it (the report shows this text).
#[test]
fn a_missing_curve_input_is_named_with_how_to_get_it() {
    let args = [
        "eval",
        "--model",
        "models/default",
        "--sgf",
        "../nowhere/engine9x9.tar.xz",
    ]
    .map(String::from);
    let err = format!("{:#}", check_curve_inputs(&args).unwrap_err());
    assert!(err.contains("../nowhere/engine9x9.tar.xz"), "{err}");
    assert!(err.contains("scripts/build-shared-data.sh"), "{err}");
    let args = ["eval", "--data", "data/no-such-dataset"].map(String::from);
    let err = format!("{:#}", check_curve_inputs(&args).unwrap_err());
    assert!(err.contains("akushu dataset build"), "{err}");
    let present = ["eval", "--sgf", "tests/fixtures/sgf"].map(String::from);
    check_curve_inputs(&present).unwrap();
    // A packed games folder's `sgf/` is there, in its `sgf.tar.xz`.
    let packed = Path::new("report/runs/strong_gnugo/strong_2000");
    assert!(packed.join("sgf.tar.xz").is_file() && !packed.join("sgf").exists());
    let packed = ["eval", "--sgf", "report/runs/strong_gnugo/strong_2000/sgf"].map(String::from);
    check_curve_inputs(&packed).unwrap();
}

#[test]
fn names_and_labels_never_leave_the_results_folder() {
    let base = "name = \"{N}\"\ntitle = \"t\"\n[players]\nblack = \"random\"\nwhite = \"random\"\n";
    for bad in ["../escaped", "/abs/dir", "..", "", ".hidden", "a/b"] {
        let text = base.replace("{N}", bad);
        let err = parse(&text, "t.toml").unwrap_err();
        assert!(
            format!("{err:#}").contains("plain folder name"),
            "{bad}: {err:#}"
        );
    }
    assert_eq!(slug(".."), "_..");
    assert_eq!(slug(""), "_");
    assert_eq!(slug("x=41"), "x=41");
    // Two labels with one folder, and an arm of no games, are refused.
    let text = format!(
        "{}[[arm]]\nlabel = \"a b\"\n[[arm]]\nlabel = \"a/b\"\n",
        base.replace("{N}", "ok")
    );
    let err = parse(&text, "t.toml").unwrap().arms(false).unwrap_err();
    assert!(format!("{err:#}").contains("share the folder"), "{err:#}");
    let text = format!(
        "{}[match]\ngames = 0\n[[arm]]\nlabel = \"a\"\n",
        base.replace("{N}", "ok")
    );
    let err = parse(&text, "t.toml").unwrap().arms(false).unwrap_err();
    assert!(format!("{err:#}").contains("games = 0"), "{err:#}");
}

const FILE: &str = r#"
name = "t"
title = "test"
[match]
games = 100
[vars]
sims = 1000
[players]
black = "uct:sims={sims},prune={prune}"
white = "uct:sims={sims}"
[sweep]
var = "x"
values = [0, 41]
[[arm]]
label = "control"
vars = { x = 41, prune = "random:{x}" }
[quick]
games = 2
seed = 7
values = [41]
vars = { sims = 50 }
"#;

#[test]
fn resolves_sweep_arms_and_quick_overrides() {
    let mut f: ExperimentFile = toml::from_str(FILE).unwrap();
    f.vars
        .insert("prune".into(), toml::Value::String("nn:{x}@0".into()));
    let full = f.arms(false).unwrap();
    assert_eq!(full.len(), 3);
    assert_eq!(full[1].label, "x=41");
    assert_eq!(full[1].x, Some(41.0));
    assert_eq!(full[1].config.black, "uct:sims=1000,prune=nn:41@0");
    assert_eq!(full[2].config.black, "uct:sims=1000,prune=random:41");
    assert_eq!(full[0].config.games, 100);
    let quick = f.arms(true).unwrap();
    assert_eq!(
        quick.iter().map(|a| a.label.as_str()).collect::<Vec<_>>(),
        ["x=41", "control"]
    );
    assert_eq!(quick[0].config.white, "uct:sims=50");
    assert_eq!(quick[0].config.games, 2);
    assert_eq!((full[0].config.seed, quick[0].config.seed), (1, 7));
    // titles and labels read the same vars: the quick ones in quick mode
    assert_eq!(f.fill("black at {sims}", false), "black at 1000");
    assert_eq!(f.fill("black at {sims}", true), "black at 50");
    assert_eq!(
        f.fill("x = {x}", true),
        "x = {x}",
        "the sweep variable stays"
    );
}

#[test]
fn unknown_variables_and_fields_are_errors() {
    assert!(substitute("a{b}", &BTreeMap::new()).is_err());
    let loop_vars = BTreeMap::from([("a".to_string(), "{a}x".to_string())]);
    assert!(substitute("{a}", &loop_vars).is_err());
    assert!(toml::from_str::<ExperimentFile>("name='a'\ntitle='b'\ngamez=3").is_err());
}

/// `sprt` under `[match]` reaches every arm's match; a bad one names the file and its line.
#[test]
fn a_sequential_test_in_the_file_reaches_every_arm() {
    let text = "name = 'gate'\ntitle = 'g'\n[match]\ngames = 400\nsprt = 'elo0=0,elo1=35'\n\
                [players]\nblack = 'uct:sims=50'\nwhite = 'random'\n[[arm]]\nlabel = 'a'\n";
    let f = parse(text, "gate.toml").unwrap();
    let arms = f.arms(false).unwrap();
    let sprt = arms[0].config.sprt.expect("the arm carries the test");
    assert_eq!((sprt.elo0, sprt.elo1, sprt.alpha), (0.0, 35.0, 0.05));
    // A bad test is refused as the file is read, at its line.
    let e = format!(
        "{:#}",
        parse(&text.replace("elo1=35", "elo1=-5"), "gate.toml").unwrap_err()
    );
    assert!(
        e.contains("gate.toml") && e.contains("line 5") && e.contains("must be below"),
        "{e}"
    );
}

/// A `games.csv` row of `black` vs `white` lasting `wall` seconds.
fn row(game: u32, black: &str, white: &str, wall: f64) -> String {
    format!(
        "{game},\"{black}\",\"{white}\",A,B,B+R,,40,resign,1.0,1.0,100,100,{wall},{game},,,,false\n"
    )
}

#[test]
fn plans_count_done_games_and_time_the_rest_from_recorded_ones() {
    let root = std::env::temp_dir().join(format!("akushu-experiment-plan-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let f: ExperimentFile = toml::from_str(FILE).unwrap();
    let (out, record) = (root.join("out"), root.join("record"));
    let header = "game,black,white,black_player,winner,result,score,moves,reason,\
                  black_seconds,white_seconds,black_sims,white_sims,wall_seconds,seed,\
                  error_by,error,gtp_score,score_disagreement\n";
    let write = |dir: PathBuf, rows: &[String]| {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("games.csv"), header.to_string() + &rows.concat()).unwrap();
    };
    let (b41, w) = ("uct:sims=1000,prune=nn:41@0", "uct:sims=1000");
    // x=0: nothing here; the record has two games of its players (2 s and 4 s) and one of
    // other players, which must not count.
    write(
        record.join("t/x=0"),
        &[
            row(1, "uct:sims=1000,prune=nn:0@0", w, 2.0),
            row(2, w, "uct:sims=1000,prune=nn:0@0", 4.0),
            row(3, "uct:sims=50,prune=nn:0@0", w, 100.0),
        ],
    );
    // x=41: 10 games here at 6 s; the record (ignored: the output folder has games) says 1 s.
    write(
        out.join("t/x=41"),
        &(1..=10).map(|g| row(g, b41, w, 6.0)).collect::<Vec<_>>(),
    );
    write(record.join("t/x=41"), &[row(1, b41, w, 1.0)]);
    let mut f = f;
    f.vars
        .insert("prune".into(), toml::Value::String("nn:{x}@0".into()));
    let plans = plan_arms(&f, false, &out, &record).unwrap();
    assert_eq!(plans.len(), 3);
    let x0 = &plans[0];
    assert_eq!((x0.planned, x0.done, x0.remaining()), (100, 0, 100));
    let e = x0.estimate.as_ref().unwrap();
    assert_eq!((e.games, e.seconds_per_game), (2, 3.0));
    assert_eq!(e.csv, record.join("t/x=0/games.csv"));
    let x41 = &plans[1];
    assert_eq!((x41.done, x41.remaining()), (10, 90));
    assert_eq!(x41.estimate.as_ref().unwrap().seconds_per_game, 6.0);
    assert_eq!(plans[2].estimate, None);
    let text = plan_text("t", &plans, 2);
    // 100 x 3 s / 2 + 90 x 6 s / 2 = 420 s = 7 min, a lower bound: control has no estimate.
    assert!(
        text.contains("no estimate (no recorded games of this arm)"),
        "{text}"
    );
    assert!(
        text.contains("plan total: 300 games in 3 arm(s), 290 to play, at least 7 min"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 4, "{text}");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn an_arm_whose_sequential_test_has_decided_has_nothing_left_to_play() {
    let root = std::env::temp_dir().join(format!("akushu-experiment-sprt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let mut f: ExperimentFile = toml::from_str(FILE).unwrap();
    f.settings.rules.sprt = Some("elo0=-35,elo1=35".parse().unwrap());
    f.vars
        .insert("prune".into(), toml::Value::String("nn:{x}@0".into()));
    let out = root.join("out");
    let header = "game,black,white,black_player,winner,result,score,moves,reason,\
                  black_seconds,white_seconds,black_sims,white_sims,wall_seconds,seed,\
                  error_by,error,gtp_score,score_disagreement\n";
    let (b41, w) = ("uct:sims=1000,prune=nn:41@0", "uct:sims=1000");
    // x=41: A (black) won its first 30 games, which decides the test; x=0: 3 wins only.
    let write = |arm: &str, black: &str, n: u32| {
        let dir = out.join("t").join(arm);
        std::fs::create_dir_all(&dir).unwrap();
        let rows: String = (1..=n).map(|g| row(g, black, w, 2.0)).collect();
        std::fs::write(dir.join("games.csv"), header.to_string() + &rows).unwrap();
    };
    write("x=41", b41, 30);
    write("x=0", "uct:sims=1000,prune=nn:0@0", 3);
    let plans = plan_arms(&f, false, &out, &root.join("record")).unwrap();
    let (x0, x41) = (&plans[0], &plans[1]);
    assert!(x41.decided && x41.remaining() == 0, "{x41:?}");
    assert!(!x0.decided && x0.remaining() == 97, "{x0:?}");
    let text = plan_text("t", &plans, 2);
    assert!(
        text.contains("30 already in") && text.contains("sequential test has decided"),
        "{text}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn slugs_are_safe_folder_names() {
    assert_eq!(slug("x=41"), "x=41");
    assert_eq!(slug("depth 1/root"), "depth_1_root");
}
