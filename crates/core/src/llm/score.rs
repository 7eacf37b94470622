//! `wmlab score`: score one JSONL line (in progress).
