//! Categories (hierarchical names, levels separated by '/') and labels.
//!
//! Category names: the document shows only '/' between levels; the simulator
//! refuses an empty name, a leading or trailing '/', and an empty level.
//! Category statistics (`statistics=daily:N` or `monthly:N`, the last N days or
//! months up to today, oldest first) are computed from the category's contents
//! as they are now: how many were registered by the end of each period, their
//! total duration and the total file size of their streams. N is at most 366
//! days or 13 months (not shown; the delivery-volume span is 13 months).

use super::store::{Store, MAX_RECORDS};
use super::{already_exists, canonical_id, clock, done, new_id, over_limit, rule, App, PathParams};
use crate::{JsonBody, QueryParams, SimError};
use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use vidplat_vms::types;

const MAX_DAILY_PERIODS: i64 = 366;
const MAX_MONTHLY_PERIODS: i64 = 13;

fn check_category_name(name: &str) -> Result<(), SimError> {
    if name.is_empty() || name.split('/').any(str::is_empty) {
        return Err(SimError::invalid(format!(
            "category name `{name}` has an empty level (levels are separated by '/')"
        )));
    }
    Ok(())
}

fn parent_of(name: &str) -> Option<&str> {
    name.rsplit_once('/').map(|(parent, _)| parent)
}

fn is_below(name: &str, ancestor: &str) -> bool {
    name.strip_prefix(ancestor).is_some_and(|rest| rest.starts_with('/'))
}

fn category_index(store: &Store, raw_id: &str) -> Result<usize, SimError> {
    canonical_id(raw_id)
        .and_then(|id| {
            store
                .categories
                .iter()
                .position(|c| c.id.as_deref() == Some(id.as_str()))
        })
        .ok_or_else(|| SimError::not_found(format!("category {raw_id}")))
}

#[derive(serde::Deserialize)]
pub(super) struct StatisticsQuery {
    statistics: Option<String>,
}

/// The periods `statistics` asks for: (label date, last day) of each, oldest first.
fn periods(request: &str) -> Result<Vec<(i64, i64)>, SimError> {
    let invalid = || SimError::invalid(format!("statistics `{request}` is not `daily:N` or `monthly:N`"));
    let (granularity, count) = request.split_once(':').ok_or_else(invalid)?;
    let count = count.parse::<u16>().map(i64::from).map_err(|_| invalid())?;
    let today = clock::day_of(clock::now());
    match granularity {
        "daily" if count <= MAX_DAILY_PERIODS => {
            Ok((0..count).rev().map(|back| (today - back, today - back)).collect())
        }
        "monthly" if count <= MAX_MONTHLY_PERIODS => {
            let (year, month, _) = clock::civil_from_days(today);
            let month_index = year * 12 + (month - 1);
            Ok((0..count)
                .rev()
                .map(|back| {
                    let index = month_index - back;
                    let first = clock::days_from_civil(index.div_euclid(12), index.rem_euclid(12) + 1, 1);
                    let next = clock::days_from_civil((index + 1).div_euclid(12), (index + 1).rem_euclid(12) + 1, 1);
                    (first, (next - 1).min(today))
                })
                .collect())
        }
        "daily" | "monthly" => Err(SimError::invalid(format!(
            "at most {MAX_DAILY_PERIODS} days or {MAX_MONTHLY_PERIODS} months of statistics"
        ))),
        _ => Err(invalid()),
    }
}

/// The category as read, with its statistics when `request` asks for them.
fn with_statistics(
    store: &Store,
    category: &types::Category,
    request: Option<&str>,
) -> Result<types::Category, SimError> {
    let mut category = category.clone();
    if let Some(request) = request {
        let members: Vec<_> = store
            .contents
            .values()
            .filter(|record| record.body.category_id == category.id)
            .collect();
        let statistics = periods(request)?
            .into_iter()
            .map(|(date, last_day)| {
                let present: Vec<_> = members
                    .iter()
                    .filter(|record| clock::day_of(record.created) <= last_day)
                    .collect();
                types::CategoryStatistics {
                    date: Some(clock::format_date(date)),
                    content_count: i64::try_from(present.len()).ok(),
                    total_duration: Some(
                        present
                            .iter()
                            .filter_map(|r| r.body.duration)
                            .fold(0, i64::saturating_add),
                    ),
                    total_filesize: Some(present.iter().map(|r| r.total_filesize()).fold(0, i64::saturating_add)),
                }
            })
            .collect();
        category.statistics = Some(statistics);
    }
    Ok(category)
}

pub(super) async fn list_categories(
    State(app): State<App>,
    QueryParams(query): QueryParams<StatisticsQuery>,
) -> Result<Json<types::CategoryList>, SimError> {
    let store = app.store();
    let data = store
        .categories
        .iter()
        .map(|category| with_statistics(&store, category, query.statistics.as_deref()))
        .collect::<Result<_, _>>()?;
    Ok(Json(types::CategoryList { data }))
}

pub(super) async fn get_category(
    State(app): State<App>,
    PathParams(id): PathParams<String>,
    QueryParams(query): QueryParams<StatisticsQuery>,
) -> Result<Json<types::Category>, SimError> {
    let store = app.store();
    let category = &store.categories[category_index(&store, &id)?];
    Ok(Json(with_statistics(&store, category, query.statistics.as_deref())?))
}

#[derive(serde::Deserialize)]
pub(super) struct RegisterOptions {
    create_parents: Option<bool>,
}

fn new_category(name: &str) -> types::Category {
    let now = clock::timestamp(clock::now());
    types::Category {
        id: Some(new_id()),
        name: Some(name.to_owned()),
        statistics: None,
        created_at: now.clone(),
        updated_at: now,
    }
}

/// Registers a category; with `create_parents`, its missing parents first
/// (returned top-down in `parents`), else a missing parent is PARENT_CATEGORY_NOT_FOUND.
pub(super) async fn register_category(
    State(app): State<App>,
    QueryParams(options): QueryParams<RegisterOptions>,
    JsonBody(body): JsonBody<types::CategoryCreate>,
) -> Result<Json<types::CategoryRegistration>, SimError> {
    let name = body.name.to_string();
    check_category_name(&name)?;
    let create_parents = options.create_parents.unwrap_or(false);
    let mut store = app.store();
    if store.category_named(&name).is_some() {
        return Err(already_exists(format!("category {name} already exists")));
    }
    let mut missing: Vec<&str> = std::iter::successors(parent_of(&name), |name| parent_of(name))
        .take_while(|ancestor| store.category_named(ancestor).is_none())
        .collect();
    missing.reverse();
    if let Some(parent) = missing.last().filter(|_| !create_parents) {
        return Err(rule(
            "PARENT_CATEGORY_NOT_FOUND",
            format!("parent category {parent} does not exist"),
        ));
    }
    if store.categories.len() + missing.len() >= MAX_RECORDS {
        return Err(over_limit("categories", MAX_RECORDS));
    }
    let mut parents = Vec::with_capacity(missing.len());
    for parent in missing {
        let category = new_category(parent);
        parents.push(types::CategoryParent {
            id: category.id.clone(),
            name: category.name.clone(),
        });
        store.categories.push(category);
    }
    let category = new_category(&name);
    let id = category.id.clone();
    store.categories.push(category);
    Ok(Json(types::CategoryRegistration {
        id,
        parents: create_parents.then_some(parents),
    }))
}

#[derive(serde::Deserialize)]
pub(super) struct RenameOptions {
    rename_children: Option<bool>,
}

/// Renames a category; one with children only with `rename_children`, which renames them too.
pub(super) async fn update_category(
    State(app): State<App>,
    PathParams(id): PathParams<String>,
    QueryParams(options): QueryParams<RenameOptions>,
    JsonBody(body): JsonBody<types::CategoryUpdate>,
) -> Result<StatusCode, SimError> {
    let mut store = app.store();
    let index = category_index(&store, &id)?;
    let Some(new_name) = body.name.map(String::from) else {
        return Ok(done());
    };
    check_category_name(&new_name)?;
    let old_name = store.categories[index].name.clone().unwrap_or_default();
    if new_name == old_name {
        return Ok(done());
    }
    let has_children = store
        .categories
        .iter()
        .any(|c| c.name.as_deref().is_some_and(|name| is_below(name, &old_name)));
    if has_children && !options.rename_children.unwrap_or(false) {
        return Err(rule(
            "CATEGORY_WITH_CHILDREN",
            format!("category {old_name} has child categories; rename them too with rename_children=true"),
        ));
    }
    if is_below(&new_name, &old_name) {
        return Err(SimError::invalid("a category cannot move below itself"));
    }
    if let Some(parent) = parent_of(&new_name).filter(|parent| store.category_named(parent).is_none()) {
        return Err(rule(
            "PARENT_CATEGORY_NOT_FOUND",
            format!("parent category {parent} does not exist"),
        ));
    }
    let renamed = |name: &str| match name.strip_prefix(old_name.as_str()) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => Some(format!("{new_name}{rest}")),
        _ => None,
    };
    let moving = |name: &str| renamed(name).is_some();
    for category in &store.categories {
        let name = category.name.as_deref().unwrap_or_default();
        if let Some(target) = renamed(name) {
            if store.categories.iter().any(|other| {
                other.name.as_deref() == Some(target.as_str()) && !moving(other.name.as_deref().unwrap_or_default())
            }) {
                return Err(already_exists(format!("category {target} already exists")));
            }
        }
    }
    let now = clock::timestamp(clock::now());
    for category in &mut store.categories {
        if let Some(target) = category.name.as_deref().and_then(renamed) {
            category.name = Some(target);
            category.updated_at = now.clone();
        }
    }
    Ok(done())
}

pub(super) async fn delete_category(
    State(app): State<App>,
    PathParams(id): PathParams<String>,
) -> Result<StatusCode, SimError> {
    let mut store = app.store();
    let index = category_index(&store, &id)?;
    let category = &store.categories[index];
    if store
        .contents
        .values()
        .any(|record| record.body.category_id == category.id)
    {
        return Err(rule("CATEGORY_ASSOCIATED", "contents are linked to the category"));
    }
    let name = category.name.as_deref().unwrap_or_default();
    if store
        .categories
        .iter()
        .any(|other| other.name.as_deref().is_some_and(|other| is_below(other, name)))
    {
        return Err(rule("CATEGORY_WITH_CHILDREN", "the category has child categories"));
    }
    store.categories.remove(index);
    Ok(done())
}

fn label_index(store: &Store, raw_id: &str) -> Result<usize, SimError> {
    canonical_id(raw_id)
        .and_then(|id| store.labels.iter().position(|l| l.id.as_deref() == Some(id.as_str())))
        .ok_or_else(|| SimError::not_found(format!("label {raw_id}")))
}

/// Label names are unique in the account (MODEL_ALREADY_EXISTS) and not empty.
fn check_label_name(store: &Store, name: &str, except: Option<usize>) -> Result<(), SimError> {
    if name.is_empty() {
        return Err(SimError::invalid("a label needs a name"));
    }
    let taken = store
        .labels
        .iter()
        .enumerate()
        .any(|(index, label)| Some(index) != except && label.name.as_deref() == Some(name));
    match taken {
        true => Err(already_exists(format!("label {name} already exists"))),
        false => Ok(()),
    }
}

pub(super) async fn list_labels(State(app): State<App>) -> Json<types::LabelList> {
    Json(types::LabelList {
        data: app.store().labels.clone(),
    })
}

pub(super) async fn register_label(
    State(app): State<App>,
    JsonBody(body): JsonBody<types::LabelCreate>,
) -> Result<Json<types::RegisteredId>, SimError> {
    let name = body.name.to_string();
    let mut store = app.store();
    check_label_name(&store, &name, None)?;
    if store.labels.len() >= MAX_RECORDS {
        return Err(over_limit("labels", MAX_RECORDS));
    }
    let now = clock::timestamp(clock::now());
    let id = new_id();
    store.labels.push(types::Label {
        id: Some(id.clone()),
        name: Some(name),
        created_at: now.clone(),
        updated_at: now,
    });
    Ok(Json(types::RegisteredId {
        id: Some(id),
        extra: serde_json::Map::new(),
    }))
}

pub(super) async fn get_label(
    State(app): State<App>,
    PathParams(id): PathParams<String>,
) -> Result<Json<types::Label>, SimError> {
    let store = app.store();
    Ok(Json(store.labels[label_index(&store, &id)?].clone()))
}

pub(super) async fn update_label(
    State(app): State<App>,
    PathParams(id): PathParams<String>,
    JsonBody(body): JsonBody<types::LabelUpdate>,
) -> Result<StatusCode, SimError> {
    let mut store = app.store();
    let index = label_index(&store, &id)?;
    if let Some(name) = body.name.map(String::from) {
        check_label_name(&store, &name, Some(index))?;
        let label = &mut store.labels[index];
        label.name = Some(name);
        label.updated_at = clock::timestamp(clock::now());
    }
    Ok(done())
}

/// Deleting a label keeps its contents (they no longer carry it).
pub(super) async fn delete_label(
    State(app): State<App>,
    PathParams(id): PathParams<String>,
) -> Result<StatusCode, SimError> {
    let mut store = app.store();
    let index = label_index(&store, &id)?;
    let removed = store.labels.remove(index);
    for record in store.contents.values_mut() {
        record.body.labels.retain(|label| Some(label) != removed.id.as_ref());
    }
    Ok(done())
}
