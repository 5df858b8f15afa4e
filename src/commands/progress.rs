//! Progress on stderr for everything that can take more than a few seconds: an `indicatif` bar or
//! spinner on a terminal; nothing with `--quiet`. When stderr is not a terminal (a log, a pipe)
//! bars and spinners are hidden, and only the step lines of long external jobs are written, one
//! per line, so a log still says what ran.

use super::globals;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// Progress of one long step.
pub struct Progress {
    bar: ProgressBar,
    tty: bool,
    quiet: bool,
}

fn target(tty: bool, quiet: bool) -> ProgressDrawTarget {
    if tty && !quiet {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}

impl Progress {
    fn new(bar: ProgressBar) -> Self {
        let tty = std::io::stderr().is_terminal();
        let quiet = globals().quiet;
        bar.set_draw_target(target(tty, quiet));
        Progress { bar, tty, quiet }
    }

    /// A spinner with elapsed time, for work whose length is not known.
    pub fn spinner(message: impl Into<String>) -> Self {
        let bar = ProgressBar::no_length().with_style(
            ProgressStyle::with_template("{spinner} {msg} [{elapsed}]").expect("valid template"),
        );
        bar.set_message(message.into());
        bar.enable_steady_tick(Duration::from_millis(120));
        Self::new(bar)
    }

    /// A bar of `len` steps named `unit`.
    pub fn bar(len: u64, unit: &str) -> Self {
        let bar = ProgressBar::new(len).with_style(
            ProgressStyle::with_template(&format!(
                "[{{bar:30}}] {{pos}}/{{len}} {unit}  {{msg}} [{{elapsed}}, eta {{eta}}]"
            ))
            .expect("valid template")
            .progress_chars("#>-"),
        );
        Self::new(bar)
    }

    pub fn set_position(&self, done: u64) {
        self.bar.set_position(done);
    }

    /// A step of an external job (a tool starting, an install): the spinner's message on a
    /// terminal, a line of its own otherwise (unless `--quiet`).
    pub fn step(&self, tag: &str, line: &str) {
        if self.tty {
            self.bar.set_message(format!("[{tag}] {line}"));
        } else if !self.quiet {
            eprintln!("[{tag}] {line}");
        }
    }

    /// A line printed above the bar (always shown unless `--quiet`).
    pub fn note(&self, line: &str) {
        if !self.quiet {
            self.bar.suspend(|| eprintln!("{line}"));
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// A step line of a long job that has no progress display of its own (stderr, unless `--quiet`).
pub fn log_step(tag: &str, line: &str) {
    if !globals().quiet {
        eprintln!("[{tag}] {line}");
    }
}

/// A one-off line for a person watching (stderr is a terminal, no `--quiet`), where a spinner
/// would fight another program's output on the same terminal.
pub fn announce(tag: &str, line: &str) {
    if std::io::stderr().is_terminal() && !globals().quiet {
        eprintln!("[{tag}] {line}");
    }
}
