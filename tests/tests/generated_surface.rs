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
