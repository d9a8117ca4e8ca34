use super::*;

/// `strong4` is the spec its matches measured: `strong3` with the value network's keys
/// (`experiments/value_vs_strong3.toml`).
#[test]
fn none_clears_every_optional_network_key_as_documented() {
    let bare = parse_uct_kind("uct").unwrap();
    let explicit = parse_uct_kind(
        "uct:prune=none,playout_prune=none,soft=none,widen=none,policy=none,value=none",
    )
    .unwrap();
    assert_eq!(format!("{bare:?}"), format!("{explicit:?}"));
    let preset = parse_uct_kind("strong3").unwrap();
    assert!(preset.prune.is_some() && preset.policy.is_some());
    let cleared = parse_uct_kind("strong3:prune=none,policy=none").unwrap();
    assert!(cleared.prune.is_none() && cleared.policy.is_none());
}

/// A value network that is not the policy's is weights that played too: match and
/// self-play headers checksum every directory this lists.
#[test]
fn model_dirs_lists_a_separate_value_network() {
    let dirs = model_dirs("strong2:value=nnq:models/cnn-human-5x32-value,value_mix=0.5");
    let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    assert_eq!(
        names,
        ["models/cnn-human-5x32-gpu2", "models/cnn-human-5x32-value"]
    );
    assert_eq!(
        model_dirs("strong4").len(),
        1,
        "one model named three times"
    );
}

/// Every spelling of a network names its directory, `symN:` ones included, so a match
/// header checksums the weights a `sym8:nnq:` pruner reads; pruners without weights
/// name none.
#[test]
fn model_dirs_reads_every_network_spelling() {
    let dirs = model_dirs(
        "uct:prune=sym8:nnq:models/x:65@1,playout_prune=sym2:models/y:0.5,\
         soft=nn:20:41@1,widen=sym4:nn:models/w:2:40:2",
    );
    let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    assert_eq!(
        names,
        ["models/default", "models/w", "models/x", "models/y"]
    );
    let dirs = model_dirs("uct:prune=rule:41@0,playout_prune=random:3:0.5,soft=kakeme:9:9");
    assert!(dirs.is_empty(), "{dirs:?}");
}

#[test]
fn strong4_is_strong3_with_the_value_network() {
    let net = "nnq:models/cnn-human-5x32-value";
    let measured = parse_uct_from(
        "strong3",
        preset_config("strong3"),
        &format!("strong3:policy={net},prune={net}:65@1,value={net},value_mix=0.5"),
    )
    .unwrap();
    assert_eq!(preset_config("strong4").to_string(), measured.to_string());
}

#[test]
fn parses_the_documented_forms() {
    let c = parse_uct("uct:sims=500,expand=3,c=0.7,prune=rule:41@2").unwrap();
    assert_eq!((c.sims, c.expand, c.c), (500, 3, 0.7));
    let p = c.prune.unwrap();
    assert_eq!(
        (p.pruner.to_string().as_str(), p.x, p.depth),
        ("rule", 41, 2)
    );
    let c =
        parse_uct("uct:prune=nn:models/a:30,playout_prune=random:3:0.6,playout_eval=move").unwrap();
    let p = c.prune.unwrap();
    assert_eq!(
        (p.pruner.to_string().as_str(), p.x, p.depth),
        ("nn:models/a", 30, 0)
    );
    let pp = c.playout_prune.unwrap();
    assert_eq!(
        (pp.pruner.to_string().as_str(), pp.share),
        ("random:3", 0.6)
    );
    assert_eq!(pp.eval, PlayoutEval::Move);
    let s = parse_uct("uct:soft=nn:20:41@1").unwrap().soft.unwrap();
    assert_eq!(
        (s.pruner.to_string().as_str(), s.visits, s.x, s.depth),
        ("nn", 20, 41, 1)
    );
    assert_eq!(parse_uct("uct").unwrap(), UctConfig::default());
    assert!(!UctConfig::default().heavy.ladders);
    assert!(!UctConfig::default().heavy.semeai);
    assert!(
        parse_uct("uct:playout=heavy,semeai=true")
            .unwrap()
            .heavy
            .semeai
    );
    assert!(
        parse_uct("uct:playout=heavy,ladders=true")
            .unwrap()
            .heavy
            .ladders
    );
    let f = parse_flat("flat:sims=100000,c=0.4").unwrap();
    assert_eq!((f.sims, f.c), (100_000, 0.4));
}

#[test]
fn errors_name_the_key() {
    let msg = |s: &str| format!("{:#}", build_engine(s, 1).err().expect(s));
    assert!(msg("uct:simz=3").contains("`simz`"));
    assert!(msg("uct:sims=abc").contains("`sims`"));
    assert!(msg("uct:prune=rule").contains("`prune`"));
    assert!(msg("uct:playout_prune=rule:1.5").contains("`playout_prune`"));
    assert!(msg("uct:playout_eval=move").contains("playout_prune"));
    assert!(msg("uct:sims=1,sims=2").contains("twice"));
    // Numbers are range-checked where they are parsed; NaN and infinities never pass.
    for (spec, key) in [
        ("uct:prune=nn:200@0", "prune"),
        ("uct:playout_moves=0", "playout_moves"),
        ("uct:c=NaN", "`c`"),
        ("uct:max_seconds=inf", "max_seconds"),
        ("uct:max_seconds=1e300", "max_seconds"),
        ("uct:rave=NaN", "rave"),
        ("uct:resign=inf", "resign"),
        ("uct:soft=rule:70000:41", "soft"),
        ("flat:c=inf", "`c`"),
        ("flat:sims=0", "sims"),
    ] {
        let m = msg(spec);
        assert!(m.contains(key) && m.contains("allowed"), "{spec}: {m}");
    }
    assert!(msg("uct:prune=nn:no/such/model:41@0").contains("no/such/model"));
    assert!(msg("territory:x=1").contains("`x`"));
    assert!(msg("territory:seed=abc").contains("`seed`"));
    assert!(msg("uct:prune=bogus:41").contains("bogus"));
    assert!(msg("flat:expand=3").contains("`expand`"));
    assert!(msg("mcts:sims=3").contains("unknown engine"));
    assert!(msg("uct:sims").contains("key=value"));
    assert!(msg("uct:threads=100000").contains("threads"));
    assert!(msg("uct:cache=99999999999").contains("cache"));
    assert!(msg("uct:playout=heavy,playout_prune=rule:0.5").contains("playout_prune"));
    // PUCT's priors are probabilities and its values mean results: prior visits and
    // RAVE's blend are refused beside it, and its numbers are range-checked.
    assert!(msg("uct:select=puct,priors=true").contains("priors"));
    assert!(msg("uct:select=puct,rave=3500").contains("rave"));
    assert!(msg("uct:select=puck").contains("`select`"));
    for (spec, key) in [
        ("uct:select=puct,cpuct=-1", "cpuct"),
        ("uct:select=puct,fpu=2", "fpu"),
        ("uct:select=puct,pass_prior=NaN", "pass_prior"),
        ("uct:select=puct,cpuct_base=0", "cpuct_base"),
    ] {
        let m = msg(spec);
        assert!(m.contains(key) && m.contains("allowed"), "{spec}: {m}");
    }
}

/// `strong5` is a PUCT search whose policy and value are one distilled network (one
/// evaluation a visit), with no playouts, and which spends nearly the whole clock.
#[test]
fn strong5_is_a_value_only_puct_search_on_one_network() {
    let c = preset_config("strong5");
    assert_eq!(c.select, Select::Puct);
    assert_eq!(c.value_mix, 1.0);
    assert_eq!(c.policy, c.value);
    assert!(
        c.policy
            .as_ref()
            .unwrap()
            .to_string()
            .contains("cnn-distilled-b6c96")
    );
    assert!(c.time_safety <= 0.01 && c.resign > 0.0 && c.resign_visits >= 100);
    assert!(!c.priors && c.rave == 0.0);
}

/// `strong6` is `strong5` with another network, `strong7` `strong6` and `strong8` `strong7`: every
/// search setting equal, so a match between them measures the network alone.
#[test]
fn the_distilled_presets_differ_in_their_network_alone() {
    for (kind, base, net) in [
        ("strong6", "strong5", "cnn-distilled-b6c96-cosine"),
        ("strong7", "strong6", "cnn-distilled-b6c96-6x64-cosine"),
        ("strong8", "strong7", "cnn-distilled-b6c96-6x64-cosine3"),
    ] {
        let before = preset_config(base);
        let mut c = preset_config(kind);
        assert!(
            c.policy.as_ref().unwrap().to_string().ends_with(net),
            "{kind}"
        );
        assert_eq!(c.policy, c.value, "{kind}");
        assert_ne!(c.policy, before.policy, "{kind}");
        c.policy = before.policy.clone();
        c.value = before.value.clone();
        assert_eq!(c, before, "{kind} against {base}");
    }
}

#[test]
fn a_territory_players_name_rebuilds_it() {
    let e = build_engine("territory", 42).unwrap();
    assert_eq!(e.name(), "territory:seed=42");
    let again = build_engine(&e.name(), 7).unwrap();
    assert_eq!(again.name(), "territory:seed=42", "the spec's seed wins");
    assert!(resolved_config("territory:seed=42").unwrap().contains("42"));
    assert!(resolved_config("territory").is_ok());
}

#[test]
fn random_specs_never_panic() {
    use crate::util::rng::FastRng;
    let parts = [
        "uct",
        "flat",
        ":",
        ",",
        "=",
        "@",
        "sims",
        "1",
        "0",
        "-1",
        "nan",
        "1e99",
        "prune",
        "rule",
        "random",
        "nn",
        "soft",
        "playout_prune",
        "playout_eval",
        "move",
        "leaf",
        "0.6",
        "41",
        "c",
        "threads",
        "keep",
        "cache",
        "expand",
        "max_nodes",
        "",
        " ",
    ];
    let mut rng = FastRng::new(8);
    let mut built = 0;
    for _ in 0..3000 {
        let n = 1 + rng.below(10) as usize;
        let spec: String = (0..n)
            .map(|_| parts[rng.below(parts.len() as u32) as usize])
            .collect();
        // Keep accidental giant searches out: only parse + build, never search.
        if build_engine(&spec, 1).is_ok() {
            built += 1;
        }
    }
    assert!(built > 0);
}

/// Specs covering every key of every kind, each written canonically: non-default keys in
/// table order, pruning depths spelled out.
const CANONICAL: &[&str] = &[
    "uct",
    "uct:sims=500,expand=3,c=0.7,prune=rule:41@2",
    "uct:sims=2000,expand=5,c=0,threads=2,parallel=tree,reuse=false,resign=0.05,pass=false,\
     safe_pass=true,resign_visits=500,resign_turns=5,lcb=0.1,\
     max_nodes=5000,playout_moves=300,prune=nn:models/cnn:65@0,prune_count=board,keep=3,\
     history=false,cache=128,max_seconds=0.25,time_safety=0.5,rave=3500,priors=true,policy=nn:models/mlp-planes,\
     policy_weight=50,playout=heavy,ladders=true,semeai=true",
    "uct:playout_prune=random:3:0.6,playout_eval=move,soft=nn:20:41@1",
    "uct:widen=nn:models/cnn:4:20:1.5",
    "uct:playout_prune=nn:0.6",
    "uct:playout=territory",
    "uct:value=nnq:models/cnn-human-5x32-value,value_mix=0.25",
    "uct:policy=nn:models/cnn,root_noise=0.25,root_noise_alpha=0.3",
    "uct:policy=nn:models/cnn,select=puct,cpuct=0.8,cpuct_log=0.45,cpuct_base=1000,fpu=0.3,\
     fpu_root=0,pass_prior=0.02,value=nnq:models/cnn-human-5x32-value,value_mix=1",
    "flat",
    "flat:sims=5000,c=0.3,resign=0.1,pass=false,playout_moves=200",
    "territory",
    "territory:seed=42",
    "random",
    "random:delay_ms=5",
    "random:seed=7",
];

/// The canonical spec of a non-canonical one, for the round-trip cases.
const RESTATED: &[(&str, &str)] = &[
    ("uct:sims=10000,expand=10", "uct"),
    ("uct:prune=rule:41,sims=50", "uct:sims=50,prune=rule:41@0"),
    (" uct:c=0.40, reuse=on ,pass=1", "uct"),
    (
        "uct:playout_eval=move,playout_prune=rule:0.5",
        "uct:playout_prune=rule:0.5,playout_eval=move",
    ),
    (
        "uct:playout_eval=leaf,playout_prune=rule:0.5",
        "uct:playout_prune=rule:0.5",
    ),
    (
        "uct:max_seconds=1e-1,rave=1e3",
        "uct:max_seconds=0.1,rave=1000",
    ),
    ("flat:sims=100000,c=0.4", "flat"),
    ("random:delay_ms=0", "random"),
];

#[test]
fn every_uct_and_flat_key_is_in_a_canonical_case() {
    for (kind, names) in [
        ("uct", UCT_KEYS.iter().map(|k| k.name).collect::<Vec<_>>()),
        ("flat", FLAT_KEYS.iter().map(|k| k.name).collect()),
        ("territory", TERRITORY_KEYS.iter().map(|k| k.name).collect()),
        ("random", RANDOM_KEYS.iter().map(|k| k.name).collect()),
    ] {
        for name in names {
            let needle = format!("{name}=");
            let used = CANONICAL.iter().any(|s| {
                s.starts_with(&format!("{kind}:"))
                    && s.split([':', ',']).any(|item| item.starts_with(&needle))
            });
            assert!(used, "{kind} key `{name}` has no round-trip case");
        }
    }
}

#[test]
fn a_spec_prints_back_to_the_text_it_was_parsed_from() {
    for &spec in CANONICAL {
        assert_eq!(
            canonical_spec(spec).unwrap(),
            spec,
            "canonical text changed"
        );
    }
    for &(spec, canonical) in RESTATED {
        assert_eq!(canonical_spec(spec).unwrap(), canonical, "{spec}");
    }
    // parse(print(parse(s))) == parse(s), and the printed text is a fixed point.
    for spec in CANONICAL.iter().chain(RESTATED.iter().map(|(s, _)| s)) {
        let printed = canonical_spec(spec).unwrap();
        assert_eq!(canonical_spec(&printed).unwrap(), printed);
        assert_eq!(
            resolved_config(&printed).unwrap(),
            resolved_config(spec).unwrap(),
            "{spec} -> {printed}"
        );
        match split_kind(spec.trim()).0 {
            "uct" => assert_eq!(parse_uct(&printed).unwrap(), parse_uct(spec).unwrap()),
            "flat" => assert_eq!(parse_flat(&printed).unwrap(), parse_flat(spec).unwrap()),
            "territory" => assert_eq!(
                parse_territory(&printed).unwrap(),
                parse_territory(spec).unwrap()
            ),
            _ => assert_eq!(parse_random(&printed).unwrap(), parse_random(spec).unwrap()),
        }
    }
    assert_eq!(
        UctConfig::default().to_string(),
        "uct",
        "Display is the canonical spec"
    );
    assert_eq!(FlatConfig::default().to_string(), "flat");
}

#[test]
fn random_valid_uct_configs_round_trip() {
    use crate::util::rng::FastRng;
    // Values drawn per key from its own table row: the printed spec of any config the
    // table can make parses back to that config.
    let mut rng = FastRng::new(11);
    for _ in 0..500 {
        let mut items = Vec::new();
        for k in UCT_KEYS {
            if rng.below(3) != 0 {
                continue;
            }
            let v = match k.value {
                ValueType::Whole { lo, hi } => {
                    (lo + u64::from(rng.below(1000)).min(hi - lo)).to_string()
                }
                ValueType::Real32 { lo, hi } => {
                    (lo + (hi - lo) * rng.below(1_000_001) as f32 / 1e6).to_string()
                }
                ValueType::Real64 { lo, hi } => {
                    (lo + (hi - lo) * f64::from(rng.below(1_000_001)) / 1e6).to_string()
                }
                ValueType::Bool => ["true", "false"][rng.below(2) as usize].to_string(),
                ValueType::Choice(words) => words[rng.below(words.len() as u32) as usize].into(),
                ValueType::Form(_) => match k.name {
                    "prune" => format!("rule:{}@{}", rng.below(82), rng.below(4)),
                    "soft" => format!(
                        "random:7:{}:{}@{}",
                        rng.below(100),
                        rng.below(82),
                        rng.below(3)
                    ),
                    "playout_prune" => format!("nn:models/x:{}", rng.below(101) as f32 / 100.0),
                    _ => "nn:models/y".to_string(),
                },
            };
            items.push(format!("{}={v}", k.name));
        }
        let spec = format!("uct:{}", items.join(","));
        let Ok(c) = parse_uct(&spec) else {
            continue; // combinations validate() refuses
        };
        let printed = c.to_string();
        assert_eq!(parse_uct(&printed).unwrap(), c, "{spec} -> {printed}");
        assert_eq!(parse_uct(&printed).unwrap().to_string(), printed);
    }
}

#[test]
fn unknown_keys_and_kinds_list_the_tables() {
    let msg = |s: &str| format!("{:#}", build_engine(s, 1).err().expect(s));
    let m = msg("uct:simz=3");
    for k in UCT_KEYS {
        assert!(
            m.contains(&format!("{},", k.name)) || m.ends_with(&format!("{})", k.name)),
            "{m}"
        );
    }
    let m = msg("mcts");
    for kind in ENGINE_KINDS.iter() {
        assert!(m.contains(kind.name), "{m}");
    }
    assert!(msg("random:speed=5").contains("random keys: delay_ms"));
    assert!(msg("random:delay_ms=x").contains("`delay_ms`"));
    assert!(msg("random:delay_ms=99999999999").contains("allowed"));
    assert!(msg("uct:playout=fast").contains("uniform, heavy or territory"));
}

/// Every kind builds from its bare spec and plays a move; kinds that count simulations
/// (the presets included) play it with 20, not their tens of thousands.
#[test]
fn every_kind_builds_and_plays_from_its_bare_spec() {
    for kind in ENGINE_KINDS.iter() {
        build_engine(kind.name, 3).unwrap_or_else(|e| panic!("{}: {e:#}", kind.name));
        assert!(resolved_config(kind.name).is_ok(), "{}", kind.name);
        let spec = if kind.keys().iter().any(|k| k.name == "sims") {
            format!("{}:sims=20", kind.name)
        } else {
            kind.name.to_string()
        };
        let mut e = build_engine(&spec, 3).unwrap_or_else(|e| panic!("{spec}: {e:#}"));
        e.new_game(6.5);
        let (mv, _) = e.genmove(crate::rules::Color::Black);
        assert!(matches!(mv, crate::search::EngineMove::Play(_)), "{spec}");
        assert!(resolved_config(&spec).is_ok(), "{spec}");
        assert!(!kind.keys().is_empty(), "{spec}");
    }
}

#[test]
fn the_key_list_document_matches_the_tables() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/engine-specs.md");
    let want = key_list_markdown();
    if std::env::var_os("AKUSHU_WRITE_SPEC_DOC").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/engine-specs.md is out of date: rerun this test with AKUSHU_WRITE_SPEC_DOC=1"
    );
    for kind in ENGINE_KINDS.iter() {
        for k in kind.keys() {
            assert!(have.contains(&format!("| `{}` |", k.name)));
        }
    }
}

#[test]
fn validate_holds_configs_set_in_code_to_the_key_ranges() {
    /// A change to a valid config, made in code rather than in a spec.
    type Spoil = fn(&mut UctConfig);
    let bad: [(&str, Spoil); 9] = [
        ("`c`", |c| c.c = f32::NAN),
        ("`threads`", |c| c.threads = 0),
        ("`threads`", |c| c.threads = 1000),
        ("`max_seconds`", |c| c.max_seconds = f64::INFINITY),
        ("`policy_weight`", |c| c.policy_weight = 2000.0),
        ("`sims`", |c| c.sims = 0),
        ("`prune`", |c| {
            c.prune = Some(TreePrune {
                pruner: PrunerName::Rule,
                x: 200,
                depth: 0,
            })
        }),
        ("`playout_prune`", |c| {
            c.playout_prune = Some(PlayoutPrune {
                pruner: PrunerName::Rule,
                share: 1.5,
                eval: PlayoutEval::Leaf,
            })
        }),
        ("playout_prune", |c| {
            c.playout = PlayoutKind::Heavy;
            c.playout_prune = parse_uct("uct:playout_prune=rule:0.5")
                .unwrap()
                .playout_prune;
        }),
    ];
    for (key, spoil) in bad {
        let mut c = UctConfig::default();
        spoil(&mut c);
        let e = format!("{:#}", c.validate().expect_err(key));
        assert!(e.contains(key), "{key}: {e}");
        assert!(UctEngine::new(c, 1).is_err(), "{key}");
    }
    assert!(UctConfig::default().validate().is_ok());
    let flat = FlatConfig {
        c: f32::INFINITY,
        ..FlatConfig::default()
    };
    assert!(format!("{:#}", flat.validate().unwrap_err()).contains("`c`"));
    assert!(FlatEngine::new(flat, 1).is_err());
}

#[test]
fn built_engine_is_named_by_its_spec() {
    let e = build_engine("uct:sims=50,prune=rule:10@1", 1).unwrap();
    assert_eq!(e.name(), "uct:sims=50,prune=rule:10@1");
}

/// The preset table gives every preset the config its recorded games were played with: the
/// resolved config a match folder wrote at its first game, read back and compared with what
/// the same spec resolves to now, key by key. A preset that changed under a recorded spec
/// fails here.
#[test]
fn presets_resolve_to_the_configs_their_match_folders_recorded() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (folder, spec) in [
        ("report/runs/katago_equal_time", "strong5:max_seconds=0.1"),
        (
            "report/runs/net_shape_equal_cpu_cosine",
            "strong6:sims=1800",
        ),
        (
            "report/runs/katago_equal_time_6x64_cosine2",
            "strong7:max_seconds=0.1,policy=nnq:models/cnn-distilled-b6c96-6x64-cosine2,value=nnq:models/cnn-distilled-b6c96-6x64-cosine2",
        ),
        (
            "report/runs/katago_strong8_0.1_pairs",
            "strong8:max_seconds=0.1",
        ),
    ] {
        let text = std::fs::read_to_string(root.join(folder).join("match.toml")).unwrap();
        let header: toml::Value = toml::from_str(&text).unwrap();
        let recorded = header["engines"][spec].as_str().unwrap();
        let recorded: serde_json::Value = serde_json::from_str(recorded).unwrap();
        let now: serde_json::Value = serde_json::from_str(&resolved_config(spec).unwrap()).unwrap();
        // Keys added to the engine since a folder was recorded are not in it; every key
        // that is must read as it did.
        for (key, value) in recorded.as_object().unwrap() {
            assert_eq!(&now[key], value, "`{key}` of {spec} in {folder}");
        }
    }
}

/// One constant names the default engine: a preset, and the one kind whose doc line says it
/// is the default (`tests/gtp_transcript.rs` checks that `gtp` and `analysis` play it).
#[test]
fn the_default_engine_is_one_preset_named_once() {
    assert!(preset(DEFAULT_ENGINE).is_some(), "{DEFAULT_ENGINE}");
    for kind in ENGINE_KINDS.iter() {
        let says = kind.doc.contains("the default of `gtp` and `analysis`");
        assert_eq!(
            says,
            kind.name == DEFAULT_ENGINE,
            "{}: {}",
            kind.name,
            kind.doc
        );
    }
}
