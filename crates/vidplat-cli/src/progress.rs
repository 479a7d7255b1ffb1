//! Progress on stderr: on a terminal, an indicatif spinner (the elapsed time
//! and the latest status, each status line kept above it); elsewhere, plain
//! lines, the same text, nothing drawn. stdout is never touched.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{self, Write};
use std::time::Duration;

/// An indicatif spinner on stderr, cleared when it is dropped.
struct Spinner(ProgressBar);

impl Spinner {
    fn new(template: &str) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_spinner()));
        Spinner(bar)
    }

    /// One redrawn on its own (the elapsed time moves with no event).
    fn ticking(template: &str) -> Self {
        let spinner = Self::new(template);
        spinner.0.enable_steady_tick(Duration::from_millis(120));
        spinner
    }
}

impl std::ops::Deref for Spinner {
    type Target = ProgressBar;
    fn deref(&self) -> &ProgressBar {
        &self.0
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// The status lines of a wait.
pub struct Statuses {
    bar: Option<Spinner>,
}

impl Statuses {
    /// A spinner when stderr is a `terminal`, else plain lines.
    pub fn new(terminal: bool) -> Self {
        let bar = terminal.then(|| Spinner::ticking("{spinner} {elapsed} {msg}"));
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

/// A count of the rows a long list has printed so far: only when stderr is a
/// terminal and stdout is not (`vidplat … --all -o ndjson > tasks.ndjson`);
/// otherwise nothing (a line per row would bury the data's own errors).
pub struct RowCount {
    bar: Option<Spinner>,
}

impl RowCount {
    pub fn new(shown: bool) -> Self {
        let bar = shown.then(|| Spinner::ticking("{spinner} {human_pos} rows, {elapsed}"));
        Self { bar }
    }

    pub fn row(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }
}

/// The analytics quota's waits on stderr: on a terminal, a spinner whose
/// line counts the wait down (redrawn every [`QuotaWaitLine::TICK`]); elsewhere a
/// plain line when a wait begins, nothing drawn.
pub struct QuotaWaitLine {
    bar: Option<Spinner>,
    current: Option<vidplat::QuotaWait>,
}

impl QuotaWaitLine {
    /// How often the countdown is redrawn.
    pub const TICK: Duration = Duration::from_millis(500);

    pub fn new(terminal: bool) -> Self {
        let bar = terminal.then(|| Spinner::new("{spinner} {msg}"));
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
