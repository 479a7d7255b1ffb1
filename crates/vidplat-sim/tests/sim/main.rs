//! The simulated services, driven through the `vidplat` facade over real
//! HTTP. One test binary, so the generated clients are linked once.

mod analytics;
mod encoder;
mod vms;
