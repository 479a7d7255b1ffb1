//! The files written beside the client crates, each from the model: the
//! test driver, the exporter's report schema, the catalog file's JSON Schema
//! and the operation index.

pub mod catalog_schema;
pub mod export_schema;
pub mod operation_index;
pub mod test_driver;
