//! `mcp-sieve servers login NAME`: signing in to an HTTP server of
//! `config.json` (OAuth, DESIGN §10) and keeping the sign-in in the secret
//! store, where the proxy's connection to the server finds it (a running
//! proxy within 30 s, see `upstream`).

use super::{ApiError, ErrorCode, Result};
use serde::Serialize;
use sieve_core::Transport;
use sieve_core::secret_ref::substitute;
use sieve_gateway::oauth::{Client, Credentials, SharedSecrets, SignIn, sign_in};
use sieve_store::store::Store;
use std::collections::BTreeMap;
use std::time::Duration;

/// How long the person has to finish the sign-in in the browser.
pub const WAIT: Duration = Duration::from_secs(300);

/// A finished sign-in.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignedIn {
    pub server: String,
    pub url: String,
    /// Where the sign-in is kept, for a person.
    pub location: String,
}

/// Signs in to HTTP server `name` of `config.json`: `open` is handed the
/// authorization URL (to open with [`open_sign_in_page`], or to print); the browser's redirect back to `127.0.0.1` is waited for up
/// to `wait`.
pub async fn login(
    store: &Store,
    name: &str,
    open: &(dyn Fn(&str) + Send + Sync),
    wait: Duration,
) -> Result<SignedIn> {
    let config = store.load_config()?;
    let server = config
        .mcp_servers
        .get(name)
        .ok_or_else(|| super::servers::no_server(name))?;
    let Transport::Http { url, oauth, .. } = &server.transport else {
        return Err(ApiError::invalid(
            "name",
            format!(
                "server {name:?} is started as a program, not reached by URL; only HTTP servers are signed in to"
            ),
        ));
    };
    let secrets = SharedSecrets::new(store.home().clone());
    let client = match oauth {
        Some(oauth) => {
            let mut resolved = BTreeMap::new();
            for (field, value) in oauth.secret_fields() {
                if let Some(value) = value {
                    resolved.insert(
                        field.to_string(),
                        resolve(&secrets, name, field, value).await?,
                    );
                }
            }
            Client::configured(oauth, resolved)
        }
        None => Client::default(),
    };
    let credentials = Credentials::stored(secrets.clone(), name);
    // What the server last said when it refused the proxy (a 403 wanting
    // more scopes, say), so this sign-in asks for what it needs.
    let challenge = credentials.challenge().await;
    sign_in(SignIn {
        url,
        client,
        challenge,
        credentials,
        open,
        wait,
    })
    .await
    .map_err(|why| ApiError::new(ErrorCode::Upstream, why))?;
    let location = tokio::task::spawn_blocking(move || secrets.open().map(|s| s.location()))
        .await
        .ok()
        .and_then(|l| l.ok())
        .unwrap_or_else(|| "the secret store".into());
    Ok(SignedIn {
        server: name.to_string(),
        url: url.clone(),
        location,
    })
}

/// `value` (an `"oauth"` `field` of `server`) with its `${secret:NAME}`
/// references replaced by the stored secrets, looked up off the runtime.
async fn resolve(
    secrets: &SharedSecrets,
    server: &str,
    field: &'static str,
    value: &str,
) -> Result<String> {
    let (secrets, value) = (secrets.clone(), value.to_string());
    let resolved =
        tokio::task::spawn_blocking(move || substitute(&value, |key| secrets.open()?.require(key)))
            .await
            .map_err(|_| {
                ApiError::new(
                    ErrorCode::Io,
                    format!("reading the client's {field} stopped half way"),
                )
            })?;
    resolved.map_err(|error| {
        ApiError::invalid(
            "oauth",
            format!("the \"oauth\" {field:?} of server {server:?}: {error}"),
        )
    })
}

/// Opens a sign-in page for the person: with `$BROWSER` (run as
/// `$BROWSER URL`) when it is set, else with the desktop's own opener
/// (`xdg-open`, macOS's `open`, Windows' `start`). Whether a program took
/// it; the browser then runs on by itself. The command line and the app
/// open pages the same way; a caller that got `false` shows the address.
pub fn open_sign_in_page(url: &str) -> bool {
    let browser = std::env::var_os("BROWSER").filter(|b| !b.is_empty());
    let mut command = match &browser {
        Some(browser) => std::process::Command::new(browser),
        None => desktop_opener(),
    };
    match command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        Ok(mut child) => {
            // Reaped when it ends, so no zombie is left behind.
            std::thread::spawn(move || child.wait());
            true
        }
        Err(error) => {
            let program = command.get_program().to_string_lossy().into_owned();
            tracing::warn!("cannot open the sign-in page with {program}: {error}");
            false
        }
    }
}

/// The desktop's program that opens an address in the default browser.
fn desktop_opener() -> std::process::Command {
    if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut start = std::process::Command::new("cmd");
        start.args(["/C", "start", ""]);
        start
    } else {
        std::process::Command::new("xdg-open")
    }
}
