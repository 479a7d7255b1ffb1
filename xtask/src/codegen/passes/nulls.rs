//! Pass `nulls`: typify leaves every absent `Option` and every empty `Vec`
//! out when serialising. For the schemas only responses use, a nullable
//! member that is `None` is written as `null` instead, and a list member that
//! is empty as `[]` (a list with a `minItems` of at least 1 is still left out
//! when empty), so whatever serialises them (the simulator, a user's cache)
//! sends the documented envelope (`"data": []`) and `null` rather than
//! dropping the member. Request schemas keep leaving absent members out: an
//! update must not send `null` or `[]` for what the caller never set.

use crate::codegen::passes::expect::Expect;
use crate::codegen::spec::{is_list_that_may_be_empty, is_nullable, response_only_schemas};
use crate::codegen::syntax::{is_named, replace_skip_serializing_if, types_module, wire_name};
use anyhow::Result;
use serde_json::Value;

pub fn run(file: &mut syn::File, spec: &Value) -> Result<usize> {
    let response_only = response_only_schemas(spec);
    let mut changed = 0;
    for item in types_module(file)?.iter_mut() {
        let syn::Item::Struct(strukt) = item else { continue };
        let name = strukt.ident.to_string();
        if !response_only.contains(&name) {
            continue;
        }
        let properties = &spec["components"]["schemas"][&name]["properties"];
        for field in strukt.fields.iter_mut() {
            let Some(wire) = wire_name(field) else { continue };
            let property = &properties[&wire];
            let written_when_empty =
                is_nullable(property) || (is_named(&field.ty, "Vec") && is_list_that_may_be_empty(property, spec));
            if written_when_empty && replace_skip_serializing_if(&mut field.attrs, None)? {
                changed += 1;
            }
        }
    }
    Ok(changed)
}

/// At least one when some response-only schema has a nullable member or a
/// list that may be empty.
pub fn expect(spec: &Value) -> Expect {
    let needed = response_only_schemas(spec).iter().any(|name| {
        spec["components"]["schemas"][name]["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .any(|(_, property)| is_nullable(property) || is_list_that_may_be_empty(property, spec))
    });
    Expect::some_if(needed)
}
