//! `wmlab score`: JSONL on stdin → JSONL on stdout through the core's `score_line`, one output line
//! per non-blank input line, in order.

use std::io::{BufRead, BufWriter, Write};

pub fn run() -> Result<(), String> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| format!("cannot read stdin: {e}"))?;
        let trimmed = line.trim_end_matches('\r');
        if trimmed.trim().is_empty() {
            continue;
        }
        let scored = wmlab_core::llm::score::score_line(trimmed);
        if let Err(e) = writeln!(out, "{scored}") {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                return Ok(());
            }
            return Err(format!("cannot write stdout: {e}"));
        }
    }
    out.flush().or_else(|e| if e.kind() == std::io::ErrorKind::BrokenPipe { Ok(()) } else { Err(format!("cannot write stdout: {e}")) })
}
