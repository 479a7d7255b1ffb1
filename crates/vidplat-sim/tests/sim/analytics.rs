//! The simulated viewing-analytics service, driven through the `vidplat`
//! facade over real HTTP: every operation of both editions, the synthetic
//! data's windows, sorts, periods and filters, the usage limits (429 with
//! Retry-After), the slow-query 408 and the credentials.

use std::time::{Duration, Instant};
use vidplat::analytics::types;
use vidplat::{Call, Error, Quota, QuotaConfig, QuotaMode, RetryPolicy};
use vidplat_sim::{SimConfig, Simulator};

/// Fast, and roomy limits for the tests that do not test them.
fn roomy() -> SimConfig {
    SimConfig {
        analytics_per_minute: 10_000,
        ..SimConfig::fast()
    }
}

/// A facade client that sends every call (no client-side limiter) exactly once.
fn unlimited(sim: &Simulator) -> vidplat::Client {
    sim.client()
        .analytics_quota(None)
        .retry(RetryPolicy::never())
        .build()
        .expect("a client for the simulator")
}

async fn start(config: SimConfig) -> (Simulator, vidplat::Client) {
    let sim = Simulator::start_with(config).await.expect("the simulator starts");
    let client = unlimited(&sim);
    (sim, client)
}

/// Status and code of an error answered by the simulator.
fn answered(error: &Error) -> (Option<u16>, Option<&str>) {
    (error.status(), error.code())
}

fn is_server_429(error: &Error) -> bool {
    matches!(
        error,
        Error::RateLimited {
            quota: Quota::Unspecified,
            retry_after: Some(_),
            response: Some(_),
        }
    )
}

const START: &str = "2024-10-01 00:00:00";
const END: &str = "2024-10-02 23:59:59";

#[tokio::test]
async fn every_operation_answers_its_page() -> Result<(), Error> {
    let (sim, client) = start(roomy()).await;
    let analytics = client.analytics()?;

    let realtime = analytics
        .basic_realtime_user_counts()
        .login_id(sim.login_id.as_str())
        .call()
        .await?;
    assert_eq!(realtime.data.len(), 1, "without minutes: only the latest minute");
    assert_eq!(realtime.data[0].titles.len(), 3);
    assert_eq!(
        realtime.data[0].count,
        Some(realtime.data[0].titles.iter().filter_map(|t| t.count).sum())
    );
    assert_eq!(analytics.basic_by_time_period().call().await?.data.len(), 100);
    assert_eq!(analytics.basic_by_content_category().call().await?.data.len(), 6);
    assert_eq!(analytics.basic_by_content_title().call().await?.data.len(), 12);
    assert_eq!(
        analytics.basic_by_content_title_and_user().call().await?.data.len(),
        100
    );
    assert_eq!(analytics.basic_by_user().call().await?.data.len(), 100);
    assert!(!analytics.basic_by_os().call().await?.data.is_empty());
    assert!(!analytics.basic_by_environment().call().await?.data.is_empty());
    assert!(!analytics.basic_by_site().call().await?.data.is_empty());
    assert!(!analytics.basic_by_region().call().await?.data.is_empty());
    let history = analytics.basic_viewing_history().call().await?;
    assert_eq!(history.data.len(), 100);
    assert!(
        history.data.windows(2).all(|w| w[0].date_time >= w[1].date_time),
        "newest first"
    );
    assert_eq!(
        analytics.basic_query().call().await?.data.len(),
        12,
        "one row per title by default"
    );
    assert_eq!(analytics.basic_audience_rating().call().await?.data.len(), 12);
    assert!(!analytics.basic_reaction().call().await?.data.is_empty());
    let situation = analytics.basic_viewing_situation().parameter("bitrate").call().await?;
    assert_eq!(situation.data.len(), 12);
    assert_eq!(
        situation.golden,
        Some(false),
        "the default period ended yesterday, within the settling days"
    );
    assert_eq!(situation.unsampled, Some(true));

    let realtime = analytics.cloud_realtime_user_counts().call().await?;
    assert!(
        (15..=16).contains(&realtime.data.len()),
        "one row a minute over the last 15 minutes"
    );
    assert!(!analytics.cloud_user_counts_legacy().call().await?.data.is_empty());
    assert_eq!(analytics.cloud_active_users().call().await?.data.len(), 100);
    assert_eq!(analytics.cloud_by_time_period().call().await?.data.len(), 100);
    assert_eq!(analytics.cloud_by_content_title().call().await?.data.len(), 12);
    assert_eq!(
        analytics.cloud_by_content_title_and_user().call().await?.data.len(),
        100
    );
    assert_eq!(analytics.cloud_by_content_name().call().await?.data.len(), 12);
    assert_eq!(analytics.cloud_by_content_name_and_user().call().await?.data.len(), 100);
    assert_eq!(analytics.cloud_by_content_category().call().await?.data.len(), 6);
    assert_eq!(analytics.cloud_by_user().call().await?.data.len(), 100);
    assert!(!analytics.cloud_by_os().call().await?.data.is_empty());
    assert!(!analytics.cloud_by_browser().call().await?.data.is_empty());
    assert!(!analytics.cloud_by_site().call().await?.data.is_empty());
    assert!(!analytics.cloud_by_region().call().await?.data.is_empty());
    assert_eq!(analytics.cloud_viewing_history().call().await?.data.len(), 100);
    assert_eq!(analytics.cloud_query().call().await?.data.len(), 12);
    assert_eq!(analytics.cloud_engagement().call().await?.data.len(), 20);
    assert_eq!(
        analytics.cloud_reaction().call().await?.data.len(),
        3,
        "one entry per button"
    );
    let situation = analytics.cloud_viewing_situation().parameter("bitrate").call().await?;
    assert_eq!(situation.data.len(), 4, "one entry per bitrate");
    assert!(situation
        .data
        .iter()
        .all(|entry| entry.bitrate.is_some() && entry.segment.len() == 20));
    Ok(())
}

#[tokio::test]
async fn identical_requests_get_identical_answers_and_the_seed_decides() -> Result<(), Error> {
    let (_sim, client) = start(roomy()).await;
    let (_other_sim, other_seed) = start(SimConfig { seed: 8, ..roomy() }).await;
    let history = |client: vidplat::Client| async move {
        let page = client
            .analytics()?
            .cloud_viewing_history()
            .start(START)
            .end(END)
            .call()
            .await?;
        Ok::<_, Error>(serde_json::to_value(page).expect("encodes"))
    };
    let first = history(client.clone()).await?;
    assert_eq!(first, history(client.clone()).await?);
    assert_ne!(first, history(other_seed).await?);

    let analytics = client.analytics()?;
    let by_os = || analytics.basic_by_os().start_interval(-10).end_interval(-3);
    let first = serde_json::to_value(by_os().call().await?).expect("encodes");
    assert_eq!(first, serde_json::to_value(by_os().call().await?).expect("encodes"));
    let engagement = || analytics.cloud_engagement().start(START).end(END).granularity(10u64);
    let first = serde_json::to_value(engagement().call().await?).expect("encodes");
    assert_eq!(
        first,
        serde_json::to_value(engagement().call().await?).expect("encodes")
    );
    Ok(())
}

#[tokio::test]
async fn basic_rank_windows_sort_and_truncated() -> Result<(), Error> {
    let (_sim, client) = start(roomy()).await;
    let analytics = client.analytics()?;
    let all = analytics.basic_by_user().end_with(1_000u64).call().await?;
    assert_eq!(all.truncated, Some(false));
    let users = all.data.len();
    assert!(users > 100, "{users} users");
    assert!(
        all.data.windows(2).all(|w| w[0].playback_count >= w[1].playback_count),
        "sorted by playback_count DESC by default"
    );

    let first = analytics.basic_by_user().call().await?;
    assert_eq!(first.data.len(), 100, "ranks 1 to 100 by default");
    assert_eq!(first.truncated, Some(true));
    let ids = |rows: &[types::BasicUserRow]| rows.iter().map(|r| r.user_id.clone()).collect::<Vec<_>>();
    let window = analytics.basic_by_user().start_with(3u64).end_with(7u64).call().await?;
    assert_eq!(ids(&window.data), ids(&all.data[2..7]));
    assert_eq!(window.truncated, Some(true));
    let last = analytics
        .basic_by_user()
        .start_with(users as u64 - 1)
        .end_with(users as u64 + 5)
        .call()
        .await?;
    assert_eq!(ids(&last.data), ids(&all.data[users - 2..]));
    assert_eq!(last.truncated, Some(false));

    let ascending = analytics
        .basic_by_user()
        .sort_key("play_count")
        .sort_order("ASC")
        .end_with(1_000u64)
        .call()
        .await?;
    assert!(ascending.data.windows(2).all(|w| w[0].play_count <= w[1].play_count));
    let by_title_user = analytics
        .basic_by_content_title_and_user()
        .end_with(1_000u64)
        .call()
        .await?;
    assert!(
        by_title_user
            .data
            .windows(2)
            .all(|w| w[0].content_category >= w[1].content_category),
        "sorted by content_category DESC by default"
    );
    Ok(())
}

#[tokio::test]
async fn basic_periods_are_days_relative_to_today() -> Result<(), Error> {
    let (_sim, client) = start(roomy()).await;
    let analytics = client.analytics()?;
    let day = |days: i64| async move {
        let page = analytics
            .basic_by_time_period()
            .start_interval(days)
            .end_interval(days)
            .granularity("daily")
            .call()
            .await?;
        assert_eq!(page.data.len(), 1);
        Ok::<_, Error>(page.data[0].clone())
    };
    let (yesterday, before) = (day(-1).await?, day(-2).await?);
    let (yesterday_date, before_date) = (yesterday.date_time.clone().unwrap(), before.date_time.clone().unwrap());
    assert_eq!(yesterday_date.len(), "yyyy-mm-dd".len());
    assert!(before_date < yesterday_date);

    let hours = analytics
        .basic_by_time_period()
        .start_interval(-2)
        .end_interval(-1)
        .sort_key("date_time")
        .sort_order("ASC")
        .call()
        .await?;
    assert_eq!(hours.data.len(), 48, "one row per hour, empty hours included");
    assert_eq!(hours.data[0].date_time, Some(format!("{before_date} 00:00")));
    assert_eq!(hours.data[47].date_time, Some(format!("{yesterday_date} 23:00")));
    assert_eq!(hours.golden, Some(false), "yesterday is within the 2 settling days");
    let settled = analytics
        .basic_by_time_period()
        .start_interval(-4)
        .end_interval(-3)
        .call()
        .await?;
    assert_eq!(settled.golden, Some(true), "3 days ago is past the 2 settling days");
    let hourly_sum: i64 = hours.data[24..].iter().filter_map(|row| row.playback_count).sum();
    assert_eq!(
        Some(hourly_sum),
        yesterday.playback_count,
        "the hours add up to the day"
    );

    let today = analytics
        .basic_by_content_category()
        .start_interval(0)
        .end_interval(0)
        .call()
        .await?;
    assert_eq!(today.golden, Some(false), "today's data is not final");
    Ok(())
}

/// The basic edition's widest rank window is not shown: the simulator
/// answers 10,000 ranks at once by default and refuses a wider window with
/// 400, so code that narrows its window on that refusal works whatever the
/// service's maximum is; `analytics_basic_max_window: None` takes any width.
#[tokio::test]
async fn a_basic_window_past_the_maximum_is_refused_with_400() -> Result<(), Error> {
    let (_sim, client) = start(roomy()).await;
    let analytics = client.analytics()?;
    let wide = |end: u64| analytics.basic_viewing_history().start_with(1u64).end_with(end).call();
    assert!(wide(10_000).await.is_ok(), "10,000 ranks are answered");
    match wide(10_001).await {
        Err(Error::Api(api)) => {
            assert_eq!(api.status, 400);
            assert!(api.message.unwrap_or_default().contains("at most 10000"));
        }
        other => panic!("expected a 400, got {other:?}"),
    }
    let (_any, client) = start(SimConfig {
        analytics_basic_max_window: None,
        ..roomy()
    })
    .await;
    assert!(client
        .analytics()?
        .basic_viewing_history()
        .start_with(1u64)
        .end_with(50_000u64)
        .call()
        .await
        .is_ok());
    Ok(())
}

/// Days that have not happened (in the simulator's zone, Japan time here)
/// have no viewing: a future period answers no rows, or zeros where the
/// operation answers a fixed series (one row per hour, one point per
/// position); today has data only up to now.
#[tokio::test]
async fn periods_past_now_have_no_data() -> Result<(), Error> {
    use chrono::{Duration, Utc};
    use serde_json::{json, Value};
    let (sim, client) = start(roomy()).await;
    let japan_now = || Utc::now().naive_utc() + Duration::hours(9);
    let http = crate::raw_http();
    let get = |path: String| {
        let request = http
            .get(format!("{}{path}", sim.analytics_url))
            .bearer_auth(&sim.api_key);
        async move {
            let answer = request.send().await.expect("an answer");
            assert_eq!(answer.status().as_u16(), 200, "{path}");
            answer.json::<Value>().await.expect("a JSON body")
        }
    };
    // The day after tomorrow: well clear of midnight while the test runs.
    let day = (japan_now() + Duration::days(2)).format("%Y-%m-%d").to_string();
    let period = format!("start={day}%2000:00:00&end={day}%2023:59:59");
    let empty = json!({"data": [], "truncated": false});
    for path in [
        "/v2/history",
        "/v2/title/data",
        "/v2/userid/data",
        "/v2/data",
        "/v2/user-counts/data",
    ] {
        assert_eq!(get(format!("{path}?{period}")).await, empty, "{path}");
    }
    assert_eq!(get(format!("/v2/reaction/data?{period}")).await, json!({"data": []}));
    let zero_row = |hour: u32| {
        json!({
            "date_time": format!("{day} {hour:02}:00:00"),
            "ad_impressions": 0, "avg_play_percent": 0, "avg_play_time": 0, "player_impressions": 0,
            "play_requested_count": 0, "play_started_count": 0, "total_play_time": 0,
            "impression_user_count": 0, "user_count": 0
        })
    };
    assert_eq!(
        get(format!("/v2/datetime/data?{period}")).await,
        json!({"data": (0..24).map(zero_row).collect::<Vec<_>>(), "truncated": false})
    );
    let zero_points: Vec<Value> = (0..20)
        .map(|i| json!({"playback_point": i * 5, "count": 0, "rating": 0.0}))
        .collect();
    assert_eq!(
        get(format!("/v2/engagement/data?{period}")).await,
        json!({ "data": zero_points })
    );

    // Today: sessions up to now only, and no counts in the hours to come.
    let analytics = client.analytics()?;
    let today = japan_now().format("%Y-%m-%d").to_string();
    let (start, end) = (format!("{today} 00:00:00"), format!("{today} 23:59:59"));
    let history = analytics
        .cloud_viewing_history()
        .start(start.as_str())
        .end(end.as_str())
        .limit(50_000u64)
        .call()
        .await?;
    let now = japan_now().format("%Y-%m-%d %H:%M:%S").to_string();
    assert!(
        history
            .data
            .iter()
            .all(|row| row.date_time.as_deref() <= Some(now.as_str())),
        "a session after {now}: {:?}",
        history.data.first().map(|row| &row.date_time)
    );
    let hours = analytics
        .cloud_by_time_period()
        .start(start.as_str())
        .end(end.as_str())
        .call()
        .await?;
    assert_eq!(hours.data.len(), 24, "one row per hour of the period");
    let hour_now = japan_now().format("%Y-%m-%d %H:00:00").to_string();
    for row in hours
        .data
        .iter()
        .filter(|row| row.date_time.as_deref() > Some(hour_now.as_str()))
    {
        assert_eq!(
            (row.player_impressions, row.play_requested_count),
            (Some(0), Some(0)),
            "{:?} has not begun",
            row.date_time
        );
    }
    let basic = analytics
        .basic_viewing_history()
        .start_interval(0)
        .end_interval(0)
        .end_with(10_000)
        .call()
        .await?;
    let minute = japan_now().format("%Y-%m-%d %H:%M").to_string();
    assert!(basic
        .data
        .iter()
        .all(|row| row.date_time.as_deref() <= Some(minute.as_str())));
    Ok(())
}

#[tokio::test]
async fn cloud_offset_limit_sort_and_period() -> Result<(), Error> {
    let (_sim, client) = start(roomy()).await;
    let analytics = client.analytics()?;
    let hours = || analytics.cloud_by_time_period().start(START).end(END);
    let all = hours().call().await?;
    assert_eq!(all.data.len(), 48);
    assert_eq!(all.truncated, Some(false));
    assert_eq!(
        all.data[0].date_time.as_deref(),
        Some("2024-10-01 00:00:00"),
        "date_time asc by default"
    );
    assert_eq!(all.data[47].date_time.as_deref(), Some("2024-10-02 23:00:00"));

    let page = hours().offset(40).limit(10u64).call().await?;
    assert_eq!(page.data.len(), 8);
    assert_eq!(page.data[0].date_time.as_deref(), Some("2024-10-02 16:00:00"));
    assert_eq!(page.truncated, Some(false));
    let page = hours().limit(10u64).call().await?;
    assert_eq!(page.data.len(), 10);
    assert_eq!(page.truncated, Some(true));

    let newest = hours().sort("date_time|desc").limit(1u64).call().await?;
    assert_eq!(newest.data[0].date_time.as_deref(), Some("2024-10-02 23:00:00"));
    let busiest = hours().sort("play_started_count|desc").call().await?;
    assert!(busiest
        .data
        .windows(2)
        .all(|w| w[0].play_started_count >= w[1].play_started_count));

    let days = hours().granularity("daily").call().await?;
    let dates: Vec<_> = days.data.iter().map(|row| row.date_time.clone().unwrap()).collect();
    assert_eq!(dates, ["2024-10-01 00:00:00", "2024-10-02 00:00:00"]);
    let second_day: i64 = all.data[24..].iter().filter_map(|row| row.play_requested_count).sum();
    assert_eq!(days.data[1].play_requested_count, Some(second_day));

    let active = analytics.cloud_active_users().start(START).end(END).call().await?;
    assert_eq!(active.data.len(), 48);
    let legacy = analytics
        .cloud_user_counts_legacy()
        .start(START)
        .end(END)
        .group_per("content_name")
        .call()
        .await?;
    assert!(legacy
        .data
        .iter()
        .all(|row| row.content_name.is_some() && row.content_title.is_some()));

    let realtime = analytics
        .cloud_realtime_user_counts()
        .start("2024-10-01 12:00:00")
        .end("2024-10-01 12:05:00")
        .group_per("content_name")
        .call()
        .await?;
    assert_eq!(realtime.data.len(), 6 * 3, "six minutes, three live contents");
    assert_eq!(
        realtime.data[0].date_time.as_deref(),
        Some("2024-10-01 12:05:00"),
        "date_time desc"
    );
    Ok(())
}

#[tokio::test]
async fn filters_narrow_the_data() -> Result<(), Error> {
    let (_sim, client) = start(roomy()).await;
    let analytics = client.analytics()?;
    let ios = analytics
        .basic_by_os()
        .filters(r#"[{"item": "os", "condition": "equal", "value": ["iOS"]}]"#)
        .call()
        .await?;
    assert!(!ios.data.is_empty());
    assert!(ios.data.iter().all(|row| row.os.as_deref() == Some("iOS")));

    let total = |rows: &[types::BasicContentTitleRow]| rows.iter().filter_map(|r| r.playback_count).sum::<i64>();
    let every_player = analytics.basic_by_content_title().call().await?;
    let one_player = analytics
        .basic_by_content_title()
        .filters(r#"[{"item": "player_version", "condition": "equal", "value": ["2.4.0"]}]"#)
        .call()
        .await?;
    assert!(0 < total(&one_player.data) && total(&one_player.data) < total(&every_player.data));

    let one_content = analytics
        .cloud_by_content_name()
        .filters(r#"{"content_name": ["content-001"]}"#)
        .call()
        .await?;
    let names: Vec<_> = one_content.data.iter().map(|row| row.content_name.as_deref()).collect();
    assert_eq!(names, [Some("content-001")]);
    let not_ios = analytics
        .cloud_by_os()
        .filters(r#"{"os_name:not_equal": ["iOS"], "player_name": ["vidplat-player"]}"#)
        .call()
        .await?;
    assert!(!not_ios.data.is_empty());
    assert!(not_ios
        .data
        .iter()
        .all(|row| row.os_name.as_deref() != Some("iOS") && row.player_name.as_deref() == Some("vidplat-player")));
    Ok(())
}

#[tokio::test]
async fn generic_queries_return_the_requested_fields() -> Result<(), Error> {
    let (_sim, client) = start(roomy()).await;
    let analytics = client.analytics()?;
    let rows = analytics
        .basic_query()
        .dimensions("os,content_category")
        .metrics("play_count,user_count")
        .sort_key("play_count")
        .sort_order("DESC")
        .end_with(1_000u64)
        .call()
        .await?
        .data;
    assert!(rows.len() > 12);
    assert!(rows.iter().all(|row| row.os.is_some()
        && row.content_category.is_some()
        && row.play_count.is_some()
        && row.user_count.is_some()
        && row.content_title.is_none()
        && row.playback_count.is_none()));
    assert!(rows.windows(2).all(|w| w[0].play_count >= w[1].play_count));

    let days = analytics
        .cloud_query()
        .start(START)
        .end(END)
        .dimensions("date")
        .metrics("complete_play_percent,play_requested_count")
        .sort("date|asc")
        .call()
        .await?
        .data;
    let dates: Vec<_> = days.iter().map(|row| row.date.as_deref()).collect();
    assert_eq!(dates, [Some("2024-10-01"), Some("2024-10-02")]);
    assert!(days
        .iter()
        .all(|row| row.complete_play_percent.is_some() && row.user_count.is_none()));
    Ok(())
}

#[tokio::test]
async fn positional_operations_window_their_arrays() -> Result<(), Error> {
    let (_sim, client) = start(roomy()).await;
    let analytics = client.analytics()?;
    let rating = analytics
        .basic_audience_rating()
        .start_with(11u64)
        .end_with(20u64)
        .call()
        .await?;
    assert_eq!(rating.truncated, Some(true));
    for row in &rating.data {
        let points: Vec<_> = row.audience[0].segment.iter().map(|s| s.playback_point).collect();
        assert_eq!(points, (10..20).map(Some).collect::<Vec<_>>());
    }
    let whole = analytics.basic_audience_rating().call().await?;
    assert_eq!(whole.truncated, Some(false));
    assert!(whole.data.iter().all(|row| row.audience[0].segment.len() == 100));
    let reaction = analytics.basic_reaction().end_with(10u64).call().await?;
    assert!(reaction
        .data
        .iter()
        .flat_map(|row| &row.reaction)
        .all(|button| button.segment.len() == 10));
    let situation = analytics
        .basic_viewing_situation()
        .parameter("playback_status")
        .end_with(5u64)
        .call()
        .await?;
    for entry in situation.data.iter().flat_map(|row| &row.situation) {
        assert!(matches!(
            entry.playback_status.as_deref(),
            Some("foreground" | "background")
        ));
        assert_eq!(entry.segment.len(), 5);
    }

    let engagement = analytics
        .cloud_engagement()
        .start(START)
        .end(END)
        .granularity(10u64)
        .call()
        .await?
        .data;
    let points: Vec<_> = engagement.iter().map(|point| point.playback_point).collect();
    assert_eq!(points, (0..10).map(|i| Some(i * 10)).collect::<Vec<_>>());
    assert_eq!(engagement[0].rating, Some(100.0), "every play passes its first tenth");
    assert!(engagement.windows(2).all(|w| w[0].count >= w[1].count));
    let reaction = analytics.cloud_reaction().granularity(4u64).call().await?.data;
    for button in &reaction {
        let points: Vec<_> = button.segment.iter().map(|s| s.reaction_point).collect();
        assert_eq!(points, [Some(0), Some(25), Some(50), Some(75)]);
    }
    let background = analytics
        .cloud_viewing_situation()
        .parameter("is_background")
        .call()
        .await?
        .data;
    let values: Vec<_> = background.iter().map(|entry| entry.is_background).collect();
    assert_eq!(values, [Some(false), Some(true)]);
    Ok(())
}

#[tokio::test]
async fn cloud_content_reports_take_their_parameters() -> Result<(), Error> {
    let (_sim, client) = start(roomy()).await;
    let analytics = client.analytics()?;
    let complete = |threshold: u64| async move {
        let rows = analytics
            .cloud_by_content_title()
            .complete_play_percent_threshold(threshold)
            .sort("content_title|asc")
            .call()
            .await?
            .data;
        Ok::<_, Error>(
            rows.into_iter()
                .map(|row| row.complete_play_percent.unwrap_or(-1.0))
                .collect::<Vec<_>>(),
        )
    };
    let (lenient, strict) = (complete(50).await?, complete(90).await?);
    assert!(lenient.iter().zip(&strict).all(|(l, s)| l >= s && *s >= 0.0));
    assert!(lenient.iter().zip(&strict).any(|(l, s)| l > s));

    let bitmaps = analytics
        .cloud_by_content_title_and_user()
        .engagement_bitmap_granularity(5u64)
        .call()
        .await?
        .data;
    assert!(bitmaps.iter().all(|row| row.engagement_bitmap.len() == 5));
    assert!(bitmaps.windows(2).all(|w| w[0].content_title <= w[1].content_title));

    // By content name and user sorts by the content's title (the documented default) although rows carry the name.
    let titles: std::collections::HashMap<_, _> = analytics
        .cloud_viewing_history()
        .limit(1_000u64)
        .call()
        .await?
        .data
        .into_iter()
        .map(|row| (row.content_name, row.content_title))
        .collect();
    let by_name = analytics
        .cloud_by_content_name_and_user()
        .limit(1_000u64)
        .call()
        .await?
        .data;
    let in_order: Vec<_> = by_name.iter().map(|row| titles[&row.content_name].clone()).collect();
    assert!(in_order.windows(2).all(|w| w[0] <= w[1]));
    Ok(())
}

#[tokio::test]
async fn invalid_parameters_answer_400_and_unknown_situations_404() -> Result<(), Error> {
    let (_sim, client) = start(roomy()).await;
    let analytics = client.analytics()?;
    let invalid = (Some(400), Some("INVALID_REQUEST"));
    let refused = [
        analytics.basic_by_os().sort_key("play_count").call().await.err(),
        analytics.basic_by_os().sort_order("DESC").call().await.err(),
        analytics
            .basic_by_os()
            .sort_key("nope")
            .sort_order("DESC")
            .call()
            .await
            .err(),
        analytics
            .basic_by_os()
            .start_interval(-3)
            .end_interval(-5)
            .call()
            .await
            .err(),
        analytics
            .basic_by_os()
            .start_with(9u64)
            .end_with(5u64)
            .call()
            .await
            .err(),
        analytics.basic_by_os().filters("not json").call().await.err(),
        analytics
            .basic_by_os()
            .filters(r#"[{"item": "shoe_size", "condition": "equal", "value": ["9"]}]"#)
            .call()
            .await
            .err(),
        analytics.basic_query().dimensions("os,nope").call().await.err(),
        analytics
            .basic_query()
            .sort_key("user_count")
            .sort_order("DESC")
            .call()
            .await
            .err(),
    ];
    for error in refused {
        assert_eq!(error.as_ref().map(answered), Some(invalid), "{error:?}");
    }
    let refused = [
        analytics.cloud_by_os().start(END).end(START).call().await.err(),
        analytics
            .cloud_by_os()
            .start("2023-01-01 00:00:00")
            .end("2024-02-01 00:00:01")
            .call()
            .await
            .err(),
        analytics
            .cloud_by_os()
            .sort("complete_play_percent|desc")
            .call()
            .await
            .err(),
        analytics.cloud_by_os().granularity("fortnightly").call().await.err(),
        analytics
            .cloud_by_os()
            .filters(r#"{"os_name": ["iOS"], "os_name:contain": ["And"]}"#)
            .call()
            .await
            .err(),
        analytics
            .cloud_realtime_user_counts()
            .start("2024-10-01 12:00:00")
            .end("2024-10-01 12:15:01")
            .call()
            .await
            .err(),
        analytics
            .cloud_realtime_user_counts()
            .group_per("site")
            .call()
            .await
            .err(),
    ];
    for error in refused {
        assert_eq!(error.as_ref().map(answered), Some(invalid), "{error:?}");
    }
    // A sort without its direction breaks the YAML's `key|asc|desc` pattern: refused before sending.
    let undirected = analytics.cloud_by_os().sort("play_started_count").call().await;
    assert!(
        matches!(&undirected, Err(vidplat::Error::InvalidInput(refusals)) if refusals.iter().map(|r| r.path()).eq(["sort"])),
        "{undirected:?}"
    );
    // A 13-month period is allowed.
    let longest = analytics
        .cloud_by_content_category()
        .start("2023-01-01 00:00:00")
        .end("2024-02-01 00:00:00");
    assert!(longest.call().await.is_ok());

    let not_found = (Some(404), Some("MODEL_NOT_FOUND"));
    let basic = analytics
        .basic_viewing_situation()
        .parameter("mood")
        .call()
        .await
        .unwrap_err();
    assert_eq!(answered(&basic), not_found);
    let cloud = analytics
        .cloud_viewing_situation()
        .parameter("subtitles")
        .call()
        .await
        .unwrap_err();
    assert_eq!(
        answered(&cloud),
        not_found,
        "subtitles is the basic edition's field; cloud says subtitle"
    );
    Ok(())
}

#[tokio::test]
async fn credentials_key_or_login_id() -> Result<(), Error> {
    let (sim, client) = start(roomy()).await;
    let unauthorized = (Some(401), Some("REQUEST_UNAUTHORIZED"));
    let anonymous = vidplat::Client::builder()
        .analytics_url(&sim.analytics_url)
        .analytics_quota(None)
        .build()?;
    let error = anonymous.analytics()?.cloud_by_os().call().await.unwrap_err();
    assert_eq!(answered(&error), unauthorized);
    let unknown_key = sim.client().api_key("not-a-key").analytics_quota(None).build()?;
    let error = unknown_key.analytics()?.basic_by_os().call().await.unwrap_err();
    assert_eq!(answered(&error), unauthorized);

    // Analytics names no permission: any valid key will do.
    let bare_key = sim.key_with([]);
    let bare = sim.client().api_key(&bare_key).analytics_quota(None).build()?;
    assert!(bare.analytics()?.cloud_by_os().call().await.is_ok());

    // The basic real-time operation is called without a key, by login_id.
    let realtime = anonymous
        .analytics()?
        .basic_realtime_user_counts()
        .login_id(sim.login_id.as_str())
        .minutes(-5)
        .call()
        .await?;
    assert_eq!(realtime.data.len(), 5);
    assert_eq!(realtime.golden, Some(false));
    let error = client
        .analytics()?
        .basic_realtime_user_counts()
        .login_id("someone@else")
        .call()
        .await
        .unwrap_err();
    assert_eq!(answered(&error), unauthorized);
    Ok(())
}

#[tokio::test]
async fn three_executions_a_minute_then_429_with_retry_after() -> Result<(), Error> {
    let (sim, client) = start(SimConfig::fast()).await;
    let analytics = client.analytics()?;
    for _ in 0..3 {
        analytics.basic_by_content_category().call().await?;
    }
    let error = analytics.cloud_by_os().call().await.unwrap_err();
    assert!(is_server_429(&error), "{error:?}");
    assert_eq!(error.code(), Some("TOO_MANY_REQUESTS"));
    let Error::RateLimited {
        retry_after: Some(wait),
        ..
    } = error
    else {
        unreachable!()
    };
    assert!(
        Duration::from_secs(1) <= wait && wait <= Duration::from_secs(60),
        "{wait:?}"
    );

    // The basic real-time operation counts only against the monthly limit.
    let realtime = analytics.basic_realtime_user_counts().login_id(sim.login_id.as_str());
    assert!(realtime.call().await.is_ok());
    Ok(())
}

#[tokio::test]
async fn one_execution_at_a_time_then_429() -> Result<(), Error> {
    // The second call arrives 500 ms after the first and 1.5 s before its
    // end: wide margins, for a loaded machine that runs the simulator late.
    let config = SimConfig {
        analytics_latency: Duration::from_secs(2),
        ..SimConfig::fast()
    };
    let (sim, client) = start(config).await;
    let analytics = client.analytics()?;
    let (first, second, realtime) = tokio::join!(
        analytics.cloud_by_os().call(),
        async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            analytics.cloud_by_site().call().await
        },
        async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let realtime = analytics.basic_realtime_user_counts().login_id(sim.login_id.as_str());
            realtime.call().await
        },
    );
    assert!(first.is_ok());
    let error = second.unwrap_err();
    assert!(is_server_429(&error), "{error:?}");
    assert!(
        realtime.is_ok(),
        "the real-time operation is not limited to one at a time"
    );
    // Once the first is done, the next one runs.
    assert!(analytics.cloud_by_site().call().await.is_ok());
    Ok(())
}

#[tokio::test]
async fn the_monthly_limit_covers_the_realtime_operation_too() -> Result<(), Error> {
    let (sim, client) = start(SimConfig {
        analytics_monthly: 4,
        ..roomy()
    })
    .await;
    let analytics = client.analytics()?;
    let realtime = || analytics.basic_realtime_user_counts().login_id(sim.login_id.as_str());
    for _ in 0..2 {
        realtime().call().await?;
        analytics.cloud_by_region().call().await?;
    }
    for error in [
        realtime().call().await.unwrap_err(),
        analytics.cloud_by_region().call().await.unwrap_err(),
    ] {
        assert!(is_server_429(&error), "{error:?}");
        let Error::RateLimited {
            retry_after: Some(wait),
            ..
        } = error
        else {
            unreachable!()
        };
        assert!(
            wait <= Duration::from_secs(31 * 24 * 3600),
            "until the month turns: {wait:?}"
        );
    }
    Ok(())
}

#[tokio::test]
async fn the_facade_limiter_never_meets_a_429() -> Result<(), Error> {
    // One at a time (waiting mode, the default): the limiter holds the second
    // call until the first is done, so both succeed.
    let slow = SimConfig {
        analytics_latency: Duration::from_millis(300),
        ..SimConfig::fast()
    };
    let sim = Simulator::start_with(slow).await.expect("the simulator starts");
    let waiting = sim.client().retry(RetryPolicy::never()).build()?;
    let analytics = waiting.analytics()?;
    let started = Instant::now();
    let (first, second) = tokio::join!(analytics.cloud_by_os().call(), analytics.cloud_by_site().call());
    assert!(first.is_ok() && second.is_ok(), "{first:?} {second:?}");
    assert!(
        started.elapsed() >= Duration::from_millis(600),
        "{:?}",
        started.elapsed()
    );

    // Three a minute (fail-fast mode, so the test need not wait a minute):
    // the fourth call is refused before it leaves.
    let sim = Simulator::start_with(SimConfig::fast())
        .await
        .expect("the simulator starts");
    let fail_fast = sim
        .client()
        .retry(RetryPolicy::never())
        .analytics_quota(QuotaConfig {
            mode: QuotaMode::FailFast,
            ..QuotaConfig::default()
        })
        .build()?;
    let analytics = fail_fast.analytics()?;
    for _ in 0..3 {
        analytics.basic_by_os().call().await?;
    }
    let error = analytics.basic_by_os().call().await.unwrap_err();
    assert!(
        matches!(
            error,
            Error::RateLimited {
                quota: Quota::PerMinute,
                ..
            }
        ),
        "refused by the client, not the server: {error:?}"
    );
    // The server saw exactly three: a call without a limiter now meets its 429.
    let error = unlimited(&sim).analytics()?.basic_by_os().call().await.unwrap_err();
    assert!(is_server_429(&error), "{error:?}");
    Ok(())
}

/// A query costs the rows it asks for times the days of its period, the two
/// things the documents say make it slow: a 13-month cloud history of 50,000
/// rows times out at the default limit; a shorter period or fewer rows does not.
#[tokio::test]
async fn long_periods_with_many_rows_answer_408() -> Result<(), Error> {
    let (_sim, client) = start(roomy()).await;
    let analytics = client.analytics()?;
    let timeout = (Some(408), Some("REQUEST_TIMEOUT"));
    let (start, thirteen_months, one_month) = ("2024-01-01 00:00:00", "2025-01-31 23:59:59", "2024-01-31 23:59:59");
    let error = analytics
        .cloud_viewing_history()
        .start(start)
        .end(thirteen_months)
        .limit(50_000u64)
        .call()
        .await
        .unwrap_err();
    assert!(matches!(error, Error::QueryTooSlow { .. }), "{error:?}");
    assert_eq!(answered(&error), timeout);
    let fewer_rows = analytics
        .cloud_viewing_history()
        .start(start)
        .end(thirteen_months)
        .limit(1_000u64)
        .call()
        .await;
    assert!(fewer_rows.is_ok(), "{fewer_rows:?}");
    let shorter = analytics
        .cloud_viewing_history()
        .start(start)
        .end(one_month)
        .limit(50_000u64)
        .call()
        .await;
    assert!(shorter.is_ok(), "{shorter:?}");
    // Basic edition: 731 days of ranks 1..10,000.
    let error = analytics
        .basic_by_os()
        .start_interval(-731i64)
        .end_interval(0i64)
        .end_with(10_000u64)
        .call()
        .await
        .unwrap_err();
    assert_eq!(answered(&error), timeout);
    assert!(analytics.basic_by_os().end_with(10_000u64).call().await.is_ok());
    Ok(())
}

/// `analytics_slow_cost` forces a 408 where a test wants one.
#[tokio::test]
async fn the_slow_query_limit_is_configurable() -> Result<(), Error> {
    let (_sim, client) = start(SimConfig {
        analytics_slow_cost: 0,
        ..roomy()
    })
    .await;
    let analytics = client.analytics()?;
    let timeout = (Some(408), Some("REQUEST_TIMEOUT"));
    assert_eq!(
        answered(&analytics.cloud_by_os().limit(1u64).call().await.unwrap_err()),
        timeout
    );
    assert_eq!(
        answered(&analytics.basic_by_os().end_with(1u64).call().await.unwrap_err()),
        timeout
    );
    let (_sim, client) = start(SimConfig {
        analytics_slow_cost: 30 * 50,
        ..roomy()
    })
    .await;
    let analytics = client.analytics()?;
    // The default period: 00:00 thirty days ago to now, 31 days.
    assert!(analytics.cloud_by_os().limit(48u64).call().await.is_ok());
    assert_eq!(
        answered(&analytics.cloud_by_os().limit(49u64).call().await.unwrap_err()),
        timeout
    );
    assert_eq!(
        answered(
            &analytics
                .cloud_engagement()
                .granularity(49u64)
                .call()
                .await
                .unwrap_err()
        ),
        timeout
    );
    Ok(())
}

/// `SimConfig::fast()` (and `--fast`) keeps the analytics latency: a second
/// query while one runs meets the one-at-a-time limit.
#[tokio::test]
async fn fast_keeps_the_one_at_a_time_limit() {
    assert!(SimConfig::fast().analytics_latency >= std::time::Duration::from_millis(50));
    let (sim, _client) = start(roomy()).await;
    let http = crate::raw_http();
    let call = || {
        http.get(format!("{}/v2/os/data", sim.analytics_url))
            .bearer_auth(&sim.api_key)
            .send()
    };
    let answers = futures::future::join_all((0..4).map(|_| call())).await;
    let statuses: Vec<u16> = answers
        .into_iter()
        .map(|answer| answer.expect("an answer").status().as_u16())
        .collect();
    assert!(statuses.contains(&200), "{statuses:?}");
    assert!(statuses.contains(&429), "one at a time: {statuses:?}");
}

#[tokio::test]
async fn other_methods_and_paths_answer_the_error_body() {
    let (sim, _client) = start(roomy()).await;
    let http = crate::raw_http();
    let post = http
        .post(format!("{}/v2/os/data", sim.analytics_url))
        .bearer_auth(&sim.api_key)
        .send()
        .await
        .expect("an answer");
    assert_eq!(post.status().as_u16(), 405);
    let body: serde_json::Value = post.json().await.expect("a JSON body");
    assert_eq!(body["code"], "METHOD_NOT_ALLOWED");
    let unknown = http
        .get(format!("{}/v3/os/data", sim.analytics_url))
        .bearer_auth(&sim.api_key)
        .send()
        .await
        .expect("an answer");
    assert_eq!(unknown.status().as_u16(), 404);
    let body: serde_json::Value = unknown.json().await.expect("a JSON body");
    assert_eq!(body["code"], "MODEL_NOT_FOUND");
}

/// A sort direction in the document's own case only: cloud `asc`/`desc`,
/// basic `DESC`/`ASC`. Which case the service takes is not shown; code
/// writing the documented one works under either reading.
#[tokio::test]
async fn sort_directions_are_taken_in_the_documents_case_only() {
    let (sim, _client) = start(roomy()).await;
    let get = |path: String| {
        let sim_url = sim.analytics_url.clone();
        let key = sim.api_key.clone();
        async move {
            crate::request("GET", &format!("{sim_url}{path}"), Some(&key), None)
                .await
                .0
        }
    };
    assert_eq!(get("/v2/os/data?sort=play_started_count%7Cdesc".into()).await, 200);
    assert_eq!(get("/v2/os/data?sort=play_started_count%7CDESC".into()).await, 400);
    let basic = |order: &str| {
        format!(
            "/v1/os/data?login_id={}&sort_key=playback_count&sort_order={order}",
            sim.login_id
        )
    };
    assert_eq!(get(basic("DESC")).await, 200);
    assert_eq!(get(basic("desc")).await, 400);
}
