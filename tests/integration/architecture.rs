//! The house rule, checked on the source: in every crate (`engine`, each game under
//! `games/`, the program in `src/`, the Python module), no two files import each other,
//! directly or round a loop, and no two rooms do (a room is a top-level module: a folder,
//! or a file beside `lib.rs` or `main.rs`); and the layers run one way: the engine names no
//! game and not the program, a game does not name the program.
//!
//! What a file imports is every path it names through `crate::`, `super::`, `self::` or a
//! child module's name, in `use` lines and in code alike; a `pub use` is followed to where
//! the name comes from. Comments, string literals and test code (`#[cfg(test)]` items, and
//! the files they declare) import nothing. A module's own files below it are part of it: a
//! `mod.rs` naming its children makes no loop with them (a crate root is a room of its own,
//! so a root naming a room that names it back does).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Import loops found in the tree today, allowed until they are broken: TO BE REMOVED,
/// entry by entry, as each loop is. An entry is a crate (by its root file) and the files of
/// a file-level loop, or the rooms of a room-level one. A listed loop no longer found fails
/// the test as well, so that its entry goes too.
const KNOWN_LOOPS_TO_REMOVE: &[(&str, Level, &[&str])] = &[];

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    /// Files importing each other.
    Files,
    /// Rooms importing each other.
    Rooms,
}

/// Where a crate sits: what it may name of the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layer {
    Engine,
    Game,
    Top,
}

#[test]
fn no_two_files_and_no_two_rooms_import_each_other() {
    let found: Vec<Loop> = crates().iter().flat_map(|(_, c)| loops(c)).collect();
    let known: BTreeSet<(String, Level, Vec<String>)> = (KNOWN_LOOPS_TO_REMOVE.iter())
        .map(|&(root, level, members)| (root.into(), level, strings(members)))
        .collect();
    let new: Vec<&Loop> = (found.iter())
        .filter(|l| !known.contains(&(l.root.clone(), l.level, l.members.clone())))
        .collect();
    let gone: Vec<_> = (known.iter())
        .filter(|&(root, level, members)| {
            !(found.iter()).any(|l| (&l.root, &l.level, &l.members) == (root, level, members))
        })
        .collect();
    let mut message = String::new();
    for l in &new {
        message += &l.describe();
    }
    for (root, level, members) in &gone {
        message += &format!(
            "{root}: KNOWN_LOOPS_TO_REMOVE lists a {level:?} loop no longer found, {}: remove \
             its entry\n",
            members.join(", ")
        );
    }
    assert!(message.is_empty(), "\n{message}");
}

#[test]
fn the_engine_names_no_game_and_no_game_names_the_program() {
    let crates = crates();
    let name_of = |dir: &str| {
        let toml = std::fs::read_to_string(repo().join(dir).join("Cargo.toml")).unwrap();
        let line = (toml.lines().find(|l| l.starts_with("name = ")))
            .unwrap_or_else(|| panic!("{dir}/Cargo.toml names no package"));
        line[7..].trim_matches('"').replace('-', "_")
    };
    let games: Vec<String> = game_dirs().iter().map(|d| name_of(d)).collect();
    // The program: the package at the top, its library `retro`, and the Python module.
    let top = [name_of("."), name_of("python")];
    assert!(games.contains(&"retro_chess".to_string()), "{games:?}");
    assert_eq!(top, ["retro", "retro_tablebase"]);
    let mut wrong = Vec::new();
    for (layer, c) in &crates {
        let banned: Vec<&String> = match layer {
            Layer::Engine => games.iter().chain(&top).collect(),
            Layer::Game => top.iter().collect(),
            Layer::Top => Vec::new(),
        };
        for file in c.modules.values().filter(|f| !f.test) {
            for name in &banned {
                for path in crate_paths(&file.code, name) {
                    wrong.push(format!("{} ({layer:?}) names {path}", file.path));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn every_source_file_is_read_by_the_check() {
    let crates = crates();
    let read: BTreeSet<&str> = (crates.iter())
        .flat_map(|(_, c)| c.modules.values().map(|f| f.path.as_str()))
        .collect();
    let mut dirs = vec!["engine/src".to_string(), "src".into(), "python/src".into()];
    dirs.extend(game_dirs().iter().map(|d| format!("{d}/src")));
    let mut files = Vec::new();
    for d in &dirs {
        rust_files(repo(), d, &mut files);
    }
    let unread: Vec<&String> = files
        .iter()
        .filter(|f| !read.contains(f.as_str()))
        .collect();
    assert!(
        unread.is_empty(),
        "not in any crate's module tree: {unread:?}"
    );
    // And the listing saw the crates: their roots at least.
    for (_, c) in &crates {
        assert!(files.contains(&c.root), "{} not listed", c.root);
    }
}

/// The check itself, on a small crate written here: it finds exactly the imports and the
/// loops written into it, through a re-export, from a folder's file and an inline module,
/// and none from comments, strings or test code.
#[test]
fn the_check_finds_the_loops_of_a_crate_and_names_their_files() {
    let files: BTreeMap<&str, &str> = [
        (
            "x/src/lib.rs",
            "mod a;\npub mod b;\nmod c;\nmod d;\nmod f;\nmod g;\n#[cfg(test)]\nmod e;\n\
             pub use g::G;\n",
        ),
        (
            "x/src/a.rs",
            "use crate::b::B;\npub struct A;\n\
             // use crate::d::D;\n/* crate::d::D */\n\
             const S: &str = \"crate::d::D\";\nconst R: &str = r#\"crate::d\"#;\n\
             const Q: char = '\"';\nfn f<'a>(_: &'a str) {}\n\
             #[cfg(test)]\nfn t(x: [u8; 2]) { crate::d::D; }\n\
             #[cfg(test)]\nmod tests {\n    use crate::d::*;\n}\n",
        ),
        ("x/src/b/mod.rs", "mod leaf;\npub struct B;\n"),
        ("x/src/b/leaf.rs", "use crate::c::C;\n"),
        (
            "x/src/c.rs",
            "pub struct C;\nfn f() {\n    let _ = crate::a::A;\n}\n",
        ),
        (
            "x/src/d.rs",
            "pub struct D;\nmod inner {\n    use super::super::a::A;\n    \
             fn f() {\n        self::g();\n    }\n    fn g() {}\n}\n",
        ),
        ("x/src/e.rs", "use crate::a::A;\n"),
        (
            "x/src/f.rs",
            "pub struct F;\nfn f() -> crate::G {\n    crate::G\n}\n",
        ),
        ("x/src/g.rs", "pub struct G;\nuse super::f::F;\n"),
    ]
    .into_iter()
    .collect();
    let c = load("x/src/lib.rs", &|p| files.get(p).map(|s| s.to_string()));
    let edges: BTreeSet<(String, String)> = (imports(&c).into_keys())
        .map(|(a, b)| (c.modules[&a].path.clone(), c.modules[&b].path.clone()))
        .collect();
    let edge = |a: &str, b: &str| (format!("x/src/{a}"), format!("x/src/{b}"));
    let expected = [
        edge("lib.rs", "g.rs"),
        edge("a.rs", "b/mod.rs"),
        edge("b/leaf.rs", "c.rs"),
        edge("c.rs", "a.rs"),
        edge("d.rs", "a.rs"),
        edge("f.rs", "g.rs"),
        edge("g.rs", "f.rs"),
    ];
    assert_eq!(edges, expected.into_iter().collect());
    assert!(c.modules[&vec!["e".to_string()]].test);
    let found: Vec<(Level, Vec<String>)> = (loops(&c).iter())
        .map(|l| (l.level, l.members.clone()))
        .collect();
    assert_eq!(
        found,
        [
            (Level::Files, strings(&["x/src/f.rs", "x/src/g.rs"])),
            (Level::Rooms, strings(&["a", "b", "c"])),
            (Level::Rooms, strings(&["f", "g"])),
        ]
    );
    let said = loops(&c)[0].describe();
    assert_eq!(
        said,
        "x/src/lib.rs: files importing each other: x/src/f.rs, x/src/g.rs\n  \
         x/src/f.rs -> x/src/g.rs: crate::G\n  x/src/g.rs -> x/src/f.rs: super::f::F\n"
    );
}

/// A module's path below its crate root (empty for the root).
type Mod = Vec<String>;

/// A source file of a crate.
struct File {
    /// From the repository's top: `engine/src/table/reader/mod.rs`.
    path: String,
    /// Its code without comments, string and character literals or test code.
    code: String,
    /// Declared as test code (`#[cfg(test)] mod x;`, or below such a module).
    test: bool,
}

/// A crate's files, by module.
struct Crate {
    /// Its root file, from the repository's top: `src/lib.rs`.
    root: String,
    modules: BTreeMap<Mod, File>,
}

/// Files or rooms of a crate that import each other.
struct Loop {
    root: String,
    level: Level,
    /// The files or rooms, sorted.
    members: Vec<String>,
    /// Each import within the loop: `from -> to: paths`.
    imports: Vec<String>,
}

impl Loop {
    fn describe(&self) -> String {
        let what = match self.level {
            Level::Files => "files",
            Level::Rooms => "rooms",
        };
        let mut s = format!(
            "{}: {what} importing each other: {}\n",
            self.root,
            self.members.join(", ")
        );
        for i in &self.imports {
            s += &format!("  {i}\n");
        }
        s
    }
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The game crates' folders, `games/chess`, …
fn game_dirs() -> Vec<String> {
    let mut dirs: Vec<String> = (std::fs::read_dir(repo().join("games")).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|d| repo().join("games").join(d).join("Cargo.toml").exists())
        .map(|d| format!("games/{d}"))
        .collect();
    dirs.sort();
    dirs
}

/// Every crate of the workspace, by its root file, and its layer.
fn crates() -> Vec<(Layer, Crate)> {
    let mut roots = vec![("engine/src/lib.rs".to_string(), Layer::Engine)];
    for d in game_dirs() {
        roots.push((format!("{d}/src/lib.rs"), Layer::Game));
    }
    for r in ["src/lib.rs", "src/main.rs", "python/src/lib.rs"] {
        roots.push((r.to_string(), Layer::Top));
    }
    let read = |p: &str| std::fs::read_to_string(repo().join(p)).ok();
    (roots.into_iter())
        .filter(|(r, _)| repo().join(r).exists())
        .map(|(r, layer)| (layer, load(&r, &read)))
        .collect()
}

/// The `.rs` files under `dir` (from the repository's top), into `out`.
fn rust_files(top: &Path, dir: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(top.join(dir)) else {
        return;
    };
    for e in entries {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        let path = format!("{dir}/{name}");
        if top.join(&path).is_dir() {
            rust_files(top, &path, out);
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

fn strings(s: &[&str]) -> Vec<String> {
    s.iter().map(|s| s.to_string()).collect()
}

/// The crate whose root is `root`, its files found as the compiler finds them: each
/// `mod x;` is `x.rs` or `x/mod.rs` in the folder of its parent's children.
fn load(root: &str, read: &dyn Fn(&str) -> Option<String>) -> Crate {
    let dir = root.rsplit_once('/').map_or("", |(d, _)| d);
    let mut modules = BTreeMap::new();
    let mut todo = vec![(Mod::new(), root.to_string(), dir.to_string(), false)];
    while let Some((m, path, children, test)) = todo.pop() {
        let text = read(&path).unwrap_or_else(|| panic!("{path} cannot be read"));
        let all = strip(&text);
        let code = drop_tests(&all);
        let built = declared(&code);
        for (scope, name) in declared(&all) {
            let test = test || !built.contains(&(scope.clone(), name.clone()));
            let folder = std::iter::once(children.clone())
                .chain(scope.iter().cloned())
                .collect::<Vec<_>>()
                .join("/");
            let file = [
                format!("{folder}/{name}.rs"),
                format!("{folder}/{name}/mod.rs"),
            ]
            .into_iter()
            .find(|f| read(f).is_some())
            .unwrap_or_else(|| panic!("{path}: no file for module {name}"));
            let below = [m.clone(), scope, vec![name.clone()]].concat();
            todo.push((below, file, format!("{folder}/{name}"), test));
        }
        modules.insert(m, File { path, code, test });
    }
    Crate {
        root: root.to_string(),
        modules,
    }
}

/// The modules `code` declares with `mod x;`: each as the inline module it is in (a path
/// below the file's module) and its name.
fn declared(code: &str) -> Vec<(Mod, String)> {
    let mut parts = Vec::new();
    split_inline(code, &Mod::new(), &mut parts);
    let mut out = Vec::new();
    for (scope, part) in parts {
        for at in words(&part, "mod") {
            if let Some((name, rest)) = ident(&part[at + 3..]) {
                if rest.trim_start().starts_with(';') {
                    out.push((scope.clone(), name.to_string()));
                }
            }
        }
    }
    out
}

/// Every file-level and room-level loop of crate `c`.
fn loops(c: &Crate) -> Vec<Loop> {
    let imports = imports(c);
    let path = |m: &Mod| c.modules[m].path.clone();
    let root_name = c.root.rsplit('/').next().unwrap_or_default().to_string();
    let room = |m: &Mod| m.first().cloned().unwrap_or_else(|| root_name.clone());
    let mut files: BTreeMap<Mod, BTreeSet<Mod>> = BTreeMap::new();
    let mut rooms: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in imports.keys() {
        files.entry(a.clone()).or_default().insert(b.clone());
        if room(a) != room(b) {
            rooms.entry(room(a)).or_default().insert(room(b));
        }
    }
    let said = |(a, b): &(Mod, Mod)| {
        let paths: Vec<&str> = imports[&(a.clone(), b.clone())]
            .iter()
            .map(String::as_str)
            .collect();
        format!("{} -> {}: {}", path(a), path(b), paths.join(" "))
    };
    let mut out = Vec::new();
    for members in cycles(&files) {
        let mut members: Vec<(String, Mod)> = members.into_iter().map(|m| (path(&m), m)).collect();
        members.sort();
        let within = |m: &Mod| members.iter().any(|(_, x)| x == m);
        out.push(Loop {
            root: c.root.clone(),
            level: Level::Files,
            members: members.iter().map(|(p, _)| p.clone()).collect(),
            imports: (imports.keys())
                .filter(|(a, b)| within(a) && within(b))
                .map(said)
                .collect(),
        });
    }
    for members in cycles(&rooms) {
        let within = |m: &Mod| members.contains(&room(m));
        out.push(Loop {
            root: c.root.clone(),
            level: Level::Rooms,
            imports: (imports.keys())
                .filter(|(a, b)| within(a) && within(b) && room(a) != room(b))
                .map(said)
                .collect(),
            members,
        });
    }
    out
}

/// Every import between the non-test files of `c`: (from, to) and the paths that make it.
fn imports(c: &Crate) -> BTreeMap<(Mod, Mod), BTreeSet<String>> {
    let mods: BTreeSet<&Mod> = c.modules.keys().collect();
    let parts: BTreeMap<&Mod, Vec<(Mod, String)>> = (c.modules.iter())
        .filter(|(_, f)| !f.test)
        .map(|(m, f)| {
            let mut parts = Vec::new();
            split_inline(&f.code, m, &mut parts);
            (m, parts)
        })
        .collect();
    // Names re-exported by a module, and the module each comes from; a re-export of a
    // re-export is found on a later round.
    let mut alias: BTreeMap<(Mod, String), Mod> = BTreeMap::new();
    for _ in 0..4 {
        for (scope, part) in parts.values().flatten() {
            for (tree, public) in uses(part).0 {
                for (path, name) in expand_use(&tree).into_iter().filter(|_| public) {
                    match resolve(&mods, &alias, scope, &path) {
                        Some(t) if &t != scope => alias.insert((scope.clone(), name), t),
                        _ => None,
                    };
                }
            }
        }
    }
    let mut out: BTreeMap<(Mod, Mod), BTreeSet<String>> = BTreeMap::new();
    for (&me, parts) in &parts {
        for (scope, part) in parts {
            let (used, rest) = uses(part);
            let named = (used.iter())
                .flat_map(|(tree, _)| expand_use(tree).into_iter().map(|(p, _)| p))
                .chain(paths(&rest));
            for p in named {
                let Some(mut t) = resolve(&mods, &alias, scope, &p) else {
                    continue;
                };
                // A name of the inline module itself.
                if scope.len() > me.len() && t.starts_with(scope) {
                    t = me.clone();
                }
                // The file itself, or a module below it: part of it.
                if &t == me || (!me.is_empty() && t.starts_with(me)) {
                    continue;
                }
                out.entry((me.clone(), t)).or_default().insert(p);
            }
        }
    }
    out
}

/// The module `path`, named in module `me`, leads to (the deepest module on it); `None`
/// for a path outside the crate.
fn resolve(
    mods: &BTreeSet<&Mod>,
    alias: &BTreeMap<(Mod, String), Mod>,
    me: &Mod,
    path: &str,
) -> Option<Mod> {
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let first = *segs.first()?;
    let (mut target, rest) = match first {
        "crate" => (Mod::new(), &segs[1..]),
        "super" | "self" => {
            let mut base = me.clone();
            let n = segs
                .iter()
                .take_while(|s| matches!(**s, "super" | "self"))
                .count();
            for s in &segs[..n] {
                if *s == "super" {
                    base.pop();
                }
            }
            (base, &segs[n..])
        }
        // A bare name: a child module, or a name this module re-exports.
        _ => {
            let child = [me.clone(), vec![first.to_string()]].concat();
            if !mods.contains(&child) && !alias.contains_key(&(me.clone(), first.to_string())) {
                return None;
            }
            (me.clone(), &segs[..])
        }
    };
    for s in rest {
        let child = [target.clone(), vec![s.to_string()]].concat();
        if mods.contains(&child) {
            target = child;
        } else if let Some(t) = alias.get(&(target.clone(), s.to_string())) {
            if *t == target {
                break;
            }
            target = t.clone();
        } else {
            break;
        }
    }
    Some(target)
}

/// `code` cut into the code of each inline module (`mod x { … }`) and the rest, each with
/// its module: `scope` and the inline modules' names below it.
fn split_inline(code: &str, scope: &Mod, out: &mut Vec<(Mod, String)>) {
    let mut own = String::new();
    let mut rest = code;
    loop {
        let found = words(rest, "mod").find_map(|at| {
            let (name, after) = ident(&rest[at + 3..])?;
            let after = after.trim_start();
            after
                .starts_with('{')
                .then(|| (at, name.to_string(), rest.len() - after.len()))
        });
        let Some((at, name, open)) = found else {
            break;
        };
        own.push_str(&rest[..at]);
        let len = block_len(&rest[open..]);
        let inner = &rest[open + 1..(open + len - 1).max(open + 1)];
        split_inline(inner, &[scope.clone(), vec![name]].concat(), out);
        rest = &rest[open + len..];
    }
    own.push_str(rest);
    out.push((scope.clone(), own));
}

/// The `use` declarations of `code` (each tree, and whether it is public: a re-export), and
/// the code without them.
fn uses(code: &str) -> (Vec<(String, bool)>, String) {
    let mut found = Vec::new();
    let mut rest = String::new();
    let mut from = 0;
    for at in words(code, "use") {
        if at < from || !code[at + 3..].starts_with(char::is_whitespace) {
            continue;
        }
        let Some(end) = code[at..].find(';').map(|e| at + e) else {
            break;
        };
        let before = code[..at].trim_end();
        let before = match before.strip_suffix(')') {
            Some(b) => b.rsplit_once('(').map_or(b, |(b, _)| b),
            None => before,
        };
        let public = before.ends_with("pub")
            && !before[..before.len() - 3].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        found.push((code[at + 3..end].to_string(), public));
        rest.push_str(&code[from..at]);
        from = end + 1;
    }
    rest.push_str(&code[from..]);
    (found, rest)
}

/// The paths a `use` tree names, each with the name it binds:
/// `a::{b, c::{d as e}}` is `a::b` (`b`) and `a::c::d` (`e`).
fn expand_use(tree: &str) -> Vec<(String, String)> {
    let tree = tree.trim();
    if let (Some(open), true) = (tree.find('{'), tree.ends_with('}')) {
        let prefix: String = tree[..open].split_whitespace().collect();
        let mut out = Vec::new();
        let (mut depth, mut start) = (0, open + 1);
        let inner_end = tree.len() - 1;
        for (i, ch) in tree.char_indices().take_while(|&(i, _)| i <= inner_end) {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 1 => {
                    out.extend(expand_use(&format!("{prefix}{}", &tree[start..i])));
                    start = i + 1;
                }
                _ => {}
            }
        }
        let last = tree[start..inner_end].trim();
        if !last.is_empty() {
            out.extend(expand_use(&format!("{prefix}{last}")));
        }
        return out;
    }
    let words: Vec<&str> = tree.split_whitespace().collect();
    let (path, alias) = match words.as_slice() {
        [p @ .., "as", name] => (p.concat(), Some(name.to_string())),
        _ => (words.concat(), None),
    };
    let path = path
        .strip_suffix("::self")
        .map_or(path.clone(), str::to_string);
    let name = alias.unwrap_or_else(|| path.rsplit("::").next().unwrap_or_default().into());
    vec![(path, name)]
}

/// The paths of two or more segments in `code`: `a::b`, `super::c::D`.
fn paths(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !is_ident(b[i]) || (i > 0 && is_ident(b[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        let mut segments = 0;
        loop {
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            if b[i..].starts_with(b"::") && b.get(i + 2).is_some_and(|&c| is_ident(c)) {
                segments += 1;
                i += 2;
            } else {
                break;
            }
        }
        if segments > 0 {
            out.push(code[start..i].to_string());
        }
    }
    out
}

/// The paths in `code` that start with crate `name` (`name::…`, `use name`, `extern crate
/// name`).
fn crate_paths(code: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for at in words(code, name) {
        let before = code[..at].trim_end();
        let after = &code[at + name.len()..];
        let start = !before.ends_with("::") && !before.ends_with('.');
        if start
            && (after.starts_with("::") || before.ends_with("use") || before.ends_with("crate"))
        {
            let end = after.find([';', '\n']).unwrap_or(after.len());
            out.push(format!("{name}{}", &after[..end]));
        }
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Where `word` stands in `s` as a whole word.
fn words<'a>(s: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let b = s.as_bytes();
    (s.match_indices(word).map(|(i, _)| i)).filter(move |&i| {
        (i == 0 || !is_ident(b[i - 1])) && b.get(i + word.len()).is_none_or(|&c| !is_ident(c))
    })
}

/// The identifier `s` starts with (after blanks), and what follows it.
fn ident(s: &str) -> Option<(&str, &str)> {
    let t = s.trim_start();
    let n = t.bytes().take_while(|&b| is_ident(b)).count();
    (n > 0).then(|| t.split_at(n))
}

/// The length of the block `s` starts with, to its matching `}`.
fn block_len(s: &str) -> usize {
    let mut depth = 0;
    for (i, b) in s.bytes().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    s.len()
}

/// `code` without its `#[cfg(test)]` items: each to its `;` or the end of its block.
fn drop_tests(code: &str) -> String {
    const TEST: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find(TEST) {
        out.push_str(&rest[..at]);
        let item = &rest[at + TEST.len()..];
        // The item ends at the first `;` or block outside brackets (attributes, array
        // types and parameters hold `;` and `(`).
        let mut depth = 0;
        let mut end = item.len();
        for (i, b) in item.bytes().enumerate() {
            match b {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                b'{' if depth == 0 => {
                    end = i + block_len(&item[i..]);
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// `text` without comments, and with every string and character literal emptied (`""`,
/// `' '`): what is left is code.
fn strip(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let n = c.len();
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    let ident_before = |k: usize| k > 0 && (c[k - 1].is_alphanumeric() || c[k - 1] == '_');
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < n {
        if c[i] == '/' && at(i + 1) == '/' {
            while i < n && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && at(i + 1) == '*' {
            let mut depth = 1;
            i += 2;
            while i < n && depth > 0 {
                if c[i] == '/' && at(i + 1) == '*' {
                    (depth, i) = (depth + 1, i + 2);
                } else if c[i] == '*' && at(i + 1) == '/' {
                    (depth, i) = (depth - 1, i + 2);
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if let Some(end) = raw_string(&c, i).filter(|_| !ident_before(i)) {
            out.push_str("\"\"");
            i = end;
        } else if c[i] == '"' {
            i += 1;
            while i < n && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i += 1;
        } else if c[i] == '\'' {
            // A character literal ('x', '\n', '\u{7f}'), or else a lifetime or a label.
            let end = if at(i + 1) == '\\' {
                (i + 3..n).find(|&k| c[k] == '\'')
            } else {
                (at(i + 2) == '\'').then_some(i + 2)
            };
            match end {
                Some(e) => {
                    out.push_str("' '");
                    i = e + 1;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// If a raw string (`r"…"`, `r#"…"#`, `br"…"`) starts at `i`, where it ends.
fn raw_string(c: &[char], i: usize) -> Option<usize> {
    let r = match c[i] {
        'r' => i,
        'b' if c.get(i + 1) == Some(&'r') => i + 1,
        _ => return None,
    };
    let hashes = c[r + 1..].iter().take_while(|&&x| x == '#').count();
    if c.get(r + 1 + hashes) != Some(&'"') {
        return None;
    }
    let mut k = r + 2 + hashes;
    while k < c.len() {
        if c[k] == '"'
            && c[k + 1..]
                .iter()
                .take(hashes)
                .filter(|&&x| x == '#')
                .count()
                == hashes
        {
            return Some(k + 1 + hashes);
        }
        k += 1;
    }
    Some(c.len())
}

/// The cycles of a graph: its strongly connected parts of more than one node, each sorted
/// (Tarjan's algorithm).
fn cycles<N: Ord + Clone>(adj: &BTreeMap<N, BTreeSet<N>>) -> Vec<Vec<N>> {
    struct Walk<'a, N> {
        adj: &'a BTreeMap<N, BTreeSet<N>>,
        index: BTreeMap<N, usize>,
        low: BTreeMap<N, usize>,
        stack: Vec<N>,
        on_stack: BTreeSet<N>,
        out: Vec<Vec<N>>,
    }
    fn visit<N: Ord + Clone>(w: &mut Walk<'_, N>, v: &N) {
        let k = w.index.len();
        w.index.insert(v.clone(), k);
        w.low.insert(v.clone(), k);
        w.stack.push(v.clone());
        w.on_stack.insert(v.clone());
        let adj = w.adj;
        for x in adj.get(v).into_iter().flatten() {
            if !w.index.contains_key(x) {
                visit(w, x);
                let low = w.low[v].min(w.low[x]);
                w.low.insert(v.clone(), low);
            } else if w.on_stack.contains(x) {
                let low = w.low[v].min(w.index[x]);
                w.low.insert(v.clone(), low);
            }
        }
        if w.low[v] == w.index[v] {
            let mut part = Vec::new();
            loop {
                let x = w.stack.pop().expect("v is on the stack");
                w.on_stack.remove(&x);
                let done = &x == v;
                part.push(x);
                if done {
                    break;
                }
            }
            if part.len() > 1 {
                part.sort();
                w.out.push(part);
            }
        }
    }
    let mut w = Walk {
        adj,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in adj.keys() {
        if !w.index.contains_key(v) {
            visit(&mut w, v);
        }
    }
    w.out.sort();
    w.out
}
