//! Whole items generated into a client crate from the YAML and the model:
//! the client and its operation builders, the operation table and what it
//! describes of each request, a marker type per operation, the open enums,
//! paging, the setter conversions, updates from what is read, `.period(p)`,
//! the aliases.

pub mod aliases;
pub mod conversions;
pub mod describe;
pub mod enums;
pub mod from_read;
pub mod markers;
pub mod operation_builders;
pub mod operation_table;
pub mod paging;
pub mod period;
