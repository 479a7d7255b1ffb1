//! The example of the README, as a user writes it: an application's ingest
//! function, and its tests for a full queue, a failed task and a month's
//! analytics quota spent. Each test sets up only what it cares about.

use vidplat::encoder::types::{ErrorCode, TaskCreate};
use vidplat::{Call, Client, Error};

/// What ingesting a file came to.
#[derive(Debug, PartialEq)]
pub enum Ingested {
    /// Encoded; the plays of the last report, unless the quota is spent.
    Ready { task: i64, plays: Option<i64> },
    /// The encoder's queue is full: try later.
    QueueFull,
    /// The encoder gave up, with its error number.
    Failed { error_code: i64 },
}

/// The application's code under test: register, wait for the encode, report plays.
pub async fn ingest(client: &Client, file: &str) -> Result<Ingested, Error> {
    let body = TaskCreate::builder().input_filepath(file).profile_id(1);
    let registered = match client.encoder()?.register_task().body(body).call().await {
        Ok(registered) => registered,
        // The documents' code for "no more tasks can be registered".
        Err(e) if e.code_as::<ErrorCode>() == Some(ErrorCode::OverServiceLimit) => return Ok(Ingested::QueueFull),
        Err(e) => return Err(e),
    };
    let id = registered.tasks.first().and_then(|t| t.id);
    let task = match client.wait_for_task(id).await {
        Ok(task) => task,
        Err(Error::TaskEnded(task)) => {
            return Ok(Ingested::Failed {
                error_code: task.error_code.unwrap_or(0),
            })
        }
        Err(e) => return Err(e),
    };
    let plays = match client.analytics()?.cloud_by_os().call().await {
        Ok(page) => Some(page.data.iter().filter_map(|row| row.play_requested_count).sum()),
        Err(Error::RateLimited { .. }) => None,
        Err(e) => return Err(e),
    };
    Ok(Ingested::Ready {
        task: task.id.unwrap_or(0),
        plays,
    })
}

mod tests {
    use super::*;
    use vidplat::analytics::types::{CloudOsPage, CloudOsRow, ErrorCode as AnalyticsCode};
    use vidplat::encoder::types::{Task, TaskRegistration, TaskStatus};
    use vidplat_test::{analytics, encoder, Fixture, Mock};

    #[tokio::test(start_paused = true)]
    async fn a_full_queue_is_reported_not_retried() {
        let mock = Mock::new();
        mock.on(encoder::RegisterTask).fail(403, ErrorCode::OverServiceLimit);
        assert_eq!(ingest(&mock.client(), "a.mp4").await.unwrap(), Ingested::QueueFull);
        mock.verify();
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_task_gives_its_error_number() {
        let mock = Mock::new();
        mock.on(encoder::RegisterTask).respond(TaskRegistration::fixture());
        let (encoding, failed) = (Task::fixture(), Task::fixture());
        let encoding = Task {
            status: Some(TaskStatus::Encoding),
            ..encoding
        };
        let failed = Task {
            status: Some(TaskStatus::Failed),
            error_code: Some(4021),
            ..failed
        };
        mock.on(encoder::GetTask).respond(encoding).then().respond(failed);
        let outcome = ingest(&mock.client(), "a.mp4").await.unwrap();
        assert_eq!(outcome, Ingested::Failed { error_code: 4021 });
        mock.verify();
    }

    #[tokio::test(start_paused = true)]
    async fn a_spent_monthly_quota_still_ingests_without_plays() {
        let mock = Mock::new();
        mock.on(encoder::RegisterTask).respond(TaskRegistration::fixture());
        mock.on(encoder::GetTask).respond(Task::fixture());
        // The month's quota is spent: 429 until the month turns (days away).
        mock.on(analytics::CloudByOs)
            .fail(429, AnalyticsCode::TooManyRequests)
            .header("retry-after", "864000");
        let outcome = ingest(&mock.client(), "a.mp4").await.unwrap();
        assert_eq!(outcome, Ingested::Ready { task: 1, plays: None });
        mock.verify();
    }

    #[tokio::test(start_paused = true)]
    async fn plays_are_summed_from_the_report() {
        let mock = Mock::new();
        mock.on(encoder::RegisterTask).respond(TaskRegistration::fixture());
        mock.on(encoder::GetTask).respond(Task::fixture());
        let page = CloudOsPage {
            data: vec![CloudOsRow::fixture(), CloudOsRow::fixture()],
            ..CloudOsPage::fixture()
        };
        mock.on(analytics::CloudByOs).respond(page);
        let outcome = ingest(&mock.client(), "a.mp4").await.unwrap();
        let expected = Ingested::Ready {
            task: 1,
            plays: Some(6),
        };
        assert_eq!(outcome, expected);
        mock.verify();
    }
}
