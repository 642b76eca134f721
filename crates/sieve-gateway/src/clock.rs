//! The proxy's one clock: milliseconds since the Unix epoch, as the ledger
//! and server statuses store time. sieve-core takes time as a value; this
//! is where the proxy reads it.

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
