//! The analytics limiter against a local server that enforces the documented
//! limits (calls per window, one at a time) and answers 429 when they are broken
//! (the window is one second here instead of a minute, on both sides); and
//! against the test kit's mock, the server's 429 and 408 answers.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vidplat::analytics::types::{CloudOsPage, ErrorCode as AnalyticsCode};
use vidplat::{Client, Error, Quota, QuotaConfig, QuotaMode, WaitCause};
use vidplat_test::analytics;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const WINDOW: Duration = Duration::from_secs(1);
const SERVER_DELAY: Duration = Duration::from_millis(40);

/// 3 calls per WINDOW and 1 at a time, counted at their arrival: one reading
/// of the documents, which do not show how a call is counted in its minute
/// (the simulator counts it until a window after its end).
#[derive(Clone, Default)]
struct EnforcingServer {
    arrivals: Arc<Mutex<Vec<Instant>>>,
    refused: Arc<Mutex<usize>>,
}

impl Respond for EnforcingServer {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let now = Instant::now();
        let mut arrivals = self.arrivals.lock().unwrap();
        let in_window = arrivals.iter().filter(|t| now.duration_since(**t) < WINDOW).count();
        let in_flight = arrivals
            .iter()
            .filter(|t| now.duration_since(**t) < SERVER_DELAY)
            .count();
        arrivals.push(now);
        if in_window >= 3 || in_flight >= 1 {
            *self.refused.lock().unwrap() += 1;
            return ResponseTemplate::new(429)
                .insert_header("retry-after", "1")
                .set_body_json(serde_json::json!({"code": "TOO_MANY_REQUESTS", "message": "limit"}));
        }
        ResponseTemplate::new(200).set_delay(SERVER_DELAY).set_body_json(
            serde_json::json!({"data": [{"os_name": "Android", "play_requested_count": 3}], "truncated": false}),
        )
    }
}

fn quota(mode: QuotaMode) -> QuotaConfig {
    QuotaConfig {
        window: WINDOW,
        safety_margin: Duration::from_millis(60),
        mode,
        ..QuotaConfig::default()
    }
}

/// A local server enforcing the limits on /v2/os/data, and a client limited by `mode`.
async fn enforced(mode: QuotaMode) -> (MockServer, EnforcingServer, Client) {
    let server = MockServer::start().await;
    let enforcing = EnforcingServer::default();
    Mock::given(wiremock::matchers::path("/v2/os/data"))
        .respond_with(enforcing.clone())
        .mount(&server)
        .await;
    let client = vidplat_tests::local_client(&server.uri())
        .analytics_quota(quota(mode))
        .build()
        .unwrap();
    (server, enforcing, client)
}

#[tokio::test]
async fn a_burst_of_ten_draws_no_429() {
    let (_server, enforcing, client) = enforced(QuotaMode::Wait).await;

    let started = Instant::now();
    let calls = (0..10).map(|_| {
        let client = client.clone(); // clones share the limiter
        tokio::spawn(async move {
            client
                .analytics()
                .unwrap()
                .cloud_by_os()
                .send()
                .await
                .map(|page| page.data.len())
        })
    });
    for call in calls {
        assert_eq!(call.await.unwrap().unwrap(), 1);
    }
    assert_eq!(*enforcing.refused.lock().unwrap(), 0, "the server refused a call");
    assert_eq!(enforcing.arrivals.lock().unwrap().len(), 10);
    // 10 calls at 3 per window need at least 3 full windows.
    assert!(started.elapsed() >= 3 * WINDOW, "{:?}", started.elapsed());
    assert_eq!(client.analytics_quota().unwrap().remaining(), 50_000 - 10);
}

/// The simulator counts a call in the window from its admission until a
/// window after its end (how the service counts is not shown): calls slower
/// than the safety margin keep to that too, one after another.
#[tokio::test]
async fn calls_slower_than_the_safety_margin_draw_no_429_where_a_call_counts_until_after_its_end() {
    let sim = vidplat_sim::Simulator::start_with(vidplat_sim::SimConfig {
        analytics_window: WINDOW,
        analytics_latency: Duration::from_millis(300),
        ..vidplat_sim::SimConfig::default()
    })
    .await
    .unwrap();
    let client = sim
        .client()
        .analytics_quota(quota(QuotaMode::Wait))
        .retry(vidplat::RetryPolicy::never())
        .build()
        .unwrap();
    let analytics = client.analytics().unwrap();
    for call in 0..5 {
        let answer = analytics.cloud_by_os().send().await;
        assert!(answer.is_ok(), "call {call}: {answer:?}");
    }
    assert_eq!(sim.analytics_stats().refused(), 0);
}

#[tokio::test]
async fn fail_fast_reports_the_quota_without_sending() {
    let (_server, enforcing, client) = enforced(QuotaMode::FailFast).await;
    let analytics = client.analytics().unwrap();
    for _ in 0..3 {
        analytics.cloud_by_os().send().await.unwrap();
    }
    let error: Error = analytics.cloud_by_os().send().await.unwrap_err().into();
    match error {
        Error::RateLimited {
            quota,
            retry_after,
            response: None,
        } => {
            assert_eq!(quota, Quota::PerMinute);
            assert!(
                retry_after.is_some_and(|after| after <= Duration::from_secs(2)),
                "{retry_after:?}"
            );
        }
        other => panic!("expected RateLimited, got {other:?}"),
    }
    assert_eq!(
        enforcing.arrivals.lock().unwrap().len(),
        3,
        "the refused call never left"
    );
}

#[tokio::test(start_paused = true)]
async fn a_server_429_is_rate_limited_and_a_408_is_query_too_slow() {
    let mock = vidplat_test::Mock::new();
    mock.on(analytics::CloudByOs)
        .fail(429, AnalyticsCode::TooManyRequests)
        .header("retry-after", "30")
        .always();
    let history = mock
        .on(analytics::CloudViewingHistory)
        .fail_with_message(408, AnalyticsCode::RequestTimeout, Some("slow"))
        .always();
    let client = mock
        .client_builder()
        .analytics_quota(None)
        .retry(vidplat::RetryPolicy::never())
        .build()
        .unwrap();
    let analytics = client.analytics().unwrap();
    let limited: Error = analytics.cloud_by_os().send().await.unwrap_err().into();
    assert!(
        matches!(limited, Error::RateLimited { quota: Quota::Unspecified, retry_after: Some(d), response: Some(_) } if d == Duration::from_secs(30)),
        "{limited:?}"
    );
    // The server's code is kept, and nothing the server did not send is invented.
    assert_eq!(
        (limited.status(), limited.code(), limited.message()),
        (Some(429), Some("TOO_MANY_REQUESTS"), None)
    );
    // With the default retry policy: 408 is not a status worth another attempt.
    let default_policy = mock.client_builder().analytics_quota(None).build().unwrap();
    let slow: Error = default_policy
        .analytics()
        .unwrap()
        .cloud_viewing_history()
        .send()
        .await
        .unwrap_err()
        .into();
    assert!(matches!(slow, Error::QueryTooSlow { .. }), "{slow:?}");
    assert!(slow.to_string().contains("shorten the period"), "{slow}");
    assert!(!slow.is_retryable());
    assert_eq!(history.calls(), 1);
}

/// One deadline: `total_timeout` bounds the wait for a quota turn. The 4th
/// call within a minute cannot get its turn for about 60 s; with a 3 s budget it
/// ends within the budget, saying when to retry, and nothing is sent.
#[tokio::test]
async fn the_quota_wait_ends_with_the_total_timeout() {
    let (_server, enforcing, _) = enforced(QuotaMode::Wait).await;
    let client = vidplat_tests::local_client(&_server.uri())
        .analytics_quota(QuotaConfig::default())
        .total_timeout(Duration::from_secs(3))
        .build()
        .unwrap();
    let analytics = client.analytics().unwrap();
    for _ in 0..3 {
        analytics.cloud_by_os().send().await.unwrap();
        // The enforcing server allows one call in flight: let the last one end.
        tokio::time::sleep(SERVER_DELAY).await;
    }
    let started = Instant::now();
    // Bounded, so that a client that waits the whole minute fails here instead of hanging.
    let outcome = tokio::time::timeout(Duration::from_secs(10), analytics.cloud_by_os().send()).await;
    let error: Error = outcome
        .expect("the call ends within its 3 s deadline")
        .unwrap_err()
        .into();
    assert!(
        started.elapsed() <= Duration::from_secs(3) + SERVER_DELAY,
        "{:?}",
        started.elapsed()
    );
    match error {
        Error::RateLimited {
            quota: Quota::PerMinute,
            retry_after: Some(after),
            response: None,
        } => assert!(after > Duration::from_secs(50), "{after:?}"),
        Error::Timeout(_) => {}
        other => panic!("expected RateLimited or Timeout, got {other:?}"),
    }
    assert_eq!(enforcing.arrivals.lock().unwrap().len(), 3, "the 4th call never left");
}

#[tokio::test(start_paused = true)]
async fn the_wait_after_a_server_429_is_published_and_the_refused_attempt_counted() {
    let mock = vidplat_test::Mock::new();
    mock.on(analytics::CloudByOs)
        .fail_with_message(429, AnalyticsCode::TooManyRequests, Some("limit"))
        .header("retry-after", "1")
        .then()
        .respond(CloudOsPage::default());
    let client = mock
        .client_builder()
        .analytics_quota(QuotaConfig {
            safety_margin: Duration::ZERO,
            ..QuotaConfig::default()
        })
        .build()
        .unwrap();
    let limiter = client.analytics_quota().unwrap().clone();
    let mut waits = limiter.watch_waits();
    let call = tokio::spawn(async move { client.analytics().unwrap().cloud_by_os().send().await.is_ok() });
    let shown = tokio::time::timeout(Duration::from_secs(5), waits.wait_for(Option::is_some))
        .await
        .unwrap()
        .unwrap()
        .expect("the wait was shown");
    assert_eq!(
        (shown.quota, shown.cause),
        (Quota::Unspecified, WaitCause::ServerRefused)
    );
    let left = shown.left().expect("the server said how long");
    assert!(
        left > Duration::from_millis(500) && left <= Duration::from_secs(1),
        "{left:?}"
    );
    assert_eq!(
        shown.to_string(),
        "waiting 1 s: the server refused the last attempt (429 Too Many Requests)"
    );
    assert!(call.await.unwrap(), "the retry succeeded");
    mock.verify();
    assert_eq!(limiter.current_wait(), None, "cleared when the retry started");
    let usage = limiter.usage();
    assert_eq!((usage.used, usage.refused_by_server, usage.remaining()), (2, 1, 49_998));
    assert_eq!(
        usage.to_string(),
        "2 of 50000 analytics calls used this month (1 refused by the server with 429)"
    );
}
