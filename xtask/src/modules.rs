//! Module cycles: which modules of a crate refer to which, read from the
//! code (`use` trees and inline paths: `crate::a::b`, `super::x`, a child's
//! name), and the cycles among them. A cycle makes two files one concern in
//! two places; no crate of the workspace keeps one (a unit test checks). A
//! module using an ancestor's items (`super::…`, `crate::…` of the root) is
//! nesting, not a cycle.

use crate::codegen::syntax::cfg_feature;
use anyhow::{Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// The modules of the crate whose sources are in `src`, each with the
/// modules it refers to (`""` is the crate root).
pub fn graph(src: &Path) -> Result<BTreeMap<String, BTreeSet<String>>> {
    graph_of(src, false)
}

/// [`graph`], read with or without what is compiled only under a `cfg`.
fn graph_of(src: &Path, unconditional_only: bool) -> Result<BTreeMap<String, BTreeSet<String>>> {
    let files = module_files(src)?;
    let modules: BTreeSet<String> = files.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (module, path) in &files {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let mut file = syn::parse_file(&text).with_context(|| format!("parsing {}", path.display()))?;
        if unconditional_only {
            WithoutCfg.visit_file_mut(&mut file);
        }
        let children: BTreeSet<String> = file
            .items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Mod(m) if m.content.is_none() => Some(m.ident.to_string()),
                _ => None,
            })
            .collect();
        let mut paths = Paths::default();
        paths.visit_file(&file);
        let mut refers = BTreeSet::new();
        for (inline, segments) in paths.found {
            // A path inside `mod tests { … }` is read from that module (its `super` is the file's).
            let here = inline.iter().fold(module.clone(), |at, name| {
                if at.is_empty() {
                    name.clone()
                } else {
                    format!("{at}::{name}")
                }
            });
            let children = if inline.is_empty() {
                children.clone()
            } else {
                BTreeSet::new()
            };
            let absolute = absolute(&here, &children, &segments);
            if let Some(target) = absolute.and_then(|a| longest_module(&modules, &a)) {
                // A child using its parent's (or an ancestor's) items is nesting, not a cycle.
                let ancestor = target.is_empty() || module.starts_with(&format!("{target}::"));
                if &target != module && !ancestor {
                    refers.insert(target);
                }
            }
        }
        graph.insert(module.clone(), refers);
    }
    Ok(graph)
}

/// Every cycle of `graph`, each as the modules on it (one cycle per strongly
/// connected group of two or more modules).
pub fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Two modules are on one cycle when each reaches the other.
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_owned()];
        while let Some(next) = stack.pop() {
            for target in graph.get(&next).into_iter().flatten() {
                if seen.insert(target.clone()) {
                    stack.push(target.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> = graph.keys().map(|m| (m, reach(m))).collect();
    let mut grouped = BTreeSet::new();
    let mut out = Vec::new();
    for module in graph.keys() {
        if grouped.contains(module) {
            continue;
        }
        let group: Vec<String> = graph
            .keys()
            .filter(|other| reached[module].contains(*other) && reached[*other].contains(module))
            .cloned()
            .collect();
        if group.len() > 1 {
            grouped.extend(group.iter().cloned());
            out.push(group);
        }
    }
    out
}

/// The crate root's modules compiled only with one feature
/// (`#[cfg(feature = "catalog")] pub mod catalog;`): module → feature.
pub fn feature_gates(src: &Path) -> Result<BTreeMap<String, String>> {
    let root = ["lib.rs", "main.rs"]
        .iter()
        .map(|name| src.join(name))
        .find(|path| path.exists())
        .context("no lib.rs or main.rs")?;
    let file = syn::parse_file(&std::fs::read_to_string(&root)?)?;
    let mut gates = BTreeMap::new();
    for item in &file.items {
        let syn::Item::Mod(module) = item else { continue };
        if let Some(feature) = module.attrs.iter().find_map(cfg_feature) {
            gates.insert(module.ident.to_string(), feature);
        }
    }
    Ok(gates)
}

/// Each feature of the manifest `text` with the crate's own features it
/// turns on, itself included, through features that turn on others.
pub fn features_turned_on(text: &str) -> Result<BTreeMap<String, BTreeSet<String>>> {
    let manifest: toml::Table = toml::from_str(text)?;
    let direct: BTreeMap<String, Vec<String>> = manifest
        .get("features")
        .and_then(|f| f.as_table())
        .map(|table| {
            table
                .iter()
                .map(|(name, list)| {
                    let own = list
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|v| v.as_str())
                        .filter(|v| !v.contains('/') && !v.starts_with("dep:"))
                        .map(str::to_owned)
                        .collect();
                    (name.clone(), own)
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(direct
        .keys()
        .map(|feature| {
            let mut on = BTreeSet::from([feature.clone()]);
            let mut stack = vec![feature.clone()];
            while let Some(next) = stack.pop() {
                for implied in direct.get(&next).into_iter().flatten() {
                    if on.insert(implied.clone()) {
                        stack.push(implied.clone());
                    }
                }
            }
            (feature.clone(), on)
        })
        .collect())
}

/// The uses a build with only one feature would not compile: a module
/// compiled under a feature referring to one compiled under another that
/// the first does not turn on, each as `catalog -> batch (by-name)`.
pub fn uses_outside_their_feature(src: &Path, manifest: &str) -> Result<Vec<String>> {
    let gates = feature_gates(src)?;
    let turned_on = features_turned_on(manifest)?;
    let gate_of = |module: &str| gates.get(module.split("::").next().unwrap_or(module));
    let mut found = Vec::new();
    // A use under a `cfg` of its own is compiled only where that holds.
    for (module, targets) in graph_of(src, true)? {
        let Some(feature) = gate_of(&module) else { continue };
        for target in targets {
            let Some(needed) = gate_of(&target) else { continue };
            if !turned_on.get(feature).is_some_and(|on| on.contains(needed)) {
                found.push(format!("{module} -> {target} ({needed})"));
            }
        }
    }
    Ok(found)
}

/// Takes out every item, field, statement and arm that carries a `cfg`.
struct WithoutCfg;

fn has_cfg(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| attr.path().is_ident("cfg"))
}

/// Keeps the members of `list` that carry no `cfg`.
fn retain_unconditional<T, P: Default>(
    list: &mut syn::punctuated::Punctuated<T, P>,
    attrs: impl Fn(&T) -> &Vec<syn::Attribute>,
) {
    *list = std::mem::take(list)
        .into_iter()
        .filter(|member| !has_cfg(attrs(member)))
        .collect();
}

impl VisitMut for WithoutCfg {
    fn visit_file_mut(&mut self, file: &mut syn::File) {
        file.items.retain(|item| !has_cfg(item_attrs(item)));
        syn::visit_mut::visit_file_mut(self, file);
    }

    fn visit_item_mod_mut(&mut self, module: &mut syn::ItemMod) {
        if let Some((_, items)) = &mut module.content {
            items.retain(|item| !has_cfg(item_attrs(item)));
        }
        syn::visit_mut::visit_item_mod_mut(self, module);
    }

    fn visit_item_impl_mut(&mut self, block: &mut syn::ItemImpl) {
        block.items.retain(|item| match item {
            syn::ImplItem::Fn(f) => !has_cfg(&f.attrs),
            syn::ImplItem::Const(c) => !has_cfg(&c.attrs),
            syn::ImplItem::Type(t) => !has_cfg(&t.attrs),
            _ => true,
        });
        syn::visit_mut::visit_item_impl_mut(self, block);
    }

    fn visit_fields_named_mut(&mut self, fields: &mut syn::FieldsNamed) {
        retain_unconditional(&mut fields.named, |field| &field.attrs);
        syn::visit_mut::visit_fields_named_mut(self, fields);
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        block.stmts.retain(|stmt| match stmt {
            syn::Stmt::Local(local) => !has_cfg(&local.attrs),
            syn::Stmt::Item(item) => !has_cfg(item_attrs(item)),
            syn::Stmt::Expr(expr, _) => !matches!(expr_attrs(expr), Some(attrs) if has_cfg(attrs)),
            syn::Stmt::Macro(m) => !has_cfg(&m.attrs),
        });
        syn::visit_mut::visit_block_mut(self, block);
    }

    fn visit_expr_struct_mut(&mut self, expr: &mut syn::ExprStruct) {
        retain_unconditional(&mut expr.fields, |field| &field.attrs);
        syn::visit_mut::visit_expr_struct_mut(self, expr);
    }

    fn visit_expr_match_mut(&mut self, expr: &mut syn::ExprMatch) {
        expr.arms.retain(|arm| !has_cfg(&arm.attrs));
        syn::visit_mut::visit_expr_match_mut(self, expr);
    }
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

fn expr_attrs(expr: &syn::Expr) -> Option<&[syn::Attribute]> {
    match expr {
        syn::Expr::Call(e) => Some(&e.attrs),
        syn::Expr::MethodCall(e) => Some(&e.attrs),
        syn::Expr::Block(e) => Some(&e.attrs),
        syn::Expr::If(e) => Some(&e.attrs),
        syn::Expr::Assign(e) => Some(&e.attrs),
        syn::Expr::Macro(e) => Some(&e.attrs),
        _ => None,
    }
}

/// Module path (`quota::limits`) → its file, for every `.rs` file below `src`.
fn module_files(src: &Path) -> Result<BTreeMap<String, PathBuf>> {
    fn walk(dir: &Path, src: &Path, out: &mut BTreeMap<String, PathBuf>) -> Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, src, out)?;
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src)?.with_extension("");
            let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                parts.pop();
            }
            out.insert(parts.join("::"), path);
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    walk(src, src, &mut out)?;
    Ok(out)
}

/// A path's segments from the crate root, or `None` when it leaves the crate.
fn absolute(module: &str, children: &BTreeSet<String>, segments: &[String]) -> Option<Vec<String>> {
    let here: Vec<String> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").map(str::to_owned).collect()
    };
    let first = segments.first()?;
    match first.as_str() {
        "crate" => Some(segments[1..].to_vec()),
        "self" => Some(here.iter().chain(&segments[1..]).cloned().collect()),
        "super" => {
            let mut base = here;
            let mut rest = segments;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
            Some(base.into_iter().chain(rest.iter().cloned()).collect())
        }
        child if children.contains(child) => Some(here.iter().chain(segments).cloned().collect()),
        _ => None,
    }
}

/// The file module of `path`: the longest prefix of it that is a module of
/// the crate (an inline module, `quota::tests`, belongs to its file's).
fn longest_module(modules: &BTreeSet<String>, path: &[String]) -> Option<String> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|candidate| modules.contains(candidate))
}

/// Every path of a file: in `use` trees (each leaf whole) and in code, each
/// with the inline modules it sits in.
#[derive(Default)]
struct Paths {
    inline: Vec<String>,
    found: Vec<(Vec<String>, Vec<String>)>,
}

impl Paths {
    fn tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        let leaf = match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.tree(prefix, &p.tree);
                prefix.pop();
                return;
            }
            syn::UseTree::Name(n) => prefix.iter().cloned().chain([n.ident.to_string()]).collect(),
            syn::UseTree::Rename(r) => prefix.iter().cloned().chain([r.ident.to_string()]).collect(),
            syn::UseTree::Glob(_) => prefix.clone(),
            syn::UseTree::Group(g) => {
                g.items.iter().for_each(|item| self.tree(prefix, item));
                return;
            }
        };
        self.found.push((self.inline.clone(), leaf));
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.inline.push(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
        self.inline.pop();
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.tree(&mut Vec::new(), &item.tree);
    }

    // `pub(crate)` and `pub(super)` name a module but refer to nothing in it.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.found.push((self.inline.clone(), segments));
        syn::visit::visit_path(self, path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::repo_root;

    /// Every crate of the workspace: each `crates/*/src`, the tests' support
    /// crate and this xtask.
    #[test]
    fn no_crate_has_a_module_cycle() {
        let root = repo_root();
        let mut sources: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
            .unwrap()
            .map(|entry| entry.unwrap().path().join("src"))
            .filter(|src| src.join("lib.rs").exists() || src.join("main.rs").exists())
            .collect();
        sources.extend([root.join("tests/src"), root.join("xtask/src")]);
        sources.sort();
        assert!(sources.len() >= 11, "{sources:?}");
        let mut found = Vec::new();
        for src in &sources {
            let graph = graph(src).unwrap();
            for cycle in cycles(&graph) {
                found.push(format!(
                    "{}: {}",
                    src.strip_prefix(&root).unwrap_or(src).display(),
                    cycle.join(" <-> ")
                ));
            }
        }
        assert!(found.is_empty(), "module cycles:\n{}", found.join("\n"));
    }

    /// A build with one feature of a crate compiles: no module under a
    /// feature uses a module under another that its own does not turn on.
    #[test]
    fn no_module_uses_one_its_feature_does_not_turn_on() {
        let root = repo_root();
        let mut found = Vec::new();
        for entry in std::fs::read_dir(root.join("crates")).unwrap() {
            let dir = entry.unwrap().path();
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
            for used in uses_outside_their_feature(&dir.join("src"), &manifest).unwrap() {
                found.push(format!("{}: {used}", dir.strip_prefix(&root).unwrap().display()));
            }
        }
        assert!(found.is_empty(), "uses outside their feature:\n{}", found.join("\n"));
        // The facade's gates are read: its optional modules are there.
        let facade = feature_gates(&root.join("crates/vidplat/src")).unwrap();
        assert_eq!(facade.get("batch").map(String::as_str), Some("by-name"));
        assert_eq!(facade.get("catalog").map(String::as_str), Some("catalog"));
    }

    #[test]
    fn a_feature_turns_on_what_its_features_turn_on() {
        let manifest = r#"
            [features]
            default = ["encoder"]
            encoder = ["dep:vidplat-encoder"]
            by-name = ["vidplat-core/by-name", "vidplat-encoder?/by-name"]
            catalog = ["by-name", "dep:serde_yaml"]
            studio = ["catalog"]
        "#;
        let on = features_turned_on(manifest).unwrap();
        let names = |f: &str| on[f].iter().map(String::as_str).collect::<Vec<_>>();
        assert_eq!(names("studio"), ["by-name", "catalog", "studio"]);
        assert_eq!(names("by-name"), ["by-name"]);
        assert_eq!(names("default"), ["default", "encoder"]);
    }

    #[test]
    fn a_cycle_through_inline_paths_and_super_is_found() {
        let dir = std::env::temp_dir().join(format!("vidplat-modules-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("quota")).unwrap();
        std::fs::write(dir.join("lib.rs"), "mod decode; mod stream; mod quota;").unwrap();
        std::fs::write(dir.join("decode.rs"), "fn f() { crate::stream::g(); }").unwrap();
        std::fs::write(dir.join("stream.rs"), "use crate::decode::Context; fn g() {}").unwrap();
        // A parent and its child are nesting; two children through `super` are a cycle.
        std::fs::write(dir.join("quota/mod.rs"), "mod limits; mod redis; pub use redis::Lease;").unwrap();
        std::fs::write(
            dir.join("quota/redis.rs"),
            "use super::Config; use super::limits::Window; pub struct Lease;",
        )
        .unwrap();
        std::fs::write(
            dir.join("quota/limits.rs"),
            "use super::redis::Lease; pub struct Window;",
        )
        .unwrap();
        let graph = graph(&dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            cycles(&graph),
            [
                vec!["decode".to_owned(), "stream".to_owned()],
                vec!["quota::limits".to_owned(), "quota::redis".to_owned()]
            ]
        );
    }
}
