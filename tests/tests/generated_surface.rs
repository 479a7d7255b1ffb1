//! Snapshot of each generated crate's API surface: a change in the YAML or in
//! progenitor shows up here as a reviewable diff.

use vidplat_tests::{generated_source, surface, SERVICES};

#[test]
fn api_surface_of_each_generated_crate() {
    for service in SERVICES {
        let listing = surface::listing(&generated_source(service));
        assert!(listing.contains("# Operations"), "{service}: no operations listed");
        insta::assert_snapshot!(format!("surface_{service}"), listing);
    }
}

/// The hand-written facade's public surface: its traits, types and every
/// public method with its signature (paginators, waiters, signing, errors).
#[test]
fn api_surface_of_the_facade() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/vidplat/src");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    let listing = surface::facade_listing(&files);
    assert!(listing.contains("fn wait_for_task"), "{listing}");
    insta::assert_snapshot!("surface_vidplat", listing);
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
