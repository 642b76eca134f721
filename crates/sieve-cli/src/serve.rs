//! `mcp-sieve serve`, the proxy a host connects to (stdio or streamable
//! HTTP), and `mcp-sieve demo-server`, the built-in demo MCP server.

use crate::logging::init_logging;
use crate::runtime::{runtime, serving_runtime, shutdown_signal};
use anyhow::{Context, Result};
use clap::Args;
use sieve_api::Engine;
use sieve_api::Store;
use sieve_api::serve::{ProfileChoice, serve_http, serve_stdio};
use std::io::Write;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Profile to serve over stdio (default: the active one, followed
    /// live). HTTP endpoints name theirs: /mcp is the active profile,
    /// /mcp/p/NAME is NAME.
    #[arg(long, short, value_name = "NAME", conflicts_with = "http")]
    pub profile: Option<String>,
    /// Serve streamable HTTP on ADDR (e.g. 127.0.0.1:8765) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// Print the HTTP bearer token (made on first use) and exit.
    #[arg(long)]
    pub print_token: bool,
}

/// The built-in demo MCP server and which of its tool lists it serves.
#[derive(Debug, Args)]
pub struct DemoServerArgs {
    /// Serve streamable HTTP at ADDR (endpoint /mcp) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// Speak only protocol 2026-07-28 (refuse `initialize`), on stdio.
    #[arg(long, conflicts_with = "http")]
    pub modern_only: bool,
    /// Serve release N of the tool list: 1 (the default), or 2, an
    /// update in which `search` says something new (to try quarantine).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub release: u8,
}

pub(crate) fn serve(store: Store, args: &ServeArgs, out: &mut dyn Write) -> Result<()> {
    if args.print_token {
        writeln!(out, "{}", store.http_token()?)?;
        return Ok(());
    }
    init_logging();
    // Without --profile, the active profile, followed live.
    let choice = match &args.profile {
        Some(name) => ProfileChoice::Named(name.clone()),
        None => ProfileChoice::Active,
    };
    serving_runtime()?.block_on(async {
        let engine = Engine::start(store.clone())?;
        engine.in_process_started().await;
        // A missing or broken profile is an error now, not at the first request.
        let profile = choice.resolve(&engine);
        engine.profile(&profile)?;
        engine.watch_files()?;
        // What changed in the groups the profiles name, said once the
        // servers have answered; serving does not wait for it.
        let told = engine.clone();
        tokio::spawn(async move {
            match sieve_api::notices::at_start(&told, "proxy").await {
                Ok(notices) => notices.iter().for_each(|notice| tracing::warn!("{notice}")),
                Err(error) => tracing::warn!("{error}"),
            }
        });
        match args.http {
            // On the runtime's worker, beside the tasks it starts for each
            // request: from the thread that blocks on the runtime, each
            // request handed to them would wake the worker.
            None => tokio::spawn(serve_stdio(engine.clone(), choice, shutdown_signal()))
                .await
                .context("the proxy stopped serving the host on stdin and stdout unexpectedly")??,
            Some(addr) => {
                if !addr.ip().is_loopback() {
                    tracing::warn!("listening on {addr}, which other machines can reach; the bearer token is all that protects it");
                }
                let token = store.http_token()?;
                let stop = CancellationToken::new();
                let bound = serve_http(engine.clone(), addr, token, stop.clone().cancelled_owned()).await?;
                eprintln!(
                    "MCP Sieve is serving http://{bound}/mcp (the active profile, now {profile:?}) and http://{bound}/mcp/p/NAME (profile NAME)"
                );
                eprintln!(
                    "hosts must send \"Authorization: Bearer <token>\"; the token is kept in {} (`mcp-sieve{} serve --print-token`)",
                    store.token_location(),
                    if store.is_team() { " --state URL" } else { "" },
                );
                if let Some(identity) = &engine.config().settings.identity {
                    eprintln!(
                        "people signed in through {} are taken too, with a token for {}; their {} claim chooses their profile",
                        identity.issuer, identity.audience, identity.claim
                    );
                }
                shutdown_signal().await;
                stop.cancel();
            }
        }
        engine.shutdown().await;
        anyhow::Ok(())
    })
}

pub(crate) fn demo_server(args: &DemoServerArgs, out: &mut dyn Write) -> Result<()> {
    let demo = if args.modern_only {
        sieve_api::demo::DemoServer::modern_only()
    } else {
        sieve_api::demo::DemoServer::new()
    };
    let demo = demo.release(args.release);
    runtime()?.block_on(async {
        match args.http {
            None => sieve_api::demo::serve_stdio(demo).await,
            Some(addr) => {
                let stop = CancellationToken::new();
                // Clones share one world: every session sees the same tasks.
                let bound = sieve_api::serve::serve_handler_http(
                    addr,
                    move || demo.clone(),
                    stop.clone().cancelled_owned(),
                )
                .await?;
                writeln!(out, "demo server at http://{bound}/mcp")?;
                out.flush()?;
                shutdown_signal().await;
                stop.cancel();
                Ok(())
            }
        }
    })
}
