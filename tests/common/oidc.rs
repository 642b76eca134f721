//! A real OpenID provider for the team gateway's tests: panva's
//! `oidc-provider` (`tests/clients/oidc/provider.mjs`) on 127.0.0.1, and
//! access tokens from it through the authorization code flow with PKCE
//! (`tests/clients/oidc/token.mjs`), as a person signing in would get them.
//!
//! Accounts `alice` (groups `engineering`), `bob` (`support`) and `carol`
//! (no `groups` claim). A token is an RS256 JWT with `iss` the issuer, `aud`
//! the resource asked for, `sub` the account, `groups`, `scope` `mcp`,
//! `client_id`, and `exp` 600 s after `iat` (2 s for
//! [`Provider::short_lived_token`]); the header's `kid` names a key of
//! `{issuer}/jwks`.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::deps::deps;

/// How long the provider may take to listen: Node loads the library and
/// makes an RSA key on a busy machine.
const READY_WITHIN: Duration = Duration::from_secs(60);

/// The running provider; killed when dropped.
pub struct Provider {
    child: Child,
    issuer: String,
    port: u16,
    stderr: Arc<Mutex<String>>,
    stderr_reader: Option<JoinHandle<()>>,
}

impl Provider {
    /// Starts the provider on a free port with the signing keys in `keys`
    /// (a JWKS file, made with one new key when it does not exist).
    pub fn start(keys: &Path) -> Provider {
        Provider::start_on(0, keys)
    }

    /// Starts the provider on `port`. Started again on the same port after
    /// `keys` was deleted, it is the same issuer with a new signing key.
    pub fn start_on(port: u16, keys: &Path) -> Provider {
        let deps = deps();
        let mut child = Command::new(&deps.node22)
            .arg(script("provider.mjs"))
            .args(["--port", &port.to_string(), "--keys"])
            .arg(keys)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("node runs tests/clients/oidc/provider.mjs");
        // Read for the whole run, so the provider never blocks on a full
        // pipe and a failure can quote what it said.
        let stderr = Arc::new(Mutex::new(String::new()));
        let stderr_reader = {
            let mut pipe = child.stderr.take().expect("stderr is piped");
            let stderr = Arc::clone(&stderr);
            std::thread::spawn(move || {
                let mut chunk = [0u8; 4096];
                while let Ok(n @ 1..) = pipe.read(&mut chunk) {
                    stderr
                        .lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&chunk[..n]));
                }
            })
        };
        let (ready_tx, ready_rx) = mpsc::channel();
        let stdout = child.stdout.take().expect("stdout is piped");
        std::thread::spawn(move || {
            let mut line = String::new();
            if BufReader::new(stdout).read_line(&mut line).is_ok() && !line.is_empty() {
                let _ = ready_tx.send(line);
            }
        });
        let mut provider = Provider {
            child,
            issuer: String::new(),
            port: 0,
            stderr,
            stderr_reader: Some(stderr_reader),
        };
        let line = match ready_rx.recv_timeout(READY_WITHIN) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => provider.fail(&format!(
                "did not say it listens on port {port} within {READY_WITHIN:?}"
            )),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                provider.fail(&format!("exited before listening on port {port}"))
            }
        };
        let ready: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|e| {
            provider.fail(&format!("printed {line:?} instead of its ready line ({e})"))
        });
        match (ready["issuer"].as_str(), ready["port"].as_u64()) {
            (Some(issuer), Some(port)) => {
                provider.issuer = issuer.to_string();
                provider.port = u16::try_from(port).expect("a port fits in u16");
            }
            _ => provider.fail(&format!(
                "printed a ready line without issuer and port: {line}"
            )),
        }
        provider
    }

    /// `http://127.0.0.1:PORT`, the `iss` of its tokens.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// An access token for `user` (the client `mcp-host`) whose audience is
    /// `resource`, valid for 600 s.
    pub fn token(&self, user: &str, resource: &str) -> String {
        self.token_for("mcp-host", user, resource)
    }

    /// [`Provider::token`] valid for 2 s only (the client `short-lived`).
    pub fn short_lived_token(&self, user: &str, resource: &str) -> String {
        self.token_for("short-lived", user, resource)
    }

    fn token_for(&self, client: &str, user: &str, resource: &str) -> String {
        let output = Command::new(&deps().node22)
            .arg(script("token.mjs"))
            .args(["--issuer", &self.issuer, "--user", user])
            .args(["--resource", resource, "--client", client])
            .stdin(Stdio::null())
            .output()
            .expect("node runs tests/clients/oidc/token.mjs");
        let token = String::from_utf8_lossy(&output.stdout).trim().to_string();
        assert!(
            output.status.success() && !token.is_empty(),
            "no token for {user} ({client}) for {resource} from {} ({}):\n{}\nthe provider's log:\n{}",
            self.issuer,
            output.status,
            String::from_utf8_lossy(&output.stderr),
            self.stderr.lock().unwrap()
        );
        token
    }

    /// Stops the provider and panics with `what` and all it wrote on
    /// stderr.
    fn fail(&mut self, what: &str) -> ! {
        self.stop();
        panic!(
            "the OpenID provider (tests/clients/oidc/provider.mjs) {what}; its stderr:\n{}",
            self.stderr.lock().unwrap()
        );
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(reader) = self.stderr_reader.take() {
            let _ = reader.join();
        }
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        self.stop();
    }
}

fn script(name: &str) -> PathBuf {
    deps().clients.join("oidc").join(name)
}
