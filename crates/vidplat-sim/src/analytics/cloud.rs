//! The cloud edition (/v2): `offset`/`limit` pages, `start`/`end` in Japan
//! time, `sort=<key>|<asc|desc>`, and the envelope `data`, `truncated` (the
//! positional operations: `data` only).

use super::basic::per_situation;
use super::clock::{Civil, Local, HOUR, MINUTE};
use super::facts::{facts, live_viewers, Aggregate, Edition, Fact, MetricOptions, BUTTONS, CONTENTS, LIVE};
use super::params::{name_list, CloudParams, MaxSpan, Period};
use super::table::{Bucket, Report, Row, Sort, Window};
use super::{Answer, Context};
use crate::SimError;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use vidplat_analytics::types;

/// Metric set B.
const METRICS_B: &[&str] = &[
    "ad_impressions",
    "avg_play_percent",
    "avg_play_time",
    "player_impressions",
    "play_requested_count",
    "play_started_count",
    "total_play_time",
    "impression_user_count",
    "user_count",
];
/// Metric set B without impression_user_count and user_count (by user).
const METRICS_B_PER_USER: &[&str] = METRICS_B.split_at(METRICS_B.len() - 2).0;
/// Metric set B and complete_play_percent (by title, by content name, the generic query).
const METRICS_B_COMPLETE: &[&str] = &[
    "ad_impressions",
    "avg_play_percent",
    "avg_play_time",
    "player_impressions",
    "play_requested_count",
    "play_started_count",
    "total_play_time",
    "impression_user_count",
    "user_count",
    "complete_play_percent",
];
const CONTENT_USER_METRICS: &[&str] = &[
    "engagement_bitmap",
    "play_percent",
    "total_play_time",
    "player_impressions",
    "play_requested_count",
    "play_started_count",
];

const fn by(dims: &'static [&'static str], metrics: &'static [&'static str]) -> Report<'static> {
    Report {
        dims,
        metrics,
        sort_only: &[],
        default_sort: ("play_requested_count", true),
    }
}

pub(super) const BY_TITLE: Report = by(
    &["content_title", "content_category", "content_type"],
    METRICS_B_COMPLETE,
);
pub(super) const BY_TITLE_AND_USER: Report = Report {
    default_sort: ("content_title", false),
    ..by(
        &["content_title", "content_category", "content_type", "user_id"],
        CONTENT_USER_METRICS,
    )
};
pub(super) const BY_NAME: Report = by(
    &["content_name", "content_category", "content_type"],
    METRICS_B_COMPLETE,
);
/// Documented default sort: content_title ascending, although the rows carry content_name.
pub(super) const BY_NAME_AND_USER: Report = Report {
    sort_only: &["content_title"],
    default_sort: ("content_title", false),
    ..by(
        &["content_name", "content_category", "content_type", "user_id"],
        CONTENT_USER_METRICS,
    )
};
pub(super) const BY_CATEGORY: Report = by(&["content_category"], METRICS_B);
pub(super) const BY_USER: Report = by(&["user_id"], METRICS_B_PER_USER);
pub(super) const BY_OS: Report = by(&["os_name", "os_version", "player_name", "player_version"], METRICS_B);
pub(super) const BY_BROWSER: Report = by(
    &["browser_name", "browser_version", "player_name", "player_version"],
    METRICS_B,
);
pub(super) const BY_SITE: Report = by(&["site", "player_name", "player_version"], METRICS_B);
pub(super) const BY_REGION: Report = by(&["country", "region", "city"], METRICS_B);
const BY_TIME_PERIOD: Report = Report {
    default_sort: ("date_time", false),
    ..by(&["date_time"], METRICS_B)
};
const ACTIVE_USERS: Report = Report {
    default_sort: ("date_time", false),
    ..by(&["date_time"], &["count"])
};
const HISTORY: Report = by(
    &[
        "date_time",
        "user_id",
        "content_category",
        "content_name",
        "content_title",
        "content_type",
        "os_name",
        "browser_name",
        "region",
    ],
    &[
        "engagement_bitmap",
        "play_percent",
        "play_time",
        "play_requested_count",
        "play_started_count",
    ],
);
const QUERY_DIMENSIONS: &[&str] = &[
    "date_time",
    "date_minute",
    "date_hour",
    "date",
    "year_month",
    "hour_minute",
    "year",
    "month",
    "day",
    "hour",
    "minute",
    "content_category",
    "content_name",
    "content_title",
    "user_id",
    "os_name",
    "browser_name",
    "site",
    "country",
    "region",
];
const SITUATION_FIELDS: &[&str] = &[
    "playback_rate",
    "bitrate",
    "subtitle",
    "cast",
    "screen_type",
    "is_background",
];

/// The sessions of a request's period that pass its filters.
fn select(context: &Context, params: &CloudParams, default_start: Local) -> Result<(Vec<Fact>, Period), SimError> {
    let period = params.period(context.now, default_start, MaxSpan::Months(13))?;
    let filters = params.filters()?;
    Ok((
        filters.apply(facts(
            context.seed,
            context.sessions_per_day,
            period.from,
            period.to,
            context.now,
        )),
        period,
    ))
}

/// The page of the window of `rows`, decoded into the operation's page type `P`.
fn page<P>(rows: Vec<Row>, window: Window, period: Period) -> Result<Answer, SimError>
where
    P: serde::de::DeserializeOwned + serde::Serialize,
{
    let (rows, truncated) = window.cut(rows);
    let data: Vec<Value> = rows.into_iter().map(Row::into_value).collect();
    Answer::decode::<P>(
        json!({"data": data, "truncated": truncated}),
        period.cost(window.requested_rows()),
    )
}

/// Sorts by the request's key (checked against `report`) and cuts its page.
fn sorted_page<P>(mut rows: Vec<Row>, sort: &Sort, window: Window, period: Period) -> Result<Answer, SimError>
where
    P: serde::de::DeserializeOwned + serde::Serialize,
{
    sort.apply(&mut rows);
    page::<P>(rows, window, period)
}

/// The by-title, title-and-user, content-name, name-and-user, category, user,
/// OS, browser, site and region operations.
pub(super) fn report<P>(context: &Context, params: CloudParams, report: &Report) -> Result<Answer, SimError>
where
    P: serde::de::DeserializeOwned + serde::Serialize,
{
    let window = params.page()?;
    let sort = params.sort(report.default_sort())?;
    sort.check(report.sort_keys())?;
    // Declared on every report; only the time-based operations use it.
    params.bucket()?;
    // Each parameter is read only by the operations that declare it.
    let mut options = MetricOptions::default();
    if report.metrics.contains(&"complete_play_percent") {
        options.complete_threshold = params.complete_threshold()?;
    }
    if report.metrics.contains(&"engagement_bitmap") {
        options.bitmap_positions = params.bitmap_positions()?;
    }
    let (facts, period) = select(context, &params, CloudParams::default_start(context.now))?;
    sorted_page::<P>(report.rows(&facts, Edition::Cloud, options), &sort, window, period)
}

/// By time period and active users: one row per hour (or day), empty ones included.
fn bucketed<P>(context: &Context, params: CloudParams, report: &Report) -> Result<Answer, SimError>
where
    P: serde::de::DeserializeOwned + serde::Serialize,
{
    let window = params.page()?;
    let sort = params.sort(report.default_sort())?;
    sort.check(report.sort_keys())?;
    let bucket = params.bucket()?;
    let (facts, period) = select(context, &params, CloudParams::default_start(context.now))?;
    let rows = report.buckets(&facts, period.bounds(), bucket, MetricOptions::default());
    sorted_page::<P>(rows, &sort, window, period)
}

pub(super) fn by_time_period(context: &Context, params: CloudParams) -> Result<Answer, SimError> {
    bucketed::<types::CloudTimePeriodPage>(context, params, &BY_TIME_PERIOD)
}

/// Active users (the current operation): distinct viewers per hour (or day).
pub(super) fn active_users(context: &Context, params: CloudParams) -> Result<Answer, SimError> {
    bucketed::<types::CloudActiveUsersPage>(context, params, &ACTIVE_USERS)
}

/// Active users, the unsupported predecessor: distinct viewers per hour with
/// any, from six hours ago by default; `group_per=content_name` splits them per content.
pub(super) fn user_counts_legacy(context: &Context, params: CloudParams) -> Result<Answer, SimError> {
    let window = params.page()?;
    let per_content = params.per_content()?;
    let mut sort_keys = vec!["date_time", "count"];
    if per_content {
        sort_keys.extend(["content_name", "content_title"]);
    }
    let sort = params.sort(Sort::new("date_time", false))?;
    sort.check(sort_keys)?;
    let (facts, period) = select(context, &params, context.now - 6 * HOUR)?;
    let hours = Bucket::hourly(Edition::Cloud);
    let mut groups: BTreeMap<(Local, Option<usize>), Aggregate> = BTreeMap::new();
    for fact in &facts {
        let content = per_content.then_some(fact.content);
        groups.entry((hours.start(fact.at), content)).or_default().add(fact);
    }
    let rows = groups
        .into_iter()
        .map(|((start, content), aggregate)| {
            let mut row = Row::default();
            row.fields.insert("date_time".into(), hours.label(start).into());
            if let Some(content) = content {
                row.fields.insert("content_name".into(), CONTENTS[content].name.into());
                row.fields
                    .insert("content_title".into(), CONTENTS[content].title.into());
            }
            row.fields.insert("count".into(), aggregate.viewer_count().into());
            row
        })
        .collect();
    sorted_page::<types::CloudUserCountsLegacyPage>(rows, &sort, window, period)
}

/// Real-time active users per minute over at most 15 minutes (default: the last 15).
pub(super) fn realtime(context: &Context, params: CloudParams) -> Result<Answer, SimError> {
    let per_content = params.per_content()?;
    let mut sort_keys = vec!["date_time", "count"];
    if per_content {
        sort_keys.extend(["content_name", "content_title"]);
    }
    let sort = params.sort(Sort::new("date_time", true))?;
    sort.check(sort_keys)?;
    let period = params.period(context.now, context.now - 15 * MINUTE, MaxSpan::Minutes(15))?;
    let first = (period.from + MINUTE - 1).div_euclid(MINUTE);
    let last = period.to.min(context.now).div_euclid(MINUTE);
    let mut rows = Vec::new();
    for minute in first..=last {
        let date_time = Civil::of(minute * MINUTE).timestamp();
        let viewers = live_viewers(context.seed, minute);
        if per_content {
            for (live, count) in LIVE.iter().zip(viewers) {
                let mut row = Row::default();
                row.fields.insert("date_time".into(), date_time.clone().into());
                row.fields.insert("content_name".into(), live.name.into());
                row.fields.insert("content_title".into(), live.title.into());
                row.fields.insert("count".into(), count.into());
                rows.push(row);
            }
        } else {
            let mut row = Row::default();
            row.fields.insert("date_time".into(), date_time.into());
            row.fields.insert("count".into(), viewers.iter().sum::<i64>().into());
            rows.push(row);
        }
    }
    let window = Window::Page {
        offset: 0,
        limit: rows.len() as u64,
    };
    sorted_page::<types::CloudRealtimeUserCountsPage>(rows, &sort, window, period)
}

/// Viewing history: one row per session, newest first.
pub(super) fn history(context: &Context, params: CloudParams) -> Result<Answer, SimError> {
    let window = params.page()?;
    let options = MetricOptions {
        bitmap_positions: params.bitmap_positions()?,
        ..MetricOptions::default()
    };
    let (facts, period) = select(context, &params, CloudParams::default_start(context.now))?;
    page::<types::CloudViewingHistoryPage>(HISTORY.history(&facts, Edition::Cloud, options), window, period)
}

/// The generic query: the requested metrics per combination of the requested dimensions.
pub(super) fn query(context: &Context, params: CloudParams) -> Result<Answer, SimError> {
    let window = params.page()?;
    params.bucket()?;
    let dims = name_list(
        "dimensions",
        params.dimensions.as_deref(),
        "content_title",
        QUERY_DIMENSIONS,
    )?;
    let metrics = name_list(
        "metrics",
        params.metrics.as_deref(),
        "play_requested_count",
        METRICS_B_COMPLETE,
    )?;
    let report = Report {
        dims: &dims,
        metrics: &metrics,
        ..BY_CATEGORY
    };
    let sort = params.sort(report.default_sort())?;
    // The default key sorts only when it was requested; a key the caller names must be.
    let sorted = params.sort.is_some() || report.sort_keys().any(|key| key == sort.key);
    if sorted {
        sort.check(report.sort_keys())?;
    }
    let (facts, period) = select(context, &params, CloudParams::default_start(context.now))?;
    let mut rows = report.rows(&facts, Edition::Cloud, MetricOptions::default());
    if sorted {
        sort.apply(&mut rows);
    }
    page::<types::CloudQueryPage>(rows, window, period)
}

/// The percent of the content at which position `index` of `positions` starts.
fn point(index: usize, positions: usize) -> i64 {
    (index * 100 / positions) as i64
}

/// Engagement: viewers and rating at each of `granularity` positions, over the selected contents.
pub(super) fn engagement(context: &Context, params: CloudParams) -> Result<Answer, SimError> {
    let positions = params.positions(20)?;
    let (facts, period) = select(context, &params, CloudParams::default_start(context.now))?;
    let data = Aggregate::of(&facts)
        .ratings(positions)
        .into_iter()
        .enumerate()
        .map(|(index, (count, rating))| types::CloudEngagementPoint {
            playback_point: Some(point(index, positions)),
            count: Some(count),
            rating: Some(rating),
        })
        .collect();
    Ok(Answer::new(
        &types::CloudEngagementPage { data },
        period.cost(positions as u64),
    ))
}

/// Reaction: presses per button in each of `granularity` position buckets.
pub(super) fn reaction(context: &Context, params: CloudParams) -> Result<Answer, SimError> {
    let positions = params.positions(100)?;
    let (facts, period) = select(context, &params, CloudParams::default_start(context.now))?;
    let mut presses: BTreeMap<usize, Vec<i64>> = BTreeMap::new();
    for (button, percent) in facts.iter().filter_map(|fact| fact.reaction) {
        let bucket = (percent as usize * positions / 100).min(positions - 1);
        presses.entry(button).or_insert_with(|| vec![0; positions])[bucket] += 1;
    }
    let data = presses
        .into_iter()
        .map(|(button, counts)| types::CloudReactionButton {
            button_id: Some(BUTTONS[button].0.to_owned()),
            segment: counts
                .into_iter()
                .enumerate()
                .map(|(index, count)| types::CloudReactionSegment {
                    reaction_point: Some(point(index, positions)),
                    count: Some(count),
                })
                .collect(),
        })
        .collect();
    Ok(Answer::new(
        &types::CloudReactionPage { data },
        period.cost(positions as u64),
    ))
}

/// Viewing situation: per value of the situation field named in the path,
/// the rating at each of `granularity` positions.
pub(super) fn situation(context: &Context, field: &str, params: CloudParams) -> Result<Answer, SimError> {
    if !SITUATION_FIELDS.contains(&field) {
        return Err(SimError::not_found(format!(
            "situation field `{field}` (use one of {})",
            SITUATION_FIELDS.join(", ")
        )));
    }
    let positions = params.positions(20)?;
    let (facts, period) = select(context, &params, CloudParams::default_start(context.now))?;
    let facts: Vec<&Fact> = facts.iter().collect();
    let data = per_situation(&facts, field, Edition::Cloud)
        .into_iter()
        .map(|(value, facts)| {
            let segment: Vec<types::CloudSituationSegment> = Aggregate::of(facts)
                .ratings(positions)
                .into_iter()
                .enumerate()
                .map(|(index, (_, rating))| types::CloudSituationSegment {
                    playback_point: Some(point(index, positions)),
                    rating: Some(rating),
                })
                .collect();
            Answer::decode_value::<types::CloudSituation>(json!({ field: value, "segment": segment }))
        })
        .collect::<Result<_, _>>()?;
    Ok(Answer::new(
        &types::CloudViewingSituationPage { data },
        period.cost(positions as u64),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytics::table::assert_rows_fit;

    #[test]
    fn report_fields_are_fields_of_the_generated_rows() {
        let cloud = Edition::Cloud;
        assert_rows_fit::<types::CloudContentTitleRow>(&BY_TITLE, cloud);
        assert_rows_fit::<types::CloudContentTitleUserRow>(&BY_TITLE_AND_USER, cloud);
        assert_rows_fit::<types::CloudContentNameRow>(&BY_NAME, cloud);
        assert_rows_fit::<types::CloudContentNameUserRow>(&BY_NAME_AND_USER, cloud);
        assert_rows_fit::<types::CloudContentCategoryRow>(&BY_CATEGORY, cloud);
        assert_rows_fit::<types::CloudUserRow>(&BY_USER, cloud);
        assert_rows_fit::<types::CloudOsRow>(&BY_OS, cloud);
        assert_rows_fit::<types::CloudBrowserRow>(&BY_BROWSER, cloud);
        assert_rows_fit::<types::CloudSiteRow>(&BY_SITE, cloud);
        assert_rows_fit::<types::CloudRegionRow>(&BY_REGION, cloud);
        assert_rows_fit::<types::CloudTimePeriodRow>(&BY_TIME_PERIOD, cloud);
        assert_rows_fit::<types::CloudActiveUserRow>(&ACTIVE_USERS, cloud);
        assert_rows_fit::<types::CloudViewingHistoryRow>(&HISTORY, cloud);
        assert_rows_fit::<types::CloudQueryRow>(&by(QUERY_DIMENSIONS, METRICS_B_COMPLETE), cloud);
    }
}
