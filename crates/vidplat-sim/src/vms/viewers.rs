//! The simultaneous-viewer limit and the access-denial timeout of a viewing
//! page, as far as the document describes them: `max_simultaneous_viewers`
//! (at most 5; absent: unlimited) and `access_denial_timeout` (at most 7200
//! seconds "before re-viewing"); without `aud` the limit does not apply.
//!
//! What the document leaves open, the simulator decides so:
//! - the limit counts the viewing sessions of one `aud` on one page;
//! - a session starts when the page is opened and lasts
//!   `SimConfig::viewing_session` after it was last opened; the simulator
//!   tells a session by the cookie `vidplat_sim_session` it sets, so a browser
//!   reloading the page stays one session, while a client without cookies
//!   starts a new one with every request;
//! - a viewer refused because the limit is reached is refused for
//!   `access_denial_timeout` seconds (all its sessions included) and may view
//!   again after it; without a timeout, as soon as a session ends.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The cookie that tells one viewing session from another.
pub(super) const SESSION_COOKIE: &str = "vidplat_sim_session";

/// The viewing sessions of one page, per `aud`.
#[derive(Debug, Default)]
pub(super) struct Viewers {
    by_audience: HashMap<String, Audience>,
}

#[derive(Debug, Default)]
struct Audience {
    /// Session id → when the page was last opened in it.
    sessions: HashMap<String, Instant>,
    denied_until: Option<Instant>,
}

/// The page's settings for one request.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    pub max_viewers: usize,
    pub denial: Option<Duration>,
    pub session_lifetime: Duration,
}

/// Whether the viewer may open the page.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Admission {
    /// Yes, in this session (a new one or the one its cookie names).
    Admitted { session: String },
    /// No: the limit is reached, or the viewer is within its denial period.
    Refused { why: String },
}

impl Viewers {
    /// Admits `audience` (in the session its cookie names, if any) at `now`.
    pub(super) fn admit(&mut self, audience: &str, cookie: Option<&str>, limits: Limits, now: Instant) -> Admission {
        let viewer = self.by_audience.entry(audience.to_owned()).or_default();
        viewer
            .sessions
            .retain(|_, last_opened| now.saturating_duration_since(*last_opened) < limits.session_lifetime);
        if let Some(until) = viewer.denied_until.filter(|until| *until > now) {
            return Admission::Refused {
                why: format!(
                    "the viewer {audience} was refused for too many simultaneous viewers; it may view again in {} s",
                    until.saturating_duration_since(now).as_secs_f64().ceil()
                ),
            };
        }
        viewer.denied_until = None;
        if let Some(session) = cookie.filter(|session| viewer.sessions.contains_key(*session)) {
            viewer.sessions.insert(session.to_owned(), now);
            return Admission::Admitted {
                session: session.to_owned(),
            };
        }
        if viewer.sessions.len() >= limits.max_viewers {
            viewer.denied_until = limits.denial.map(|denial| now + denial);
            return Admission::Refused {
                why: format!(
                    "the viewer {audience} already watches in {} sessions, the page's max_simultaneous_viewers",
                    viewer.sessions.len()
                ),
            };
        }
        let session = uuid::Uuid::new_v4().simple().to_string();
        viewer.sessions.insert(session.clone(), now);
        Admission::Admitted { session }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        max_viewers: 2,
        denial: Some(Duration::from_secs(10)),
        session_lifetime: Duration::from_secs(60),
    };

    fn session(admission: Admission) -> String {
        match admission {
            Admission::Admitted { session } => session,
            refused => panic!("refused: {refused:?}"),
        }
    }

    #[test]
    fn sessions_count_per_audience_and_a_refusal_lasts_the_denial_timeout() {
        let t0 = Instant::now();
        let mut viewers = Viewers::default();
        let first = session(viewers.admit("a", None, LIMITS, t0));
        session(viewers.admit("a", None, LIMITS, t0));
        session(viewers.admit("b", None, LIMITS, t0));
        // The same session comes back; a third one is refused.
        assert_eq!(session(viewers.admit("a", Some(&first), LIMITS, t0)), first);
        assert!(matches!(
            viewers.admit("a", None, LIMITS, t0),
            Admission::Refused { .. }
        ));
        // Denied for 10 s, even in a session it had.
        let later = t0 + Duration::from_secs(5);
        assert!(matches!(
            viewers.admit("a", Some(&first), LIMITS, later),
            Admission::Refused { .. }
        ));
        // After the sessions ended and the denial passed, it views again.
        session(viewers.admit("a", None, LIMITS, t0 + Duration::from_secs(61)));
    }

    #[test]
    fn without_a_denial_timeout_a_viewer_waits_only_for_a_session_to_end() {
        let t0 = Instant::now();
        let limits = Limits {
            max_viewers: 1,
            denial: None,
            ..LIMITS
        };
        let mut viewers = Viewers::default();
        session(viewers.admit("a", None, limits, t0));
        assert!(matches!(
            viewers.admit("a", None, limits, t0),
            Admission::Refused { .. }
        ));
        session(viewers.admit("a", None, limits, t0 + Duration::from_secs(60)));
    }
}
