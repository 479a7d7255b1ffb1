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
