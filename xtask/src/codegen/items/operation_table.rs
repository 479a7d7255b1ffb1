//! The operation table (`operations::ALL`), one row per operation: what the
//! runtime, the route-override checks and the simulator's router know of each
//! operation (route, key, permission, quota class, bounds, success members and
//! statuses, how its body is read), plus the service's error codes and secret
//! members. The one list of operations.

use crate::codegen::items::describe::{describe, MemberOrder};
use crate::codegen::items::paging;
use crate::codegen::model::Operation;
use crate::codegen::passes::patterns::Compiled;
use crate::codegen::spec::{checks_of, returned_bounds_problems, secret_members, success_checks_of, success_members};
use crate::services::Service;
use anyhow::{bail, Context, Result};
use quote::{format_ident, quote};
use serde_json::Value;
use std::collections::BTreeSet;

/// The `operations` module of a service's crate.
pub fn module(service: &Service, spec: &Value, operations: &[Operation]) -> Result<syn::Item> {
    let problems = returned_bounds_problems(spec);
    if !problems.is_empty() {
        bail!("{}: {}", service.name, problems.join("\n"));
    }
    let global_auth = spec["security"].as_array().is_some_and(|s| !s.is_empty());
    let mut patterns = Compiled::default();
    let order = MemberOrder::read(&service.yaml_path())?;
    let mut rows = Vec::new();
    let mut helps = Vec::new();
    let pairs = crate::codegen::items::from_read::update_pairs(spec);
    for op in operations {
        let yaml = &spec["paths"][&op.path][op.method.to_ascii_lowercase()];
        let id = &op.id;
        let path = &op.path;
        let summary = yaml["summary"].as_str().unwrap_or_default();
        let method_ident = format_ident!("{}", {
            let lower = op.method.to_ascii_lowercase();
            lower[..1].to_uppercase() + &lower[1..]
        });
        let assumed = yaml["x-route-assumed"].as_bool() == Some(true);
        let authenticated = match yaml.get("security") {
            Some(Value::Array(schemes)) => {
                !schemes.is_empty() && !schemes.iter().all(|s| s.as_object().is_some_and(|o| o.is_empty()))
            }
            _ => global_auth,
        };
        let rate_limited = yaml["x-quota"]["per_minute"].as_bool() == Some(true);
        let registers_tasks = yaml["x-registers-tasks"].as_bool() == Some(true);
        let reads_with = match pairs.iter().find(|pair| pair.update_op == op.id) {
            Some(pair) => {
                let read = &pair.read_op;
                quote!(Some(#read))
            }
            None => quote!(None),
        };
        // An update's registration: the POST on the collection above its item path.
        let registered_by = match (op.method.as_str(), op.path.rsplit_once("/{")) {
            ("PUT" | "PATCH", Some((collection, last))) if !last.contains('/') => operations
                .iter()
                .find(|other| other.method == "POST" && other.path == collection)
                .map(|registration| &registration.id),
            _ => None,
        };
        let registered_by = match registered_by {
            Some(registration) => quote!(Some(#registration)),
            None => quote!(None),
        };
        let csv_rows_of = match yaml["x-csv-rows"].as_str() {
            Some(rows) if operations.iter().any(|other| other.id == rows) => quote!(Some(#rows)),
            Some(rows) => bail!("{id}: x-csv-rows names `{rows}`, no operation of this service"),
            None => quote!(None),
        };
        let catalog = catalog_kind(spec, op, yaml, operations)?;
        let permission = match yaml["x-permission"].as_str() {
            Some(name) => quote! { Some(#name) },
            None => quote! { None },
        };
        let permission_assumed = match (yaml["x-permission-assumed"].as_bool(), yaml["x-permission"].is_string()) {
            (Some(true), true) => true,
            (Some(true), false) => bail!("{id}: x-permission-assumed without an x-permission"),
            _ => false,
        };
        // A gap that says the permission is assumed must be matched by the marker, and the reverse.
        let gaps = match &yaml["x-gap"] {
            Value::String(gap) => vec![gap.as_str()],
            Value::Array(gaps) => gaps.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let gap_says_assumed = gaps
            .iter()
            .any(|gap| gap.contains("permission of this operation is not named"));
        if gap_says_assumed != permission_assumed {
            bail!("{id}: x-permission-assumed and the x-gap saying the permission is not named go together");
        }
        let checks = checks_of(spec, path, yaml)
            .into_iter()
            .map(|(at, rule)| quote! { vidplat_core::Check { at: #at, rule: vidplat_core::Rule::#rule } });
        let success_members = success_members(spec, yaml);
        let statuses = op.success_statuses.iter().map(|(from, to)| quote!(#from..=#to));
        let reading = format_ident!("{}", op.reading.variant());
        let paging = paging::style(op)?;
        let success_checks = success_checks_of(spec, yaml, &mut patterns).with_context(|| op.id.clone())?;
        let error_statuses = error_statuses(id, yaml)?.into_iter().map(|(from, to)| {
            let (from, to) = (
                proc_macro2::Literal::u16_unsuffixed(from),
                proc_macro2::Literal::u16_unsuffixed(to),
            );
            quote!(#from..=#to)
        });
        let described = describe(spec, op, &order)?;
        let (aliases, arguments, body) = (&described.aliases, &described.arguments, &described.body);
        helps.push(described.help);
        rows.push(quote! {
            vidplat_core::OperationMeta {
                id: #id,
                summary: #summary,
                method: vidplat_core::Method::#method_ident,
                path: #path,
                route_assumed: #assumed,
                authenticated: #authenticated,
                permission: #permission,
                permission_assumed: #permission_assumed,
                rate_limited: #rate_limited,
                registers_tasks: #registers_tasks,
                csv_rows_of: #csv_rows_of,
                reads_with: #reads_with,
                registered_by: #registered_by,
                catalog: #catalog,
                checks: &[#(#checks),*],
                success_members: &[#(#success_members),*],
                success_statuses: &[#(#statuses),*],
                reading: vidplat_core::Reading::#reading,
                success_checks: &[#(#success_checks),*],
                error_statuses: &[#(#error_statuses),*],
                paging: #paging,
                aliases: &[#(#aliases),*],
                arguments: &[#(#arguments),*],
                body: #body,
            }
        });
    }
    let count = rows.len();
    let service_ident = format_ident!(
        "{}",
        match service.name {
            "encoder" => "Encoder",
            "vms" => "Vms",
            "analytics" => "Analytics",
            other => bail!("unknown service {other}"),
        }
    );
    let error_codes: Vec<String> = spec["components"]["schemas"]["ErrorCode"]["x-extensible-enum"]
        .as_array()
        .context("the YAML has no `ErrorCode` with its x-extensible-enum")?
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    let code_statuses = spec["components"]["schemas"]["ErrorCode"]["x-statuses"]
        .as_object()
        .context("the YAML's ErrorCode has no x-statuses")?
        .iter()
        .map(|(code, status)| {
            let status = status
                .as_u64()
                .and_then(|s| u16::try_from(s).ok())
                .with_context(|| format!("x-statuses: {code} is no status"))?;
            let status = proc_macro2::Literal::u16_unsuffixed(status);
            Ok(quote!((#code, #status)))
        })
        .collect::<Result<Vec<_>>>()?;
    let patterns = patterns.module("returned_patterns");
    let secret_members: BTreeSet<String> = secret_members(spec).into_values().flatten().collect();
    let secret_members = secret_members.iter();
    Ok(syn::parse2(quote! {
        /// Every operation of this service as the YAML describes it: the runtime's
        /// source for routes (and their overrides), authentication, quotas, bounds,
        /// how answers are read, the error codes and the secret members.
        pub mod operations {
            /// The service these operations belong to.
            pub const SERVICE: vidplat_core::Service = vidplat_core::Service::#service_ident;
            /// One row per operation, in the YAML's order (each builder's
            /// `vidplat_core::Operation::META` is its row).
            pub static ALL: [vidplat_core::OperationMeta; #count] = [#(#rows),*];
            /// The words about each operation a reader showing help needs, one
            /// per row of [`ALL`], in its order.
            #[cfg(feature = "help")]
            pub static HELP: [vidplat_core::OperationHelp; #count] = [#(#helps),*];
            /// Every error code the document lists (the YAML's `ErrorCode`).
            pub const ERROR_CODES: &[&str] = &[#(#error_codes),*];
            /// The codes whose status the document states (the YAML's `ErrorCode.x-statuses`).
            pub const CODE_STATUSES: &[(&str, u16)] = &[#(#code_statuses),*];
            /// Members marked `x-secret: true` in the YAML: never printed.
            pub const SECRET_MEMBERS: &[&str] = &[#(#secret_members),*];
            /// All of the above, for `vidplat_core::Runtime::builder`.
            pub static TABLE: vidplat_core::ServiceTable = vidplat_core::ServiceTable {
                service: SERVICE,
                operations: &ALL,
                error_codes: ERROR_CODES,
                code_statuses: CODE_STATUSES,
                secret_members: SECRET_MEMBERS,
            };
            #patterns
        }
    })?)
}

/// The error statuses the operation's YAML documents, as inclusive ranges.
fn error_statuses(id: &str, op: &Value) -> Result<Vec<(u16, u16)>> {
    let mut out = Vec::new();
    for status in op["responses"].as_object().into_iter().flatten().map(|(s, _)| s) {
        let range = match status.as_bytes() {
            [digit @ b'4'..=b'5', b'X' | b'x', b'X' | b'x'] => {
                let hundreds = u16::from(digit - b'0') * 100;
                (hundreds, hundreds + 99)
            }
            [_, b'X' | b'x', b'X' | b'x'] => continue,
            _ => match status.parse::<u16>() {
                Ok(exact) if exact >= 400 => (exact, exact),
                Ok(_) => continue,
                Err(_) => bail!("{id}: a response under `{status}`, which the generator does not read"),
            },
        };
        out.push(range);
    }
    Ok(out)
}

/// A registration's `x-catalog` (`{kind, one, refers: {member: kind}}`) made
/// its row's `CatalogKind`: the list on its path, the update (PUT or PATCH)
/// and the delete on the one item path below it, whose parameter they take.
///
/// A body with an `x-secret` member is refused: the file would have to write
/// it as a reference to an environment variable, never as its value, which
/// `vidplat catalog` does not do (no kind carries one today).
fn catalog_kind(
    spec: &Value,
    op: &Operation,
    yaml: &Value,
    operations: &[Operation],
) -> Result<proc_macro2::TokenStream> {
    let Some(catalog) = yaml.get("x-catalog") else {
        return Ok(quote!(None));
    };
    let id = &op.id;
    let body = yaml["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        .as_str()
        .and_then(|reference| reference.strip_prefix("#/components/schemas/"));
    if let Some(secrets) = body.and_then(|body| secret_members(spec).remove(body)) {
        bail!(
            "{id}: x-catalog on a body with x-secret members ({}): the catalog file would write their values",
            secrets.join(", ")
        );
    }
    let (Some(key), Some(one)) = (catalog["kind"].as_str(), catalog["one"].as_str()) else {
        bail!("{id}: x-catalog needs `kind` and `one`");
    };
    if op.method != "POST" {
        bail!("{id}: x-catalog marks a registration (a POST)");
    }
    let on = |path: &str, methods: &[&str]| {
        operations
            .iter()
            .find(|other| other.path == path && methods.contains(&other.method.as_str()))
    };
    let list = on(&op.path, &["GET"]).with_context(|| format!("{id}: x-catalog: no list on {}", op.path))?;
    let below = format!("{}/{{", op.path);
    let delete = operations
        .iter()
        .find(|other| {
            other.method == "DELETE" && other.path.starts_with(&below) && !other.path[below.len()..].contains('/')
        })
        .with_context(|| format!("{id}: x-catalog: no delete on an item path below {}", op.path))?;
    let update = match on(&delete.path, &["PUT", "PATCH"]) {
        Some(update) => {
            let update = &update.id;
            quote!(Some(#update))
        }
        None => quote!(None),
    };
    let id_argument = delete
        .params
        .iter()
        .find(|param| param.location == crate::codegen::model::Location::Path)
        .map(|param| param.field.to_string())
        .with_context(|| format!("{id}: x-catalog: {} has no path parameter", delete.id))?;
    let refers = match catalog["refers"]
        .as_object()
        .map(|refers| refers.iter().collect::<Vec<_>>())
    {
        None => quote!(None),
        Some(refers) => match refers.as_slice() {
            [(member, Value::String(kind))] => {
                let member = member.as_str();
                quote!(Some((#member, #kind)))
            }
            _ => bail!("{id}: x-catalog: `refers` names one member and the kind it holds"),
        },
    };
    let (list, delete) = (&list.id, &delete.id);
    Ok(quote! {
        Some(vidplat_core::CatalogKind {
            key: #key,
            one: #one,
            list: #list,
            update: #update,
            delete: #delete,
            id_argument: #id_argument,
            refers: #refers,
        })
    })
}
