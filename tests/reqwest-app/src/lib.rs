//! An application built the way a user's is: vidplat beside its own
//! `reqwest` with default features off (for uploads, webhooks, opening a
//! page in a test). Cargo unifies features, so whatever reqwest features
//! vidplat turns on apply to this application's own clients too.
//!
//! Its test runs on its own, `cargo test -p vidplat-reqwest-app`
//! (`cargo xtask ci` does), so that only this application's features are
//! unified: inside the whole workspace another member's reqwest features
//! would hide the problem.
