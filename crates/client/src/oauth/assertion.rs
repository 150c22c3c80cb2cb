//! `private_key_jwt` (RFC 7523 §2.2, SEP-1046): the JWT a client proves itself with at a token
//! endpoint — `iss` and `sub` its client ID, `aud` the authorization server's issuer, a short
//! life and a fresh `jti` — signed with its private key (PEM, EC or RSA).

use jsonwebtoken::{Algorithm, EncodingKey, Header};

/// The assertion for `client_id` at the authorization server `audience`, signed with `pem`.
/// The error never holds the key.
pub fn client_assertion(client_id: &str, audience: &str, pem: &str, algorithm: &str) -> Result<String, String> {
    let algorithm = match algorithm {
        "ES256" => Algorithm::ES256,
        "ES384" => Algorithm::ES384,
        "RS256" => Algorithm::RS256,
        "RS384" => Algorithm::RS384,
        "RS512" => Algorithm::RS512,
        other => return Err(format!("`oauth.signing_algorithm` `{other}` is not one of ES256, ES384, RS256, RS384, RS512")),
    };
    let key = match algorithm {
        Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(pem.as_bytes()),
        _ => EncodingKey::from_rsa_pem(pem.as_bytes()),
    }
    .map_err(|e| format!("the client's private key is not a usable {algorithm:?} key ({e}); check `oauth.signing_algorithm` and the key"))?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
    let mut jti = [0u8; 16];
    aws_lc_rs::rand::fill(&mut jti).map_err(|_| "no randomness for a client assertion".to_owned())?;
    let jti: String = jti.iter().map(|b| format!("{b:02x}")).collect();
    let claims = serde_json::json!({ "iss": client_id, "sub": client_id, "aud": audience, "iat": now, "exp": now + 300, "jti": jti });
    jsonwebtoken::encode(&Header::new(algorithm), &claims, &key).map_err(|e| format!("cannot sign the client assertion: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_lc_rs::signature::{EcdsaKeyPair, KeyPair as _, UnparsedPublicKey, ECDSA_P256_SHA256_FIXED, ECDSA_P256_SHA256_FIXED_SIGNING};
    use base64::{engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD}, Engine as _};

    #[test]
    fn the_assertion_names_the_client_and_the_issuer_and_verifies_with_the_public_key() {
        let pair = EcdsaKeyPair::generate(&ECDSA_P256_SHA256_FIXED_SIGNING).unwrap();
        let der = pair.to_pkcs8v1().unwrap();
        let pem = format!("-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n", STANDARD.encode(der.as_ref()));
        let jwt = client_assertion("client-1", "https://as.example", &pem, "ES256").unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        let header: serde_json::Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
        let claims: serde_json::Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(header["alg"], "ES256");
        assert_eq!((claims["iss"].as_str(), claims["sub"].as_str(), claims["aud"].as_str()), (Some("client-1"), Some("client-1"), Some("https://as.example")));
        assert_eq!(claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap(), 300);
        assert_eq!(claims["jti"].as_str().unwrap().len(), 32);
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, pair.public_key().as_ref()).verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature).expect("verifies with the client's public key");
        let again = client_assertion("client-1", "https://as.example", &pem, "ES256").unwrap();
        assert_ne!(jwt, again, "a fresh jti each time");
    }

    #[test]
    fn a_wrong_key_or_algorithm_is_named_without_the_key() {
        let err = client_assertion("c", "a", "-----BEGIN PRIVATE KEY-----\nSECRETBYTES\n-----END PRIVATE KEY-----\n", "ES256").unwrap_err();
        assert!(err.contains("not a usable") && !err.contains("SECRETBYTES"), "{err}");
        assert!(client_assertion("c", "a", "", "HS256").unwrap_err().contains("`oauth.signing_algorithm`"));
    }
}
