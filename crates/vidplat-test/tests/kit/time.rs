//! Tokio's paused time: the client's waits (the analytics quota, backoff,
//! waiters) pass in tokio's clock, not the wall clock.

use std::time::Duration;
use vidplat::analytics::types::CloudOsPage;
use vidplat::Call;
use vidplat_test::{analytics, Fixture, Mock};

#[tokio::test(start_paused = true)]
async fn a_60_second_quota_wait_takes_milliseconds_of_real_time() {
    let mock = Mock::new();
    let rule = mock.on(analytics::CloudByOs).respond(CloudOsPage::fixture()).always();
    // The documented quota: 3 calls a minute. The 4th waits for the next minute.
    let client = mock.client();
    let analytics = client.analytics().unwrap();
    let wall = std::time::Instant::now();
    let tokio_started = tokio::time::Instant::now();
    for _ in 0..4 {
        analytics.cloud_by_os().call().await.unwrap();
    }
    let waited = tokio_started.elapsed();
    assert!(waited >= Duration::from_secs(60), "{waited:?}");
    assert!(waited < Duration::from_secs(62), "{waited:?}");
    assert!(
        wall.elapsed() < Duration::from_secs(2),
        "real time: {:?}",
        wall.elapsed()
    );
    assert_eq!(rule.calls(), 4);
    assert_eq!(client.analytics_quota().unwrap().usage().used, 4);
}
