//! What the runtime knows of each service: the table the generator writes from
//! the YAML (`<crate>::operations::TABLE`), one row per operation.

#[cfg(feature = "by-name")]
use crate::validate::{child, visit};
use std::fmt;

/// The three services.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Service {
    /// The encoding service.
    Encoder,
    /// The video management service.
    Vms,
    /// Viewing analytics (basic and cloud editions).
    Analytics,
}

impl Service {
    /// The short name used in paths, logs and environment variables.
    pub fn as_str(self) -> &'static str {
        match self {
            Service::Encoder => "encoder",
            Service::Vms => "vms",
            Service::Analytics => "analytics",
        }
    }

    /// The environment variable that holds the service's base URL.
    pub fn url_variable(self) -> &'static str {
        match self {
            Service::Encoder => "VIDPLAT_ENCODER_URL",
            Service::Vms => "VIDPLAT_VMS_URL",
            Service::Analytics => "VIDPLAT_ANALYTICS_URL",
        }
    }
}

impl fmt::Display for Service {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// HTTP methods the services use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET`
    Get,
    /// `POST`
    Post,
    /// `PUT`
    Put,
    /// `PATCH`
    Patch,
    /// `DELETE`
    Delete,
}

impl Method {
    /// The method's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }

    /// Whether sending the request twice has the effect of sending it once.
    /// Only such requests are sent again after they may have reached the
    /// server ([`crate::may_send_again`] is the one place that decides).
    pub fn is_idempotent(self) -> bool {
        matches!(self, Method::Get | Method::Delete)
    }

    /// The same method as `reqwest` spells it.
    pub fn to_reqwest(self) -> reqwest::Method {
        match self {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
            Method::Patch => reqwest::Method::PATCH,
            Method::Delete => reqwest::Method::DELETE,
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How an operation's success body is read. The generator writes it from the
/// YAML and the runtime reads it: one column, so the generated code and the
/// runtime cannot disagree on which operations stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reading {
    /// The documents show no success body: any 2xx is the success (`()`);
    /// whatever body comes is read under the cap and not decoded.
    Empty,
    /// Read whole under the cap, then decoded.
    Whole,
    /// A list that can hold 50,000 rows (the analytics reports): past its
    /// first MiB it is decoded while it arrives, and `rows()` hands its rows
    /// over one by one.
    WhileArriving,
}

/// Where an argument of an operation goes on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// A path parameter.
    Path,
    /// A query parameter.
    Query,
    /// A header.
    Header,
    /// A top-level member of the JSON body.
    Body,
}

/// A value's JSON kind, as the YAML gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A string (any `format`). Not named `String`: a variant of that name
    /// makes rustc spell `std::string::String` in full in every diagnostic
    /// of a crate that depends on this one.
    Text,
    /// An integer.
    Integer,
    /// A number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A list.
    Array,
    /// An object.
    Object,
}

/// One argument of an operation: a parameter, or a top-level member of its
/// JSON body that is a scalar or a list of scalars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Argument {
    /// Its name among the operation's arguments (the builder's setter; the
    /// member's name for a body member): how [`crate::Args`] keys it.
    pub name: &'static str,
    /// Its name on the wire (`task-id`, `X-Login-Id`, a member's name).
    pub wire: &'static str,
    /// Where it goes.
    pub place: Place,
    /// The kind of its value (of each element, for a list).
    pub kind: Kind,
    /// A list of values.
    pub repeated: bool,
    /// The YAML requires it (a body member never is: the body may come whole).
    pub required: bool,
    /// The values the YAML enumerates (none: any value of the kind).
    pub values: &'static [&'static str],
}

/// An operation's request body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestBody {
    /// JSON (else sent as it is: bytes or a stream).
    pub json: bool,
    /// Every member as `a.b[].c`, with its kind; `a.*` for an object that
    /// takes members the YAML does not name (its `additionalProperties`).
    pub members: &'static [(&'static str, Kind)],
    /// The members the YAML requires, as `a.b[].c`: each is required where
    /// the object holding it is given (`streams[].path` in each stream sent).
    pub required: &'static [&'static str],
    /// The members the YAML marks nullable, as `a.b[].c`: `null` is a value
    /// only for these (for a member the YAML names).
    pub nullable: &'static [&'static str],
}

#[cfg(feature = "by-name")]
impl RequestBody {
    /// The kind of the member at `path` (`streams[].video.height`, indices
    /// as `[]`): a member the YAML names, or one of an object that takes any.
    pub fn kind_of(&self, path: &str) -> Option<Kind> {
        let exact = self.members.iter().find(|(member, _)| *member == path);
        let any = || {
            let wildcard = child(path.rsplit_once('.').map_or("", |(parent, _)| parent), "*");
            self.members.iter().find(|(member, _)| *member == wildcard)
        };
        exact.or_else(any).map(|(_, kind)| *kind)
    }

    /// The first member of `body` (its whole path, `tags[2].colour`) that
    /// the YAML does not name. An object listed without members of its own
    /// takes any (a free-form one, or one past the generator's depth).
    pub fn unknown_member(&self, body: &serde_json::Value) -> Option<String> {
        fn walk(body: &RequestBody, pattern: &str, at: &str, value: &serde_json::Value) -> Option<String> {
            match value {
                serde_json::Value::Object(object) => {
                    let lists_members = pattern.is_empty()
                        || body
                            .members
                            .iter()
                            .any(|(member, _)| member.strip_prefix(pattern).is_some_and(|rest| rest.starts_with('.')));
                    if !lists_members {
                        return None;
                    }
                    object.iter().find_map(|(name, member)| {
                        let (pattern, at) = (child(pattern, name), child(at, name));
                        match body.kind_of(&pattern) {
                            None => Some(at),
                            Some(_) => walk(body, &pattern, &at, member),
                        }
                    })
                }
                serde_json::Value::Array(items) => items
                    .iter()
                    .enumerate()
                    .find_map(|(index, item)| walk(body, &format!("{pattern}[]"), &format!("{at}[{index}]"), item)),
                _ => None,
            }
        }
        walk(self, "", "", body)
    }

    /// The places in `body` (`streams[1].video_codec`) holding `null` where
    /// the YAML names a member that is not nullable, in the body's order. A
    /// member of an object taking any (`a.*`) is not checked.
    pub fn null_not_allowed(&self, body: &serde_json::Value) -> Vec<String> {
        fn walk(body: &RequestBody, pattern: &str, at: &str, value: &serde_json::Value, out: &mut Vec<String>) {
            let named = |pattern: &str| body.members.iter().any(|(member, _)| *member == pattern);
            match value {
                serde_json::Value::Null if named(pattern) && !body.nullable.contains(&pattern) => {
                    out.push(at.to_owned());
                }
                serde_json::Value::Object(object) => {
                    for (name, member) in object {
                        walk(body, &child(pattern, name), &child(at, name), member, out);
                    }
                }
                serde_json::Value::Array(items) => {
                    for (index, item) in items.iter().enumerate() {
                        walk(body, &format!("{pattern}[]"), &format!("{at}[{index}]"), item, out);
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(self, "", "", body, &mut out);
        out
    }

    /// The places in `body` (`streams[1].path`) where a required member is
    /// missing, in the order of [`RequestBody::required`], each array's items in turn.
    pub fn missing(&self, body: &serde_json::Value) -> Vec<String> {
        let mut out = Vec::new();
        for required in self.required {
            // Only the last step is the required member; an optional parent left out holds none.
            let (parent, name) = required.rsplit_once('.').unwrap_or(("", required));
            visit(body, parent, String::new(), &mut |at, value| {
                if value.as_object().is_some_and(|object| !object.contains_key(name)) {
                    out.push(child(&at, name));
                }
            });
        }
        out
    }

    /// `read`, a resource as a GET answered it, kept to what this body names
    /// (the members an update sends to keep what it does not change): every
    /// member the YAML names here, in objects and in each array item, and
    /// every member of an object that takes any. A `null` is kept only where
    /// the YAML allows it. The same members `builder_from` copies, as data.
    pub fn kept_from(&self, read: &serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        fn keep(body: &RequestBody, pattern: &str, value: &Value) -> Option<Value> {
            match value {
                Value::Null => body.nullable.contains(&pattern).then_some(Value::Null),
                Value::Object(members) => Some(Value::Object(
                    members
                        .iter()
                        .filter_map(|(name, member)| {
                            let pattern = child(pattern, name);
                            body.kind_of(&pattern)?;
                            Some((name.clone(), keep(body, &pattern, member)?))
                        })
                        .collect(),
                )),
                Value::Array(items) => {
                    let pattern = format!("{pattern}[]");
                    Some(Value::Array(
                        items.iter().filter_map(|item| keep(body, &pattern, item)).collect(),
                    ))
                }
                scalar => Some(scalar.clone()),
            }
        }
        keep(self, "", read).unwrap_or(Value::Null)
    }
}

/// `change` laid over `base`: an object's members one by one (a member
/// `change` does not name stays as `base` has it), anything else replaced
/// whole (a list `change` gives is sent as it gives it).
#[cfg(feature = "by-name")]
pub fn laid_over(base: serde_json::Value, change: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match (base, change) {
        (Value::Object(mut base), Value::Object(change)) => {
            for (name, member) in change {
                let merged = base
                    .remove(name)
                    .map_or_else(|| member.clone(), |before| laid_over(before, member));
                base.insert(name.clone(), merged);
            }
            Value::Object(base)
        }
        (_, change) => change.clone(),
    }
}

/// The words about an operation that only a reader showing help needs: the
/// client crates write them (`operations::HELP`, one per row of `ALL`, in the
/// same order) with their `help` feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperationHelp {
    /// The YAML's description of the operation.
    pub description: &'static str,
    /// One line per argument, in the order of [`OperationMeta::arguments`]:
    /// its description's first paragraph, then its rules and default.
    pub arguments: &'static [&'static str],
    /// A body with every member, its rule and what the documents do not show
    /// (empty when the operation has no body).
    pub body_template: &'static str,
    /// Every top-level member of a row of the list it answers, in the
    /// schema's order (empty when it answers no list): a CSV's columns.
    pub row_members: &'static [&'static str],
    /// The members a table shows by default (the row schema's
    /// `x-table-columns`; empty: every member).
    pub table_columns: &'static [&'static str],
}

/// A kind of resource of the account's set-up (`vidplat catalog`), matched
/// by its name: the row of its registration holds it, the generator pairs
/// the other operations by path (the list on the registration's path, the
/// update and delete on the item path below it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CatalogKind {
    /// Its key in the file (`presets`).
    pub key: &'static str,
    /// One of them, in messages (`preset`).
    pub one: &'static str,
    /// The list on the registration's path.
    pub list: &'static str,
    /// The update on the item path, when there is one.
    pub update: Option<&'static str>,
    /// The delete on the item path.
    pub delete: &'static str,
    /// The item path's parameter: the update's and the delete's argument (`preset_id`).
    pub id_argument: &'static str,
    /// A member holding ids of another kind, which the file writes as their
    /// names: (the member, the other kind's key).
    pub refers: Option<(&'static str, &'static str)>,
}

/// One operation, as the YAML describes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OperationMeta {
    /// The YAML's `operationId`.
    pub id: &'static str,
    /// The operation's name in the document (the YAML's `summary`).
    pub summary: &'static str,
    /// The method the YAML gives it.
    pub method: Method,
    /// Path template, e.g. `/v1/tasks/{task-id}`.
    pub path: &'static str,
    /// The document does not show this route; the YAML chose it (`x-route-assumed`).
    pub route_assumed: bool,
    /// Whether the request carries the API key.
    pub authenticated: bool,
    /// The permission the key needs (the YAML's `x-permission`), when the
    /// document names one, or when the YAML assumes one (`permission_assumed`).
    pub permission: Option<&'static str>,
    /// The document names no permission for this operation; `permission` is the
    /// YAML's assumption (`x-permission-assumed`).
    pub permission_assumed: bool,
    /// Analytics: counts against the per-minute and concurrency limits (not only the monthly one).
    pub rate_limited: bool,
    /// Its answer lists the tasks it registered, and its `403 OVER_SERVICE_LIMIT`
    /// clears as tasks end (the YAML's `x-registers-tasks`).
    pub registers_tasks: bool,
    /// Its body is a CSV file whose rows are assumed to be bodies of this
    /// operation of the same service, a column per member (the YAML's `x-csv-rows`).
    pub csv_rows_of: Option<&'static str>,
    /// For an update (a PUT or PATCH whose path also answers a GET): that
    /// GET's operation, which reads what the update changes. Whether the
    /// service keeps or resets the members an update leaves out is not shown.
    pub reads_with: Option<&'static str>,
    /// For an update: the registration its resource was made with (the POST
    /// on the collection its item path is under), whose body it stands for
    /// under the reading that an update resets what it leaves out.
    pub registered_by: Option<&'static str>,
    /// For a registration the account's set-up file declares (the YAML's
    /// `x-catalog`): the kind of resource, with its other operations.
    pub catalog: Option<CatalogKind>,
    /// Documented bounds of the query and body, checked before the request leaves.
    pub checks: &'static [crate::validate::Check],
    /// Top-level members of the success body's schema (empty when it has none):
    /// a 2xx body in the services' error shape that has none of these is an error.
    pub success_members: &'static [&'static str],
    /// The 2xx statuses the YAML documents (`200`, or `2XX` as `200..=299`).
    /// Any 2xx is a success; a body under another 2xx that does not decode is
    /// reported with its status.
    pub success_statuses: &'static [std::ops::RangeInclusive<u16>],
    /// How the success body is read.
    pub reading: Reading,
    /// The documented rules of the success body beyond its Rust type (the
    /// YAML's `x-returned-bounds`): what the test kit holds a canned answer to.
    pub success_checks: &'static [crate::SuccessCheck],
    /// The error statuses the YAML documents (`4XX` as `400..=499`).
    pub error_statuses: &'static [std::ops::RangeInclusive<u16>],
    /// How a list pages (the YAML's `x-paging`); `None` for an operation that does not.
    pub paging: Option<crate::PagingStyle>,
    /// Other documented names of the same request (the YAML's `x-aliases`), as operation IDs.
    pub aliases: &'static [&'static str],
    /// The parameters, then the body's top-level members a flag or a row
    /// column can give alone (scalars and lists of scalars), in that order.
    pub arguments: &'static [Argument],
    /// The request body, when the operation has one.
    pub body: Option<RequestBody>,
}

impl OperationMeta {
    /// A row with only a name, a method and a path: authenticated, no bound,
    /// no body, any 2xx a success, read whole. The row of a raw request
    /// ([`Runtime::raw`](crate::Runtime::raw)) starts from it, as tests' rows do.
    pub const fn bare(id: &'static str, method: Method, path: &'static str) -> Self {
        OperationMeta {
            id,
            summary: "",
            method,
            path,
            route_assumed: false,
            authenticated: true,
            permission: None,
            permission_assumed: false,
            rate_limited: false,
            registers_tasks: false,
            csv_rows_of: None,
            reads_with: None,
            registered_by: None,
            catalog: None,
            checks: &[],
            success_members: &[],
            success_statuses: &[200..=299],
            reading: Reading::Whole,
            success_checks: &[],
            error_statuses: &[],
            paging: None,
            aliases: &[],
            arguments: &[],
            body: None,
        }
    }

    /// Whether the YAML documents `status` as one of the operation's successes.
    pub fn documents_success(&self, status: u16) -> bool {
        self.success_statuses.iter().any(|range| range.contains(&status))
    }

    /// The path members (names from the template, values as sent, still
    /// percent-encoded) when `segments`, a request path relative to the
    /// service's base split at `/`, are this operation's path.
    pub fn path_members<'s>(&self, segments: &[&'s str]) -> Option<Vec<(&'static str, &'s str)>> {
        let mut members = Vec::new();
        let mut template = self.path.split('/').filter(|s| !s.is_empty());
        for segment in segments {
            let wanted = template.next()?;
            match wanted.strip_prefix('{').and_then(|w| w.strip_suffix('}')) {
                Some(name) => members.push((name, *segment)),
                None if wanted == *segment => {}
                None => return None,
            }
        }
        template.next().is_none().then_some(members)
    }
}

/// One operation as a type: its row of the table and the types of what it
/// sends and answers. Each client crate writes one per operation with its
/// `markers` feature (`vidplat_encoder::markers::GetTask`), for readers that
/// name an operation by its type: the test kit's mocks read a request they
/// received back into `Params` and `Body` with them.
pub trait OperationMarker: Copy + Send + Sync + 'static {
    /// The operation's row of its service's table.
    const META: &'static OperationMeta;
    /// Its service's table.
    const TABLE: &'static ServiceTable;
    /// The decoded success body, as a call returns it.
    type Success: serde::Serialize;
    /// Its path, query and header members, typed as the builder's setters
    /// take them, read from a map of each member's value by its argument
    /// name (`()` when it has none).
    type Params: std::fmt::Debug + serde::de::DeserializeOwned + Send + 'static;
    /// The request body: the typed JSON body, `Option<Vec<u8>>` for one sent
    /// as it is (`None` when it was a stream), `()` for none.
    type Body: std::fmt::Debug + serde::de::DeserializeOwned + Send + 'static;
    /// The service's `ErrorCode`.
    type ErrorCode: std::fmt::Display;
}

/// Everything the generator knows of one service that the runtime needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServiceTable {
    /// Which service.
    pub service: Service,
    /// One row per operation, in the YAML's order.
    pub operations: &'static [OperationMeta],
    /// Every error `code` the document lists (the YAML's `ErrorCode`).
    pub error_codes: &'static [&'static str],
    /// The codes whose status the document states (the YAML's `ErrorCode.x-statuses`).
    pub code_statuses: &'static [(&'static str, u16)],
    /// Names of the members the YAML marks `x-secret: true`: their values are
    /// replaced by `[redacted]` in every excerpt of a body the runtime makes.
    pub secret_members: &'static [&'static str],
}

impl ServiceTable {
    /// The row of `id`, if the service has such an operation.
    pub fn operation(&self, id: &str) -> Option<&'static OperationMeta> {
        self.operations.iter().find(|op| op.id == id)
    }

    /// Whether `operation` is one of this table's rows (the very row, not one
    /// with the same name in another table).
    pub fn holds(&self, operation: &OperationMeta) -> bool {
        self.operations.as_ptr_range().contains(&std::ptr::from_ref(operation))
    }

    /// The operation a request of `method` to `path` (relative to the
    /// service's base URL) is for, with its path members; a literal segment
    /// wins over a member (`/v1/tasks/counts` over `/v1/tasks/{task-id}`).
    pub fn route<'p>(&self, method: &str, path: &'p str) -> Option<Routed<'p>> {
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        self.operations
            .iter()
            .filter(|op| op.method.as_str().eq_ignore_ascii_case(method))
            .filter_map(|op| Some((op, op.path_members(&segments)?)))
            .min_by_key(|(_, members)| members.len())
    }
}

/// An operation a request is for, and its path members as sent (see [`ServiceTable::route`]).
pub type Routed<'p> = (&'static OperationMeta, Vec<(&'static str, &'p str)>);

#[cfg(test)]
mod routing_tests {
    use super::*;

    const fn op(id: &'static str, method: Method, path: &'static str) -> OperationMeta {
        OperationMeta::bare(id, method, path)
    }

    static OPERATIONS: [OperationMeta; 3] = [
        op("getTask", Method::Get, "/v1/tasks/{task-id}"),
        op("countTasks", Method::Get, "/v1/tasks/counts"),
        op("deleteTask", Method::Delete, "/v1/tasks/{task-id}"),
    ];
    static TABLE: ServiceTable = ServiceTable {
        service: Service::Encoder,
        operations: &OPERATIONS,
        error_codes: &[],
        code_statuses: &[],
        secret_members: &[],
    };

    #[test]
    #[cfg(feature = "by-name")]
    fn an_update_keeps_from_a_read_what_its_body_names_and_the_change_wins() {
        let body = RequestBody {
            json: true,
            members: &[
                ("title", Kind::Text),
                ("note", Kind::Text),
                ("tags", Kind::Array),
                ("chapters", Kind::Array),
                ("chapters[].title", Kind::Text),
                ("extra", Kind::Object),
                ("extra.*", Kind::Text),
            ],
            required: &[],
            nullable: &["note"],
        };
        let read = serde_json::json!({
            "id": "c1", "created_at": "2026-01-01", "title": "Old", "note": null, "description": null,
            "tags": ["a", "b"], "chapters": [{"title": "One", "start": 0}], "extra": {"any": "kept"},
        });
        let kept = body.kept_from(&read);
        assert_eq!(
            kept,
            serde_json::json!({
                "title": "Old", "note": null, "tags": ["a", "b"], "chapters": [{"title": "One"}],
                "extra": {"any": "kept"},
            })
        );
        let sent = laid_over(
            kept,
            &serde_json::json!({"title": "New", "tags": ["c"], "extra": {"more": "x"}}),
        );
        assert_eq!(
            sent,
            serde_json::json!({
                "title": "New", "note": null, "tags": ["c"], "chapters": [{"title": "One"}],
                "extra": {"any": "kept", "more": "x"},
            })
        );
    }

    #[test]
    #[cfg(feature = "by-name")]
    fn a_required_member_is_missing_only_where_its_object_is_given() {
        let body = RequestBody {
            json: true,
            members: &[],
            required: &["name", "video.height", "streams[].path", "streams[].video.width"],
            nullable: &[],
        };
        let value = serde_json::json!({
            "streams": [{"path": "a", "video": {}}, {}, "x", {"video": {"width": 3}}],
        });
        assert_eq!(
            body.missing(&value),
            ["name", "streams[1].path", "streams[3].path", "streams[0].video.width"]
        );
        assert_eq!(
            body.missing(&serde_json::json!({"name": 1, "streams": {"path": 1}})),
            Vec::<String>::new()
        );
        assert_eq!(body.missing(&serde_json::json!([1])), Vec::<String>::new());
    }

    #[test]
    fn a_literal_segment_wins_and_members_keep_their_encoding() {
        let id = |method, path| TABLE.route(method, path).map(|(op, members)| (op.id, members));
        assert_eq!(id("GET", "/v1/tasks/counts"), Some(("countTasks", vec![])));
        assert_eq!(
            id("GET", "/v1/tasks/a%2Fb"),
            Some(("getTask", vec![("task-id", "a%2Fb")]))
        );
        assert_eq!(
            id("delete", "/v1/tasks/7"),
            Some(("deleteTask", vec![("task-id", "7")]))
        );
        assert_eq!(id("GET", "/v1/tasks/7/more"), None);
        assert_eq!(id("GET", "/v1/tasks"), None);
        assert_eq!(id("POST", "/v1/tasks/7"), None);
    }
}
