//! The schema of every report, as the YAML makes it: a reviewed snapshot, so
//! a member added to a row schema (or a changed split) shows in review.

use vidplat_export::{Split, LINEAGE_COLUMNS, REPORTS};

#[test]
fn every_report_schema_and_split() {
    let mut text = String::new();
    for report in REPORTS {
        let split = match report.split {
            Split::ByDay { day } => format!("by day (`{day}`)"),
            Split::WholePeriod => "whole period".to_owned(),
        };
        text.push_str(&format!("## {}\nsplit: {split}\nwhy: {}\n", report.name, report.reason));
        for column in report.columns.iter().chain(LINEAGE_COLUMNS.iter()) {
            text.push_str(&format!(
                "- {}: {}{} — {}\n",
                column.name,
                column.kind.name(),
                if column.nullable { ", nullable" } else { "" },
                column.description
            ));
        }
        text.push('\n');
    }
    insta::assert_snapshot!(text);
}

#[test]
fn reports_split_by_day_are_those_whose_rows_carry_their_time() {
    let by_day: Vec<&str> = REPORTS
        .iter()
        .filter(|r| matches!(r.split, Split::ByDay { .. }))
        .map(|r| r.name)
        .collect();
    assert_eq!(
        by_day,
        [
            "basic_by_time_period",
            "basic_viewing_history",
            "cloud_active_users",
            "cloud_by_time_period",
            "cloud_viewing_history",
            "cloud_user_counts_legacy"
        ]
    );
    // The real-time reports cover minutes, not days: the exporter has none of them.
    assert!(REPORTS.iter().all(|r| !r.name.contains("realtime")));
    assert_eq!(REPORTS.len(), 32);
}
