//! The layer rule of `ARCHITECTURE.md`: a layer uses only the layers below it (KataGo's rule).
//!
//! Every `.rs` file under `src/` belongs to the top-level module of its folder. Each
//! `crate::<module>` path in its code (in `use` lines, in `use crate::{a, b}` groups that span
//! lines, and in paths inside expressions) must name a module of a lower layer; modules of one
//! layer may not use each other. Inside `src/search/` the files follow one order too, so that
//! no two engine files come to depend on each other. Comments and string literals are not
//! code and are skipped. Macros exported at the crate root (`crate::outln!`) count as part of
//! the module that defines them.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

/// The layers, lowest first. A module may use only modules of earlier layers.
const LAYERS: &[&[&str]] = &[
    &["util"],
    &["rules", "runs"],
    &["playout", "sgf"],
    &["dataset", "board_analysis", "prune"],
    &["net", "yose"],
    &["search"],
    &["gtp", "arena"],
    &["report", "teacher"],
    &["selfplay_loop"],
    &["cli"],
];

/// The files of `src/search/`, lowest first; `mod.rs` only declares them. A file may use
/// only the files before it.
const SEARCH_FILES: &[&str] = &[
    "clock",
    "engine",
    "pruning",
    "priors",
    "outcomes",
    "tree",
    "pruners",
    "uct",
    "flat",
    "random",
    "territory",
    "spec",
];

/// One use of a module that the layer order forbids.
#[derive(Debug, Clone, PartialEq)]
struct Violation {
    file: String,
    line: usize,
    /// The module the path names, e.g. `crate::search` or `super::uct`.
    import: String,
    /// The source line, trimmed.
    source: String,
    why: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: `{}`: {} (in `{}`)",
            self.file, self.line, self.import, self.why, self.source
        )
    }
}

/// The text with comments and the contents of string and character literals blanked out
/// (newlines kept, so line numbers stay right).
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            // Block comments nest in Rust.
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && (i == 0
                || !is_ident(b[i - 1])
                || (b[i - 1] == 'b' && (i < 2 || !is_ident(b[i - 2]))))
        {
            // Raw string r"..." or r#"..."#: ends at a quote followed by as many hashes.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            out.extend(std::iter::repeat_n(' ', j + 1 - i));
            i = j + 1;
            while i < b.len() {
                if b[i] == '"' && (1..=hashes).all(|k| b.get(i + k) == Some(&'#')) {
                    out.extend(std::iter::repeat_n(' ', hashes + 1));
                    i += hashes + 1;
                    break;
                }
                out.push(blank(b[i]));
                i += 1;
            }
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < b.len() {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a), which stays.
            let end = if next == Some('\\') {
                (i + 3..b.len()).find(|&j| b[j] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    out.extend(std::iter::repeat_n(' ', e + 1 - i));
                    i = e + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every `PREFIX::name` in the code, as (line, name): `name` is the first segment after the
/// prefix, or each first segment of a `PREFIX::{a, b::c}` group. `PREFIX` must start a
/// path (`crate::` but not `mycrate::`; `$crate::` counts).
fn references(code: &str, prefix: &str) -> Vec<(usize, String)> {
    let b: Vec<char> = code.chars().collect();
    let p: Vec<char> = format!("{prefix}::").chars().collect();
    let line_at = |i: usize| b[..i].iter().filter(|&&c| c == '\n').count() + 1;
    let mut found = Vec::new();
    let mut i = 0;
    while i + p.len() <= b.len() {
        let starts_path = i == 0 || !(is_ident(b[i - 1]) || b[i - 1] == ':');
        if !(starts_path && b[i..i + p.len()] == p[..]) {
            i += 1;
            continue;
        }
        let mut j = i + p.len();
        while j < b.len() && b[j].is_whitespace() {
            j += 1;
        }
        if b.get(j) == Some(&'{') {
            // A group: the first identifier of each top-level item.
            let mut depth = 0;
            let mut item_start = true;
            while j < b.len() {
                match b[j] {
                    '{' => {
                        depth += 1;
                        if depth > 1 {
                            item_start = false;
                        }
                    }
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => item_start = true,
                    c if item_start && depth == 1 && is_ident(c) => {
                        let start = j;
                        while j < b.len() && is_ident(b[j]) {
                            j += 1;
                        }
                        found.push((line_at(start), b[start..j].iter().collect()));
                        item_start = false;
                        continue;
                    }
                    _ => {}
                }
                j += 1;
            }
        } else {
            let start = j;
            while j < b.len() && is_ident(b[j]) {
                j += 1;
            }
            if j > start {
                found.push((line_at(i), b[start..j].iter().collect()));
            }
        }
        i = j.max(i + 1);
    }
    found
}

/// The rank of each module (its layer) and of each crate-root macro (its defining module's).
struct Order {
    rank: HashMap<String, usize>,
    /// Each crate-root macro's defining module: a module may use its own macros.
    home: HashMap<String, String>,
}

impl Order {
    fn new(macros: &[(String, String)]) -> Order {
        let mut rank = HashMap::new();
        for (layer, modules) in LAYERS.iter().enumerate() {
            for m in *modules {
                rank.insert(m.to_string(), layer);
            }
        }
        let mut home = HashMap::new();
        for (name, module) in macros {
            if let Some(&r) = rank.get(module) {
                rank.insert(name.clone(), r);
                home.insert(name.clone(), module.clone());
            }
        }
        Order { rank, home }
    }
}

/// The forbidden uses in one file of `module` (`file_stem` is its name inside the module
/// folder, for the order of `src/search/`).
fn check_source(
    order: &Order,
    module: &str,
    file: &str,
    file_stem: &str,
    text: &str,
) -> Vec<Violation> {
    let code = code_only(text);
    let source = |line: usize| text.lines().nth(line - 1).unwrap_or("").trim().to_string();
    let mut bad = Vec::new();
    let Some(&own) = order.rank.get(module) else {
        bad.push(Violation {
            file: file.into(),
            line: 1,
            import: module.into(),
            source: String::new(),
            why: format!("module `{module}` is in no layer of LAYERS"),
        });
        return bad;
    };
    for (line, name) in references(&code, "crate") {
        if name == module || name == "self" || order.home.get(&name).is_some_and(|m| m == module) {
            continue;
        }
        let why = match order.rank.get(&name) {
            None => format!("`{name}` is in no layer of LAYERS"),
            Some(&r) if r == own => format!("`{module}` and `{name}` share layer {r}"),
            Some(&r) if r > own => {
                format!("`{module}` (layer {own}) uses `{name}` (layer {r}, higher)")
            }
            Some(_) => continue,
        };
        bad.push(Violation {
            file: file.into(),
            line,
            import: format!("crate::{name}"),
            source: source(line),
            why,
        });
    }
    if module == "search" && file_stem != "mod" {
        let pos = |f: &str| SEARCH_FILES.iter().position(|&s| s == f);
        let Some(own) = pos(file_stem) else {
            bad.push(Violation {
                file: file.into(),
                line: 1,
                import: file_stem.into(),
                source: String::new(),
                why: format!("search file `{file_stem}` is not in SEARCH_FILES"),
            });
            return bad;
        };
        let uses = references(&code, "super")
            .into_iter()
            .map(|r| (r, "super"))
            .chain(
                references(&code, "crate::search")
                    .into_iter()
                    .map(|r| (r, "crate::search")),
            );
        for ((line, name), prefix) in uses {
            // Other names after `super::` are items of the file itself (`use super::*` in
            // a test module) or of `search/mod.rs`.
            if let Some(r) = pos(&name)
                && r >= own
                && name != file_stem
            {
                bad.push(Violation {
                    file: file.into(),
                    line,
                    import: format!("{prefix}::{name}"),
                    source: source(line),
                    why: format!("search file `{file_stem}` uses `{name}`, which is not below it"),
                });
            }
        }
    }
    bad
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
}

/// The names of `#[macro_export]` macros in `code`.
fn exported_macros(code: &str) -> Vec<String> {
    code.split("#[macro_export]")
        .skip(1)
        .filter_map(|rest| {
            let after = rest.trim_start().strip_prefix("macro_rules!")?;
            let name: String = after
                .trim_start()
                .chars()
                .take_while(|&c| is_ident(c))
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

#[test]
fn modules_use_only_lower_layers() {
    // (module, file name inside it, path for messages, text); files at the crate root
    // (`lib.rs`, `main.rs`) only declare or call the modules.
    let sources = room_sources();
    let macros: Vec<(String, String)> = sources
        .iter()
        .flat_map(|(m, _, _, text)| {
            exported_macros(&code_only(text))
                .into_iter()
                .map(move |name| (name, m.clone()))
        })
        .collect();
    assert!(
        macros.iter().any(|(n, _)| n == "outln"),
        "the macro scan found no `outln!`: {macros:?}"
    );
    let order = Order::new(&macros);

    // Every module folder is in exactly one layer, and every listed module exists.
    let dirs: BTreeSet<&str> = sources.iter().map(|s| s.0.as_str()).collect();
    let mut listed: Vec<&str> = LAYERS.iter().flat_map(|l| l.iter().copied()).collect();
    listed.sort();
    assert_eq!(
        listed,
        dirs.into_iter().collect::<Vec<_>>(),
        "LAYERS must name each folder of src/ once"
    );
    let found: BTreeSet<&str> = sources
        .iter()
        .filter(|s| s.0 == "search" && s.1 != "mod")
        .map(|s| s.1.as_str())
        .collect();
    let mut expected: Vec<&str> = SEARCH_FILES.to_vec();
    expected.sort();
    assert_eq!(
        expected,
        found.into_iter().collect::<Vec<_>>(),
        "SEARCH_FILES must name each file of src/search/ once"
    );

    let bad: Vec<Violation> = sources
        .iter()
        .flat_map(|(m, stem, file, text)| check_source(&order, m, file, stem, text))
        .collect();
    assert!(
        bad.is_empty(),
        "{} uses break the layer order (see ARCHITECTURE.md):\n{}",
        bad.len(),
        bad.iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The checker itself: an upward use, a same-layer use and an out-of-order search file are
/// reported with file and line; comments, strings and lower layers are not.
#[test]
fn checker_reports_upward_uses() {
    let order = Order::new(&[("outln".into(), "util".into())]);
    let text = r#"//! Uses crate::cli only in a comment.
use crate::rules::Board;
use crate::{util::rng::FastRng,
    search::Engine};
/* crate::gtp /* nested */ crate::arena */
fn f() {
    let _ = "crate::report";
    let _ = 'c';
    crate::outln!("x");
    crate::cli::main();
}
use crate::sgf::GameRecord;
"#;
    let bad = check_source(&order, "playout", "src/playout/x.rs", "x", text);
    let got: Vec<(usize, &str)> = bad.iter().map(|v| (v.line, v.import.as_str())).collect();
    assert_eq!(
        got,
        [(4, "crate::search"), (10, "crate::cli"), (12, "crate::sgf"),],
        "{bad:#?}"
    );
    assert!(
        bad[0]
            .to_string()
            .starts_with("src/playout/x.rs:4: `crate::search`")
    );
    assert!(bad[2].why.contains("share layer"), "{}", bad[2]);
    assert_eq!(bad[1].source, "crate::cli::main();");

    let tree =
        "use super::pruning::X;\nuse super::uct::PlayoutKind;\nmod tests { use super::*; }\n";
    let bad = check_source(&order, "search", "src/search/tree.rs", "tree", tree);
    assert_eq!(bad.len(), 1, "{bad:#?}");
    assert_eq!((bad[0].line, bad[0].import.as_str()), (2, "super::uct"));

    let unknown = check_source(
        &order,
        "playout",
        "src/playout/x.rs",
        "x",
        "use crate::nowhere;\n",
    );
    assert!(unknown[0].why.contains("no layer"), "{unknown:#?}");
    // A module may use the macros it exports itself.
    let own = check_source(
        &order,
        "util",
        "src/util/x.rs",
        "x",
        "crate::outln!(\"y\");\n",
    );
    assert!(own.is_empty(), "{own:#?}");
}

/// Files of one room that may use each other in a circle: the network's kernels, whose
/// float and 8-bit passes share one layout and its helpers.
const KERNEL_CIRCLE: &[&str] = &["boardconv", "plain", "quant"];

/// `code` (comments and strings blanked) with every `#[cfg(test)] mod NAME { ... }` blanked
/// too, newlines kept: a test module may reach any file of its room (a kernel's test loads a
/// shipped model), and the order is about the code the program runs.
fn without_test_modules(code: &str) -> String {
    let b: Vec<char> = code.chars().collect();
    let mut out: Vec<char> = b.clone();
    let text: String = b.iter().collect();
    let mut from = 0;
    while let Some(k) = text[from..].find("#[cfg(test)]") {
        let start = from + k;
        let rest = &text[start + "#[cfg(test)]".len()..];
        let after = rest.trim_start();
        let after = after
            .strip_prefix("pub(crate)")
            .or_else(|| after.strip_prefix("pub"))
            .unwrap_or(after);
        let Some(body) = after.trim_start().strip_prefix("mod") else {
            from = start + 1;
            continue;
        };
        let Some(open) = body
            .find('{')
            .filter(|&i| body[..i].trim().chars().all(is_ident))
        else {
            from = start + 1;
            continue;
        };
        // Byte offsets in `text` equal char offsets only for ASCII; count chars instead.
        let open_at = text.len() - body.len() + open;
        let open_char = text[..open_at].chars().count();
        let mut depth = 0;
        let mut j = open_char;
        while j < b.len() {
            match b[j] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        let start_char = text[..start].chars().count();
        for c in &mut out[start_char..=j.min(b.len() - 1)] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        from = text
            .char_indices()
            .nth(j.min(b.len() - 1))
            .map_or(text.len(), |(i, _)| i + 1);
    }
    out.into_iter().collect()
}

/// A room's files and, for each, the files it uses with where it first does.
type Graph = BTreeMap<String, BTreeMap<String, String>>;

/// The circles of a graph: each strongly connected set of two or more files (Tarjan).
fn circles(graph: &Graph) -> Vec<Vec<String>> {
    struct Walk<'a> {
        graph: &'a Graph,
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for w in self.graph[v].keys() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.stack.contains(&w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut set = Vec::new();
                while let Some(w) = self.stack.pop() {
                    set.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if set.len() > 1 {
                    set.sort();
                    self.found.push(set);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found
}

/// Every source file of a room: (room, file or folder inside it, path, text). A file of a
/// folder inside a room (`search/tree/node.rs`) counts as that folder (`tree`), for the order
/// of `src/search/` and the circles; files at the crate root are left out.
fn room_sources() -> Vec<(String, String, String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut sources = Vec::new();
    for path in &files {
        let rel = path.strip_prefix(&src).unwrap();
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().to_string())
            .collect();
        if parts.len() < 2 {
            continue;
        }
        let unit = match parts.len() {
            2 => path.file_stem().unwrap().to_string_lossy().to_string(),
            _ => parts[1].clone(),
        };
        let text = std::fs::read_to_string(path).unwrap();
        sources.push((
            parts[0].clone(),
            unit,
            format!("src/{}", rel.display()),
            text,
        ));
    }
    sources
}

/// Every file of `src/` with its module path (`["net", "inference", "quant"]`; a `mod.rs`
/// is its folder's module) and its code, comments, strings and test modules blanked.
fn module_sources() -> Vec<(PathBuf, Vec<String>, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(&src).unwrap().to_path_buf();
            let mut module: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().to_string())
                .collect();
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            module.pop();
            if stem != "mod" {
                module.push(stem);
            }
            let code = without_test_modules(&code_only(&std::fs::read_to_string(&path).unwrap()));
            (rel, module, code)
        })
        .collect()
}

/// Every folder of `src/` at any depth (`net`, `net/inference`) with the graph of its
/// direct children (files, and folders as one): which child uses which, through
/// `crate::<folder path>::name` anywhere under it, or `super::name` (one `super` per level
/// below the folder) from a file under it. `mod.rs` only declares; a `tests.rs` is test
/// code, left out as test modules are.
fn folder_graphs() -> BTreeMap<String, Graph> {
    let mut folders: BTreeMap<String, Graph> = BTreeMap::new();
    for (rel, module, code) in module_sources() {
        if module.last().is_some_and(|m| m == "tests") || module.len() < 2 {
            continue;
        }
        // Every folder above the file, but the crate root: its child that holds the file.
        for depth in 1..module.len() {
            let folder = &module[..depth];
            let child = module[depth].clone();
            let supers = vec!["super"; module.len() - depth].join("::");
            let uses = references(&code, &supers)
                .into_iter()
                .chain(references(&code, &format!("crate::{}", folder.join("::"))));
            let at = format!("src/{}", rel.display());
            let edges = folders
                .entry(folder.join("/"))
                .or_default()
                .entry(child.clone())
                .or_default();
            for (line, name) in uses {
                if name != child {
                    edges.entry(name).or_insert_with(|| format!("{at}:{line}"));
                }
            }
        }
    }
    for graph in folders.values_mut() {
        let units: BTreeSet<String> = graph.keys().cloned().collect();
        for edges in graph.values_mut() {
            edges.retain(|name, _| units.contains(name));
        }
    }
    folders
}

/// Inside every folder the files (and folders) use each other one way too, as the rooms
/// do, but for the network kernels' circle: so a file can be read knowing only the files
/// below it. The folders inside a room are held to it as the rooms are.
#[test]
fn no_folder_has_a_circle_between_its_files() {
    let folders = folder_graphs();
    assert!(
        folders["runs"].contains_key("folder")
            && folders["net"].contains_key("inference")
            && folders["net/inference"].contains_key("quant"),
        "{:?}",
        folders.keys().collect::<Vec<_>>()
    );
    let mut bad = Vec::new();
    for (folder, graph) in &folders {
        for set in circles(graph) {
            if folder == "net/inference" && set.iter().all(|f| KERNEL_CIRCLE.contains(&f.as_str()))
            {
                continue;
            }
            let edges: Vec<String> = set
                .iter()
                .flat_map(|f| {
                    graph[f]
                        .iter()
                        .filter(|(to, _)| set.contains(to))
                        .map(move |(to, at)| format!("    {f} -> {to} ({at})"))
                })
                .collect();
            bad.push(format!(
                "src/{folder}/: {}\n{}",
                set.join(", "),
                edges.join("\n")
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "circles between files of a folder:\n{}",
        bad.join("\n")
    );
}

/// Inside a folder that re-exports its subfolders' files under its own name (`net::model`
/// for `net::inference::model`), its own files name the real path: a short path would hide
/// the use from the circle check above, which sees only the folder's children.
#[test]
fn files_inside_a_folder_use_its_real_paths() {
    let sources = module_sources();
    let modules: Vec<&Vec<String>> = sources.iter().map(|(_, m, _)| m).collect();
    let mut bad = Vec::new();
    for (rel, module, code) in &sources {
        for depth in 1..module.len() {
            let folder = &module[..depth];
            // Files that sit deeper than the folder's own children: what a short path names.
            let deep: BTreeSet<&str> = modules
                .iter()
                .filter(|m| m.len() > depth + 1 && m[..depth] == *folder)
                .map(|m| m[m.len() - 1].as_str())
                .collect();
            let children: BTreeSet<&str> = modules
                .iter()
                .filter(|m| m.len() > depth && m[..depth] == *folder)
                .map(|m| m[depth].as_str())
                .collect();
            for (line, name) in references(code, &format!("crate::{}", folder.join("::"))) {
                if deep.contains(name.as_str()) && !children.contains(name.as_str()) {
                    bad.push(format!(
                        "{}:{line}: crate::{}::{name} (name the folder that holds `{name}`)",
                        rel.display(),
                        folder.join("::")
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "short paths inside a folder:\n{}",
        bad.join("\n")
    );
}

/// The games folder knows no engine: it sits in a room below every engine and every room
/// that runs one (`runs/`), told what to record through `EngineRecords`, so any kind of run
/// (matches, self-play, labelling) can keep its rows there; the layer rule keeps it there.
#[test]
fn the_games_folder_sits_below_the_engines() {
    let layer_of = |m: &str| {
        LAYERS
            .iter()
            .position(|l| l.contains(&m))
            .unwrap_or_else(|| panic!("{m} is in no layer"))
    };
    assert!(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/runs/folder.rs")
            .is_file()
    );
    for engine in [
        "search", "net", "prune", "playout", "gtp", "arena", "teacher",
    ] {
        assert!(
            layer_of("runs") < layer_of(engine),
            "runs/ must sit below {engine}/"
        );
    }
}

/// A test module's uses are left out of the order; the code around it is kept.
#[test]
fn test_modules_are_left_out_of_the_file_order() {
    let text = "use super::a::X;\n#[cfg(test)]\nmod tests {\n    use super::super::b::Y;\n    fn f() { if true { super::c::z() } }\n}\nfn g() { super::d::w() }\n";
    let code = without_test_modules(&code_only(text));
    let names: Vec<String> = references(&code, "super")
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    assert_eq!(names, ["a", "d"], "{code}");
    assert_eq!(code.lines().count(), text.lines().count());
}

/// The circle finder: a two-file circle and a three-file one are found, a chain is not.
#[test]
fn circles_are_found_and_chains_are_not() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: Graph = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string())
                .or_default()
                .insert(b.to_string(), String::new());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    assert!(circles(&graph(&[("a", "b"), ("b", "c")])).is_empty());
    assert_eq!(
        circles(&graph(&[("a", "b"), ("b", "a"), ("c", "a")])),
        [["a", "b"]]
    );
    assert_eq!(
        circles(&graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("d", "d")])),
        [["a", "b", "c"]]
    );
}
