//! Where a participant's data go: the record after each block and at the end, to JATOS when the study
//! runs there, else through the outbox to the study's endpoint (retried until acknowledged), and at the
//! end the session's CSV to DataPipe when the study names an experiment id.

use leptos::prelude::*;
use wmlab_core::people::study::{DATAPIPE_URL, datapipe_body};
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
        if let (true, Some(exp)) = (last, &self.session.config.datapipe) {
            // OSF through DataPipe: the session's CSV once, at the end, named by participant and session.
            if let Ok(csv) = record.to_csv() {
                let participant = self.session.config.participant.as_deref();
                let body = datapipe_body(exp, participant, &nonce, &csv);
                let url = self.session.config.datapipe_url.clone().unwrap_or_else(|| DATAPIPE_URL.to_string());
                let item = Item {
                    id: format!("{nonce}-datapipe"),
                    endpoint: url,
                    body: body.to_string(),
                    attempts: 0,
                    plain: true,
                };
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
