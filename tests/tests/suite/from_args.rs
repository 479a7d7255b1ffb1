//! `builder::visit` and each builder's `from_args`, the one way a reader of
//! data makes a call: for every operation of the three documents, its sample
//! arguments make a builder, and arguments that are all wrong are refused all
//! at once, each by its own name.

use crate::harness::local_client;
use serde_json::{json, Value};
use vidplat_core::{Args, OperationVisitor, Paged, Paginated, Refusals};
use vidplat_tests::{load_spec, samples::operation_arguments};

/// Visits a builder without sending it: which reader method it reached.
struct Reached;

impl<'a> OperationVisitor<'a> for Reached {
    type Output = &'static str;
    fn operation<Op: vidplat_core::Operation + 'a>(self, _: Op) -> &'static str
    where
        Op::Success: serde::Serialize,
    {
        "operation"
    }
    fn list<Op: Paginated + Unpin + 'a>(self, _: Op) -> &'static str
    where
        Op::Success: serde::Serialize,
        <Op::Success as Paged>::Item: serde::Serialize + serde::de::DeserializeOwned + Unpin + Send + 'static,
    {
        "list"
    }
}

/// Every operation of `service`: its id, whether it pages, and its sample arguments.
fn operations(service: &str) -> Vec<(String, bool, vidplat_tests::driver::Args)> {
    let spec = load_spec(service);
    let mut found = Vec::new();
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for op in item.as_object().expect("a path item").values() {
            let Some(id) = op.get("operationId").and_then(Value::as_str) else {
                continue;
            };
            let (args, _) = operation_arguments(&spec, path, op);
            found.push((id.to_owned(), op.get("x-paging").is_some(), args));
        }
    }
    found
}

macro_rules! every_operation {
    ($test:ident, $service:ident, $visit:path) => {
        #[test]
        fn $test() {
            let client = local_client("http://127.0.0.1:9").build().expect("a client");
            let client = client.$service().expect("the service");
            let visit = |id: &str, args: &Args| $visit(client, id, args, Reached);
            let operations = operations(stringify!($service));
            assert!(!operations.is_empty());
            for (id, pages, args) in &operations {
                // The samples make a builder, handed to the reader of its kind.
                let reached = visit(id, &args.for_builder()).expect("a known operation");
                let wanted = if *pages { "list" } else { "operation" };
                assert_eq!(reached, Ok(wanted), "{id}");
                // Every argument wrong at once, and one the operation does not have: each refused, once.
                let mut wrong: serde_json::Map<String, Value> =
                    args.0.keys().map(|name| (name.clone(), json!([[[]]]))).collect();
                wrong.insert("no_such_argument".to_owned(), json!(1));
                let refusals: Refusals = visit(id, &Args::new(wrong.clone()))
                    .expect("a known operation")
                    .expect_err("nothing of it is right");
                let named: Vec<String> = refusals
                    .iter()
                    .map(|r| {
                        r.path()
                            .split(['.', '['])
                            .next()
                            .unwrap_or_default()
                            .trim_end_matches('_')
                            .to_owned()
                    })
                    .collect();
                let mut wanted: Vec<&String> = wrong.keys().collect();
                let mut named_sorted: Vec<&String> = named.iter().collect();
                wanted.sort();
                named_sorted.sort();
                assert_eq!(named_sorted, wanted, "{id}: {refusals}");
            }
            assert!(visit("no_such_operation", &Args::default()).is_none());
        }
    };
}

every_operation!(encoder, encoder, vidplat::encoder::builder::visit);
every_operation!(vms, vms, vidplat::vms::builder::visit);
every_operation!(analytics, analytics, vidplat::analytics::builder::visit);

#[test]
fn a_missing_required_member_and_a_wrong_one_are_refused_together() {
    let client = local_client("http://127.0.0.1:9").build().expect("a client");
    let encoder = client.encoder().expect("the encoder");
    let args = Args::from_value(json!({"task_id": "seven"})).expect("an object");
    let refused = vidplat::encoder::builder::GetTask::from_args(encoder, &args).expect_err("refused");
    assert_eq!(
        refused.to_string(),
        "`task_id` invalid type: string \"seven\", expected a nonzero u64"
    );
    let args = Args::from_value(json!({"colour": "blue"})).expect("an object");
    let refused = vidplat::encoder::builder::GetTask::from_args(encoder, &args).expect_err("refused");
    assert_eq!(
        refused.to_string(),
        "`task_id` is required; `colour` is not an argument of this operation"
    );
}
