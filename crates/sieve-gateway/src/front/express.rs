//! A stdio host's plain `tools/call`, served where it is read: judged at
//! once ([`crate::server::SieveServer::express_route`]), sent on the
//! server's lane, and its answer written to the host by the task that
//! reads the server's output, with no task of its own, no channel and no
//! timer. A call is plain when the host opened its connection with
//! `initialize`, and the call has no `_meta` (so no progress token and no
//! concerns of its own), no `task`, and is not the retry of a parked
//! call. Anything else, and any call whose route is not plain, takes the
//! one path of [`super::Conn::take`].
//!
//! A plain call is answered as the one path answers it: a plain result
//! goes on as the server sent it, marked complete; any other answer, a
//! failure, the host's cancel or the call timeout is answered by the one
//! path's own code (`SieveServer::express_ended`), in a task of its own.
//! The timeout is kept by one sweeper per connection, which wakes while
//! plain calls are in flight; when the host has gone and what was in
//! flight had its time to answer, the sweeper cancels the rest.

use super::{Conn, Counted, InFlight, answer_line};
use crate::hosts::Tracked;
use crate::lane::{Answered, GivenUp, WeakLane};
use crate::link::{HostLink, HostRequest};
use crate::sent::HostCall;
use crate::server::express::{
    CANCELLED, Ended, Route, TIMED_OUT, complete_plain_result, has_line_break,
};
use crate::sync::Locked;
use sieve_wire::{Id, Kind, Message};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often, at most, the sweeper looks for calls whose time passed.
const SWEEP: Duration = Duration::from_secs(1);

/// A plain call in flight, as its connection finds it to give it up.
pub(super) struct OnLane {
    lane: WeakLane,
    id: Id,
    since: Instant,
}

impl OnLane {
    /// Gives the call up, if its server has not answered yet: the server is
    /// told, and the host answered `why`.
    pub(super) fn give_up(self, why: GivenUp) {
        let reason = match why {
            GivenUp::Cancelled => CANCELLED,
            GivenUp::TimedOut(_) => TIMED_OUT,
        };
        if let Some(lane) = self.lane.upgrade() {
            lane.give_up(&self.id, reason, why);
        }
    }
}

/// The state of a connection's sweeper.
#[derive(Default)]
pub(super) struct Sweeper {
    started: AtomicBool,
    /// The sweeper waits for a plain call to be sent.
    parked: AtomicBool,
    wake: tokio::sync::Notify,
}

/// Serves `message` if it is a plain call whose tool is on a server's
/// lane; gives it back otherwise, for the one path.
pub(super) fn take(conn: &Arc<Conn>, message: Message) -> Option<Message> {
    if message.kind() != Kind::Request || message.method() != Some("tools/call") {
        return Some(message);
    }
    let Some(id) = message.id().cloned() else {
        return Some(message);
    };
    // Told by `initialize`, which opens the connection.
    if !conn.wire.opened_by_initialize() {
        return Some(message);
    }
    let Some(name) = plain_tool(&message) else {
        return Some(message);
    };
    let Some(route) = conn.server.express_route(name) else {
        return Some(message);
    };
    let call = HostCall::new(Box::new(message), route.tool().to_string());
    let running = conn
        .server
        .express_started(&route.call(crate::sent::Params::Call(&call)));
    let link = HostLink::own(conn.wire.clone());
    let tracked = conn.server.express_tracked(&link, route.server());
    let lane = route.lane.clone();
    let capacity = call.params_bytes();
    // Held while the call is sent and entered, so that an answer coming
    // at once finds it entered.
    let mut in_flight = conn.in_flight.locked();
    let express = Express {
        conn: conn.clone(),
        _counted: conn.counted(Some(id.clone())),
        id: id.clone(),
        call,
        route,
        running,
        _tracked: tracked,
    };
    let sent = lane.request_answered("tools/call", capacity, express, |express, out| {
        express.call.write_members(out)
    });
    match sent {
        Ok(on_lane) => {
            let entry = OnLane {
                lane: lane.downgrade(),
                id: on_lane,
                since: Instant::now(),
            };
            in_flight.insert(id, InFlight::OnLane(entry));
            drop(in_flight);
            sweep_from_now(conn);
        }
        Err(express) => {
            // The server's connection ended as it was asked: answered as
            // such by the one path's code.
            drop(in_flight);
            Box::new(express).answered(Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the server's connection has ended",
            )));
        }
    }
    None
}

/// The tool a plain call names: its params are an object with a `name`
/// written without escapes, `arguments` an object or `null` if there, and
/// no `_meta`, `task`, `requestState` or `inputResponses`.
fn plain_tool(message: &Message) -> Option<&str> {
    let params = message.params_object()?;
    let mut name = None;
    for (key, value) in params.members() {
        match key {
            "name" => name = Some(value),
            "arguments" if value.starts_with('{') || value == "null" => {}
            "arguments" | "_meta" | "task" | "requestState" | "inputResponses" => return None,
            _ => {}
        }
    }
    let name = name?.strip_prefix('"')?.strip_suffix('"')?;
    (!name.contains('\\')).then_some(name)
}

/// A plain call on its way: what its answer needs.
struct Express {
    conn: Arc<Conn>,
    /// Counts it among the connection's requests until it is answered
    /// (dropped with it, after its answer is written).
    _counted: Counted,
    /// Its id as the host sent it.
    id: Id,
    call: HostCall,
    route: Route,
    running: crate::tasks::Running,
    /// Its server's questions meanwhile go to its host.
    _tracked: Tracked,
}

impl Answered for Express {
    fn answered(self: Box<Self>, answer: std::io::Result<Message>) {
        match answer {
            Ok(message) => match plain_result(&message) {
                Some(result) => self.plainly(result),
                None => self.finish(Ended::Answer(Ok(message))),
            },
            Err(error) => self.finish(Ended::Answer(Err(error))),
        }
    }

    fn given_up(self: Box<Self>, why: GivenUp) {
        self.finish(match why {
            GivenUp::Cancelled => Ended::Cancelled,
            GivenUp::TimedOut(limit) => Ended::TimedOut(limit),
        });
    }
}

impl Express {
    /// Answers the host with `result`, the call's plain result marked
    /// complete, as it is; the call stays counted until it is written.
    fn plainly(self: Box<Self>, result: String) {
        let line = sieve_wire::write::response(&self.id, &result);
        let call = self.route.call(crate::sent::Params::Call(&self.call));
        self.conn
            .server
            .express_succeeded(self.running, &call, result);
        let _ = self.conn.wire.send_raw(line);
    }

    /// Answers the host as the one path answers a call that ended as
    /// `ended`, in a task of its own (a failure is recorded first).
    fn finish(self: Box<Self>, ended: Ended) {
        tokio::spawn(async move {
            let request_id = crate::sent::rmcp_id(&self.id);
            let context = HostRequest {
                id: request_id.clone(),
                meta: Default::default(),
                ct: tokio_util::sync::CancellationToken::new(),
                extensions: Default::default(),
                link: HostLink::own(self.conn.wire.clone()),
            };
            let served = self
                .conn
                .server
                .express_ended(&self.route, &self.call, self.running, ended, context)
                .await;
            let _ = self.conn.wire.send_raw(answer_line(request_id, served));
        });
    }
}

/// The result of `message` marked complete, when it is a plain result
/// (no task, no question, no error) on one line: a result spread over
/// lines is written anew by the one path.
fn plain_result(message: &Message) -> Option<String> {
    complete_plain_result(message).filter(|result| !has_line_break(result))
}

/// Has the connection's sweeper look out for the call just sent: started
/// with the first, woken when it waits for one.
fn sweep_from_now(conn: &Arc<Conn>) {
    let sweeper = &conn.sweeper;
    if !sweeper.started.swap(true, Ordering::AcqRel) {
        tokio::spawn(sweep(conn.clone()));
    } else if sweeper.parked.swap(false, Ordering::AcqRel) {
        sweeper.wake.notify_one();
    }
}

/// Gives up on the connection's plain calls whose time passed, looking
/// every second (or a quarter of the call timeout, if less) while any are
/// in flight; when the connection stops, on all that are left.
async fn sweep(conn: Arc<Conn>) {
    let stop = conn.stop.clone();
    loop {
        let limit = conn.server.call_timeout();
        let every = (limit / 4).min(SWEEP);
        tokio::select! {
            () = stop.cancelled() => break,
            () = tokio::time::sleep(every) => {}
        }
        let (expired, left) = {
            let mut in_flight = conn.in_flight.locked();
            let expired = taken_out(&mut in_flight, |call| call.since.elapsed() >= limit);
            let left = in_flight
                .values()
                .any(|call| matches!(call, InFlight::OnLane(_)));
            if !left {
                conn.sweeper.parked.store(true, Ordering::Release);
            }
            (expired, left)
        };
        for call in expired {
            call.give_up(GivenUp::TimedOut(limit));
        }
        if !left {
            tokio::select! {
                () = stop.cancelled() => break,
                () = conn.sweeper.wake.notified() => {}
            }
        }
    }
    // The connection stopped: what is left is cut off.
    let left = taken_out(&mut conn.in_flight.locked(), |_| true);
    for call in left {
        call.give_up(GivenUp::Cancelled);
    }
}

/// The plain calls of `in_flight` that are `due`, taken out of it.
fn taken_out(
    in_flight: &mut foldhash::HashMap<Id, InFlight>,
    due: impl Fn(&OnLane) -> bool,
) -> Vec<OnLane> {
    in_flight
        .extract_if(|_, call| matches!(call, InFlight::OnLane(call) if due(call)))
        .filter_map(|(_, call)| match call {
            InFlight::OnLane(call) => Some(call),
            InFlight::Served(_) => None,
        })
        .collect()
}
