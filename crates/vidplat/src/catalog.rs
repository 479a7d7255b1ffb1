//! The account's set-up as a file: notification settings, presets, profiles
//! (holding presets by name), categories (by path, `Sports/Football`) and
//! labels, each matched by its name; ids never appear. Read the account's
//! ([`Catalog::read`]), compare a file with the account ([`Catalog::plan`]),
//! and make the account so with the fewest writes ([`Plan::apply`]). The
//! command line's `vidplat catalog` is this module with a file around it.
//!
//! ```no_run
//! # async fn run(client: vidplat::Client) -> Result<(), Box<dyn std::error::Error>> {
//! use vidplat::catalog::Catalog;
//!
//! let wanted = Catalog::from_yaml("labels:\n- name: featured\n")?;
//! let plan = wanted.plan(&client).await?;
//! for change in plan.changes() {
//!     print!("{change}"); // `+ label featured`
//! }
//! plan.apply(&client, |done| print!("done: {done}")).await?;
//! # Ok(()) }
//! ```
//!
//! Everything goes through the operations' entry point from data
//! ([`crate::Client::call_json`]) and their rows: the kinds are the
//! registrations the YAML marks with `x-catalog` ([`CatalogKind`]), the
//! members a file may give a registration body's, what an update keeps
//! [`RequestBody::kept_from`]. A member the file leaves out stays as the
//! account has it: an update sends every member read with the file's laid
//! over them (the documents do not say whether what an update leaves out
//! is kept or reset). Only the kinds of the services the client has are read.
//!
//! A category's name is its path: a parent is made before its children. That
//! a path names one category is the YAML's assumption (`CategoryCreate.name`,
//! `GAPS.md`). A profile holding presets that are not the account's (one
//! another account shares, read only) is left alone, with a note.

use crate::Error;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use vidplat_core::{Args, CatalogKind, Refusal, Refusals, RequestBody, Service};

/// The settings the file holds in place: their key, read and update.
const SETTINGS: (&str, &str, &str) = (
    "notification_settings",
    "get_notification_settings",
    "update_notification_settings",
);

/// A kind of resource the file declares: its registration's row.
#[derive(Clone, Copy)]
struct Kind {
    service: Service,
    register: &'static str,
    rows: CatalogKind,
}

/// Every kind, in the order they are made: the services' and, in each, the
/// YAML's (presets before the profiles that hold them); deleted in reverse.
fn kinds() -> Vec<Kind> {
    crate::client::tables()
        .into_iter()
        .flat_map(|table| {
            table.operations.iter().filter_map(|operation| {
                Some(Kind {
                    service: table.service,
                    register: operation.id,
                    rows: operation.catalog?,
                })
            })
        })
        .collect()
}

fn kind_of(key: &str) -> Option<Kind> {
    kinds().into_iter().find(|kind| kind.rows.key == key)
}

fn body_of(service: Service, id: &str) -> Option<RequestBody> {
    crate::client::table(service)?.operation(id)?.body
}

/// The most values a set-up file may hold (an account of thousands of
/// resources holds a few hundred thousand). An alias repeats its anchor's
/// values without their bytes: a file of a few hundred KiB could otherwise
/// stand for billions of them.
const MAX_FILE_VALUES: usize = 1_000_000;

/// A YAML value read as JSON, each value read taken from the budget.
struct Budgeted<'b>(&'b std::cell::Cell<usize>);

impl Budgeted<'_> {
    fn spend<E: serde::de::Error>(&self) -> Result<(), E> {
        let left = self.0.get().checked_sub(1).ok_or_else(|| {
            E::custom(format_args!(
                "holds more than {MAX_FILE_VALUES} values (its aliases counted as often as they are used)"
            ))
        })?;
        self.0.set(left);
        Ok(())
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Budgeted<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Budgeted<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Value, E> {
        self.spend().map(|()| Value::Bool(v))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Value, E> {
        self.spend().map(|()| Value::from(v))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        self.spend().map(|()| Value::from(v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        self.spend().map(|()| Value::from(v))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Value, E> {
        self.spend().map(|()| Value::from(v))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        self.spend().map(|()| Value::Null)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        serde::de::DeserializeSeed::deserialize(self, deserializer)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut items: A) -> Result<Value, A::Error> {
        self.spend()?;
        let mut values = Vec::new();
        while let Some(value) = items.next_element_seed(Budgeted(self.0))? {
            values.push(value);
        }
        Ok(Value::Array(values))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut entries: A) -> Result<Value, A::Error> {
        self.spend()?;
        let mut members = Map::new();
        while let Some(key) = entries.next_key::<String>()? {
            members.insert(key, entries.next_value_seed(Budgeted(self.0))?);
        }
        Ok(Value::Object(members))
    }
}

/// A set-up: what a file declares, or what an account holds ([`Catalog::read`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Catalog {
    file: Map<String, Value>,
    prune: bool,
    notes: Vec<String>,
}

impl Catalog {
    /// The set-up a YAML text declares (JSON is YAML too).
    pub fn from_yaml(text: &str) -> Result<Self, Error> {
        let budget = std::cell::Cell::new(MAX_FILE_VALUES);
        let value =
            serde::de::DeserializeSeed::deserialize(Budgeted(&budget), serde_yaml::Deserializer::from_str(text))
                .map_err(|e| Error::InvalidInput(Refusal::new(format!("is not YAML: {e}")).at("file").into()))?;
        Self::from_json(value)
    }

    /// The set-up a JSON value declares: a mapping of kinds.
    pub fn from_json(value: Value) -> Result<Self, Error> {
        match value {
            Value::Object(file) => Ok(Self {
                file,
                prune: false,
                notes: Vec::new(),
            }),
            _ => Err(Error::InvalidInput(
                Refusal::new("is not a mapping of kinds (presets:, profiles:, …)")
                    .at("file")
                    .into(),
            )),
        }
    }

    /// Also delete what the account holds of a kind the file lists and the
    /// file does not name (off by default).
    #[must_use]
    pub fn prune(mut self, prune: bool) -> Self {
        self.prune = prune;
        self
    }

    /// The account's set-up as the file writes it: the kinds in the order
    /// they are made, each resource's name first, then its members (those
    /// without a value left out), ids of another kind as their names.
    pub async fn read(client: &crate::Client) -> Result<Self, Error> {
        let account = Account::read(client).await?;
        let mut file = Map::new();
        if let (Some(body), false) = (body_of(Service::Encoder, SETTINGS.2), account.settings.is_null()) {
            file.insert(SETTINGS.0.to_owned(), body.kept_from(&account.settings));
        }
        for kind in kinds()
            .into_iter()
            .filter(|kind| account.kinds.contains_key(kind.rows.key))
        {
            let mut items: Vec<Value> = account
                .held(&kind)
                .iter()
                .map(|held| {
                    let written = account.as_written(&kind, &held.read);
                    // The name first, whatever order a map keeps.
                    let mut item = Map::from_iter([("name".to_owned(), Value::String(held.name.clone()))]);
                    let members = written.as_object().into_iter().flatten();
                    item.extend(
                        members
                            .filter(|(member, value)| *member != "name" && !value.is_null())
                            .map(|(member, value)| (member.clone(), value.clone())),
                    );
                    Value::Object(item)
                })
                .collect();
            items.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
            file.insert(kind.rows.key.to_owned(), Value::Array(items));
        }
        Ok(Self {
            file,
            prune: false,
            notes: account.notes,
        })
    }

    /// The set-up as YAML: the settings, then each kind in the order they
    /// are made, each resource's name first.
    pub fn to_yaml(&self) -> String {
        let yaml = |value: &Value| serde_yaml::to_value(value).unwrap_or(serde_yaml::Value::Null);
        let mut ordered = serde_yaml::Mapping::new();
        let keys = std::iter::once(SETTINGS.0).chain(kinds().into_iter().map(|kind| kind.rows.key));
        for key in keys {
            let Some(value) = self.file.get(key) else { continue };
            let value = match value {
                Value::Array(items) => serde_yaml::Value::Sequence(
                    items
                        .iter()
                        .map(|item| {
                            let mut written = serde_yaml::Mapping::new();
                            written.insert("name".into(), yaml(&item["name"]));
                            for (member, value) in item.as_object().into_iter().flatten().filter(|(m, _)| *m != "name")
                            {
                                written.insert(member.as_str().into(), yaml(value));
                            }
                            serde_yaml::Value::Mapping(written)
                        })
                        .collect(),
                ),
                value => yaml(value),
            };
            ordered.insert(key.into(), value);
        }
        serde_yaml::to_string(&ordered).unwrap_or_default()
    }

    /// What was read and left alone, or not read (a profile another account
    /// shares; a kind whose service the client lacks), one sentence each.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The changes that make the account as this set-up says, in the order
    /// [`Plan::apply`] makes them; every problem of the file at once
    /// ([`Error::InvalidInput`], each by its place: `presets[1].name`), and
    /// each write's request checked as it would be sent. Reads only.
    pub async fn plan(&self, client: &crate::Client) -> Result<Plan, Error> {
        let account = Account::read(client).await?;
        Plan::make(client, &account, &self.file, self.prune)
    }
}

/// One resource as the account holds it.
struct Held {
    id: Value,
    name: String,
    read: Value,
}

/// What the account holds, each kind by name.
struct Account {
    kinds: BTreeMap<&'static str, Vec<Held>>,
    /// Each kind's names by id (its JSON text): a reference is looked up,
    /// not searched for among every resource of its kind.
    names: BTreeMap<&'static str, HashMap<String, String>>,
    settings: Value,
    notes: Vec<String>,
}

impl Account {
    fn new(kinds: BTreeMap<&'static str, Vec<Held>>, settings: Value, notes: Vec<String>) -> Self {
        let names = kinds
            .iter()
            .map(|(key, held)| (*key, held.iter().map(|h| (h.id.to_string(), h.name.clone())).collect()))
            .collect();
        Self {
            kinds,
            names,
            settings,
            notes,
        }
    }

    async fn read(client: &crate::Client) -> Result<Self, Error> {
        let mut by_kind = BTreeMap::new();
        let mut notes = Vec::new();
        for kind in kinds() {
            if !client.has(kind.service) {
                let (key, service) = (kind.rows.key, kind.service);
                notes.push(format!("{key} not read: the {service} service is not configured"));
                continue;
            }
            let listed = client.call_json(kind.service, kind.rows.list, &Args::default()).await?;
            let held: Vec<Held> = listed["data"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|item| {
                    let name = item["name"].as_str()?;
                    (!item["id"].is_null()).then(|| Held {
                        id: item["id"].clone(),
                        name: name.to_owned(),
                        read: item.clone(),
                    })
                })
                .collect();
            by_kind.insert(kind.rows.key, held);
        }
        // A resource holding one of another kind that is not among the
        // account's is not the account's own (one another account shares,
        // read only): left alone.
        for kind in kinds() {
            let Some((member, other)) = kind.rows.refers else {
                continue;
            };
            let own: BTreeSet<String> = by_kind
                .get(other)
                .into_iter()
                .flatten()
                .map(|held: &Held| held.id.to_string())
                .collect();
            if let Some(held) = by_kind.get_mut(kind.rows.key) {
                held.retain(|held| {
                    let is_own = held.read[member]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .all(|id| own.contains(&id.to_string()));
                    if !is_own {
                        notes.push(format!(
                            "{} {} left alone: it holds {other} that are not the account's (another account \
                             shares it, read only)",
                            kind.rows.one,
                            vidplat_core::escape_controls(&held.name)
                        ));
                    }
                    is_own
                });
            }
        }
        let settings = match client.has(Service::Encoder) {
            true => client.call_json(Service::Encoder, SETTINGS.1, &Args::default()).await?,
            false => Value::Null,
        };
        Ok(Self::new(by_kind, settings, notes))
    }

    fn held(&self, kind: &Kind) -> &[Held] {
        self.kinds.get(kind.rows.key).map_or(&[], Vec::as_slice)
    }

    fn ids(&self) -> Ids {
        self.kinds
            .iter()
            .map(|(key, held)| (*key, held.iter().map(|h| (h.name.clone(), h.id.clone())).collect()))
            .collect()
    }

    /// A resource as the file writes it: the members its registration
    /// takes, ids of the kind it refers to as their names.
    fn as_written(&self, kind: &Kind, read: &Value) -> Value {
        let written = body_of(kind.service, kind.register).map_or(Value::Null, |body| body.kept_from(read));
        swap_references(kind, written, |other, id| {
            let name = self.names.get(other)?.get(&id.to_string())?;
            Some(Value::String(name.clone()))
        })
    }
}

/// Ids by kind and name.
type Ids = BTreeMap<&'static str, BTreeMap<String, Value>>;

/// One write [`Plan::apply`] makes; shown as a plan's lines (`+ preset
/// web`, `~ preset web` with each member `before → after`, `- label old`).
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    key: &'static str,
    one: &'static str,
    name: String,
    action: Action,
}

#[derive(Clone, Debug, PartialEq)]
enum Action {
    Create {
        body: Value,
    },
    Update {
        id: Value,
        changed: Vec<(String, Value, Value)>,
        body: Value,
    },
    Delete {
        id: Value,
    },
    Settings {
        changed: Vec<(String, Value, Value)>,
        body: Value,
    },
}

impl Change {
    /// The kind's key in the file (`presets`, `notification_settings`).
    pub fn kind(&self) -> &str {
        self.key
    }

    /// The resource's name (empty for the notification settings).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether it deletes.
    pub fn deletes(&self) -> bool {
        matches!(self.action, Action::Delete { .. })
    }

    /// Whether it makes a new resource.
    pub fn creates(&self) -> bool {
        matches!(self.action, Action::Create { .. })
    }

    /// Each member changed, as (member, before, after) (`null`: no value);
    /// empty for a creation or a deletion.
    pub fn changed(&self) -> &[(String, Value, Value)] {
        match &self.action {
            Action::Update { changed, .. } | Action::Settings { changed, .. } => changed,
            _ => &[],
        }
    }

    /// The operation that makes the change and its arguments, a name of
    /// another kind given as its id in `ids`; `None` for a kind this build
    /// does not know.
    fn call(&self, ids: &Ids) -> Option<(Service, &'static str, Map<String, Value>)> {
        let (service, operation, id, body) = match (&self.action, kind_of(self.key)) {
            (Action::Settings { body, .. }, _) => (Service::Encoder, SETTINGS.2, None, Some(body.clone())),
            (Action::Create { body }, Some(kind)) => {
                (kind.service, kind.register, None, Some(with_ids(&kind, body, ids)))
            }
            (Action::Update { id, body, .. }, Some(kind)) => (
                kind.service,
                kind.rows.update.unwrap_or(kind.register),
                Some((kind.rows.id_argument, id.clone())),
                Some(with_ids(&kind, body, ids)),
            ),
            (Action::Delete { id }, Some(kind)) => (
                kind.service,
                kind.rows.delete,
                Some((kind.rows.id_argument, id.clone())),
                None,
            ),
            (_, None) => return None,
        };
        let mut args = Map::new();
        if let Some((name, id)) = id {
            args.insert(name.to_owned(), id);
        }
        if let Some(body) = body {
            args.insert("body".to_owned(), body);
        }
        Some((service, operation, args))
    }
}

impl fmt::Display for Change {
    /// The plan's lines of the change, each ended by a newline; no control
    /// character of a name or a value unescaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = vidplat_core::escape_controls(&self.name);
        match &self.action {
            Action::Create { .. } => writeln!(f, "+ {} {name}", self.one)?,
            Action::Update { .. } => writeln!(f, "~ {} {name}", self.one)?,
            Action::Delete { .. } => writeln!(f, "- {} {name}", self.one)?,
            Action::Settings { .. } => writeln!(f, "~ {}", self.key)?,
        }
        for (member, before, after) in self.changed() {
            let shown = |value: &Value| match value {
                Value::Null => "(none)".to_owned(),
                value => value.to_string(),
            };
            writeln!(f, "    {member}: {} → {}", shown(before), shown(after))?;
        }
        Ok(())
    }
}

/// The changes that make an account as a set-up says ([`Catalog::plan`]).
#[derive(Debug)]
pub struct Plan {
    changes: Vec<Change>,
    left: usize,
    notes: Vec<String>,
    ids: Ids,
}

/// Why [`Plan::apply`] stopped: the change the service refused, after
/// `done` changes were made; the others were not.
#[derive(Debug)]
pub struct Stopped {
    /// The changes made before it.
    pub done: usize,
    /// The change refused.
    pub change: Change,
    /// The changes after it, not made.
    pub not_made: usize,
    /// Why.
    pub error: Error,
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let change = self.change.to_string();
        write!(
            f,
            "{} change(s) made; stopped at `{}`; the other {} not made: {}",
            self.done,
            change.lines().next().unwrap_or_default(),
            self.not_made,
            self.error
        )
    }
}

impl std::error::Error for Stopped {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl Plan {
    /// The changes, in the order [`Plan::apply`] makes them.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// Whether nothing would change.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// What was read and left alone or not read, one sentence each.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// `plan: 1 to create, 2 to update, 0 to delete`, or `plan: no changes`,
    /// and how many the account holds that the file does not name, when not pruned.
    pub fn summary(&self) -> String {
        let count = |f: fn(&Change) -> bool| self.changes.iter().filter(|change| f(change)).count();
        let (create, delete) = (count(Change::creates), count(Change::deletes));
        let update = self.changes.len() - create - delete;
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

    fn make(client: &crate::Client, account: &Account, file: &Map<String, Value>, prune: bool) -> Result<Self, Error> {
        let kinds = kinds();
        let mut problems = Refusals::default();
        let mut problem = |at: &str, rule: String| problems.push(Refusal::new(rule).at(at));
        for key in file.keys() {
            let configured = match kinds.iter().find(|kind| kind.rows.key == key) {
                Some(kind) => account.kinds.contains_key(kind.rows.key),
                None if key == SETTINGS.0 => !account.settings.is_null(),
                None => {
                    let known: Vec<&str> = std::iter::once(SETTINGS.0)
                        .chain(kinds.iter().map(|kind| kind.rows.key))
                        .collect();
                    problem(key, format!("is no kind the file declares ({})", known.join(", ")));
                    continue;
                }
            };
            if !configured {
                problem(key, "cannot be planned: its service is not configured".to_owned());
            }
        }
        let mut changes = Vec::new();
        let mut deletes = Vec::new();
        let mut left = 0;
        if let (Some(wanted), Some(body)) = (file.get(SETTINGS.0), body_of(Service::Encoder, SETTINGS.2)) {
            let current = body.kept_from(&account.settings);
            match wanted.as_object() {
                Some(wanted) => {
                    let changed = changed_members(&current, wanted);
                    if !changed.is_empty() {
                        let body = vidplat_core::laid_over(current, &Value::Object(wanted.clone()));
                        changes.push(Change {
                            key: SETTINGS.0,
                            one: SETTINGS.0,
                            name: String::new(),
                            action: Action::Settings { changed, body },
                        });
                    }
                }
                None => problem(SETTINGS.0, "is not a mapping of members".to_owned()),
            }
        }
        // The names each kind will have once applied, for the references.
        let mut named: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        let held_names: BTreeMap<&str, HashSet<&str>> = account
            .names
            .iter()
            .map(|(key, names)| (*key, names.values().map(String::as_str).collect()))
            .collect();
        for kind in &kinds {
            let items = match file.get(kind.rows.key) {
                None => continue,
                Some(Value::Array(items)) => items.as_slice(),
                Some(_) => {
                    problem(kind.rows.key, "is not a list".to_owned());
                    continue;
                }
            };
            let mut seen = BTreeSet::new();
            for (at, item) in items.iter().enumerate() {
                let place = format!("{}[{at}].name", kind.rows.key);
                match item["name"].as_str() {
                    Some(name) if !seen.insert(name.to_owned()) => problem(&place, format!("`{name}` is named twice")),
                    Some(_) => {}
                    None => problem(&place, "is required (a text)".to_owned()),
                }
            }
            named.insert(kind.rows.key, seen);
        }
        for kind in &kinds {
            let items: &[Value] = match file.get(kind.rows.key) {
                Some(Value::Array(items)) => items,
                _ => &[],
            };
            let change = |name: &str, action| Change {
                key: kind.rows.key,
                one: kind.rows.one,
                name: name.to_owned(),
                action,
            };
            let mut made = Vec::new();
            for (at, item) in items.iter().enumerate() {
                let Some(name) = item["name"].as_str() else { continue };
                if let Some((member, other)) = kind.rows.refers {
                    for (index, reference) in item[member].as_array().into_iter().flatten().enumerate() {
                        let known = reference.as_str().is_some_and(|reference| {
                            named.get(other).is_some_and(|names| names.contains(reference))
                                || held_names.get(other).is_some_and(|names| names.contains(reference))
                        });
                        if !known {
                            let one = kind_of(other).map_or("resource", |other| other.rows.one);
                            problem(
                                &format!("{}[{at}].{member}[{index}]", kind.rows.key),
                                format!("names no {one} of the file or the account"),
                            );
                        }
                    }
                }
                if let Some(unknown) = body_of(kind.service, kind.register).and_then(|body| body.unknown_member(item)) {
                    problem(
                        &format!("{}[{at}].{unknown}", kind.rows.key),
                        format!("is no member of a {} registration", kind.rows.one),
                    );
                }
                let held = account.held(kind).iter().find(|held| held.name == name);
                match (held, kind.rows.update.and_then(|update| body_of(kind.service, update))) {
                    (None, _) => made.push(change(name, Action::Create { body: item.clone() })),
                    (Some(held), Some(body)) => {
                        let current = account.as_written(kind, &body.kept_from(&held.read));
                        let changed = item
                            .as_object()
                            .map(|wanted| changed_members(&current, wanted))
                            .unwrap_or_default();
                        if !changed.is_empty() {
                            let (id, body) = (held.id.clone(), vidplat_core::laid_over(current, item));
                            made.push(change(name, Action::Update { id, changed, body }));
                        }
                    }
                    (Some(_), None) => {}
                }
            }
            // Parents before their children.
            made.sort_by_key(|change| change.name.matches('/').count());
            changes.extend(made);
            if !file.contains_key(kind.rows.key) {
                // A kind the file does not list is not the file's to prune.
                continue;
            }
            for held in account.held(kind) {
                if named.get(kind.rows.key).is_some_and(|names| names.contains(&held.name)) {
                    continue;
                }
                match prune {
                    true => deletes.push(change(&held.name, Action::Delete { id: held.id.clone() })),
                    false => left += 1,
                }
            }
        }
        if problems.is_empty() {
            checked(client, file, &changes, account, &mut problems);
        }
        if !problems.is_empty() {
            return Err(Error::InvalidInput(problems));
        }
        // Deleted in reverse: what holds another kind before it, children before parents.
        deletes.sort_by_key(|change| std::cmp::Reverse(change.name.matches('/').count()));
        deletes.sort_by_key(|change| std::cmp::Reverse(kinds.iter().position(|kind| kind.rows.key == change.key)));
        changes.extend(deletes);
        Ok(Self {
            changes,
            left,
            notes: account.notes.clone(),
            ids: account.ids(),
        })
    }

    /// Makes each change in order, telling `on_done` of each once made; the
    /// first the service refuses stops it ([`Stopped`] says what was made).
    /// A second plan of the same set-up then has no change.
    pub async fn apply(self, client: &crate::Client, mut on_done: impl FnMut(&Change)) -> Result<usize, Stopped> {
        let mut ids = self.ids;
        let total = self.changes.len();
        for (done, change) in self.changes.into_iter().enumerate() {
            let result = match change.call(&ids) {
                Some((service, operation, args)) => client
                    .call_json(service, operation, &Args::new(args))
                    .await
                    .map(|answer| change.creates().then(|| answer["id"].clone())),
                None => Ok(None),
            };
            match result {
                Ok(made) => {
                    if let Some(id) = made {
                        ids.entry(change.key).or_default().insert(change.name.clone(), id);
                    }
                    on_done(&change);
                }
                Err(error) => {
                    return Err(Stopped {
                        done,
                        change,
                        not_made: total - done - 1,
                        error,
                    })
                }
            }
        }
        Ok(total)
    }
}

/// Every write's request made from its body and refused where it breaks a
/// rule (a member's type, a bound), each by the resource's place and the
/// member; a name referring to one not made yet stands as the id 1 for this.
fn checked(
    client: &crate::Client,
    file: &Map<String, Value>,
    changes: &[Change],
    account: &Account,
    problems: &mut Refusals,
) {
    let mut ids = account.ids();
    for kind in kinds() {
        let named = file.get(kind.rows.key).and_then(Value::as_array).into_iter().flatten();
        let ids = ids.entry(kind.rows.key).or_default();
        for name in named.filter_map(|item| item["name"].as_str()) {
            ids.entry(name.to_owned()).or_insert(Value::from(1));
        }
    }
    for change in changes.iter().filter(|change| !change.deletes()) {
        let Some((service, operation, mut args)) = change.call(&ids) else {
            continue;
        };
        let Ok(batch) = client.batch(service, operation) else {
            continue;
        };
        let kind = kind_of(change.key);
        // What is checked is the body: the id of the resource to update stands as 1.
        if let Some(id) = kind.as_ref().and_then(|kind| args.get_mut(kind.rows.id_argument)) {
            *id = Value::from(1);
        }
        let place = match kind {
            Some(kind) => format!("{}.{}", kind.rows.key, change.name),
            None => SETTINGS.0.to_owned(),
        };
        for refusal in batch.refusals(&Args::new(args)).into_iter().flatten() {
            let (member, rule) = refusal.into_parts();
            let at = format!("{place}.{}", member.trim_start_matches("body."));
            problems.push(Refusal::new(rule).at(&at));
        }
    }
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
fn with_ids(kind: &Kind, body: &Value, ids: &Ids) -> Value {
    swap_references(kind, body.clone(), |other, name| {
        ids.get(other)?.get(name.as_str()?).cloned()
    })
}

/// `value` with each of its references to another kind (the items of the
/// kind's `refers` member) replaced by what `swap` gives for it, if anything.
fn swap_references(kind: &Kind, mut value: Value, swap: impl Fn(&str, &Value) -> Option<Value>) -> Value {
    if let Some((member, other)) = kind.rows.refers {
        if let Some(Value::Array(references)) = value.get_mut(member) {
            for reference in references.iter_mut() {
                if let Some(swapped) = swap(other, reference) {
                    *reference = swapped;
                }
            }
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resource's references to another kind are looked up: 50,000 of
    /// them among 50,000 resources took seconds when each was searched for.
    #[test]
    fn references_to_another_kind_are_looked_up_not_searched_for() {
        let presets = (0..50_000)
            .map(|id| Held {
                id: Value::from(id),
                name: format!("p{id}"),
                read: Value::Null,
            })
            .collect();
        let account = Account::new(BTreeMap::from([("presets", presets)]), Value::Null, Vec::new());
        let profiles = kind_of("profiles").expect("the encoder's profiles");
        let read = serde_json::json!({"name": "many", "presets": (0..50_000).rev().collect::<Vec<i64>>()});
        let started = std::time::Instant::now();
        let written = account.as_written(&profiles, &read);
        let took = started.elapsed();
        assert_eq!(
            (written["presets"][0].as_str(), written["presets"][49_999].as_str()),
            (Some("p49999"), Some("p0"))
        );
        assert!(took < std::time::Duration::from_secs(1), "{took:?}");
    }

    /// An alias stands for its anchor's values without their bytes: a file of
    /// about 10 KB whose aliases stand for a million and one values is
    /// refused before they are made; the same values written once are read.
    #[test]
    fn a_file_whose_aliases_stand_for_too_many_values_is_refused() {
        let anchor = format!("a: &x [{}]\n", vec!["0"; 999].join(","));
        let bomb = format!("{anchor}b: [{}]\n", vec!["*x"; 1_001].join(","));
        let refused = Catalog::from_yaml(&bomb).map(|_| ()).unwrap_err().to_string();
        assert!(refused.contains("more than 1000000 values"), "{refused}");
        let read = Catalog::from_yaml(&format!("{anchor}b: [*x, *x]\n")).expect("a small file");
        assert_eq!(read.file["b"][1].as_array().map(Vec::len), Some(999));
    }
}
