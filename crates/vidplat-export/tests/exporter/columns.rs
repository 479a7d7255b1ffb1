//! Columns for the readback tests of each format: one of every kind,
//! nullable and not, and two of the lineage columns.

use vidplat_export::{Column, ColumnKind, LINEAGE_COLUMNS};

/// One column of every kind, nullable and not.
pub const EVERY_KIND: [Column; 10] = [
    Column {
        name: "content_title",
        kind: ColumnKind::Text,
        nullable: true,
        description: "Content title.",
    },
    Column {
        name: "content_type",
        kind: ColumnKind::OpenEnum,
        nullable: true,
        description: "Type of a content.",
    },
    Column {
        name: "play_time",
        kind: ColumnKind::Integer,
        nullable: true,
        description: "Play time.",
    },
    Column {
        name: "complete_play_percent",
        kind: ColumnKind::Float,
        nullable: true,
        description: "Share of plays watched to the end.",
    },
    Column {
        name: "is_live",
        kind: ColumnKind::Boolean,
        nullable: true,
        description: "Whether the content is live.",
    },
    Column {
        name: "date_time",
        kind: ColumnKind::Timestamp,
        nullable: true,
        description: "Time of the viewing.",
    },
    Column {
        name: "engagement_bitmap",
        kind: ColumnKind::Json,
        nullable: false,
        description: "Engagement per position.",
    },
    Column {
        name: "user_id",
        kind: ColumnKind::Text,
        nullable: false,
        description: "User ID.",
    },
    LINEAGE_COLUMNS[1],
    LINEAGE_COLUMNS[3],
];

/// `EVERY_KIND` without the columns named in `left_out`, in order.
pub fn every_kind_but(left_out: &[&str]) -> Vec<Column> {
    EVERY_KIND
        .iter()
        .filter(|c| !left_out.contains(&c.name))
        .copied()
        .collect()
}
