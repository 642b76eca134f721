//! A stdio host's plain call, judged and answered without a task of its
//! own (`crate::front::express` carries it): where such a call may go,
//! and what its host is told when its answer is anything but a plain
//! result. A plain call is one the proxy only passes on: no search, no
//! audit record, no task, a server on a line connection (a child's stdio,
//! the built-in demo). Whatever it is refused or fails for is said by the
//! one path every other call takes.

use super::SieveServer;
use super::dispatch::{Answer, call_answer, expecting_raw};
use crate::engine::ActiveProfile;
use crate::lane::Lane;
use crate::link::HostRequest;
use crate::sent::{HostCall, Params};
use crate::sync::Locked;
use crate::tasks::{Call, Running};
use rmcp::ErrorData;
use serde_json::Value;
use sieve_core::Narrowing;
use std::collections::BTreeMap;
use std::sync::Arc;

pub(crate) use super::dispatch::has_line_break;
pub(crate) use super::forward::{
    CANCELLED, TIMED_OUT, cancelled, complete_plain_result, timed_out,
};

/// Where a plain call goes, and what the ledger records of it.
pub(crate) struct Route {
    /// The line connection of the tool's server.
    pub lane: Lane,
    tool: Arc<Judged>,
    /// The profile the call is made under.
    profile: Arc<ActiveProfile>,
}

impl Route {
    /// The call as the ledger records it, its params `params`.
    pub(crate) fn call<'a>(&'a self, params: Params<'a>) -> Call<'a> {
        Call {
            server: &self.tool.server,
            tool: &self.tool.exposed,
            params,
            profile: &self.profile.name,
            owner: None,
            local: self.tool.local,
        }
    }

    /// The tool's server.
    pub(crate) fn server(&self) -> &str {
        &self.tool.server
    }

    /// The server's name for the tool.
    pub(crate) fn tool(&self) -> &str {
        &self.tool.name
    }
}

/// A tool a connection's plain calls may call, as judged once for the
/// catalog, config, profile and concerns they were made under.
struct Judged {
    server: String,
    /// The server's name for it.
    name: String,
    exposed: String,
    local: bool,
    /// Its server runs it only as a task, unless the server speaks
    /// 2026-07-28 tasks (asked at each call: a server may come back
    /// speaking another revision).
    task_required: bool,
}

/// What a connection's plain calls were judged under.
struct Under {
    catalog: Arc<sieve_core::Catalog>,
    config: Arc<sieve_core::Config>,
    profile: Arc<ActiveProfile>,
    concerns: BTreeMap<String, String>,
}

impl Under {
    fn is(
        &self,
        published: &crate::engine::Published,
        profile: &Arc<ActiveProfile>,
        concerns: &BTreeMap<String, String>,
    ) -> bool {
        Arc::ptr_eq(&self.catalog, &published.catalog)
            && Arc::ptr_eq(&self.config, &published.config)
            && Arc::ptr_eq(&self.profile, profile)
            && self.concerns == *concerns
    }
}

/// Where a connection's plain calls go: each tool judged once while the
/// catalog, the config, the profile and the connection's concerns stay
/// as they were, judged again when any changes.
#[derive(Default)]
pub(super) struct Routes {
    /// What they were judged under: the catalog, config and profile
    /// (held, so that none judged under is told from a new one by its
    /// address alone; a change makes new ones), and the concerns.
    under: Option<Under>,
    /// By exposed name: the tool, or `None` when its calls go the one way.
    by_name: foldhash::HashMap<String, Option<Arc<Judged>>>,
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
    /// Where a call of tool `name` goes when it is plain and allowed;
    /// `None` when the one path must judge it: an HTTP host's, a refused
    /// or unknown tool, a profile in search mode, calls audited, a tool
    /// its server runs only as a task, or a server not up on a line
    /// connection.
    pub(crate) fn express_route(&self, name: &str) -> Option<Route> {
        self.conn.fixed_profile.as_ref()?;
        let published = self.engine.published();
        let profile = self.engine.profile(&self.current_profile()).ok()?;
        let tool = {
            let concerns = &self.state().concerns;
            let mut routes = self.conn.routes.locked();
            let same = routes
                .under
                .as_ref()
                .is_some_and(|under| under.is(&published, &profile, concerns));
            if !same {
                routes.under = Some(Under {
                    catalog: published.catalog.clone(),
                    config: published.config.clone(),
                    profile: profile.clone(),
                    concerns: concerns.clone(),
                });
                routes.by_name.clear();
            }
            match routes.by_name.get(name) {
                Some(judged) => judged.clone(),
                None => {
                    let judged = judge(&published, &profile, concerns, name).map(Arc::new);
                    routes.by_name.insert(name.to_string(), judged.clone());
                    judged
                }
            }
        }?;
        if tool.task_required && !self.engine.pool().modern_tasks(&tool.server) {
            return None;
        }
        let lane = self.engine.pool().lane(&tool.server)?;
        Some(Route {
            lane,
            tool,
            profile,
        })
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
                route.server(),
                "tools/call",
                &Value::Null,
                crate::sent::answer_of(answer),
                Some(&raw),
            ),
            Ended::Cancelled => Err(cancelled()),
            Ended::TimedOut(limit) => Err(timed_out(route.server(), "tools/call", limit)),
        };
        let takes_tasks = context.takes_tasks();
        let call = route.call(Params::Call(call));
        let response = self.call_answered(&call, running, outcome, &context).await;
        call_answer(response, takes_tasks, &raw)
    }
}

/// Tool `name` as plain calls of a host whose connection has `concerns`
/// find it under `published` and `profile`: `None` when the one path must
/// judge its calls (calls audited, a profile in search mode, a tool
/// unknown or refused).
fn judge(
    published: &crate::engine::Published,
    profile: &ActiveProfile,
    concerns: &BTreeMap<String, String>,
    name: &str,
) -> Option<Judged> {
    if published.config.settings.audit.on || profile.rules.search_mode() {
        return None;
    }
    let tool = published.catalog.find_tool(name)?;
    let narrowing = Narrowing::default().concerns(concerns);
    if crate::engine::refused(profile, tool, Some(&narrowing)).is_some() {
        return None;
    }
    Some(Judged {
        server: tool.server.clone(),
        name: tool.name.clone(),
        exposed: tool.exposed_name.clone(),
        local: Call::is_local(&published.config, &tool.server),
        task_required: crate::tasks::task_required(&tool.definition),
    })
}
