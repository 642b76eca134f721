//! The proxy's one clock: milliseconds since the Unix epoch, as the ledger
//! and server statuses store time. sieve-core takes time as a value; this
//! is where the proxy reads it.

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The time of day of `ms` since the Unix epoch, as `12:00:01 UTC`: when
/// something happened today, for a sentence a person reads.
pub fn time_of_day(ms: i64) -> String {
    let seconds = ms.div_euclid(1000).rem_euclid(24 * 3600);
    format!(
        "{:02}:{:02}:{:02} UTC",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_time_of_day_is_read_in_utc() {
        // 2026-01-01T12:00:01.500Z
        assert_eq!(super::time_of_day(1_767_268_801_500), "12:00:01 UTC");
        assert_eq!(super::time_of_day(0), "00:00:00 UTC");
    }
}
