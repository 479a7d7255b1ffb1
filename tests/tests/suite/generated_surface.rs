//! Snapshot of each generated crate's API surface: a change in the YAML or in
//! progenitor shows up here as a reviewable diff.

use crate::in_snapshots;
use vidplat_tests::{generated_source, surface, SERVICES};

#[test]
fn api_surface_of_each_generated_crate() {
    for service in SERVICES {
        let listing = surface::listing(&generated_source(service));
        assert!(listing.contains("# Operations"), "{service}: no operations listed");
        in_snapshots(|| insta::assert_snapshot!(format!("generated_surface__surface_{service}"), listing));
    }
}

/// The Rust files of a crate's `src`, by path below it, sorted.
fn sources(krate: &str) -> Vec<(String, String)> {
    fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.file_name().is_some_and(|n| n != "generated.rs")
            {
                let name = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.push((name, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates")
        .join(krate)
        .join("src");
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    files.sort();
    files
}

/// The hand-written facade's public surface: its traits, types and every
/// public method with its signature (paginators, waiters, signing, errors).
#[test]
fn api_surface_of_the_facade() {
    let listing = surface::facade_listing(&sources("vidplat"));
    assert!(listing.contains("fn wait_for_task"), "{listing}");
    in_snapshots(|| insta::assert_snapshot!("generated_surface__surface_vidplat", listing));
}

/// The runtime's public surface, the same way: what the generated crates and
/// the facade build on (what only generated code uses sits in `__private`).
#[test]
fn api_surface_of_the_runtime() {
    let listing = surface::facade_listing(&sources("vidplat-core"));
    assert!(listing.contains("fn prepare"), "{listing}");
    in_snapshots(|| insta::assert_snapshot!("generated_surface__surface_vidplat_core", listing));
}

/// The Redis store's public surface (`vidplat-redis`), the same way.
#[test]
fn api_surface_of_the_redis_store() {
    let listing = surface::facade_listing(&sources("vidplat-redis"));
    assert!(listing.contains("struct RedisQuota"), "{listing}");
    in_snapshots(|| insta::assert_snapshot!("generated_surface__surface_vidplat_redis", listing));
}

#[test]
fn every_assumed_route_says_so_in_its_rustdoc() {
    for service in SERVICES {
        let spec = vidplat_tests::load_spec(service);
        let source = generated_source(service);
        let mut assumed = 0;
        for item in spec["paths"].as_object().unwrap().values() {
            for op in item.as_object().unwrap().values() {
                if op.get("x-route-assumed").and_then(|v| v.as_bool()) == Some(true) {
                    assumed += 1;
                    let id = op["operationId"].as_str().unwrap();
                    assert!(
                        source.contains(&format!("route(\\\"{id}\\\"")) || source.contains(&format!("route(\"{id}\"")),
                        "{service}: {id}'s rustdoc does not mention the assumed route"
                    );
                }
            }
        }
        // A wholly assumed operation (x-operation-assumed) opens with its own, stronger warning.
        let warned = source.matches("**Route assumed.**").count() + source.matches("**Assumed operation.**").count();
        assert_eq!(warned, assumed, "{service}");
    }
}
