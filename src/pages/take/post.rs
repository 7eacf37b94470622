//! Where a participant's data go: the record after each block and at the end, to JATOS when the study
//! runs there, else through the outbox to the study's endpoint (retried until acknowledged), and to
//! DataPipe when the study names an experiment id: the session so far after each block, the whole
//! session at the end.

use leptos::prelude::*;
use wmlab_core::people::study::{DATAPIPE_URL, datapipe_part_body};
use wmlab_core::record::ResultRecord;

use super::ctl::Ctl;
use crate::platform::outbox::{self, Item};
use crate::platform::web;

impl Ctl {
    pub(super) fn record(&self) -> ResultRecord {
        let mut r = self.session.to_record(None);
        r.created = Some(web::now_iso());
        r
    }

    /// Send the record after block `block` (or at the end): JATOS if present, else the endpoint.
    pub(super) fn send(&self, block: usize, last: bool) {
        let record = self.record();
        let Ok(json) = record.to_json() else { return };
        if outbox::jatos().is_some() {
            if !last {
                outbox::jatos_append(&(json + "\n"));
            }
            return;
        }
        let nonce = outbox::get(&format!("{}.nonce", self.key)).unwrap_or_else(|| self.key.clone());
        let pending = self.ui.pending;
        let cfg = &self.session.config;
        // No part after the last block: the whole session follows at once.
        let staged = cfg.datapipe_blocks && !self.session.is_finished();
        if let (Some(exp), true) = (&cfg.datapipe, last || staged) {
            // OSF through DataPipe: after each block the session so far (its own file, `_partNN`), so a
            // dropout's data arrive; at the end the whole session, named by participant and session.
            if let Ok(csv) = record.to_csv() {
                let participant = cfg.participant.as_deref();
                let part = (!last).then_some(block + 1);
                let body = datapipe_part_body(exp, participant, &nonce, part, &csv);
                let url = cfg.datapipe_url.clone().unwrap_or_else(|| DATAPIPE_URL.to_string());
                let id = match part {
                    Some(p) => format!("{nonce}-datapipe-part{p}"),
                    None => format!("{nonce}-datapipe"),
                };
                let item = Item { id, endpoint: url, body: body.to_string(), attempts: 0, plain: true };
                outbox::enqueue(item, move |n| {
                    let _ = pending.try_set(n);
                });
            }
        }
        let Some(endpoint) = self.session.config.endpoint.clone() else { return };
        let id = if last { format!("{nonce}-final") } else { format!("{nonce}-b{block}") };
        let body = serde_json::json!({
            "idempotency_id": id,
            "block": if last { serde_json::Value::Null } else { serde_json::Value::from(block) },
            "final": last,
            "participant": self.session.config.participant,
            "record": serde_json::from_str::<serde_json::Value>(&json).unwrap_or(serde_json::Value::Null),
        });
        outbox::enqueue(Item { id, endpoint, body: body.to_string(), attempts: 0, plain: false }, move |n| {
            let _ = pending.try_set(n);
        });
    }
}
