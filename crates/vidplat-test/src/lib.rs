//! # vidplat-test
//!
//! The test kit of [vidplat](https://docs.rs/vidplat). Its README is the
//! guide (the book's test kit page), with an example of each tool; here are
//! the items:
//!
//! - [`Mock`]: rules per operation ([`Mock::on`] with a marker from
//!   [`encoder`], [`vms`] or [`analytics`]), matched on the request's typed
//!   members ([`Rule::when`]), answered with a typed success value, a
//!   documented error, a delay or a transport failure, in sequences
//!   ([`Rule::then`], [`Rule::times`]); [`Mock::verify`] names unmet
//!   expectations and unanswered requests by operation id. An answer set up
//!   is checked against what the documents allow ([`SuccessCheck`]), unless
//!   given with [`Rule::respond_raw`].
//! - [`Fixture`]: valid answer values with documented defaults.
//! - [`sim`] (feature `sim`, on by default): the simulator in this process:
//!   [`sim::fault`], one clock ([`sim::Simulator::advance_clock`]), the
//!   journal ([`sim::sent`]), [`sim::Scenario`].
//! - [`Cassette`]: exchanges recorded from a real account
//!   ([`Cassette::from_env`], `VIDPLAT_RECORD=1`), secrets scrubbed, then
//!   replayed offline; [`Cassette::finish`] fails on one never recorded.
#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

mod cassette;
mod fixtures;
mod mock;
mod operation;
mod rule;
#[cfg(feature = "sim")]
pub mod sim;
mod success;

pub use cassette::{Cassette, CASSETTE_FORMAT, RECORD_VARIABLE};
pub use fixtures::Fixture;
pub use mock::{Mock, ANALYTICS_URL, ENCODER_URL, VMS_URL};
pub use operation::{Incoming, MockOperation, Sent, Unreadable};
pub use rule::Rule;
pub use success::{SuccessCheck, SuccessRule};

/// One marker per operation of the encoding service (`GetTask`, …) for
/// [`Mock::on`], and its typed members (`GetTaskParams`).
#[cfg(feature = "encoder")]
pub mod encoder {
    pub use vidplat::encoder::markers::*;
}

/// One marker per operation of the video management service, for [`Mock::on`].
#[cfg(feature = "vms")]
pub mod vms {
    pub use vidplat::vms::markers::*;
}

/// One marker per operation of viewing analytics, for [`Mock::on`].
#[cfg(feature = "analytics")]
pub mod analytics {
    pub use vidplat::analytics::markers::*;
}
