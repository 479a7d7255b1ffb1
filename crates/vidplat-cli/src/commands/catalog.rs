//! `vidplat catalog export|plan|apply`: the account's set-up (notification
//! settings, presets, profiles, categories, labels) as a YAML file, compared
//! with the account and made so with the fewest writes.
//!
//! Everything goes through the operations' entry point from data
//! ([`vidplat::Client::call_json`]) and their rows: the members a file may
//! give are a registration body's, what an update keeps is
//! [`vidplat_core::RequestBody::kept_from`]. What is particular to a kind
//! of resource (its operations, what names it, what refers to what) is the
//! table [`KINDS`].

use super::Invocation;
use crate::failure::Failure;
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use vidplat_core::{Args, OperationMeta, Service};

/// A kind of resource the file declares, matched by its name: its
/// registration's row of the table (the YAML's `x-catalog`).
struct Kind {
    /// Its key in the file (`presets`).
    key: &'static str,
    /// One of them, in messages (`preset`).
    one: &'static str,
    service: Service,
    list: &'static str,
    register: &'static str,
    update: Option<&'static str>,
    delete: &'static str,
    /// The id's argument of the update and the delete (`preset_id`).
    id_argument: &'static str,
    /// A member holding ids of another kind, written in the file as their names.
    refers: Option<(&'static str, &'static str)>,
}

/// Every kind, in the order they are made: the services' and, in each, the
/// YAML's (presets before the profiles that hold them); deleted in reverse.
/// A category's name is its path (`Sports/Football`): a parent comes before
/// its children when sorted by depth (that a path names one category is the
/// YAML's assumption, `CategoryCreate.name`, GAPS.md).
static KINDS: std::sync::LazyLock<Vec<Kind>> = std::sync::LazyLock::new(|| {
    [Service::Encoder, Service::Vms]
        .into_iter()
        .flat_map(|service| crate::spec::commands(service).map(move |spec| (service, spec.operation)))
        .filter_map(|(service, operation)| {
            let catalog = operation.catalog?;
            Some(Kind {
                key: catalog.key,
                one: catalog.one,
                service,
                list: catalog.list,
                register: operation.id,
                update: catalog.update,
                delete: catalog.delete,
                id_argument: catalog.id_argument,
                refers: catalog.refers,
            })
        })
        .collect()
});

/// The account's one set of notification settings, updated in place.
const SETTINGS: &str = "notification_settings";
const SETTINGS_READ: &str = "get_notification_settings";
const SETTINGS_UPDATE: &str = "update_notification_settings";

pub fn define(command: Command) -> Command {
    let file = || {
        Arg::new("file")
            .short('f')
            .long("file")
            .value_name("FILE")
            .required(true)
            .help("The set-up, YAML (- reads stdin)")
    };
    let prune = || {
        Arg::new("prune")
            .long("prune")
            .action(ArgAction::SetTrue)
            .help("Also delete what the account has and the file does not name")
    };
    command
        .about("The account's set-up as a file: presets, profiles, categories, labels, notification settings")
        .long_about(
            "The account's set-up as a YAML file: notification settings, presets, profiles (holding presets by \
             name), categories (by path, `Sports/Football`) and labels, each matched by its name; ids never \
             appear. `export` writes the account's, `plan` shows what `apply` would change, `apply` makes the \
             account so with the fewest writes, in order (presets before the profiles that hold them, parents \
             before children). A member the file leaves out is left as the account has it; an update sends \
             every member read with the file's laid over them.",
        )
        .after_help(
            "Examples:\n  \
             vidplat catalog export > staging.yaml\n  \
             vidplat --profile prod catalog plan -f staging.yaml\n  \
             vidplat --profile prod catalog apply -f staging.yaml",
        )
        .subcommand_required(true)
        .subcommand(Command::new("export").about("Write the account's set-up as YAML on stdout"))
        .subcommand(Command::new("schema").about(
            "Write the file's JSON Schema on stdout, for editors (`# yaml-language-server: $schema=catalog.schema.json`)",
        ))
        .subcommand(
            Command::new("plan")
                .about("Show what apply would change; exit 0 when nothing, 6 when changes are planned")
                .arg(file())
                .arg(prune()),
        )
        .subcommand(
            Command::new("apply")
                .about("Make the account as the file says, in order; stop at the first failure")
                .arg(file())
                .arg(prune())
                .arg(crate::confirm::yes_flag()),
        )
}

pub async fn run(invocation: Invocation<'_, '_>) -> Result<(), Failure> {
    let Some((name, matches)) = invocation.matches.subcommand() else {
        return Err(Failure::invalid("catalog", "needs a subcommand"));
    };
    if name == "schema" {
        // Generated from the YAML's bodies (`cargo xtask codegen`).
        invocation
            .io
            .stdout
            .write_all(include_bytes!("../../catalog.schema.json"))?;
        return Ok(());
    }
    let client = invocation.client()?;
    let account = Account::read(&client).await?;
    let io = invocation.io;
    for skipped in &account.skipped {
        writeln!(io.stderr, "{skipped}")?;
    }
    if name == "export" {
        let text = serde_yaml::to_string(&account.exported()).map_err(|e| Failure::Output(std::io::Error::other(e)))?;
        io.stdout.write_all(
            b"# The account's set-up, written by `vidplat catalog export` (ids left out: each is matched by its name).\n\
              # Its JSON Schema, for editors: `vidplat catalog schema`.\n",
        )?;
        io.stdout.write_all(text.as_bytes())?;
        return Ok(());
    }
    let wanted = read_file(matches, io.stdin)?;
    let plan = Plan::make(&client, &account, &wanted, matches.get_flag("prune"))?;
    if name == "plan" {
        for change in &plan.changes {
            io.stdout.write_all(change.shown().as_bytes())?;
        }
        writeln!(io.stderr, "{}", plan.summary())?;
        return match plan.changes.is_empty() {
            true => Ok(()),
            false => Err(Failure::ChangesPlanned(plan.changes.len())),
        };
    }
    if plan
        .changes
        .iter()
        .any(|change| matches!(change.action, Action::Delete { .. }))
    {
        let deletes = plan
            .changes
            .iter()
            .filter(|change| matches!(change.action, Action::Delete { .. }))
            .count();
        crate::confirm::destroying(
            &format!("delete {deletes} resource(s) the file does not name"),
            matches.get_flag("yes"),
            io,
        )?;
    }
    plan.apply(&client, &account, io).await
}

/// The file: YAML (JSON is YAML too), from a path or stdin.
fn read_file(matches: &ArgMatches, stdin: &mut dyn std::io::Read) -> Result<Value, Failure> {
    let path = matches.get_one::<String>("file").cloned().unwrap_or_default();
    let bytes = crate::run::read_input(&path, "--file", 16 << 20, stdin)?;
    serde_yaml::from_slice(&bytes).map_err(|e| Failure::invalid("--file", format!("is not YAML: {e}")))
}

/// One resource as the account has it.
struct Held {
    id: Value,
    name: String,
    /// As read.
    read: Value,
}

/// What the account has, each kind by name.
struct Account {
    kinds: BTreeMap<&'static str, Vec<Held>>,
    settings: Value,
    /// What was read and is not the account's own (said on stderr).
    skipped: Vec<String>,
}

impl Account {
    async fn read(client: &vidplat::Client) -> Result<Self, Failure> {
        let mut kinds = BTreeMap::new();
        let mut skipped = Vec::new();
        for kind in KINDS.iter() {
            if !configured(client, kind.service) {
                skipped.push(format!(
                    "catalog: {} not read: the {} service is not configured",
                    kind.key, kind.service
                ));
                continue;
            }
            let listed = client.call_json(kind.service, kind.list, &Args::default()).await?;
            let mut held = Vec::new();
            for item in listed["data"].as_array().into_iter().flatten() {
                let (Some(name), false) = (item["name"].as_str(), item["id"].is_null()) else {
                    continue;
                };
                held.push(Held {
                    id: item["id"].clone(),
                    name: name.to_owned(),
                    read: item.clone(),
                });
            }
            kinds.insert(kind.key, held);
        }
        // A profile holding a preset that is not among the account's is not
        // the account's own (one a parent account shares, read only): left alone.
        let preset_ids: BTreeSet<String> = kinds["presets"].iter().map(|p| p.id.to_string()).collect();
        if let Some(profiles) = kinds.get_mut("profiles") {
            profiles.retain(|profile| {
                let own = profile.read["presets"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .all(|id| preset_ids.contains(&id.to_string()));
                if !own {
                    skipped.push(format!(
                        "catalog: profile {} left alone: it holds presets that are not the account's (a profile \
                         another account shares, read only)",
                        vidplat_core::escape_controls(&profile.name)
                    ));
                }
                own
            });
        }
        let settings = match configured(client, Service::Encoder) {
            true => {
                client
                    .call_json(Service::Encoder, SETTINGS_READ, &Args::default())
                    .await?
            }
            false => Value::Null,
        };
        Ok(Self {
            kinds,
            settings,
            skipped,
        })
    }

    fn held(&self, kind: &Kind) -> &[Held] {
        self.kinds.get(kind.key).map_or(&[], Vec::as_slice)
    }

    /// The name of the `refers` kind's resource of id `id`.
    fn name_of(&self, kind: &str, id: &Value) -> Option<&str> {
        self.kinds
            .get(kind)?
            .iter()
            .find(|held| held.id == *id)
            .map(|held| held.name.as_str())
    }

    /// A resource as the file writes it: the members its registration
    /// takes, ids of another kind as its names.
    fn as_written(&self, kind: &Kind, read: &Value) -> Value {
        let mut written = body_of(kind.service, kind.register).map_or(Value::Null, |body| body.kept_from(read));
        if let (Some((member, other)), Some(object)) = (kind.refers, written.as_object_mut()) {
            if let Some(Value::Array(ids)) = object.get_mut(member) {
                for id in ids.iter_mut() {
                    if let Some(name) = self.name_of(other, id) {
                        *id = Value::String(name.to_owned());
                    }
                }
            }
        }
        written
    }

    /// The file `export` writes: the kinds in the order they are made, each
    /// resource's name first, then its members by name (those without a value left out).
    fn exported(&self) -> serde_yaml::Mapping {
        let yaml = |value: &Value| serde_yaml::to_value(value).unwrap_or(serde_yaml::Value::Null);
        let mut file = serde_yaml::Mapping::new();
        if let (Some(body), false) = (body_of(Service::Encoder, SETTINGS_UPDATE), self.settings.is_null()) {
            file.insert(SETTINGS.into(), yaml(&body.kept_from(&self.settings)));
        }
        for kind in KINDS.iter().filter(|kind| self.kinds.contains_key(kind.key)) {
            let mut items: Vec<Value> = self
                .held(kind)
                .iter()
                .map(|held| self.as_written(kind, &held.read))
                .collect();
            items.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
            let items = items
                .iter()
                .map(|item| {
                    let mut written = serde_yaml::Mapping::new();
                    written.insert("name".into(), yaml(&item["name"]));
                    // A member the account holds no value of is left out, as the file may.
                    let members = item.as_object().into_iter().flatten();
                    for (member, value) in members.filter(|(m, v)| *m != "name" && !v.is_null()) {
                        written.insert(member.as_str().into(), yaml(value));
                    }
                    serde_yaml::Value::Mapping(written)
                })
                .collect();
            file.insert(kind.key.into(), serde_yaml::Value::Sequence(items));
        }
        file
    }
}

/// Whether the client has `service` (a profile may give only some).
fn configured(client: &vidplat::Client, service: Service) -> bool {
    match service {
        Service::Encoder => client.encoder().is_ok(),
        Service::Vms => client.vms().is_ok(),
        Service::Analytics => client.analytics().is_ok(),
    }
}

/// One of the kind whose key is `key` (`preset`), in messages.
fn one_of(key: &str) -> &'static str {
    KINDS
        .iter()
        .find(|kind| kind.key == key)
        .map_or("resource", |kind| kind.one)
}

/// The body row of `service`'s operation `id`.
fn body_of(service: Service, id: &str) -> Option<vidplat_core::RequestBody> {
    operation(service, id).and_then(|op| op.body)
}

fn operation(service: Service, id: &str) -> Option<&'static OperationMeta> {
    crate::spec::of_operation(service, id).map(|spec| spec.operation)
}

/// One write `apply` makes.
struct Change {
    kind: &'static str,
    name: String,
    action: Action,
}

enum Action {
    Create {
        body: Value,
    },
    /// Each member changed, as (member, before, after); the body sent whole.
    Update {
        id: Value,
        changed: Vec<(String, Value, Value)>,
        body: Value,
    },
    Delete {
        id: Value,
    },
    /// The notification settings, updated in place.
    Settings {
        changed: Vec<(String, Value, Value)>,
        body: Value,
    },
}

impl Change {
    /// Its lines in a plan: `+`, `~` with each member `before → after`, `-`.
    fn shown(&self) -> String {
        let name = vidplat_core::escape_controls(&self.name);
        let mut text = match &self.action {
            Action::Create { .. } => format!("+ {} {name}\n", self.kind),
            Action::Update { .. } => format!("~ {} {name}\n", self.kind),
            Action::Delete { .. } => format!("- {} {name}\n", self.kind),
            Action::Settings { .. } => format!("~ {}\n", self.kind),
        };
        if let Action::Update { changed, .. } | Action::Settings { changed, .. } = &self.action {
            for (member, before, after) in changed {
                text.push_str(&format!(
                    "    {member}: {} → {}\n",
                    shown_value(before),
                    shown_value(after)
                ));
            }
        }
        text
    }
}

/// A value on one line, as JSON (left out: `(none)`); no control character unescaped.
fn shown_value(value: &Value) -> String {
    match value {
        Value::Null => "(none)".to_owned(),
        value => value.to_string(),
    }
}

/// What `apply` would do, in the order it does it.
struct Plan {
    changes: Vec<Change>,
    /// Held by the account, not named by the file, and not pruned.
    left: usize,
}

impl Plan {
    fn make(client: &vidplat::Client, account: &Account, wanted: &Value, prune: bool) -> Result<Self, Failure> {
        let mut problems: Vec<(String, String)> = Vec::new();
        let Some(file) = wanted.as_object() else {
            return Err(Failure::invalid(
                "--file",
                "is not a mapping of kinds (presets:, profiles:, …)",
            ));
        };
        for key in file.keys() {
            let unread = match KINDS.iter().find(|kind| kind.key == key) {
                Some(kind) => !account.kinds.contains_key(kind.key),
                None => key == SETTINGS && account.settings.is_null(),
            };
            if unread {
                problems.push((
                    key.clone(),
                    "cannot be planned: its service is not configured".to_owned(),
                ));
            }
            if key != SETTINGS && !KINDS.iter().any(|kind| kind.key == key) {
                problems.push((
                    key.clone(),
                    format!(
                        "is no kind the file declares ({SETTINGS}, {})",
                        KINDS.iter().map(|kind| kind.key).collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
        }
        let mut changes = Vec::new();
        let mut deletes = Vec::new();
        let mut left = 0;
        if let (Some(wanted), Some(body)) = (file.get(SETTINGS), body_of(Service::Encoder, SETTINGS_UPDATE)) {
            let current = body.kept_from(&account.settings);
            match wanted.as_object() {
                Some(wanted) => {
                    let changed = changed_members(&current, wanted);
                    if !changed.is_empty() {
                        let body = vidplat_core::laid_over(current, &Value::Object(wanted.clone()));
                        changes.push(Change {
                            kind: SETTINGS,
                            name: String::new(),
                            action: Action::Settings { changed, body },
                        });
                    }
                }
                None => problems.push((SETTINGS.to_owned(), "is not a mapping of members".to_owned())),
            }
        }
        // The names each kind will have once applied, for the references.
        let mut named: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        for kind in KINDS.iter() {
            let items = match file.get(kind.key) {
                None => continue,
                Some(Value::Array(items)) => items.as_slice(),
                Some(_) => {
                    problems.push((kind.key.to_owned(), "is not a list".to_owned()));
                    continue;
                }
            };
            let mut seen = BTreeSet::new();
            for (at, item) in items.iter().enumerate() {
                match item["name"].as_str() {
                    Some(name) if !seen.insert(name.to_owned()) => {
                        problems.push((format!("{}[{at}].name", kind.key), format!("`{name}` is named twice")));
                    }
                    Some(_) => {}
                    None => problems.push((format!("{}[{at}].name", kind.key), "is required (a text)".to_owned())),
                }
            }
            named.insert(kind.key, seen);
        }
        for kind in KINDS.iter() {
            let items: &[Value] = match file.get(kind.key) {
                Some(Value::Array(items)) => items,
                _ => &[],
            };
            let mut made = Vec::new();
            for (at, item) in items.iter().enumerate() {
                let Some(name) = item["name"].as_str() else { continue };
                // References by name: to one in the file, or one the account has.
                if let Some((member, other)) = kind.refers {
                    for (index, reference) in item[member].as_array().into_iter().flatten().enumerate() {
                        let known = reference.as_str().is_some_and(|reference| {
                            named.get(other).is_some_and(|names| names.contains(reference))
                                || account
                                    .kinds
                                    .get(other)
                                    .is_some_and(|held| held.iter().any(|h| h.name == reference))
                        });
                        if !known {
                            problems.push((
                                format!("{}[{at}].{member}[{index}]", kind.key),
                                format!("names no {} of the file or the account", one_of(other)),
                            ));
                        }
                    }
                }
                if let Some(body) = body_of(kind.service, kind.register) {
                    if let Some(unknown) = body.unknown_member(item) {
                        problems.push((
                            format!("{}[{at}].{unknown}", kind.key),
                            format!("is no member of a {} registration", kind.one),
                        ));
                    }
                }
                let held = account.held(kind).iter().find(|held| held.name == name);
                match (held, kind.update) {
                    (None, _) => made.push(Change {
                        kind: kind.one,
                        name: name.to_owned(),
                        action: Action::Create { body: item.clone() },
                    }),
                    (Some(held), Some(update)) => {
                        let Some(body) = body_of(kind.service, update) else {
                            continue;
                        };
                        let current = account.as_written(kind, &body.kept_from(&held.read));
                        let Some(wanted) = item.as_object() else { continue };
                        let changed = changed_members(&current, wanted);
                        if !changed.is_empty() {
                            made.push(Change {
                                kind: kind.one,
                                name: name.to_owned(),
                                action: Action::Update {
                                    id: held.id.clone(),
                                    changed,
                                    body: vidplat_core::laid_over(current, item),
                                },
                            });
                        }
                    }
                    (Some(_), None) => {}
                }
            }
            // Parents before their children.
            made.sort_by_key(|change| change.name.matches('/').count());
            changes.extend(made);
            let unnamed = account
                .held(kind)
                .iter()
                .filter(|held| !named.get(kind.key).is_some_and(|names| names.contains(&held.name)))
                // A kind the file does not list is not the file's to prune.
                .filter(|_| file.contains_key(kind.key));
            for held in unnamed {
                match prune {
                    true => deletes.push(Change {
                        kind: kind.one,
                        name: held.name.clone(),
                        action: Action::Delete { id: held.id.clone() },
                    }),
                    false => left += 1,
                }
            }
        }
        if problems.is_empty() {
            problems.extend(checked(client, file, &changes, account));
        }
        if !problems.is_empty() {
            return Err(Failure::refused(problems));
        }
        // Deleted in reverse: profiles before the presets they hold, children before parents.
        deletes.sort_by_key(|change| std::cmp::Reverse(change.name.matches('/').count()));
        deletes.sort_by_key(|change| std::cmp::Reverse(KINDS.iter().position(|kind| kind.one == change.kind)));
        changes.extend(deletes);
        Ok(Self { changes, left })
    }

    fn summary(&self) -> String {
        let count = |f: fn(&Action) -> bool| self.changes.iter().filter(|change| f(&change.action)).count();
        let (create, update, delete) = (
            count(|a| matches!(a, Action::Create { .. })),
            count(|a| matches!(a, Action::Update { .. } | Action::Settings { .. })),
            count(|a| matches!(a, Action::Delete { .. })),
        );
        let mut summary = match self.changes.is_empty() {
            true => "plan: no changes".to_owned(),
            false => format!("plan: {create} to create, {update} to update, {delete} to delete"),
        };
        if self.left > 0 {
            summary.push_str(&format!(
                "; {} on the account the file does not name (deleted only with --prune)",
                self.left
            ));
        }
        summary
    }

    /// Each change in order, its line on stdout once done; the first
    /// failure stops it, saying what was done and what was not.
    async fn apply(self, client: &vidplat::Client, account: &Account, io: &mut crate::Io<'_>) -> Result<(), Failure> {
        // Ids by kind and name: the account's, then each one made.
        let mut ids: BTreeMap<&str, BTreeMap<String, Value>> = KINDS
            .iter()
            .map(|kind| {
                let held = account
                    .held(kind)
                    .iter()
                    .map(|h| (h.name.clone(), h.id.clone()))
                    .collect();
                (kind.key, held)
            })
            .collect();
        let total = self.changes.len();
        for (done, change) in self.changes.into_iter().enumerate() {
            let kind = KINDS.iter().find(|kind| kind.one == change.kind);
            let result = match (&change.action, kind) {
                (Action::Settings { body, .. }, _) => {
                    let args = Args::new(Map::from_iter([("body".to_owned(), body.clone())]));
                    client
                        .call_json(Service::Encoder, SETTINGS_UPDATE, &args)
                        .await
                        .map(|_| None)
                }
                (Action::Create { body }, Some(kind)) => {
                    let args = Args::new(Map::from_iter([("body".to_owned(), with_ids(kind, body, &ids))]));
                    client
                        .call_json(kind.service, kind.register, &args)
                        .await
                        .map(|answer| Some(answer["id"].clone()))
                }
                (Action::Update { id, body, .. }, Some(kind)) => {
                    let args = Args::new(Map::from_iter([
                        (kind.id_argument.to_owned(), id.clone()),
                        ("body".to_owned(), with_ids(kind, body, &ids)),
                    ]));
                    let update = kind.update.unwrap_or(kind.register);
                    client.call_json(kind.service, update, &args).await.map(|_| None)
                }
                (Action::Delete { id }, Some(kind)) => {
                    let args = Args::new(Map::from_iter([(kind.id_argument.to_owned(), id.clone())]));
                    client.call_json(kind.service, kind.delete, &args).await.map(|_| None)
                }
                (_, None) => Ok(None),
            };
            match result {
                Ok(made) => {
                    if let (Some(id), Some(kind)) = (made, kind) {
                        ids.entry(kind.key).or_default().insert(change.name.clone(), id);
                    }
                    io.stdout.write_all(change.shown().as_bytes())?;
                    io.stdout.flush()?;
                }
                Err(error) => {
                    let failed = change.shown();
                    let failed = failed.lines().next().unwrap_or_default();
                    writeln!(
                        io.stderr,
                        "apply: {done} of {total} change(s) done (printed above); stopped at `{failed}`; the other {} \
                         not made (`vidplat catalog plan` shows what is left)",
                        total - done - 1
                    )?;
                    return Err(error.into());
                }
            }
        }
        writeln!(io.stderr, "apply: {total} change(s) made")?;
        Ok(())
    }
}

/// Every write's request made from its body and refused where it breaks a
/// rule (a member's type, a bound), each by the resource's place and the
/// member; a name referring to one not made yet stands as the id 1 for this.
fn checked(
    client: &vidplat::Client,
    file: &Map<String, Value>,
    changes: &[Change],
    account: &Account,
) -> Vec<(String, String)> {
    let mut ids: BTreeMap<&str, BTreeMap<String, Value>> = BTreeMap::new();
    for kind in KINDS.iter() {
        let held = account.held(kind).iter().map(|h| (h.name.clone(), h.id.clone()));
        let named = file.get(kind.key).and_then(Value::as_array).into_iter().flatten();
        let placeholders = named.filter_map(|item| Some((item["name"].as_str()?.to_owned(), Value::from(1))));
        ids.insert(kind.key, placeholders.chain(held).collect());
    }
    let mut problems = Vec::new();
    for change in changes {
        let kind = KINDS.iter().find(|kind| kind.one == change.kind);
        let (operation, service, id_argument, body) = match (&change.action, kind) {
            (Action::Create { body }, Some(kind)) => (kind.register, kind.service, None, with_ids(kind, body, &ids)),
            (Action::Update { body, .. }, Some(kind)) => (
                kind.update.unwrap_or(kind.register),
                kind.service,
                Some(kind.id_argument),
                with_ids(kind, body, &ids),
            ),
            (Action::Settings { body, .. }, _) => (SETTINGS_UPDATE, Service::Encoder, None, body.clone()),
            _ => continue,
        };
        let Ok(batch) = client.batch(service, operation) else {
            continue;
        };
        let mut args = Map::from_iter([("body".to_owned(), body)]);
        if let Some(argument) = id_argument {
            args.insert(argument.to_owned(), Value::from(1));
        }
        let row = vidplat::batch::BatchRow {
            number: 0,
            args: Args::new(args),
        };
        let place = match kind {
            Some(kind) => format!("{}.{}", kind.key, change.name),
            None => SETTINGS.to_owned(),
        };
        for (_, refusals) in batch.check(std::slice::from_ref(&row)) {
            for refusal in refusals {
                let (member, rule) = refusal.into_parts();
                problems.push((format!("{place}.{}", member.trim_start_matches("body.")), rule));
            }
        }
    }
    problems
}

/// The members of `wanted` whose value differs from `current`'s, as
/// (member, before, after), in the file's order; the name is the key, not a change.
fn changed_members(current: &Value, wanted: &Map<String, Value>) -> Vec<(String, Value, Value)> {
    wanted
        .iter()
        .filter(|(member, _)| member.as_str() != "name")
        .filter(|(member, value)| current.get(member.as_str()) != Some(value))
        .map(|(member, value)| (member.clone(), current[member.as_str()].clone(), value.clone()))
        .collect()
}

/// `body` with the names of the kind it refers to made ids again.
fn with_ids(kind: &Kind, body: &Value, ids: &BTreeMap<&str, BTreeMap<String, Value>>) -> Value {
    let mut body = body.clone();
    if let Some((member, other)) = kind.refers {
        if let Some(Value::Array(names)) = body.get_mut(member) {
            for name in names.iter_mut() {
                if let Some(id) = name.as_str().and_then(|n| ids.get(other).and_then(|ids| ids.get(n))) {
                    *name = id.clone();
                }
            }
        }
    }
    body
}
