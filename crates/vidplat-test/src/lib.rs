//! # vidplat-test
//!
//! Testing code that uses [vidplat](https://docs.rs/vidplat): typed,
//! in-process mocks of every operation of the three services, generated from
//! the same YAML as the SDK, with the SDK's real pipeline in front of them.
//! Add it as a dev-dependency; release builds never compile it.
//!
//! - [`Mock`]: rules per operation ([`Mock::on`] with a marker from
//!   [`encoder`], [`vms`] or [`analytics`]), matched on the request's typed
//!   members ([`Rule::when`]), answered with a typed success value, a
//!   documented error, a delay or a transport failure, in sequences
//!   ([`Rule::then`], [`Rule::times`]); [`Mock::verify`] names unmet
//!   expectations and unanswered requests by operation id.
//! - **A mock cannot teach what the service cannot do**: an answer is
//!   checked against the operation's documented statuses, the service's
//!   error codes and the documented bounds of the success body (lengths,
//!   ranges, item counts, patterns: [`SuccessCheck`]) when it is set
//!   ([`Rule::respond_raw`] is the named escape hatch).
//! - **Time**: the client behind a mock waits in tokio's time, so under
//!   `#[tokio::test(start_paused = true)]` backoff, waiters and the analytics
//!   quota's minute-long waits take no wall-clock time.
//! - [`Fixture`]: valid answer values with documented defaults
//!   (`Task { status: Some(TaskStatus::Failed), ..Task::fixture() }`).
//! - [`sim`] (feature `sim`, on by default): the simulator in process, with a
//!   seed; faults per operation ([`sim::fault`]: a status and code checked
//!   against the document, late, or a connection broken after the head);
//!   one clock for the three services ([`sim::Simulator::advance_clock`]);
//!   the journal of what it received, typed ([`sim::sent`]); named
//!   scenarios ([`sim::Scenario`]: the month's quota spent, slow queries,
//!   failing tasks, a full queue).
//! - [`Cassette`]: **record and replay**. Run a test once against a real
//!   account with recording on (`VIDPLAT_RECORD=1 cargo test`,
//!   [`Cassette::from_env`]): each exchange is stored in a JSON file with the
//!   API key, the values of `x-secret` members (`signing_key`, passwords) and
//!   `signature=` parameters of signed URLs scrubbed, and no request header
//!   but the `x-` ones. Later runs replay it offline, with no account and no
//!   server, and fail on any request that was not recorded
//!   ([`Cassette::finish`]). Requests computed from the day (analytics
//!   periods ending today) do not match on a later day: use fixed dates.
//!
//! What a mock cannot simulate: the service's state (a mock answers what it
//! is told; the simulator, `vidplat-sim`, keeps state), its timing, and the
//! bodies of streamed uploads (a rule sees `None` for them).
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
