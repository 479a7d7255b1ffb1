//! Progress on stderr: on a terminal, an indicatif spinner (the elapsed time
//! and the latest status, each status line kept above it); elsewhere, plain
//! lines, the same text, nothing drawn. stdout is never touched.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, Write};
use std::time::Duration;

/// The status lines of a wait.
pub struct Statuses {
    bar: Option<ProgressBar>,
}

impl Statuses {
    /// A spinner when stderr is a `terminal`, else plain lines.
    pub fn new(terminal: bool) -> Self {
        let bar = terminal.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Self { bar }
    }

    /// One status change: a line on stderr (above the spinner on a terminal).
    /// `text` may quote the network (a status the service made up): its controls are escaped.
    pub fn line(&self, stderr: &mut dyn Write, text: &str) -> io::Result<()> {
        let text = vidplat_core::escape_controls(text);
        match &self.bar {
            Some(bar) => {
                bar.println(&text);
                bar.set_message(text.into_owned());
                Ok(())
            }
            None => writeln!(stderr, "{text}"),
        }
    }
}

impl Drop for Statuses {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A count of the rows a long list has printed so far: only when stderr is a
/// terminal and stdout is not (`vidplat … --all -o ndjson > tasks.ndjson`);
/// otherwise nothing (a line per row would bury the data's own errors).
pub struct RowCount {
    bar: Option<ProgressBar>,
}

impl RowCount {
    pub fn new(shown: bool) -> Self {
        let bar = shown.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {human_pos} rows, {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Self { bar }
    }

    pub fn row(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }
}

impl Drop for RowCount {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The analytics quota's waits on stderr: on a terminal, a spinner whose
/// line counts the wait down (redrawn every [`QuotaWaitLine::TICK`]); elsewhere a
/// plain line when a wait begins, nothing drawn.
pub struct QuotaWaitLine {
    bar: Option<ProgressBar>,
    current: Option<vidplat::QuotaWait>,
}

impl QuotaWaitLine {
    /// How often the countdown is redrawn.
    pub const TICK: Duration = Duration::from_millis(500);

    pub fn new(terminal: bool) -> Self {
        let bar = terminal.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar
        });
        Self { bar, current: None }
    }

    /// A wait began (or changed), or ended (`None`).
    pub fn show(&mut self, stderr: &mut dyn Write, wait: Option<vidplat::QuotaWait>) -> io::Result<()> {
        self.current = wait;
        match (&self.bar, wait) {
            (Some(bar), Some(wait)) => {
                bar.enable_steady_tick(Duration::from_millis(120));
                bar.set_message(wait.to_string());
            }
            (Some(bar), None) => {
                bar.disable_steady_tick();
                bar.finish_and_clear();
                bar.reset();
            }
            (None, Some(wait)) => writeln!(stderr, "{wait}")?,
            (None, None) => {}
        }
        Ok(())
    }

    /// A line of other progress: above the countdown while one is drawn.
    pub fn println(&self, stderr: &mut dyn Write, text: &str) -> io::Result<()> {
        match &self.bar {
            Some(bar) if self.current.is_some() => {
                bar.println(text);
                Ok(())
            }
            _ => writeln!(stderr, "{text}"),
        }
    }

    /// Redraws the countdown of the wait under way (on a terminal).
    pub fn tick(&self) {
        if let (Some(bar), Some(wait)) = (&self.bar, self.current) {
            bar.set_message(wait.to_string());
        }
    }
}

impl Drop for QuotaWaitLine {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
