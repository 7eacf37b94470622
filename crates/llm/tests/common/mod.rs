//! A hand-written HTTP/1.1 exchange for the test servers (one request per connection, JSON replies), and
//! the visual suite's stand-in model: the first option of the answer format a question names.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

/// A request as the servers see it.
pub struct HttpIn {
    /// `POST /v1/chat/completions HTTP/1.1`.
    pub line: String,
    /// Lower-case names.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpIn {
    pub fn path(&self) -> &str {
        self.line.split_whitespace().nth(1).unwrap_or("")
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Read one request (headers and a `content-length` body); `None` when the client went away.
pub fn read_request(s: &TcpStream) -> Option<HttpIn> {
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let mut reader = BufReader::new(s.try_clone().ok()?);
    let mut first = String::new();
    if reader.read_line(&mut first).ok()? == 0 {
        return None;
    }
    let mut headers = Vec::new();
    let mut len = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            let k = k.trim().to_ascii_lowercase();
            if k == "content-length" {
                len = v.trim().parse().unwrap_or(0);
            }
            headers.push((k, v.trim().to_string()));
        }
    }
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).ok()?;
    Some(HttpIn { line: first.trim_end().to_string(), headers, body: String::from_utf8_lossy(&body).into_owned() })
}

/// Write a JSON reply and close.
pub fn write_json(s: &mut TcpStream, status: u16, headers: &[(String, String)], body: &str) {
    let mut out = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    out.push_str(body);
    let _ = s.write_all(out.as_bytes());
    let _ = s.flush();
}

/// The first option of the format the question names.
pub fn answer(question: &str) -> String {
    if let Some(i) = question.find("Answer with \"") {
        let rest = &question[i + 13..];
        return rest[..rest.find('"').unwrap_or(0)].to_string();
    }
    if question.contains("different numbers from 1 to") {
        let picks: usize = question
            .split("Answer with ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        return (1..=picks).map(|k| k.to_string()).collect::<Vec<_>>().join(", ");
    }
    if question.contains("one number from 1 to") {
        return "1".into();
    }
    if question.contains("What colour is the square") {
        return "Red.".into();
    }
    "I do not know.".into()
}

/// Serve on 127.0.0.1 (a port of the system's choosing), each connection on its own thread: `handle`
/// gets the request and the stream to answer on. Returns `http://127.0.0.1:PORT`.
pub fn serve(handle: impl Fn(HttpIn, &mut TcpStream) + Send + Sync + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = Arc::new(handle);
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            let handle = handle.clone();
            std::thread::spawn(move || {
                if let Some(req) = read_request(&conn) {
                    handle(req, &mut conn);
                }
            });
        }
    });
    base
}
