//! Native IO: [`UreqTransport`] runs each blocking `ureq` call on its own `std::thread` and hands the
//! result back through a oneshot channel; [`StdClock`] uses one timer thread for all sleeps. Drive the
//! runner with `futures::executor::block_on`. No async runtime.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::io::Read;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::channel::oneshot;

use crate::{Clock, HttpRequest, HttpResponse, Transport, TransportError};

/// Largest response body read (bytes).
const MAX_BODY: u64 = 64 << 20;

#[derive(Clone)]
pub struct UreqTransport {
    agent: ureq::Agent,
}

impl Default for UreqTransport {
    fn default() -> Self {
        Self::new()
    }
}

impl UreqTransport {
    pub fn new() -> Self {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .user_agent(concat!("wmlab/", env!("CARGO_PKG_VERSION")))
            .max_idle_connections_per_host(64)
            .build()
            .into();
        UreqTransport { agent }
    }

    fn blocking(agent: &ureq::Agent, req: &HttpRequest) -> Result<HttpResponse, TransportError> {
        let timeout = Some(Duration::from_millis(req.timeout_ms.max(1)));
        let map_err = |e: ureq::Error| match e {
            ureq::Error::Timeout(_) => TransportError::Timeout,
            other => TransportError::Network(other.to_string()),
        };
        let result = if req.method.eq_ignore_ascii_case("GET") {
            let mut b = agent.get(&req.url).config().timeout_global(timeout).build();
            for (k, v) in &req.headers {
                b = b.header(k.as_str(), v.as_str());
            }
            b.call()
        } else {
            let mut b = agent.post(&req.url).config().timeout_global(timeout).build();
            for (k, v) in &req.headers {
                b = b.header(k.as_str(), v.as_str());
            }
            b.send(req.body.as_str())
        };
        let mut resp = result.map_err(map_err)?;
        let status = resp.status().as_u16();
        let mut headers = BTreeMap::new();
        for (k, v) in resp.headers() {
            if let Ok(v) = v.to_str() {
                headers.insert(k.as_str().to_ascii_lowercase(), v.to_string());
            }
        }
        let mut bytes = Vec::new();
        resp.body_mut().as_reader().take(MAX_BODY).read_to_end(&mut bytes).map_err(|e| {
            if e.kind() == std::io::ErrorKind::TimedOut {
                TransportError::Timeout
            } else {
                TransportError::Network(e.to_string())
            }
        })?;
        Ok(HttpResponse { status, headers, body: String::from_utf8_lossy(&bytes).into_owned() })
    }
}

impl Transport for UreqTransport {
    async fn send(&self, req: HttpRequest) -> Result<HttpResponse, TransportError> {
        let (tx, rx) = oneshot::channel();
        let agent = self.agent.clone();
        std::thread::Builder::new()
            .name("wmlab-http".into())
            .stack_size(256 << 10)
            .spawn(move || {
                let _ = tx.send(Self::blocking(&agent, &req));
            })
            .map_err(|e| TransportError::Network(format!("cannot start a thread: {e}")))?;
        rx.await.unwrap_or(Err(TransportError::Network("request thread ended".into())))
    }
}

struct TimerState {
    heap: BinaryHeap<Reverse<(Instant, u64)>>,
    senders: BTreeMap<u64, oneshot::Sender<()>>,
    next_id: u64,
}

/// Wall clock plus one timer thread serving every sleep.
#[derive(Clone)]
pub struct StdClock {
    shared: Arc<(Mutex<TimerState>, Condvar)>,
}

impl Default for StdClock {
    fn default() -> Self {
        Self::new()
    }
}

impl StdClock {
    pub fn new() -> Self {
        let shared = Arc::new((
            Mutex::new(TimerState { heap: BinaryHeap::new(), senders: BTreeMap::new(), next_id: 0 }),
            Condvar::new(),
        ));
        let weak = Arc::downgrade(&shared);
        std::thread::Builder::new()
            .name("wmlab-timer".into())
            .spawn(move || {
                loop {
                    let Some(shared) = weak.upgrade() else { return };
                    let (lock, cv) = &*shared;
                    let mut st = lock.lock().unwrap();
                    let now = Instant::now();
                    while let Some(Reverse((at, id))) = st.heap.peek().copied() {
                        if at > now {
                            break;
                        }
                        st.heap.pop();
                        if let Some(tx) = st.senders.remove(&id) {
                            let _ = tx.send(());
                        }
                    }
                    let wait = st
                        .heap
                        .peek()
                        .map(|Reverse((at, _))| at.saturating_duration_since(now))
                        .unwrap_or(Duration::from_millis(200))
                        .min(Duration::from_millis(200));
                    let _unused = cv.wait_timeout(st, wait).unwrap();
                }
            })
            .expect("timer thread starts");
        StdClock { shared }
    }
}

impl Clock for StdClock {
    fn now_ms(&self) -> f64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
    }

    async fn sleep(&self, ms: u64) {
        if ms == 0 {
            return;
        }
        let (tx, rx) = oneshot::channel();
        {
            let (lock, cv) = &*self.shared;
            let mut st = lock.lock().unwrap();
            let id = st.next_id;
            st.next_id += 1;
            st.heap.push(Reverse((Instant::now() + Duration::from_millis(ms), id)));
            st.senders.insert(id, tx);
            cv.notify_one();
        }
        let _ = rx.await;
    }
}

/// `block_on` with the native transport and clock: the one-liner the CLI uses.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    futures::executor::block_on(f)
}
