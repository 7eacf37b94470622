//! Progress bars that are seen where the output goes. At a terminal indicatif draws its bar in place;
//! without one (a log file, a batch job, a pipe) it would draw nothing, and an evaluation of 100k
//! trials or a long training run would sit silent for minutes. There the bar is written as a plain line
//! at most every [`PLAIN_EVERY`] (and once at the start), so a log shows that the work moves.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressDrawTarget, TermLike};

/// Least time between two plain progress lines.
pub const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// Where a bar draws: the terminal, else plain lines on stderr.
pub fn stderr_target() -> ProgressDrawTarget {
    if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        plain_target(Box::new(std::io::stderr()), PLAIN_EVERY)
    }
}

/// Plain lines of a bar's text to `out`, at most one every `every`.
pub fn plain_target(out: Box<dyn Write + Send>, every: Duration) -> ProgressDrawTarget {
    let lines = PlainLines { out: Mutex::new(Plain { out, text: String::new(), last: None }), every };
    ProgressDrawTarget::term_like_with_hz(Box::new(lines), 2)
}

struct Plain {
    out: Box<dyn Write + Send>,
    /// The frame being drawn.
    text: String,
    /// When the last line was written.
    last: Option<Instant>,
}

struct PlainLines {
    out: Mutex<Plain>,
    every: Duration,
}

impl std::fmt::Debug for PlainLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PlainLines")
    }
}

impl TermLike for PlainLines {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.write_str(s)
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        let mut p = self.out.lock().unwrap_or_else(|e| e.into_inner());
        if !p.text.is_empty() && !s.is_empty() {
            p.text.push(' ');
        }
        p.text.push_str(s.trim_end());
        Ok(())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        let mut p = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let text = std::mem::take(&mut p.text);
        let due = p.last.is_none_or(|t| t.elapsed() >= self.every);
        if due && !text.trim().is_empty() {
            p.last = Some(Instant::now());
            // A closed stderr is no reason to stop the work.
            let _ = writeln!(p.out, "wmlab: {}", text.trim());
            let _ = p.out.flush();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::{ProgressBar, ProgressStyle};
    use std::sync::Arc;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Without a terminal the bar becomes lines: the first at once, then no more than one per interval.
    #[test]
    fn a_bar_without_a_terminal_writes_spaced_lines() {
        let out = Shared::default();
        let bar =
            ProgressBar::with_draw_target(Some(1000), plain_target(Box::new(out.clone()), Duration::from_millis(300)));
        bar.set_style(ProgressStyle::with_template("{pos}/{len} test trials").unwrap());
        let t0 = Instant::now();
        for i in 0..=1000u64 {
            bar.set_position(i);
            std::thread::sleep(Duration::from_millis(1));
        }
        bar.finish_and_clear();
        let elapsed = t0.elapsed().as_secs_f64();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            !lines.is_empty() && lines[0].starts_with("wmlab: ") && lines[0].ends_with("/1000 test trials"),
            "{text}"
        );
        assert!(lines.len() as f64 <= elapsed / 0.3 + 1.0, "{} lines in {elapsed:.2} s: {text}", lines.len());
    }
}
