//! The basic edition (/v1): rank windows (`start_with`..`end_with`), days
//! relative to today, and the envelope `data`, `golden`, `truncated`, `unsampled`.

use super::clock::{Civil, MINUTE};
use super::facts::{
    facts, live_viewers, situation_value, Aggregate, Edition, Fact, MetricOptions, BUTTONS, CONTENTS, LIVE,
};
use super::params::{basic_sort, name_list, BasicParams, BasicRealtimeParams, Period};
use super::table::{Report, Row, Window};
use super::{Answer, Context};
use crate::SimError;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use vidplat_analytics::types;

/// Metric set A.
const METRICS_A: &[&str] = &[
    "ad_playback_count",
    "avg_played_percent",
    "avg_played_time",
    "avg_staytime",
    "error_count",
    "show_count",
    "playback_count",
    "play_count",
    "total_played_time",
    "total_staytime",
    "show_user_count",
    "user_count",
];
/// Metric set A without show_user_count and user_count (by user).
const METRICS_A_PER_USER: &[&str] = METRICS_A.split_at(METRICS_A.len() - 2).0;
const TITLE_USER_METRICS: &[&str] = &[
    "played_flags",
    "played_percent",
    "played_time",
    "total_staytime",
    "show_count",
    "playback_count",
    "play_count",
];

const fn by(dims: &'static [&'static str], metrics: &'static [&'static str]) -> Report<'static> {
    Report {
        dims,
        metrics,
        sort_only: &[],
        default_sort: ("playback_count", true),
    }
}

pub(super) const BY_CATEGORY: Report = by(&["content_category"], METRICS_A);
pub(super) const BY_TITLE: Report = by(&["content_category", "content_title", "content_type"], METRICS_A);
pub(super) const BY_TITLE_AND_USER: Report = Report {
    default_sort: ("content_category", true),
    ..by(
        &["content_category", "content_title", "content_type", "user_id"],
        TITLE_USER_METRICS,
    )
};
pub(super) const BY_USER: Report = by(&["user_id"], METRICS_A_PER_USER);
pub(super) const BY_OS: Report = by(&["os", "os_version", "player_name", "player_version"], METRICS_A);
pub(super) const BY_ENVIRONMENT: Report = by(
    &["playback_env", "playback_env_version", "player_name", "player_version"],
    METRICS_A,
);
pub(super) const BY_SITE: Report = by(&["site", "player_name", "player_version"], METRICS_A);
pub(super) const BY_REGION: Report = by(&["country", "region", "city"], METRICS_A);
const BY_TIME_PERIOD: Report = by(&["date_time"], METRICS_A);
const HISTORY: Report = by(
    &[
        "date_time",
        "user_id",
        "content_category",
        "content_title",
        "content_type",
        "os",
        "playback_env",
        "region",
    ],
    &[
        "played_flags",
        "played_percent",
        "played_time",
        "stay_time",
        "show_count",
        "playback_count",
        "play_count",
    ],
);
const QUERY_DIMENSIONS: &[&str] = &[
    "date_time",
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
    "content_title",
    "user_id",
    "os",
    "playback_env",
    "site",
    "country",
    "region",
];
/// The positional arrays have one element per percent of the content.
const POSITIONS: usize = 100;
const SITUATION_FIELDS: &[&str] = &[
    "playback_rate",
    "bitrate",
    "subtitles",
    "screen_status",
    "playback_status",
];

/// The sessions a request covers, and the part of the result it wants.
struct Selection {
    facts: Vec<Fact>,
    period: Period,
    golden: bool,
    window: Window,
}

fn select(context: &Context, params: &BasicParams) -> Result<Selection, SimError> {
    let (period, golden) = params.period(context.now, context.settle_days)?;
    let window = params.ranks(context.basic_max_window)?;
    let filters = params.filters()?;
    Ok(Selection {
        facts: filters.apply(facts(
            context.seed,
            context.sessions_per_day,
            period.from,
            period.to,
            context.now,
        )),
        period,
        golden,
        window,
    })
}

/// The page of the window of `rows`, decoded into the operation's page type `P`.
fn page<P>(rows: Vec<Row>, selection: &Selection) -> Result<Answer, SimError>
where
    P: serde::de::DeserializeOwned + serde::Serialize,
{
    let (rows, truncated) = selection.window.cut(rows);
    let data: Vec<Value> = rows.into_iter().map(Row::into_value).collect();
    let page = json!({"data": data, "golden": selection.golden, "truncated": truncated, "unsampled": true});
    Answer::decode::<P>(page, selection.period.cost(selection.window.requested_rows()))
}

/// The by-category, title, title-and-user, user, OS, environment, site and region operations.
pub(super) fn report<P>(context: &Context, params: BasicParams, report: &Report) -> Result<Answer, SimError>
where
    P: serde::de::DeserializeOwned + serde::Serialize,
{
    let sort = params.sort(report.default_sort.0)?;
    sort.check(report.sort_keys())?;
    let selection = select(context, &params)?;
    let mut rows = report.rows(&selection.facts, Edition::Basic, MetricOptions::default());
    sort.apply(&mut rows);
    page::<P>(rows, &selection)
}

/// By time period: one row per hour (or day) of the period, empty ones included.
pub(super) fn by_time_period(context: &Context, params: BasicParams) -> Result<Answer, SimError> {
    let sort = params.sort(BY_TIME_PERIOD.default_sort.0)?;
    sort.check(BY_TIME_PERIOD.sort_keys())?;
    let bucket = params.bucket()?;
    let selection = select(context, &params)?;
    let mut rows = BY_TIME_PERIOD.buckets(
        &selection.facts,
        selection.period.bounds(),
        bucket,
        MetricOptions::default(),
    );
    sort.apply(&mut rows);
    page::<types::BasicTimePeriodPage>(rows, &selection)
}

/// Viewing history: one row per session, newest first.
pub(super) fn history(context: &Context, params: BasicParams) -> Result<Answer, SimError> {
    let selection = select(context, &params)?;
    let rows = HISTORY.history(&selection.facts, Edition::Basic, MetricOptions::default());
    page::<types::BasicViewingHistoryPage>(rows, &selection)
}

/// The generic query: the requested metrics per combination of the requested dimensions.
pub(super) fn query(context: &Context, params: BasicParams) -> Result<Answer, SimError> {
    let dims = name_list(
        "dimensions",
        params.dimensions.as_deref(),
        "content_title",
        QUERY_DIMENSIONS,
    )?;
    let metrics = name_list("metrics", params.metrics.as_deref(), "playback_count", METRICS_A)?;
    let report = Report {
        dims: &dims,
        metrics: &metrics,
        ..BY_CATEGORY
    };
    let sort = params.sort(report.default_sort.0)?;
    // The default key sorts only when it was requested; a key the caller names must be.
    let sorted = params.sort_key.is_some() || report.sort_keys().any(|key| key == sort.key);
    if sorted {
        sort.check(report.sort_keys())?;
    }
    let selection = select(context, &params)?;
    let mut rows = report.rows(&selection.facts, Edition::Basic, MetricOptions::default());
    if sorted {
        sort.apply(&mut rows);
    }
    page::<types::BasicQueryPage>(rows, &selection)
}

/// The sessions of each content that has any, in catalogue order.
fn per_content(facts: &[Fact]) -> BTreeMap<usize, Vec<&Fact>> {
    let mut contents: BTreeMap<usize, Vec<&Fact>> = BTreeMap::new();
    for fact in facts {
        contents.entry(fact.content).or_default().push(fact);
    }
    contents
}

/// The basic envelope around positional rows; the rank window cut their arrays.
fn positional_page<R: serde::Serialize>(
    data: Vec<R>,
    selection: &Selection,
    truncated: bool,
) -> Result<Answer, SimError> {
    let page = json!({"data": data, "golden": selection.golden, "truncated": truncated, "unsampled": true});
    Ok(Answer::new(
        &page,
        selection.period.cost(selection.window.requested_rows()),
    ))
}

/// Audience rating: per content title, viewers and rating at each percent of the content.
pub(super) fn audience_rating(context: &Context, params: BasicParams) -> Result<Answer, SimError> {
    let selection = select(context, &params)?;
    let mut truncated = false;
    let data: Vec<types::BasicAudienceRatingRow> = per_content(&selection.facts)
        .into_iter()
        .map(|(content, facts)| {
            let (segment, cut) = selection.window.cut(rating_segment(&Aggregate::of(facts)));
            truncated |= cut;
            types::BasicAudienceRatingRow {
                content_title: Some(CONTENTS[content].title.to_owned()),
                audience: vec![types::BasicAudience {
                    segment,
                    extra: Map::new(),
                }],
            }
        })
        .collect();
    positional_page(data, &selection, truncated)
}

fn rating_segment(aggregate: &Aggregate) -> Vec<types::BasicPlaybackPointSegment> {
    aggregate
        .ratings(POSITIONS)
        .into_iter()
        .enumerate()
        .map(|(point, (count, rating))| types::BasicPlaybackPointSegment {
            playback_point: Some(point as i64),
            count: Some(count),
            rating: Some(rating),
        })
        .collect()
}

/// Reaction: per content title and button, presses at each percent of the content.
pub(super) fn reaction(context: &Context, params: BasicParams) -> Result<Answer, SimError> {
    // group_per's values are not shown; buttons are grouped by id or by label (one label per id here).
    match params.group_per.as_deref() {
        None | Some("id") | Some("label") => {}
        Some(other) => {
            return Err(SimError::invalid(format!(
                "group_per must be id or label, not `{other}`"
            )))
        }
    }
    let selection = select(context, &params)?;
    let mut truncated = false;
    let data: Vec<types::BasicReactionRow> = per_content(&selection.facts)
        .into_iter()
        .map(|(content, facts)| {
            let mut presses: BTreeMap<usize, [i64; POSITIONS]> = BTreeMap::new();
            for (button, point) in facts.iter().filter_map(|fact| fact.reaction) {
                presses.entry(button).or_insert([0; POSITIONS])[(point as usize).min(POSITIONS - 1)] += 1;
            }
            let reaction = presses
                .into_iter()
                .map(|(button, counts)| {
                    let points = counts
                        .iter()
                        .enumerate()
                        .map(|(point, count)| types::BasicReactionSegment {
                            reaction_point: Some(point as i64),
                            count: Some(*count),
                        });
                    let (segment, cut) = selection.window.cut(points.collect());
                    truncated |= cut;
                    types::BasicReactionButton {
                        button_id: Some(BUTTONS[button].0.to_owned()),
                        button_label: Some(BUTTONS[button].1.to_owned()),
                        segment,
                    }
                })
                .collect();
            types::BasicReactionRow {
                content_title: Some(CONTENTS[content].title.to_owned()),
                reaction,
            }
        })
        .collect();
    positional_page(data, &selection, truncated)
}

/// Viewing situation: per content title and value of the situation field
/// named in the path, viewers and rating at each percent of the content.
pub(super) fn situation(context: &Context, field: &str, params: BasicParams) -> Result<Answer, SimError> {
    if !SITUATION_FIELDS.contains(&field) {
        return Err(SimError::not_found(format!(
            "situation field `{field}` (use one of {})",
            SITUATION_FIELDS.join(", ")
        )));
    }
    let selection = select(context, &params)?;
    let mut truncated = false;
    let mut data = Vec::new();
    for (content, facts) in per_content(&selection.facts) {
        let mut situation = Vec::new();
        for (value, facts) in per_situation(&facts, field, Edition::Basic) {
            let (segment, cut) = selection.window.cut(rating_segment(&Aggregate::of(facts)));
            truncated |= cut;
            situation.push(Answer::decode_value::<types::BasicSituation>(
                json!({ field: value, "segment": segment }),
            )?);
        }
        data.push(types::BasicViewingSituationRow {
            content_title: Some(CONTENTS[content].title.to_owned()),
            situation,
        });
    }
    positional_page(data, &selection, truncated)
}

/// The sessions per value of a situation field, in the values' order.
pub(super) fn per_situation<'a>(facts: &[&'a Fact], field: &str, edition: Edition) -> Vec<(Value, Vec<&'a Fact>)> {
    let mut groups: BTreeMap<String, (Value, Vec<&Fact>)> = BTreeMap::new();
    for fact in facts {
        if let Some(value) = situation_value(fact.situation, field, edition) {
            groups
                .entry(value.to_string())
                .or_insert_with(|| (value, Vec::new()))
                .1
                .push(fact);
        }
    }
    groups.into_values().collect()
}

/// Real-time active users per minute (called with login_id, not a key): the
/// latest minute, or with `minutes` every minute from then to one minute ago.
pub(super) fn realtime(context: &Context, params: BasicRealtimeParams) -> Result<Answer, SimError> {
    if params.login_id.as_str() != context.login_id {
        return Err(SimError::unauthorized());
    }
    let minutes = match params.minutes {
        None => 1,
        Some(minutes) if (-360..=-1).contains(&minutes) => -minutes,
        Some(_) => return Err(SimError::invalid("minutes must be between -360 and -1")),
    };
    let sort = basic_sort(params.sort_key.as_deref(), params.sort_order.as_deref(), "hour_minute")?;
    sort.check(["hour_minute", "count"])?;
    let latest = context.now.div_euclid(MINUTE) - 1;
    let mut rows: Vec<Row> = (latest - minutes + 1..=latest)
        .map(|minute| {
            let viewers = live_viewers(context.seed, minute);
            let titles: Vec<Value> = LIVE
                .iter()
                .zip(viewers)
                .map(|(live, count)| json!({"content_title": live.title, "count": count}))
                .collect();
            let time = Civil::of(minute * MINUTE);
            let mut row = Row::default();
            row.fields.insert("hour_minute".into(), time.hour_minute().into());
            row.fields.insert("count".into(), viewers.iter().sum::<i64>().into());
            row.fields.insert("titles".into(), titles.into());
            // HH:MM alone would misorder a period that crosses midnight.
            row.sort_only.insert("hour_minute".into(), time.date_minute().into());
            row
        })
        .collect();
    sort.apply(&mut rows);
    let data: Vec<Value> = rows.into_iter().map(Row::into_value).collect();
    let page = json!({"data": data, "golden": false, "truncated": false, "unsampled": true});
    // Less than a day: the cost is the minutes asked for.
    Answer::decode::<types::BasicRealtimeUserCountsPage>(page, minutes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytics::table::assert_rows_fit;

    #[test]
    fn report_fields_are_fields_of_the_generated_rows() {
        let basic = Edition::Basic;
        assert_rows_fit::<types::BasicContentCategoryRow>(&BY_CATEGORY, basic);
        assert_rows_fit::<types::BasicContentTitleRow>(&BY_TITLE, basic);
        assert_rows_fit::<types::BasicContentTitleUserRow>(&BY_TITLE_AND_USER, basic);
        assert_rows_fit::<types::BasicUserRow>(&BY_USER, basic);
        assert_rows_fit::<types::BasicOsRow>(&BY_OS, basic);
        assert_rows_fit::<types::BasicEnvironmentRow>(&BY_ENVIRONMENT, basic);
        assert_rows_fit::<types::BasicSiteRow>(&BY_SITE, basic);
        assert_rows_fit::<types::BasicRegionRow>(&BY_REGION, basic);
        assert_rows_fit::<types::BasicTimePeriodRow>(&BY_TIME_PERIOD, basic);
        assert_rows_fit::<types::BasicViewingHistoryRow>(&HISTORY, basic);
        assert_rows_fit::<types::BasicQueryRow>(&by(QUERY_DIMENSIONS, METRICS_A), basic);
    }
}
