//! `"oauth"` of an HTTP server: the client MCP Sieve signs in as, and how
//! its tokens are got.

use crate::secret_ref::SecretRefError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// `"oauth"` of an HTTP server: how MCP Sieve identifies itself when it
/// signs in (`mcp-sieve servers login NAME`) and the scopes to ask for. The
/// client is, in this order: the pre-registered one (`clientId`), the
/// Client ID Metadata Document at `clientMetadataUrl` where the server's
/// authorization server accepts those, else one registered dynamically.
/// Without scopes, those the server asks for. With `"grant":
/// "clientCredentials"` no person signs in: the client's own credentials
/// (`clientSecret`, or `privateKey` for a signed assertion) get the tokens,
/// as a service account does.
#[derive(Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OAuthClient {
    #[serde(default, skip_serializing_if = "Grant::is_authorization_code")]
    pub grant: Grant,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// A `${secret:NAME}` reference, like `env` and `headers` values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// The HTTPS address where a Client ID Metadata Document describing
    /// this MCP Sieve is published; it is then the client id itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_metadata_url: Option<String>,
    /// For `clientCredentials`: a `${secret:NAME}` reference to a PEM
    /// private key (RSA or EC, PKCS#8) that signs the client's assertion
    /// (`private_key_jwt`) instead of a client secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<String>,
    /// The signature algorithm for `privateKey`: RS256, RS384, RS512, ES256
    /// (the default) or ES384.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signing_algorithm: Option<String>,
}

/// How the tokens of an HTTP server are got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Grant {
    /// A person signs in through the browser (`servers login`).
    #[default]
    AuthorizationCode,
    /// The client's own credentials, with no person (machine to machine).
    ClientCredentials,
}

impl Grant {
    fn is_authorization_code(&self) -> bool {
        *self == Grant::AuthorizationCode
    }
}

/// The signature algorithms a `privateKey` may use.
pub const SIGNING_ALGORITHMS: [&str; 5] = ["RS256", "RS384", "RS512", "ES256", "ES384"];

impl OAuthClient {
    /// The fields that hold secrets, by their names in `config.json`
    /// (`servers secret NAME oauth.<name>` names them so too).
    pub fn secret_fields(&self) -> [(&'static str, Option<&String>); 2] {
        [
            ("clientSecret", self.client_secret.as_ref()),
            ("privateKey", self.private_key.as_ref()),
        ]
    }

    /// [`OAuthClient::secret_fields`], to change.
    pub fn secret_fields_mut(&mut self) -> [(&'static str, &mut Option<String>); 2] {
        [
            ("clientSecret", &mut self.client_secret),
            ("privateKey", &mut self.private_key),
        ]
    }

    /// The combinations that cannot work, each said with what to do.
    pub fn check(&self) -> Result<(), OAuthClientError> {
        for (field, value) in self.secret_fields() {
            if let Some(value) = value {
                crate::secret_ref::references(value)
                    .map_err(|error| OAuthClientError::SecretRef { field, error })?;
            }
        }
        if let Some(address) = &self.client_metadata_url {
            check_client_metadata_url(address)?;
        }
        if let Some(algorithm) = &self.signing_algorithm
            && !SIGNING_ALGORITHMS.contains(&algorithm.as_str())
        {
            return Err(OAuthClientError::UnknownAlgorithm {
                algorithm: algorithm.clone(),
            });
        }
        match self.grant {
            Grant::AuthorizationCode => {
                if self.private_key.is_some() || self.signing_algorithm.is_some() {
                    return Err(OAuthClientError::KeyWithoutGrant);
                }
            }
            Grant::ClientCredentials => {
                if self.client_id.is_none() {
                    return Err(OAuthClientError::NoClientId);
                }
                if self.client_secret.is_some() == self.private_key.is_some() {
                    return Err(OAuthClientError::SecretOrKey);
                }
                if self.signing_algorithm.is_some() && self.private_key.is_none() {
                    return Err(OAuthClientError::AlgorithmWithoutKey);
                }
            }
        }
        Ok(())
    }
}

/// An `"oauth"` section that cannot work, said with what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OAuthClientError {
    /// `clientSecret` or `privateKey` holds a `${secret:...}` that is not
    /// well formed.
    #[error("oauth \"{field}\": {error}")]
    SecretRef {
        field: &'static str,
        error: SecretRefError,
    },
    #[error("oauth \"clientMetadataUrl\" {0}")]
    MetadataUrl(#[from] ClientMetadataUrlError),
    #[error(
        "oauth \"signingAlgorithm\" {algorithm:?} is not one of {}",
        SIGNING_ALGORITHMS.join(", ")
    )]
    UnknownAlgorithm { algorithm: String },
    #[error(
        "oauth \"privateKey\" and \"signingAlgorithm\" are for \"grant\": \"clientCredentials\"; add that grant or remove them"
    )]
    KeyWithoutGrant,
    #[error(
        "oauth \"grant\": \"clientCredentials\" needs the \"clientId\" the authorization server gave this client"
    )]
    NoClientId,
    #[error(
        "oauth \"grant\": \"clientCredentials\" needs either a \"clientSecret\" or a \"privateKey\" (one of the two)"
    )]
    SecretOrKey,
    #[error("oauth \"signingAlgorithm\" is for a \"privateKey\"; remove it or give the key")]
    AlgorithmWithoutKey,
}

/// An address that cannot be a Client ID Metadata Document's (and so a
/// client id); the message starts with the address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientMetadataUrlError {
    /// It does not parse as a URL: the parser's reason.
    #[error("{url:?} is not a URL ({reason})")]
    NotUrl { url: String, reason: String },
    #[error("{url:?} must start with https://")]
    NotHttps { url: String },
    #[error("{url:?} needs a path to the document, like https://example.com/mcp-sieve.json")]
    NoPath { url: String },
    #[error("{url:?} must not have a #fragment")]
    Fragment { url: String },
    #[error("{url:?} must not hold a user name or password")]
    Credentials { url: String },
}

/// Checks that `url` can be a Client ID Metadata Document's address (and
/// so a client id): an `https` URL with a path, no fragment, no user
/// name or password. The error says what is wrong with it.
pub fn check_client_metadata_url(url: &str) -> Result<(), ClientMetadataUrlError> {
    let parsed = url::Url::parse(url).map_err(|e| ClientMetadataUrlError::NotUrl {
        url: url.to_string(),
        reason: e.to_string(),
    })?;
    let url = url.to_string();
    if parsed.scheme() != "https" {
        Err(ClientMetadataUrlError::NotHttps { url })
    } else if parsed.path().trim_matches('/').is_empty() {
        Err(ClientMetadataUrlError::NoPath { url })
    } else if parsed.fragment().is_some() {
        Err(ClientMetadataUrlError::Fragment { url })
    } else if !parsed.username().is_empty() || parsed.password().is_some() {
        Err(ClientMetadataUrlError::Credentials { url })
    } else {
        Ok(())
    }
}

// The client secret is a secret: Debug says whether there is one only.
impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthClient")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .field("scopes", &self.scopes)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("grant", &self.grant)
            .field("private_key", &self.private_key.as_ref().map(|_| "…"))
            .field("signing_algorithm", &self.signing_algorithm)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, Transport};

    #[test]
    fn an_http_server_may_name_its_oauth_client() {
        let text = r#"{"mcpServers": {"corp": {"type": "http", "url": "https://corp.test/mcp",
            "oauth": {"clientId": "sieve", "clientSecret": "${secret:corp-client}", "scopes": ["read"],
                      "clientMetadataUrl": "https://sieve.test/client.json"}}}}"#;
        let config = Config::parse("config.json", text).expect("valid");
        let Transport::Http { oauth, .. } = &config.mcp_servers["corp"].transport else {
            panic!("an HTTP server");
        };
        let oauth = oauth.as_ref().expect("its oauth is kept");
        assert_eq!(oauth.client_id.as_deref(), Some("sieve"));
        assert_eq!(oauth.scopes, vec!["read".to_string()]);
        assert_eq!(
            oauth.client_metadata_url.as_deref(),
            Some("https://sieve.test/client.json")
        );
        let debug = format!("{:?}", config.mcp_servers["corp"]);
        assert!(!debug.contains("corp-client"), "{debug}");
        let again = serde_json::to_string(&config).unwrap();
        assert_eq!(
            Config::parse("again", &again).unwrap(),
            config,
            "round trip"
        );

        for (text, says) in [
            (
                r#"{"mcpServers": {"a": {"command": "x", "oauth": {}}}}"#,
                "\"oauth\" is for HTTP servers",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"clientSecret": "${secret:x"}}}}"#,
                "oauth \"clientSecret\"",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"clientid": "x"}}}}"#,
                "clientid",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"clientMetadataUrl": "http://a.test/c.json"}}}}"#,
                "oauth \"clientMetadataUrl\" \"http://a.test/c.json\" must start with https://",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"clientMetadataUrl": "https://a.test/"}}}}"#,
                "needs a path to the document",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"grant": "clientCredentials", "clientSecret": "s"}}}}"#,
                "needs the \"clientId\"",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"grant": "clientCredentials", "clientId": "c"}}}}"#,
                "needs either a \"clientSecret\" or a \"privateKey\"",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"grant": "clientCredentials", "clientId": "c", "privateKey": "${secret:k}", "signingAlgorithm": "HS256"}}}}"#,
                "\"signingAlgorithm\" \"HS256\" is not one of RS256",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"privateKey": "${secret:k}"}}}}"#,
                "are for \"grant\": \"clientCredentials\"",
            ),
            (
                r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"grant": "password"}}}}"#,
                "grant",
            ),
        ] {
            let error = Config::parse("config.json", text).unwrap_err().to_string();
            assert!(error.contains(says), "{error}");
        }
    }

    #[test]
    fn a_service_account_signs_in_with_its_own_credentials() {
        let text = r#"{"mcpServers": {"corp": {"url": "https://corp.test/mcp",
            "oauth": {"grant": "clientCredentials", "clientId": "robot",
                      "privateKey": "${secret:robot-key}", "signingAlgorithm": "ES256"}}}}"#;
        let config = Config::parse("config.json", text).expect("valid");
        let Transport::Http { oauth, .. } = &config.mcp_servers["corp"].transport else {
            panic!("an HTTP server");
        };
        let oauth = oauth.as_ref().expect("its oauth is kept");
        assert_eq!(oauth.grant, Grant::ClientCredentials);
        let debug = format!("{:?}", config.mcp_servers["corp"]);
        assert!(!debug.contains("robot-key"), "{debug}");
        let again = serde_json::to_string(&config).unwrap();
        assert!(again.contains(r#""grant":"clientCredentials""#), "{again}");
        assert_eq!(Config::parse("again", &again).unwrap(), config);
        // A person's sign-in is the default and is not written out.
        let person = Config::parse(
            "config.json",
            r#"{"mcpServers": {"a": {"url": "https://a.test", "oauth": {"clientId": "c"}}}}"#,
        )
        .unwrap();
        assert!(!serde_json::to_string(&person).unwrap().contains("grant"));
    }
}
