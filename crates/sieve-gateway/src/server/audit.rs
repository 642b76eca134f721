//! The audit of `tools/call` (DESIGN §12): with `settings.audit` on, each
//! call a host makes is recorded once it is answered: who made it, under
//! which profile, which server's tool, how it ended and how long it took,
//! and its arguments only when `settings.audit.arguments` asks. With the
//! audit off a call costs one read of the settings more; with it on, a
//! wait for its record to be written, together with those of the calls
//! made meanwhile (`tasks::audit`).
//!
//! `sieve__call_tool` (search mode) is recorded as the call it stands for,
//! under that tool's name, not twice.

use super::{SieveServer, calls::served_as_call_through};
use crate::clock::now_ms;
use crate::link::HostRequest;
use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CallToolResponse, ErrorCode};
use serde_json::Value;
use sieve_ledger::{AuditRecord, AuditStatus};
use std::time::Instant;

impl SieveServer {
    /// `tools/call`, recorded in the audit when the settings say so.
    pub(super) async fn handle_call_tool(
        &self,
        request: CallToolRequestParams,
        context: HostRequest,
    ) -> Result<CallToolResponse, ErrorData> {
        let config = self.engine.config();
        let audit = config.settings.audit;
        if !audit.on || served_as_call_through(&request.name, &config.settings.separator) {
            // Boxed: held inline, the call's future would hold it twice
            // (19 KB), and be copied whole each time it moves.
            return Box::pin(self.serve_call_tool(request, context)).await;
        }
        let started = Instant::now();
        let at = now_ms();
        let tool = request.name.to_string();
        let arguments = audit
            .arguments
            .then(|| Value::Object(request.arguments.clone().unwrap_or_default()));
        let who = self.who(&context);
        let profile = self.profile_name(&context.extensions);
        let cancel = context.ct.clone();
        let outcome = Box::pin(self.serve_call_tool(request, context)).await;
        let server = self
            .engine
            .published()
            .catalog
            .find_tool(&tool)
            .map_or_else(|| "sieve".to_string(), |t| t.server.clone());
        let record = AuditRecord {
            id: 0,
            at,
            who,
            profile,
            server,
            tool,
            status: status_of(&outcome, cancel.is_cancelled()),
            duration_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
            arguments,
        };
        // Written before the answer goes back, by the audit's writer,
        // with the records of other calls made meanwhile.
        self.engine.tasks().audit(record).await;
        outcome
    }

    /// The caller: the person their team's identity provider signed in,
    /// if one did, and the host as this connection knows it (its name and
    /// version from its `initialize`), and how it reached the proxy.
    fn who(&self, context: &HostRequest) -> String {
        let host = host_named(context).unwrap_or_else(|| "a host".to_string());
        if let Some(person) = super::signed_in(&context.extensions) {
            return format!("{} with {host} (HTTP, signed in)", person.label());
        }
        let way = match self.conn.fixed_profile {
            Some(_) => "stdio",
            None => "HTTP, bearer token",
        };
        format!("{host} ({way})")
    }
}

/// The host's name and version as it gave them: a 2026-07-28 request
/// names its client in its own `_meta`; a 2025-11-25 session named it in
/// its `initialize`. A connection that was never told (the direct path's
/// shared 2026-07-28 peer carries rmcp's placeholder) names no host.
fn host_named(context: &HostRequest) -> Option<String> {
    let named = |name: &str, version: &str| format!("{name} {version}").trim_end().to_string();
    if let Some(info) = context.meta.get(super::CLIENT_INFO_META) {
        let version = info.get("version").and_then(Value::as_str).unwrap_or("");
        return Some(named(info.get("name")?.as_str()?, version));
    }
    let info = context.link.client()?;
    // A 2026-07-28 peer made by the proxy itself was never told a host.
    if info.protocol_version >= rmcp::model::ProtocolVersion::V_2026_07_28 {
        return None;
    }
    Some(named(&info.client_info.name, &info.client_info.version))
}

/// How a call ended, for the audit. A result the tool marks as an error is
/// a failed call, as the task ledger has it.
fn status_of(outcome: &Result<CallToolResponse, ErrorData>, cancelled: bool) -> AuditStatus {
    match outcome {
        Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
            AuditStatus::Error
        }
        Ok(_) => AuditStatus::Ok,
        Err(_) if cancelled => AuditStatus::Cancelled,
        // The profile's refusal says why, with the profile and its reasons.
        Err(error)
            if error.code == ErrorCode::INVALID_PARAMS
                && error
                    .data
                    .as_ref()
                    .is_some_and(|d| d.get("hiddenBy").is_some()) =>
        {
            AuditStatus::Refused
        }
        Err(_) => AuditStatus::Error,
    }
}
