//! The simulator's own routes (`/sim/…`: faults, the journal, input files)
//! answer only a request addressed to the simulator by a loopback name and
//! its port. A web page open in the developer's browser can send requests to
//! 127.0.0.1 through a name it makes resolve there (DNS rebinding), but they
//! carry that name as `Host`: refused here, it can neither inject faults nor
//! read the journal.

use crate::error::SimError;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The `Host` values a control request may carry, for the listener's `port`.
#[derive(Clone, Debug)]
pub(crate) struct LoopbackHosts {
    names: [String; 3],
}

impl LoopbackHosts {
    pub(crate) fn at(port: u16) -> Self {
        Self {
            names: [
                format!("127.0.0.1:{port}"),
                format!("localhost:{port}"),
                format!("[::1]:{port}"),
            ],
        }
    }

    fn admit(&self, host: Option<&str>) -> bool {
        host.is_some_and(|host| self.names.iter().any(|name| name.eq_ignore_ascii_case(host)))
    }
}

/// Refuses a control request whose `Host` is not one of [`LoopbackHosts`].
pub(crate) async fn only_by_loopback_name(
    State(hosts): State<LoopbackHosts>,
    request: Request,
    next: Next,
) -> Response {
    if request.uri().path().starts_with("/sim/") {
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|value| value.to_str().ok());
        if !hosts.admit(host) {
            return SimError::new(
                StatusCode::FORBIDDEN,
                "HOST_NOT_LOOPBACK",
                format!(
                    "the simulator's controls answer only requests to {} (or localhost, [::1] at that port)",
                    hosts.names[0]
                ),
            )
            .into_response();
        }
    }
    next.run(request).await
}
