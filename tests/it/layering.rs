//! The shape of the source tree: no circles between the files of one crate, no crate over
//! 4,000 lines of `src/`, no source file over 1,100 lines.
//!
//! Circles between crates are impossible (Cargo refuses them); between the files of one crate
//! the compiler allows them, and they are what makes a crate hard to split or read in order.
//! The graph is built from the source text: a file's module path comes from where it lies
//! under `src/`; an edge goes from a file to the file of the module a `crate::`, `super::`,
//! `self::` or child-module path names (a name re-exported by the crate root counts as the
//! file it comes from; the crate root, which declares the modules, is never a target). Comments,
//! string literals and `#[cfg(test)]` items do not count: a test may use any file of its crate.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common::root;

/// Circles not yet removed, each as its files (relative to the crate's `src/`) in sorted
/// order, as `("ltr-core", &["a.rs", "b.rs"])`. Empty: there are none; the list only shrinks.
const KNOWN_CIRCLES: &[(&str, &[&str])] = &[];

/// Crates over the size limits, waived until they are split (none today). The list only
/// shrinks.
const KNOWN_OVERSIZE: &[&str] = &[];

/// Lines of `src/` a crate may have (`wc -l`, inline test modules included).
const MAX_CRATE_LINES: usize = 4_000;
/// Lines a source file may have.
const MAX_FILE_LINES: usize = 1_100;

#[test]
fn no_circles_between_the_files_of_a_crate() {
    let mut found = Vec::new();
    for krate in crates() {
        let files = rust_files(&krate.join("src"));
        let graph = file_graph(&krate.join("src"), &files);
        let name = crate_name(&krate);
        for circle in circles(&graph) {
            let known = KNOWN_CIRCLES
                .iter()
                .any(|(c, files)| *c == name && files.iter().copied().eq(circle.iter().map(String::as_str)));
            if !known {
                found.push(format!("{name}: {}", circle.join(" <-> ")));
            }
        }
    }
    assert!(found.is_empty(), "files of one crate that use each other:\n  {}", found.join("\n  "));
}

#[test]
fn no_crate_and_no_file_over_the_size_limits() {
    let mut over = Vec::new();
    for krate in crates() {
        let name = crate_name(&krate);
        if KNOWN_OVERSIZE.contains(&name.as_str()) {
            continue;
        }
        let mut total = 0;
        for file in rust_files(&krate.join("src")) {
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            total += lines;
            if lines > MAX_FILE_LINES {
                over.push(format!("{}: {lines} lines (at most {MAX_FILE_LINES})", file.display()));
            }
        }
        if total > MAX_CRATE_LINES {
            over.push(format!("{name}: {total} lines of src/ (at most {MAX_CRATE_LINES})"));
        }
    }
    assert!(over.is_empty(), "over the size limits:\n  {}", over.join("\n  "));
}

#[test]
fn the_graph_sees_each_kind_of_path() {
    let src = Path::new("src");
    let file = |rel: &str, text: &str| (src.join(rel), text.to_string());
    let texts = vec![
        file("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\npub use d::Item;\n"),
        file("a.rs", "use crate::{b::X, c};\n// crate::d::Y in a comment\nconst S: &str = \"crate::d\";\n"),
        file(
            "b.rs",
            "mod inner;\nfn f() { inner::g() }\n#[cfg(test)]\nmod tests {\n    use crate::a::Z;\n}\n",
        ),
        file("b/inner.rs", "use super::super::c::W;\n"),
        file("c.rs", "fn h() -> crate::Item { todo!() }\n"),
        file("d.rs", "use crate::a::V;\n"),
    ];
    let graph = graph_of(src, &texts);
    let edges = |from: &str| graph[from].iter().cloned().collect::<Vec<_>>();
    assert_eq!(edges("a.rs"), ["b.rs", "c.rs"]);
    assert_eq!(edges("b.rs"), ["b/inner.rs"]);
    assert_eq!(edges("b/inner.rs"), ["c.rs"]);
    assert_eq!(edges("c.rs"), ["d.rs"]);
    assert_eq!(edges("d.rs"), ["a.rs"]);
    let circle = |files: &[&str]| files.iter().map(|f| f.to_string()).collect::<Vec<_>>();
    assert_eq!(
        circles(&graph),
        [circle(&["a.rs", "b.rs", "b/inner.rs", "c.rs", "d.rs"]), circle(&["a.rs", "c.rs", "d.rs"])]
    );
}

/// The workspace's crates (`crates/*` with a `src/`).
fn crates() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    out.sort();
    assert!(out.len() > 10, "no crates found under {}", root().join("crates").display());
    out
}

fn crate_name(krate: &Path) -> String {
    krate.file_name().unwrap().to_string_lossy().into_owned()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn file_graph(src: &Path, files: &[PathBuf]) -> BTreeMap<String, BTreeSet<String>> {
    let texts: Vec<(PathBuf, String)> =
        files.iter().map(|f| (f.clone(), std::fs::read_to_string(f).unwrap())).collect();
    graph_of(src, &texts)
}

/// The module path of a file under `src`: `lib.rs`/`main.rs` -> [], `a.rs` and `a/mod.rs` ->
/// [a], `a/b.rs` -> [a, b].
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !(parts.is_empty() && (stem == "lib" || stem == "main")) && stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// File-to-file edges, keyed by the path relative to `src` (with `/`).
fn graph_of(src: &Path, texts: &[(PathBuf, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let rel = |f: &Path| {
        f.strip_prefix(src)
            .unwrap()
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/")
    };
    let modules: BTreeMap<Vec<String>, String> =
        texts.iter().map(|(f, _)| (module_of(src, f), rel(f))).collect();
    let code: Vec<String> = texts.iter().map(|(_, t)| strip_tests(&blank_comments_and_strings(t))).collect();
    // Names the crate root re-exports: `pub use a::b::{X, Y};` makes `crate::X` mean module [a, b].
    let mut reexports: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for ((f, _), text) in texts.iter().zip(&code) {
        if module_of(src, f).is_empty() {
            for stmt in text.split(';') {
                let stmt = stmt.trim();
                if let Some(tree) = stmt.strip_prefix("pub use ") {
                    for path in use_paths(tree) {
                        if let Some((name, module)) = path.split_last() {
                            let module =
                                module.iter().filter(|s| *s != "self" && *s != "crate").cloned().collect();
                            reexports.insert(name.clone(), module);
                        }
                    }
                }
            }
        }
    }
    let mut graph = BTreeMap::new();
    for ((f, _), text) in texts.iter().zip(&code) {
        let here = module_of(src, f);
        let this = rel(f);
        let children: BTreeSet<String> = modules
            .keys()
            .filter(|m| m.len() == here.len() + 1 && m.starts_with(&here))
            .map(|m| m.last().unwrap().clone())
            .collect();
        let mut edges = BTreeSet::new();
        for path in paths_in(text) {
            let mut segs = path.as_slice();
            let mut base = match segs.first().map(String::as_str) {
                Some("crate") => {
                    segs = &segs[1..];
                    Vec::new()
                }
                Some("self") | Some("super") => {
                    let mut m = here.clone();
                    while let Some(s) = segs.first() {
                        match s.as_str() {
                            "self" => {}
                            "super" => {
                                m.pop();
                            }
                            _ => break,
                        }
                        segs = &segs[1..];
                    }
                    m
                }
                Some(first) if children.contains(first) => here.clone(),
                _ => continue,
            };
            if base.is_empty()
                && let Some(module) = segs.first().and_then(|s| reexports.get(s))
                && !modules.contains_key(&vec![segs[0].clone()])
            {
                base = module.clone();
                segs = &[];
            }
            // The deepest module of the path that is a file of its own.
            let mut target = None;
            let mut m = base;
            if modules.contains_key(&m) {
                target = Some(m.clone());
            }
            for s in segs {
                m.push(s.clone());
                if modules.contains_key(&m) {
                    target = Some(m.clone());
                } else {
                    break;
                }
            }
            if let Some(t) = target.filter(|t| !t.is_empty()) {
                let file = &modules[&t];
                if *file != this {
                    edges.insert(file.clone());
                }
            }
        }
        graph.insert(this, edges);
    }
    graph
}

/// The source with every comment and every string or char literal replaced by spaces (so that
/// paths in them are not read as uses), keeping line structure.
fn blank_comments_and_strings(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
                out.push(' ');
            }
        } else if c == '/' && next == Some('*') {
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
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !ident_char(i.checked_sub(1).map(|j| b[j]))
        {
            // A raw string: r"...", r#"..."#.
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
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (1..=hashes).all(|h| b.get(j + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &ch in &b[i..j.min(b.len())] {
                blank(&mut out, ch);
            }
            i = j;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    blank(&mut out, b[i]);
                    i += 1;
                }
                if i < b.len() {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && next == Some('\\') {
            // An escaped char literal: '\n', '\'', '\u{..}'.
            let mut j = i + 2;
            while j < b.len() && b[j] != '\'' {
                j += 1;
            }
            for &ch in &b[i..=j.min(b.len() - 1)] {
                blank(&mut out, ch);
            }
            i = j + 1;
        } else if c == '\'' && b.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// The code without its `#[cfg(test)]` items (the attribute through the end of the item: its
/// braces, or its `;`).
fn strip_tests(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let mut depth = 0usize;
        let mut end = item.len();
        for (k, ch) in item.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = k + 1;
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

/// Every path in the code that starts a module path (`a::b::C`, `crate::{a::X, b}`), as its
/// segments; a brace group is expanded into one path per item.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if ident_char(Some(chars[i])) && !ident_char(i.checked_sub(1).map(|j| chars[j])) {
            let start = i;
            while i < chars.len() && ident_char(Some(chars[i])) {
                i += 1;
            }
            if chars.get(i) == Some(&':') && chars.get(i + 1) == Some(&':') {
                // Read the whole path (with brace groups) up to where it ends.
                let mut depth = 0;
                let mut j = i;
                while j < chars.len() {
                    let ch = chars[j];
                    if ch == '{' {
                        depth += 1;
                    } else if ch == '}' {
                        if depth == 0 {
                            break;
                        }
                        depth -= 1;
                    } else if depth == 0 && !(ident_char(Some(ch)) || ch == ':') {
                        break;
                    }
                    j += 1;
                }
                let preceded_by_path = start >= 2 && chars[start - 1] == ':' && chars[start - 2] == ':';
                if !preceded_by_path {
                    let text: String = chars[start..j].iter().collect();
                    out.extend(use_paths(&text));
                }
                i = j;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The paths of a use tree: `a::{b::C, d}` -> [a, b, C], [a, d]. `as` renames, `*` and `self`
/// are dropped (they name the module itself).
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    fn walk(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let tree = tree.trim();
        let tree = tree.split(" as ").next().unwrap_or(tree).trim();
        if let Some(open) = tree.find('{') {
            let head = tree[..open].trim_end_matches("::");
            let mut p = prefix.to_vec();
            p.extend(head.split("::").filter(|s| !s.trim().is_empty()).map(|s| s.trim().to_string()));
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            let mut depth = 0;
            let mut from = 0;
            for (k, ch) in inner.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        walk(&inner[from..k], &p, out);
                        from = k + 1;
                    }
                    _ => {}
                }
            }
            walk(&inner[from..], &p, out);
        } else {
            let mut p = prefix.to_vec();
            p.extend(
                tree.split("::")
                    .map(str::trim)
                    .filter(|s| !s.is_empty() && *s != "*" && *s != "self")
                    .map(str::to_string),
            );
            if !p.is_empty() {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(tree, &[], &mut out);
    out
}

/// Every elementary circle of the graph, each as its files sorted (a circle is reported once).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    fn search(
        graph: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        node: &str,
        path: &mut Vec<String>,
        out: &mut BTreeSet<Vec<String>>,
    ) {
        for next in graph.get(node).into_iter().flatten() {
            // Only circles whose smallest file is `start`, so each is found from one place.
            if next.as_str() == start {
                let mut c = path.clone();
                c.sort();
                out.insert(c);
            } else if next.as_str() > start && !path.contains(next) {
                path.push(next.clone());
                search(graph, start, next, path, out);
                path.pop();
            }
        }
    }
    let mut out = BTreeSet::new();
    for start in graph.keys() {
        search(graph, start, start, &mut vec![start.clone()], &mut out);
    }
    out.into_iter().collect()
}
