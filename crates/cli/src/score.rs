//! `wmlab score` and `wmlab stats`: JSONL on stdin → JSONL on stdout through a core function
//! (`score_line`, `stats_line`), one output line per non-blank input line, in order, each flushed as
//! it is written.

use std::io::{BufRead, BufWriter, Write};

/// `wmlab score`.
pub fn run() -> anyhow::Result<()> {
    lines(wmlab_core::llm::score::score_line)
}

/// `wmlab stats`.
pub fn stats() -> anyhow::Result<()> {
    lines(wmlab_core::stats::stats_line)
}

fn lines(each: fn(&str) -> String) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| anyhow::anyhow!("cannot read stdin: {e}"))?;
        let trimmed = line.trim_end_matches('\r');
        if trimmed.trim().is_empty() {
            continue;
        }
        let scored = each(trimmed);
        // Each answer is flushed as it is written: a slow line (or a kill) never holds back or loses
        // the answers to the lines before it.
        if let Err(e) = writeln!(out, "{scored}").and_then(|_| out.flush()) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return Ok(());
            }
            return Err(anyhow::anyhow!("cannot write stdout: {e}"));
        }
    }
    out.flush().or_else(|e| {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Ok(())
        } else {
            Err(anyhow::anyhow!("cannot write stdout: {e}"))
        }
    })
}
