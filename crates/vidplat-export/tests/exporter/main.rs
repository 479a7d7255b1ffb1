//! The exporter's tests, in one binary (one link instead of four).

mod against_the_simulator;
mod columns;
// Read back with the parquet crate's and arrow-ipc's own readers.
#[cfg(feature = "parquet")]
mod columnar;
mod csv_readback;
// Read back with pyarrow and DuckDB (`.tools/venv`), as the exporter's users read them.
#[cfg(feature = "parquet")]
mod python_readers;
mod schema;
