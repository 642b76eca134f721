//! A stdio host's plain call, judged and answered without a task of its
//! own (`crate::front::express` carries it): where such a call may go,
//! and what its host is told when its answer is anything but a plain
//! result. A plain call is one the proxy only passes on: no search, no
//! audit record, no task, a server on a line connection (a child's stdio,
//! the built-in demo). Whatever it is refused or fails for is said by the
//! one path every other call takes.

use super::SieveServer;
use super::dispatch::{Answer, call_answer, expecting_raw};
use crate::lane::Lane;
use crate::link::HostRequest;
use crate::sent::{HostCall, Params};
use crate::tasks::{Call, Running};
use rmcp::ErrorData;
use serde_json::Value;
use sieve_core::Narrowing;

pub(crate) use super::forward::{CANCELLED, TIMED_OUT, cancelled, plain_call_result, timed_out};

/// Where a plain call goes, and what the ledger records of it.
pub(crate) struct Route {
    /// The line connection of the tool's server.
    pub lane: Lane,
    pub server: String,
    /// The tool's exposed name.
    pub exposed: String,
    /// The profile the call is made under.
    pub profile: String,
    pub local: bool,
}

impl Route {
    /// The call as the ledger records it, its params `params`.
    pub(crate) fn call<'a>(&'a self, params: Params<'a>) -> Call<'a> {
        Call {
            server: &self.server,
            tool: &self.exposed,
            params,
            profile: &self.profile,
            owner: None,
            local: self.local,
        }
    }
}

/// How a plain call ended other than with its server's answer.
pub(crate) enum Ended {
    /// The server answered, or its connection ended first.
    Answer(std::io::Result<sieve_wire::Message>),
    /// The host cancelled it, or left.
    Cancelled,
    /// The call timeout passed, `settings.callTimeoutSeconds`.
    TimedOut(std::time::Duration),
}

impl SieveServer {
    /// Where a call of tool `name` goes when it is plain and allowed, with
    /// the server's name for the tool; `None` when the one path must judge
    /// it: an HTTP host's, a refused or unknown tool, a profile in search
    /// mode, calls audited, a tool its server runs only as a task, or a
    /// server not up on a line connection.
    pub(crate) fn express_route(&self, name: &str) -> Option<(Route, String)> {
        self.conn.fixed_profile.as_ref()?;
        let published = self.engine.published();
        if published.config.settings.audit.on {
            return None;
        }
        let profile = self.engine.profile(&self.current_profile()).ok()?;
        if profile.rules.search_mode() {
            return None;
        }
        let tool = published.catalog.find_tool(name)?;
        let narrowing = Narrowing::default().concerns(&self.state().concerns);
        if crate::engine::refused(&profile, tool, Some(&narrowing)).is_some()
            || self
                .engine
                .tasks()
                .runs_as_legacy_task(&tool.server, &tool.definition, false)
        {
            return None;
        }
        let lane = self.engine.pool().lane(&tool.server)?;
        let route = Route {
            lane,
            server: tool.server.clone(),
            exposed: tool.exposed_name.clone(),
            profile: profile.name.clone(),
            local: Call::is_local(&published.config, &tool.server),
        };
        Some((route, tool.name.clone()))
    }

    /// The seconds a call may take, `settings.callTimeoutSeconds`.
    pub(crate) fn call_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.engine.config().settings.call_timeout_seconds)
    }

    /// Starts timing `call`, as every call is timed.
    pub(crate) fn express_started(&self, call: &Call<'_>) -> Running {
        self.engine.tasks().call_started(call)
    }

    /// Records that `call` ended with a plain result, `result` the text
    /// the host is sent.
    pub(crate) fn express_succeeded(&self, running: Running, call: &Call<'_>, result: String) {
        self.engine.tasks().call_succeeded(running, call, || result);
    }

    /// Records the call to server `server` on `link` among those in flight,
    /// so a question its server asks meanwhile goes to its host.
    pub(crate) fn express_tracked(
        &self,
        link: &crate::link::HostLink,
        server: &str,
    ) -> crate::hosts::Tracked {
        self.engine.hosts().track_plain_call(link, server)
    }

    /// What the host of a plain call sent on `route` is answered when it
    /// ended otherwise than with a plain result: as the one path answers
    /// it, failures recorded for retry.
    pub(crate) async fn express_ended(
        &self,
        route: &Route,
        call: &HostCall,
        running: Running,
        ended: Ended,
        context: HostRequest,
    ) -> Result<Answer, ErrorData> {
        let (context, raw) = expecting_raw(context);
        if let Ended::Cancelled = ended {
            // Recorded as cut off, not failed.
            context.ct.cancel();
        }
        let outcome = match ended {
            Ended::Answer(answer) => self.replied(
                &route.server,
                "tools/call",
                &Value::Null,
                crate::sent::answer_of(answer),
                Some(&raw),
            ),
            Ended::Cancelled => Err(cancelled()),
            Ended::TimedOut(limit) => Err(timed_out(&route.server, "tools/call", limit)),
        };
        let takes_tasks = context.takes_tasks();
        let call = route.call(Params::Call(call));
        let response = self.call_answered(&call, running, outcome, &context).await;
        call_answer(response, takes_tasks, &raw)
    }
}
