//! The simulator as a fixture: the example's `ingest` against the named
//! scenarios (state and timing the service's own, no answer scripted), typed
//! faults checked against the document, and the journal read back typed.

use crate::example_ingest::{ingest, Ingested};
use std::time::Duration;
use vidplat::encoder::types::{ErrorCode, PresetCreate, ProfileCreate};
use vidplat::{Call, Client, Error};
use vidplat_test::{encoder, sim};

/// A simulator in `scenario` whose tasks move at once, with profile 1 and
/// the input `a.mp4` that `ingest` uses.
async fn simulator(scenarios: &[sim::Scenario]) -> (sim::Simulator, Client) {
    let config = sim::SimConfig {
        task_step: Duration::ZERO,
        seed: 11,
        ..sim::SimConfig::fast()
    };
    let config = scenarios.iter().fold(config, |config, s| config.with_scenario(*s));
    let simulator = sim::Simulator::start_with(config).await.expect("the simulator starts");
    simulator.add_input_file("a.mp4", 1_000_000);
    let client = simulator.client().build().expect("a client");
    let encoder = client.encoder().expect("encoder");
    let preset = PresetCreate::builder()
        .name("mp4")
        .destination("https://upload.example.com/out")
        .format("MP4")
        .output_filename("%INPUT_FILENAME%");
    let preset = encoder.register_preset().body(preset).call().await.expect("a preset");
    let profile = ProfileCreate::builder()
        .name("web")
        .presets(vec![preset.id.expect("an id")]);
    encoder
        .register_profile()
        .body(profile)
        .call()
        .await
        .expect("profile 1");
    (simulator, client)
}

#[tokio::test]
async fn ingest_meets_each_scenario_as_the_service_plays_it() {
    let (_sim, client) = simulator(&[sim::Scenario::FullTaskQueue]).await;
    assert_eq!(ingest(&client, "a.mp4").await.expect("ingests"), Ingested::QueueFull);

    let (_sim, client) = simulator(&[sim::Scenario::FailingTasks]).await;
    let failed = ingest(&client, "a.mp4").await.expect("ingests");
    assert!(
        matches!(failed, Ingested::Failed { error_code } if error_code != 0),
        "{failed:?}"
    );

    // Without retries: in a month's last seconds the 429's Retry-After is
    // that short, and a client that waits for it gets the new month's answer.
    let (sim, _) = simulator(&[sim::Scenario::MonthQuotaSpent]).await;
    let no_retry = sim
        .client()
        .retry(vidplat::RetryPolicy::never())
        .build()
        .expect("a client");
    assert_eq!(
        ingest(&no_retry, "a.mp4").await.expect("ingests"),
        Ingested::Ready { task: 1, plays: None }
    );

    // The same month, turned: the plays of the seeded data.
    let (sim, client) = simulator(&[sim::Scenario::MonthQuotaSpent]).await;
    sim.advance_clock(Duration::from_secs(32 * 86_400));
    let ready = ingest(&client, "a.mp4").await.expect("ingests");
    assert!(
        matches!(
            ready,
            Ingested::Ready {
                task: 1,
                plays: Some(_)
            }
        ),
        "{ready:?}"
    );
}

#[tokio::test]
async fn a_typed_fault_is_what_the_document_allows_and_reaches_the_code_under_test() {
    let refused = std::panic::catch_unwind(|| sim::fault(encoder::GetTask, 409, ErrorCode::OverServiceLimit));
    let message = refused
        .expect_err("not documented")
        .downcast::<String>()
        .expect("a message");
    assert_eq!(
        *message,
        "get_task: the document gives OVER_SERVICE_LIMIT the status 403, not 409"
    );

    let (sim, client) = simulator(&[]).await;
    sim.inject_fault(sim::Fault {
        times: 2,
        ..sim::fault(encoder::RegisterTask, 403, ErrorCode::OverServiceLimit)
    })
    .expect("a usable fault");
    for _ in 0..2 {
        assert_eq!(ingest(&client, "a.mp4").await.expect("ingests"), Ingested::QueueFull);
    }
    let ready = ingest(&client, "a.mp4").await.expect("ingests");
    assert!(matches!(ready, Ingested::Ready { task: 1, .. }), "{ready:?}");
}

#[tokio::test]
async fn the_journal_reads_back_into_the_operations_types() -> Result<(), Error> {
    let (sim, client) = simulator(&[]).await;
    ingest(&client, "a.mp4").await?;
    let registered = sim::sent(&sim, encoder::RegisterTask).expect("readable");
    assert_eq!(registered.len(), 1);
    assert_eq!(registered[0].body.input_filepath.as_str(), "a.mp4");
    assert_eq!(registered[0].body.profile_id.get(), 1);
    let polled = sim::sent(&sim, encoder::GetTask).expect("readable");
    assert!(!polled.is_empty());
    assert!(polled.iter().all(|get| get.params.task_id.get() == 1), "{polled:?}");
    assert_eq!(sim::sent(&sim, encoder::DeleteAllTasks).expect("readable").len(), 0);
    Ok(())
}
