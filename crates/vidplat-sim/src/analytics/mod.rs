//! The simulated viewing-analytics service, basic (/v1) and cloud (/v2)
//! editions: deterministic synthetic data (seeded with `SimConfig::seed`),
//! the documented usage limits (429 with `Retry-After`) and 408 for a query
//! that costs more than `SimConfig::analytics_slow_cost`: the document says a
//! slow query is answered 408 and that the period and the rows make it slow,
//! so a query costs the rows it asks for (`limit`, `end_with - start_with + 1`,
//! the positions of a positional operation, the minutes of the basic real-time
//! one) times the days its period touches.
//!
//! Every request goes through [`Api::serve`]: credentials (401), parameters
//! (400, 404 for an unknown situation field), usage limits (429), the
//! query's latency, then 408 or the page.

mod basic;
mod clock;
mod cloud;
mod facts;
mod params;
mod quota;
mod table;

use crate::{QueryParams, Shared, SimError};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, MethodRouter};
use axum::{Json, Router};
use params::{BasicParams, BasicRealtimeParams, CloudParams};
pub use quota::AnalyticsStats;
use quota::{Limits, Quota, Scope};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::sync::Arc;
use table::Report;
use vidplat_analytics::types;

pub(crate) fn router(shared: Shared) -> Router {
    let config = &shared.config;
    let quota = Quota::new(
        Limits {
            per_minute: config.analytics_per_minute,
            concurrent: config.analytics_concurrent,
            monthly: config.analytics_monthly,
            window: config.analytics_window,
            latency: config.analytics_latency,
        },
        clock::now(),
        config.analytics_month_used,
    );
    let api = Api(Arc::new(Inner { shared, quota }));
    let router = Router::new()
        .route("/v1/realtime/user-counts", basic_realtime())
        .route("/v1/datetime/data", basic(basic::by_time_period))
        .route(
            "/v1/category/data",
            basic_report::<types::BasicContentCategoryPage>(&basic::BY_CATEGORY),
        )
        .route(
            "/v1/title/data",
            basic_report::<types::BasicContentTitlePage>(&basic::BY_TITLE),
        )
        .route(
            "/v1/title/userid/data",
            basic_report::<types::BasicContentTitleUserPage>(&basic::BY_TITLE_AND_USER),
        )
        .route("/v1/userid/data", basic_report::<types::BasicUserPage>(&basic::BY_USER))
        .route("/v1/os/data", basic_report::<types::BasicOsPage>(&basic::BY_OS))
        .route(
            "/v1/environment/data",
            basic_report::<types::BasicEnvironmentPage>(&basic::BY_ENVIRONMENT),
        )
        .route("/v1/site/data", basic_report::<types::BasicSitePage>(&basic::BY_SITE))
        .route(
            "/v1/region/data",
            basic_report::<types::BasicRegionPage>(&basic::BY_REGION),
        )
        .route("/v1/history", basic(basic::history))
        .route("/v1/data", basic(basic::query))
        .route("/v1/engagement/audience-rating/data", basic(basic::audience_rating))
        .route("/v1/engagement/reaction/data", basic(basic::reaction))
        .route("/v1/situation/data/{parameter}", situation(basic::situation))
        .route("/v2/realtime/user-counts", cloud(cloud::realtime))
        .route("/v2/user-counts/data", cloud(cloud::user_counts_legacy))
        .route("/v2/active-users/data", cloud(cloud::active_users))
        .route("/v2/datetime/data", cloud(cloud::by_time_period))
        .route(
            "/v2/title/data",
            cloud_report::<types::CloudContentTitlePage>(&cloud::BY_TITLE),
        )
        .route(
            "/v2/title/userid/data",
            cloud_report::<types::CloudContentTitleUserPage>(&cloud::BY_TITLE_AND_USER),
        )
        .route(
            "/v2/name/data",
            cloud_report::<types::CloudContentNamePage>(&cloud::BY_NAME),
        )
        .route(
            "/v2/name/userid/data",
            cloud_report::<types::CloudContentNameUserPage>(&cloud::BY_NAME_AND_USER),
        )
        .route(
            "/v2/category/data",
            cloud_report::<types::CloudContentCategoryPage>(&cloud::BY_CATEGORY),
        )
        .route("/v2/userid/data", cloud_report::<types::CloudUserPage>(&cloud::BY_USER))
        .route("/v2/os/data", cloud_report::<types::CloudOsPage>(&cloud::BY_OS))
        .route(
            "/v2/browser/data",
            cloud_report::<types::CloudBrowserPage>(&cloud::BY_BROWSER),
        )
        .route("/v2/site/data", cloud_report::<types::CloudSitePage>(&cloud::BY_SITE))
        .route(
            "/v2/region/data",
            cloud_report::<types::CloudRegionPage>(&cloud::BY_REGION),
        )
        .route("/v2/history", cloud(cloud::history))
        .route("/v2/data", cloud(cloud::query))
        .route("/v2/engagement/data", cloud(cloud::engagement))
        .route("/v2/reaction/data", cloud(cloud::reaction))
        .route("/v2/situation/{parameter}/data", situation(cloud::situation));
    crate::operations::with_fallbacks(router).with_state(api)
}

#[derive(Clone)]
struct Api(Arc<Inner>);

struct Inner {
    shared: Shared,
    quota: Arc<Quota>,
}

/// What an operation computes with.
struct Context<'a> {
    seed: u64,
    /// The synthetic data's sessions a day, on average.
    sessions_per_day: u32,
    /// Days after its end a day's figures are not final (`golden: false`).
    settle_days: u32,
    /// The widest basic rank window answered.
    basic_max_window: Option<u64>,
    /// Now, in the simulator's zone (Japan time by default).
    now: clock::Local,
    /// The account's login ID (the basic real-time operation is called with it).
    login_id: &'a str,
}

/// A computed answer, and what the query costs (rows asked for × days: what makes it slow).
struct Answer {
    response: Response,
    cost: u64,
}

impl Answer {
    fn new(body: &impl Serialize, cost: u64) -> Self {
        Self {
            response: Json(body).into_response(),
            cost,
        }
    }

    /// Decodes `value` into the generated type `T` and answers with it, so the
    /// body has exactly the YAML's shape.
    fn decode<T: DeserializeOwned + Serialize>(value: serde_json::Value, cost: u64) -> Result<Self, SimError> {
        Ok(Self::new(&Self::decode_value::<T>(value)?, cost))
    }

    fn decode_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, SimError> {
        serde_json::from_value(value).map_err(|error| {
            SimError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "UNKNOWN_ERROR",
                format!("the simulator built a body that does not fit its type: {error}"),
            )
        })
    }
}

/// How a caller is identified.
enum Access<'a> {
    /// `Authorization: Bearer <key>`; every usage limit applies.
    Key(&'a HeaderMap),
    /// The basic real-time operation: `login_id` (checked by the operation); the monthly limit only.
    LoginId,
}

impl Api {
    /// Answers one request: credentials (401), parameters and the operation's
    /// own checks (400, 404), the usage limits (429), the query's latency,
    /// then 408 when it costs too much, else the computed page.
    async fn serve<Q>(
        &self,
        access: Access<'_>,
        query: Result<QueryParams<Q>, SimError>,
        operation: impl FnOnce(&Context, Q) -> Result<Answer, SimError>,
    ) -> Response {
        let shared = &self.0.shared;
        let scope = match access {
            Access::Key(headers) => {
                if let Err(error) = shared.keys.check(headers, None) {
                    return error.into_response();
                }
                Scope::AllLimits
            }
            Access::LoginId => Scope::MonthlyOnly,
        };
        let context = Context {
            seed: shared.config.seed,
            sessions_per_day: shared.config.analytics_sessions_per_day,
            settle_days: shared.config.analytics_settle_days,
            basic_max_window: shared.config.analytics_basic_max_window,
            now: clock::now(),
            login_id: &shared.keys.login_id,
        };
        let answer = match query.and_then(|QueryParams(query)| operation(&context, query)) {
            Ok(answer) => answer,
            Err(error) => return error.into_response(),
        };
        let _in_flight = (scope == Scope::AllLimits).then(|| shared.analytics_stats.enter());
        let admitted = self.0.quota.admit(scope, context.now);
        if scope == Scope::AllLimits {
            shared.analytics_stats.record(admitted.is_ok());
        }
        let _execution = match admitted {
            Ok(execution) => execution,
            Err(refusal) => return refusal.into_response(),
        };
        tokio::time::sleep(shared.config.analytics_latency).await;
        if answer.cost > shared.config.analytics_slow_cost {
            return SimError::new(
                StatusCode::REQUEST_TIMEOUT,
                "REQUEST_TIMEOUT",
                format!(
                    "the query took too long (rows asked for × days of the period = {}, the simulator times out \
                     above {}); shorten the period and request fewer rows, or retry later",
                    answer.cost, shared.config.analytics_slow_cost
                ),
            )
            .into_response();
        }
        answer.response
    }
}

/// A GET operation of the given edition's parameters, called with a key.
fn operation<Q, F>(compute: F) -> MethodRouter<Api>
where
    Q: DeserializeOwned + Send + 'static,
    F: Fn(&Context, Q) -> Result<Answer, SimError> + Clone + Send + Sync + 'static,
{
    get(
        move |State(api): State<Api>, headers: HeaderMap, query: Result<QueryParams<Q>, SimError>| async move {
            api.serve(Access::Key(&headers), query, compute).await
        },
    )
}

fn basic(compute: fn(&Context, BasicParams) -> Result<Answer, SimError>) -> MethodRouter<Api> {
    operation(compute)
}

fn cloud(compute: fn(&Context, CloudParams) -> Result<Answer, SimError>) -> MethodRouter<Api> {
    operation(compute)
}

/// A basic-edition report answered with the page type `P`.
fn basic_report<P>(report: &'static Report<'static>) -> MethodRouter<Api>
where
    P: DeserializeOwned + Serialize + 'static,
{
    operation(move |context: &Context, params: BasicParams| basic::report::<P>(context, params, report))
}

/// A cloud-edition report answered with the page type `P`.
fn cloud_report<P>(report: &'static Report<'static>) -> MethodRouter<Api>
where
    P: DeserializeOwned + Serialize + 'static,
{
    operation(move |context: &Context, params: CloudParams| cloud::report::<P>(context, params, report))
}

/// A viewing-situation operation: the situation field is the path's `parameter`.
fn situation<Q>(compute: fn(&Context, &str, Q) -> Result<Answer, SimError>) -> MethodRouter<Api>
where
    Q: DeserializeOwned + Send + 'static,
{
    get(
        move |State(api): State<Api>,
              Path(field): Path<String>,
              headers: HeaderMap,
              query: Result<QueryParams<Q>, SimError>| async move {
            let compute = |context: &Context, params: Q| compute(context, &field, params);
            api.serve(Access::Key(&headers), query, compute).await
        },
    )
}

/// The basic real-time operation: no key, the account named by `login_id`.
fn basic_realtime() -> MethodRouter<Api> {
    get(
        |State(api): State<Api>, query: Result<QueryParams<BasicRealtimeParams>, SimError>| async move {
            api.serve(Access::LoginId, query, basic::realtime).await
        },
    )
}
