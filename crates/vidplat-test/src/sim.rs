//! The simulator as a fixture, typed by the same operation markers as the
//! mocks: a fault on an operation checked against its document, and the
//! requests it received read back into the operation's types.
//!
//! ```no_run
//! use std::time::Duration;
//! use vidplat::Call;
//! use vidplat::encoder::types::ErrorCode;
//! use vidplat_test::{encoder, sim};
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), vidplat::Error> {
//! let simulator = sim::Simulator::start_with(sim::SimConfig { seed: 42, ..sim::SimConfig::fast() })
//!     .await
//!     .expect("the simulator starts");
//! // The next two `get_task` answers are 500 UNKNOWN_ERROR, 300 ms late.
//! simulator
//!     .inject_fault(sim::Fault {
//!         times: 2,
//!         delay_ms: 300,
//!         ..sim::fault(encoder::GetTask, 500, ErrorCode::UnknownError)
//!     })
//!     .expect("a usable fault");
//! let client = simulator.client().build()?;
//! // … the code under test runs; an hour passes at once …
//! simulator.advance_clock(Duration::from_secs(3_600));
//! // What it sent, typed:
//! let asked = sim::sent(&simulator, encoder::GetTask).expect("readable requests");
//! # let _ = (client, asked); Ok(()) }
//! ```

use crate::mock::path_params;
use crate::operation::{Incoming, MockOperation, Sent, Unreadable};
use crate::rule::documented_error;

pub use vidplat_sim::{Fault, FaultOutcome, Received, Scenario, SimConfig, Simulator, JOURNAL_CAPACITY};

/// A fault answering `op` with `status` and `code` once, checked as
/// [`Rule::fail`](crate::Rule::fail) checks an answer; set `times`,
/// `delay_ms`, `retry_after` or `outcome` on the result. For what the
/// document does not describe, build a [`Fault`] by hand.
///
/// # Panics
/// If the operation does not document `status` as an error, the service
/// does not list `code`, or the document gives `code` another status.
#[track_caller]
pub fn fault<Op: MockOperation>(op: Op, status: u16, code: Op::ErrorCode) -> Fault {
    let _ = op;
    let code = documented_error::<Op>(status, &code);
    Fault {
        status,
        code,
        ..Fault::operation(Op::META.id)
    }
}

/// The requests of `op` the simulator received (in its journal), oldest
/// first, read into the operation's typed members.
pub fn sent<Op: MockOperation>(simulator: &Simulator, op: Op) -> Result<Vec<Sent<Op>>, Unreadable> {
    let _ = op;
    simulator
        .journal()
        .iter()
        .filter(|received| {
            received.service == Some(Op::TABLE.service.as_str()) && received.operation == Some(Op::META.id)
        })
        .map(|received| Op::read(&incoming::<Op>(received)?))
        .collect()
}

/// A journal entry as the mock's [`Incoming`], which the generated readers take.
fn incoming<Op: MockOperation>(received: &Received) -> Result<Incoming, Unreadable> {
    let segments: Vec<&str> = received.path.split('/').filter(|s| !s.is_empty()).collect();
    let path_params = path_params(Op::META, &segments).ok_or_else(|| Unreadable {
        member: "path".to_owned(),
        reason: format!("`{}` is not the operation's path {}", received.path, Op::META.path),
    })?;
    // The journal keeps the query as sent; the mock reads it the same way, as form-urlencoded pairs.
    let query = received.query.as_deref().map_or_else(Vec::new, |query| {
        url::form_urlencoded::parse(query.as_bytes()).into_owned().collect()
    });
    Ok(Incoming {
        service: Op::TABLE.service,
        operation: Op::META,
        method: received.method.clone(),
        path: received.path.clone(),
        path_params,
        query,
        headers: received.headers.clone(),
        body: received.body.clone().map(String::into_bytes),
    })
}
