//! People signed in through the team's identity provider (DESIGN §12): the
//! HTTP front as an OAuth 2.1 resource server.
//!
//! A request's bearer token is either the static token (the machine's own
//! callers, and a team's administrators) or an access token, a JWT the
//! provider signed. [`Verifier::verify`] checks the signature against the
//! provider's published keys (its JWKS, found through its discovery
//! document unless `settings.identity.jwksUri` names it), the issuer, the
//! audience, the times and the scopes, then maps the person's claim to a
//! profile. The keys are kept; a token signed by a key not among them
//! makes one fetch of the set, at most every [`REFETCH_AFTER`], so a
//! provider's rotated key is picked up on its first token and a stream of
//! forged key ids cannot make the gateway hammer the provider.
//!
//! [`metadata`] is the protected resource metadata (RFC 9728) hosts read
//! to learn where to sign in, and [`challenge`] the `WWW-Authenticate`
//! header of a 401 that points at it.

use jsonwebtoken::jwk::{Jwk, JwkSet, KeyAlgorithm};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value, json};
use sieve_core::config::{Identity, ProfileFor};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The least time between two fetches of the provider's keys.
pub const REFETCH_AFTER: Duration = Duration::from_secs(10);

/// How far the gateway's clock and the provider's may disagree.
const LEEWAY_SECONDS: u64 = 10;

/// How long a fetch from the provider may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The algorithms a provider may sign with: public-key ones only, so a key
/// set can never hand out a shared secret.
const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// A request's caller, when a person signed in: put in the request's
/// extensions by the HTTP front, read by the server for the person's
/// tasks and the audit.
#[derive(Debug, Clone)]
pub struct SignedIn(pub std::sync::Arc<Person>);

/// Who is calling: a signed-in person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    /// The provider's `sub`: what the ledger records as an entry's owner.
    pub subject: String,
    /// A name to show: `name`, `preferred_username` or `email`, if given.
    pub name: Option<String>,
    /// The profile the person's claim chose.
    pub profile: String,
}

impl Person {
    /// The person as the audit names them.
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) if *name != self.subject => format!("{name} ({})", self.subject),
            _ => self.subject.clone(),
        }
    }
}

/// Why a token is not taken, said for the person whose host sent it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// Not a token of this provider for this gateway, or no longer valid:
    /// 401, `error="invalid_token"`.
    #[error("{0}")]
    Invalid(String),
    /// A valid token without the scopes `settings.identity.scopes` asks
    /// for: 403, `error="insufficient_scope"`.
    #[error("{0}")]
    Scope(String),
    /// A valid token whose claim maps to no profile: 403.
    #[error("{0}")]
    NoProfile(String),
    /// The provider's keys could not be had: 503, and the host may retry.
    #[error("{0}")]
    Unavailable(String),
}

/// The provider's keys as last fetched.
#[derive(Default)]
struct Keys {
    /// The issuer and key-set address these are for: settings that name
    /// another provider start afresh.
    source: Option<(String, String)>,
    by_id: HashMap<String, (DecodingKey, Option<Algorithm>)>,
    /// Keys without an id, tried in turn.
    unnamed: Vec<(DecodingKey, Option<Algorithm>)>,
    fetched: Option<Instant>,
}

/// Checks access tokens against the provider's keys, which it keeps.
pub struct Verifier {
    http: reqwest::Client,
    keys: Mutex<Keys>,
    /// One fetch at a time; the others wait for it and use its keys.
    fetching: tokio::sync::Mutex<()>,
}

impl Default for Verifier {
    fn default() -> Self {
        Verifier::new()
    }
}

impl Verifier {
    pub fn new() -> Verifier {
        let http = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .build()
            .unwrap_or_default();
        Verifier {
            http,
            keys: Mutex::new(Keys::default()),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    /// The person `token` signs in, under `identity`.
    pub async fn verify(&self, identity: &Identity, token: &str) -> Result<Person, Refusal> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| {
            Refusal::Invalid(
                "the bearer token is neither the gateway's token nor an access token (a JWT) of the team's identity provider".into(),
            )
        })?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(Refusal::Invalid(format!(
                "the access token is signed with {:?}, which the gateway does not take from an identity provider; it takes RS, PS, ES and EdDSA signatures",
                header.alg
            )));
        }
        // A token of another provider is refused before its key is looked
        // for, so foreign tokens never make the gateway fetch keys. (Read
        // unverified here; the signature check below reads it again.)
        let claimed = jsonwebtoken::dangerous::insecure_decode_claims::<Map<String, Value>>(token)
            .map_err(|_| Refusal::Invalid("the access token's claims are not JSON".into()))?;
        if claimed.get("iss").and_then(Value::as_str) != Some(identity.issuer.as_str()) {
            return Err(Refusal::Invalid(plain(
                identity,
                Some(&jsonwebtoken::errors::ErrorKind::InvalidIssuer),
            )));
        }
        let kid = header.kid.as_deref();
        let candidates = match self.candidates(identity, kid, header.alg) {
            Some(found) if !found.is_empty() => found,
            _ => {
                self.refetch(identity).await?;
                self.candidates(identity, kid, header.alg)
                    .unwrap_or_default()
            }
        };
        if candidates.is_empty() {
            return Err(Refusal::Invalid(match kid {
                Some(kid) => format!(
                    "the access token is signed with key {kid:?}, which {} does not publish",
                    identity.issuer
                ),
                None => format!(
                    "the access token names no key, and {} publishes none for {:?}",
                    identity.issuer, header.alg
                ),
            }));
        }
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&identity.issuer]);
        validation.set_audience(&[&identity.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.leeway = LEEWAY_SECONDS;
        validation.validate_nbf = true;
        let mut last = None;
        for key in &candidates {
            match jsonwebtoken::decode::<Map<String, Value>>(token, key, &validation) {
                Ok(data) => return person(identity, &data.claims),
                Err(error) => last = Some(error),
            }
        }
        Err(Refusal::Invalid(plain(
            identity,
            last.as_ref().map(jsonwebtoken::errors::Error::kind),
        )))
    }

    /// The kept keys that may have signed a token with `kid` and `alg`, or
    /// `None` when the kept keys are another provider's or none were
    /// fetched yet.
    fn candidates(
        &self,
        identity: &Identity,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Option<Vec<DecodingKey>> {
        let keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        let source = keys.source.as_ref()?;
        if source.0 != identity.issuer
            || identity
                .jwks_uri
                .as_ref()
                .is_some_and(|uri| *uri != source.1)
        {
            return None;
        }
        let fits = |(key, key_alg): &(DecodingKey, Option<Algorithm>)| {
            key_alg.is_none_or(|a| a == alg).then(|| key.clone())
        };
        Some(match kid {
            Some(kid) => keys.by_id.get(kid).and_then(fits).into_iter().collect(),
            None => keys
                .unnamed
                .iter()
                .chain(keys.by_id.values())
                .filter_map(fits)
                .collect(),
        })
    }

    /// Fetches the provider's keys again, unless that was done within
    /// [`REFETCH_AFTER`] for the same provider.
    async fn refetch(&self, identity: &Identity) -> Result<(), Refusal> {
        let _one = self.fetching.lock().await;
        let fetched = {
            let keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
            let same = keys
                .source
                .as_ref()
                .is_some_and(|(issuer, _)| *issuer == identity.issuer);
            same.then_some(keys.fetched).flatten()
        };
        if fetched.is_some_and(|at| at.elapsed() < REFETCH_AFTER) {
            return Ok(());
        }
        let jwks_uri = match &identity.jwks_uri {
            Some(uri) => uri.clone(),
            None => self.discover(&identity.issuer).await?,
        };
        let set: JwkSet = self.fetch_json(&jwks_uri, "its keys").await.and_then(|v| {
            serde_json::from_value(v).map_err(|e| {
                Refusal::Unavailable(format!(
                    "the key set at {jwks_uri} is not a JWKS ({e}); check settings.identity"
                ))
            })
        })?;
        let mut keys = Keys {
            source: Some((identity.issuer.clone(), jwks_uri.clone())),
            fetched: Some(Instant::now()),
            ..Keys::default()
        };
        for jwk in &set.keys {
            let Some(key) = usable(jwk) else { continue };
            match &jwk.common.key_id {
                Some(kid) => {
                    keys.by_id.insert(kid.clone(), key);
                }
                None => keys.unnamed.push(key),
            }
        }
        tracing::info!(
            "took {} signing keys of {} from {jwks_uri}",
            keys.by_id.len() + keys.unnamed.len(),
            identity.issuer
        );
        *self.keys.lock().unwrap_or_else(|e| e.into_inner()) = keys;
        Ok(())
    }

    /// The key set's address from the provider's discovery document:
    /// OpenID Connect's, else OAuth's authorization server metadata.
    async fn discover(&self, issuer: &str) -> Result<String, Refusal> {
        let base = issuer.trim_end_matches('/');
        let mut why = String::new();
        for path in [
            "/.well-known/openid-configuration",
            "/.well-known/oauth-authorization-server",
        ] {
            match self
                .fetch_json(&format!("{base}{path}"), "its discovery document")
                .await
            {
                Ok(document) => {
                    if document["issuer"].as_str() != Some(issuer) {
                        return Err(Refusal::Unavailable(format!(
                            "the discovery document of {issuer} names another issuer ({}); settings.identity.issuer must be written exactly as the provider says it",
                            document["issuer"]
                        )));
                    }
                    if let Some(uri) = document["jwks_uri"].as_str() {
                        return Ok(uri.to_string());
                    }
                    why = format!("{base}{path} names no jwks_uri");
                }
                Err(Refusal::Unavailable(error)) => why = error,
                Err(other) => return Err(other),
            }
        }
        Err(Refusal::Unavailable(format!(
            "{why}; set settings.identity.jwksUri to the provider's key set"
        )))
    }

    async fn fetch_json(&self, url: &str, what: &str) -> Result<Value, Refusal> {
        let unavailable = |detail: String| {
            Refusal::Unavailable(format!(
                "the identity provider's {what} could not be fetched from {url} ({detail}); sign-ins wait for it"
            ))
        };
        let response = self
            .http
            .get(url)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| unavailable(e.without_url().to_string()))?;
        if !response.status().is_success() {
            return Err(unavailable(format!("HTTP {}", response.status())));
        }
        response
            .json::<Value>()
            .await
            .map_err(|e| unavailable(e.without_url().to_string()))
    }
}

/// A published key the gateway can check signatures with: a public key,
/// for signatures, with its algorithm if the provider says it.
fn usable(jwk: &Jwk) -> Option<(DecodingKey, Option<Algorithm>)> {
    use jsonwebtoken::jwk::{AlgorithmParameters, PublicKeyUse};
    if matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)) {
        return None;
    }
    if jwk
        .common
        .public_key_use
        .as_ref()
        .is_some_and(|u| *u != PublicKeyUse::Signature)
    {
        return None;
    }
    let alg = match jwk.common.key_algorithm {
        None => None,
        Some(named) => Some(signing_algorithm(named)?),
    };
    let key = DecodingKey::from_jwk(jwk).ok()?;
    Some((key, alg))
}

fn signing_algorithm(named: KeyAlgorithm) -> Option<Algorithm> {
    let alg = match named {
        KeyAlgorithm::RS256 => Algorithm::RS256,
        KeyAlgorithm::RS384 => Algorithm::RS384,
        KeyAlgorithm::RS512 => Algorithm::RS512,
        KeyAlgorithm::PS256 => Algorithm::PS256,
        KeyAlgorithm::PS384 => Algorithm::PS384,
        KeyAlgorithm::PS512 => Algorithm::PS512,
        KeyAlgorithm::ES256 => Algorithm::ES256,
        KeyAlgorithm::ES384 => Algorithm::ES384,
        KeyAlgorithm::EdDSA => Algorithm::EdDSA,
        _ => return None,
    };
    Some(alg)
}

/// The person a verified token's claims name, with their profile.
fn person(identity: &Identity, claims: &Map<String, Value>) -> Result<Person, Refusal> {
    let subject = claims
        .get("sub")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| Refusal::Invalid("the access token names no person (no sub)".into()))?
        .to_string();
    if !identity.scopes.is_empty() {
        let granted: Vec<&str> = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(scope)), _) => scope.split_whitespace().collect(),
            (_, Some(Value::Array(list))) => list.iter().filter_map(Value::as_str).collect(),
            (_, Some(Value::String(scp))) => scp.split_whitespace().collect(),
            _ => Vec::new(),
        };
        let missing: Vec<&str> = identity
            .scopes
            .iter()
            .map(String::as_str)
            .filter(|s| !granted.contains(s))
            .collect();
        if !missing.is_empty() {
            return Err(Refusal::Scope(format!(
                "the access token of {subject} lacks the scope {}; sign in again asking for it",
                missing.join(" ")
            )));
        }
    }
    let profile = match identity.profile_for(claims) {
        ProfileFor::Profile(profile) => profile,
        ProfileFor::Unmapped(values) => {
            let held = if values.is_empty() {
                format!("no {} claim", identity.claim)
            } else {
                format!("{} {}", identity.claim, values.join(", "))
            };
            return Err(Refusal::NoProfile(format!(
                "{subject} is signed in, but their {held} chooses no profile here; an administrator adds it to settings.identity.profiles"
            )));
        }
    };
    let name = ["name", "preferred_username", "email"]
        .iter()
        .find_map(|claim| claims.get(*claim).and_then(Value::as_str))
        .map(str::to_string);
    Ok(Person {
        subject,
        name,
        profile,
    })
}

/// Why a signed token was refused, in a person's words.
fn plain(identity: &Identity, kind: Option<&jsonwebtoken::errors::ErrorKind>) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match kind {
        Some(ErrorKind::ExpiredSignature) => {
            "the access token has expired; the host signs in again or refreshes it".into()
        }
        Some(ErrorKind::ImmatureSignature) => "the access token is not valid yet (nbf)".into(),
        Some(ErrorKind::InvalidIssuer) => format!(
            "the access token was issued by another provider, not {}",
            identity.issuer
        ),
        Some(ErrorKind::InvalidAudience) => format!(
            "the access token is for another audience, not {}; the host must ask for a token for this gateway",
            identity.audience
        ),
        Some(ErrorKind::MissingRequiredClaim(claim)) => {
            format!("the access token has no {claim} claim")
        }
        Some(ErrorKind::InvalidSignature) => {
            "the access token's signature does not match the provider's key".into()
        }
        _ => "the access token is not a valid token of the team's identity provider".into(),
    }
}

/// The URL of the protected resource metadata of `identity`'s audience
/// (RFC 9728: `/.well-known/oauth-protected-resource` put before the
/// audience's path).
pub fn metadata_url(identity: &Identity) -> String {
    let audience = identity.audience.trim_end_matches('/');
    let (scheme, rest) = audience.split_once("://").unwrap_or(("https", audience));
    let (host, path) = match rest.find('/') {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    format!("{scheme}://{host}/.well-known/oauth-protected-resource{path}")
}

/// The protected resource metadata hosts read before signing in.
pub fn metadata(identity: &Identity) -> Value {
    let mut document = json!({
        "resource": identity.audience,
        "authorization_servers": [identity.issuer],
        "bearer_methods_supported": ["header"],
        "resource_name": "MCP Sieve",
    });
    if !identity.scopes.is_empty() {
        document["scopes_supported"] = json!(identity.scopes);
    }
    document
}

/// The `WWW-Authenticate` value of a 401 or 403: where the metadata is,
/// and what was wrong with the token sent, if one was.
pub fn challenge(identity: &Identity, refusal: Option<&Refusal>) -> String {
    let mut value = format!("Bearer resource_metadata=\"{}\"", metadata_url(identity));
    if !identity.scopes.is_empty() {
        value.push_str(&format!(", scope=\"{}\"", identity.scopes.join(" ")));
    }
    let error = match refusal {
        Some(Refusal::Invalid(_)) => Some("invalid_token"),
        Some(Refusal::Scope(_)) => Some("insufficient_scope"),
        _ => None,
    };
    if let (Some(error), Some(refusal)) = (error, refusal) {
        // A quoted-string may not hold a bare quote or backslash.
        let description: String = refusal
            .to_string()
            .chars()
            .filter(|c| *c != '"' && *c != '\\')
            .collect();
        value.push_str(&format!(
            ", error=\"{error}\", error_description=\"{description}\""
        ));
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity() -> Identity {
        serde_json::from_value(json!({
            "issuer": "https://login.example.com",
            "audience": "https://sieve.example.com/mcp",
            "claim": "groups",
            "profiles": {"engineering": "eng"},
            "scopes": ["mcp"]
        }))
        .unwrap()
    }

    #[test]
    fn the_metadata_sits_before_the_audience_path() {
        assert_eq!(
            metadata_url(&identity()),
            "https://sieve.example.com/.well-known/oauth-protected-resource/mcp"
        );
        let document = metadata(&identity());
        assert_eq!(document["resource"], "https://sieve.example.com/mcp");
        assert_eq!(
            document["authorization_servers"][0],
            "https://login.example.com"
        );
        assert_eq!(document["scopes_supported"][0], "mcp");
    }

    #[test]
    fn a_challenge_says_what_was_wrong() {
        let bare = challenge(&identity(), None);
        assert_eq!(
            bare,
            "Bearer resource_metadata=\"https://sieve.example.com/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\""
        );
        let refused = challenge(
            &identity(),
            Some(&Refusal::Invalid("the \"token\" has expired".into())),
        );
        assert!(
            refused
                .ends_with("error=\"invalid_token\", error_description=\"the token has expired\""),
            "{refused}"
        );
    }

    #[test]
    fn claims_choose_a_profile_or_say_why_not() {
        let claims = |v: Value| v.as_object().cloned().unwrap();
        let alice = person(
            &identity(),
            &claims(json!({"sub": "a1", "name": "Alice", "groups": ["engineering"], "scope": "openid mcp"})),
        )
        .expect("alice is let in");
        assert_eq!(
            alice,
            Person {
                subject: "a1".into(),
                name: Some("Alice".into()),
                profile: "eng".into()
            }
        );
        assert_eq!(alice.label(), "Alice (a1)");
        let no_scope = person(
            &identity(),
            &claims(json!({"sub": "a1", "groups": ["engineering"], "scope": "openid"})),
        );
        assert!(
            matches!(no_scope, Err(Refusal::Scope(ref m)) if m.contains("mcp")),
            "{no_scope:?}"
        );
        let unmapped = person(
            &identity(),
            &claims(json!({"sub": "b2", "groups": ["sales"], "scp": ["mcp"]})),
        );
        assert!(
            matches!(unmapped, Err(Refusal::NoProfile(ref m)) if m.contains("groups sales")),
            "{unmapped:?}"
        );
    }

    #[tokio::test]
    async fn a_token_that_is_no_jwt_or_uses_a_shared_secret_is_refused_before_any_fetch() {
        let verifier = Verifier::new();
        let refusal = verifier.verify(&identity(), "not-a-jwt").await.unwrap_err();
        assert!(matches!(refusal, Refusal::Invalid(_)), "{refusal:?}");
        let hs256 = jsonwebtoken::encode(
            &jsonwebtoken::Header::new(Algorithm::HS256),
            &json!({"sub": "x"}),
            &jsonwebtoken::EncodingKey::from_secret(b"shared"),
        )
        .unwrap();
        let refusal = verifier.verify(&identity(), &hs256).await.unwrap_err();
        assert!(
            matches!(refusal, Refusal::Invalid(ref m) if m.contains("HS256")),
            "{refusal:?}"
        );
    }
}
