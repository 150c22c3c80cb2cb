//! DPoP (RFC 9449, SEP-1932): sender-constrained tokens. Each server with `oauth.dpop` has a
//! P-256 key of its own (kept with its tokens, in the OS keyring or the 0600 file); every token
//! request and every MCP request carries a fresh proof signed with it (`htm`, `htu`, `iat`, a
//! unique `jti`, and on MCP requests `ath`, the hash of the access token), and the token goes
//! as `Authorization: DPoP <token>`.
//!
//! A server may demand a nonce of its own (`use_dpop_nonce` with a `DPoP-Nonce` header): the
//! request is made once more with it, once — a server whose nonce is stale again at once gets a
//! clear error, never a loop. Nonces are kept per origin (the authorization server's and the
//! MCP server's are different) and replaced by any newer one a server sends.

use std::{collections::HashMap, sync::Mutex};

use aws_lc_rs::{
    rand::{SecureRandom as _, SystemRandom},
    signature::{EcdsaKeyPair, KeyPair as _, ECDSA_P256_SHA256_FIXED_SIGNING},
};
use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine as _};
use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};

/// The header a proof goes in, and the one a server's nonce comes in.
pub const DPOP_HEADER: &str = "dpop";
/// The header carrying a server's nonce.
pub const NONCE_HEADER: &str = "dpop-nonce";

/// A server's DPoP key (ES256).
pub struct DpopKey {
    pair: EcdsaKeyPair,
    pkcs8: Vec<u8>,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey").field("thumbprint", &self.thumbprint()).finish_non_exhaustive()
    }
}

/// The key could not be made or read.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DpopError(pub String);

impl DpopKey {
    /// A new random key.
    pub fn generate() -> Result<Self, DpopError> {
        let pair = EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).map_err(|_| DpopError("cannot make a DPoP key".into()))?;
        let pkcs8 = pair.to_pkcs8v1().map_err(|_| DpopError("cannot encode the DPoP key".into()))?.as_ref().to_vec();
        Ok(Self { pair, pkcs8 })
    }

    /// The key kept as PKCS#8 DER.
    pub fn from_pkcs8(pkcs8: &[u8]) -> Result<Self, DpopError> {
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8).map_err(|_| DpopError("the stored DPoP key is not a P-256 key; sign out and in again".into()))?;
        Ok(Self { pair, pkcs8: pkcs8.to_vec() })
    }

    /// PKCS#8 DER, for keeping.
    pub fn pkcs8(&self) -> &[u8] {
        &self.pkcs8
    }

    /// The public key as a JWK (`kty`, `crv`, `x`, `y`; never the private part).
    pub fn public_jwk(&self) -> Value {
        // An uncompressed point: 0x04 || x || y.
        let point = self.pair.public_key().as_ref();
        json!({ "kty": "EC", "crv": "P-256", "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..65]) })
    }

    /// The RFC 7638 thumbprint (`cnf.jkt` of the tokens bound to this key).
    pub fn thumbprint(&self) -> String {
        let jwk = self.public_jwk();
        // The required members in lexicographic order, no whitespace.
        let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#, jwk["x"].as_str().unwrap_or_default(), jwk["y"].as_str().unwrap_or_default());
        URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
    }

    /// A fresh proof for one request: `method` to `uri` (its query and fragment are left out of
    /// `htu`), with `ath` when an access token goes with it and the server's `nonce` when it
    /// gave one.
    pub fn proof(&self, method: &str, uri: &str, access_token: Option<&str>, nonce: Option<&str>) -> Result<String, DpopError> {
        let mut jti = [0u8; 16];
        SystemRandom::new().fill(&mut jti).map_err(|_| DpopError("no randomness for a DPoP proof".into()))?;
        let iat = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
        let mut claims = json!({ "jti": URL_SAFE_NO_PAD.encode(jti), "htm": method, "htu": htu(uri), "iat": iat });
        if let Some(token) = access_token {
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes())));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let header = json!({ "typ": "dpop+jwt", "alg": "ES256", "jwk": self.public_jwk() });
        let signing_input = format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
        let signature = self.pair.sign(&SystemRandom::new(), signing_input.as_bytes()).map_err(|_| DpopError("cannot sign a DPoP proof".into()))?;
        Ok(format!("{signing_input}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref())))
    }
}

/// `htu`: the request URI without its query and fragment.
fn htu(uri: &str) -> String {
    match url::Url::parse(uri) {
        Ok(mut url) => {
            url.set_query(None);
            url.set_fragment(None);
            url.to_string()
        }
        Err(_) => uri.split(['?', '#']).next().unwrap_or(uri).to_owned(),
    }
}

/// The nonces servers gave, by origin.
#[derive(Debug, Default)]
pub struct Nonces(Mutex<HashMap<String, String>>);

impl Nonces {
    /// The nonce `uri`'s server last gave.
    pub fn get(&self, uri: &str) -> Option<String> {
        self.0.lock().unwrap().get(&origin(uri)).cloned()
    }

    /// Keeps the nonce a response from `uri` carried, if any; whether it was a new one.
    pub fn keep(&self, uri: &str, headers: &http::HeaderMap) -> bool {
        let Some(nonce) = headers.get(NONCE_HEADER).and_then(|v| v.to_str().ok()).map(str::to_owned) else { return false };
        self.0.lock().unwrap().insert(origin(uri), nonce.clone()).as_deref() != Some(nonce.as_str())
    }
}

fn origin(uri: &str) -> String {
    url::Url::parse(uri).map(|u| u.origin().ascii_serialization()).unwrap_or_else(|_| uri.to_owned())
}

/// Whether a challenge (`WWW-Authenticate`) or a token endpoint's error body asks for a nonce.
pub fn wants_nonce(text: &str) -> bool {
    text.contains("use_dpop_nonce")
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_lc_rs::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};

    fn decode(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn a_proof_has_the_claims_and_verifies_with_the_public_key_in_its_header() {
        let key = DpopKey::generate().unwrap();
        let proof = key.proof("POST", "https://mcp.example/mcp?x=1#f", Some("the-token"), Some("n-1")).unwrap();
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let (header, claims) = (decode(parts[0]), decode(parts[1]));
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(header["jwk"].get("d").is_none(), "never the private key: {header}");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example/mcp", "no query or fragment");
        assert_eq!(claims["nonce"], "n-1");
        assert_eq!(claims["ath"], URL_SAFE_NO_PAD.encode(Sha256::digest(b"the-token")));
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        assert!(claims["iat"].as_u64().unwrap().abs_diff(now) < 60);
        // The signature verifies with the key in the header (x, y → an uncompressed point).
        let x = URL_SAFE_NO_PAD.decode(header["jwk"]["x"].as_str().unwrap()).unwrap();
        let y = URL_SAFE_NO_PAD.decode(header["jwk"]["y"].as_str().unwrap()).unwrap();
        let point: Vec<u8> = [vec![4u8], x, y].concat();
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point).verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature).expect("the proof verifies");
        // A changed claim does not.
        let forged = format!("{}.{}", parts[0], URL_SAFE_NO_PAD.encode(json!({"htm": "GET"}).to_string()));
        assert!(UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point).verify(forged.as_bytes(), &signature).is_err());
    }

    #[test]
    fn every_proof_is_fresh_and_a_token_request_has_no_ath() {
        let key = DpopKey::generate().unwrap();
        let a = decode(key.proof("POST", "https://as.example/token", None, None).unwrap().split('.').nth(1).unwrap());
        let b = decode(key.proof("POST", "https://as.example/token", None, None).unwrap().split('.').nth(1).unwrap());
        assert_ne!(a["jti"], b["jti"]);
        assert!(a.get("ath").is_none() && a.get("nonce").is_none(), "{a}");
    }

    #[test]
    fn the_key_survives_keeping_and_its_thumbprint_is_rfc_7638() {
        let key = DpopKey::generate().unwrap();
        let again = DpopKey::from_pkcs8(key.pkcs8()).unwrap();
        assert_eq!(key.public_jwk(), again.public_jwk());
        assert_eq!(key.thumbprint(), again.thumbprint());
        assert_eq!(key.thumbprint().len(), 43, "a base64url SHA-256");
        assert!(DpopKey::from_pkcs8(b"not a key").unwrap_err().to_string().contains("sign out and in again"));
    }

    #[test]
    fn nonces_are_kept_per_origin() {
        let nonces = Nonces::default();
        let mut headers = http::HeaderMap::new();
        headers.insert(NONCE_HEADER, "n1".parse().unwrap());
        assert!(nonces.keep("http://127.0.0.1:1/token", &headers));
        assert!(!nonces.keep("http://127.0.0.1:1/other", &headers), "the same nonce is not new");
        assert_eq!(nonces.get("http://127.0.0.1:1/mcp").as_deref(), Some("n1"));
        assert_eq!(nonces.get("http://127.0.0.1:2/mcp"), None);
    }
}
