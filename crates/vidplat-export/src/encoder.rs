//! The writer every file format implements, apart from the sink that picks
//! one ([`crate::sink`]): no format refers to the dispatcher, as arrow-rs's
//! formats implement `RecordBatchWriter` apart from whoever chooses them.

use crate::schema::Value;
use std::fs::File;

/// What a sink can fail with.
pub type SinkError = Box<dyn std::error::Error + Send + Sync>;

/// A file format's writer.
pub(crate) trait Encoder: Send {
    /// One row, its values in the order of the partition's columns.
    fn write(&mut self, row: &[Value<'_>]) -> Result<(), SinkError>;
    /// Writes what is buffered and the format's footer; the file, to be synced.
    fn finish(self: Box<Self>) -> Result<File, SinkError>;
}
