//! The simulated services, driven through the `vidplat` facade over real
//! HTTP, and the `vidplat-sim` binary. One test binary, so the generated
//! clients are linked once.

mod analytics;
mod binary;
mod encoder;
mod faults;
mod server;
mod vms;
