//! Identities without accounts: shareable table ids and secret player tokens.
//!
//! A player token is a random secret the client keeps (in the browser's storage) and
//! presents on every connection. The server never stores, logs or broadcasts the token
//! itself: it keeps only the token's SHA-256, the [`PlayerKey`].
//!
//! Tokens are issued by the server ([`TokenIssuer`]): 16 random bytes and the first 16
//! bytes of their HMAC-SHA256 under the server's secret (kept in PostgreSQL, shared by
//! every server of a deployment), base64url. The server accepts only tokens it issued, so
//! a careless client cannot make its seat guessable by choosing its own token.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use rand::Rng;
use rand::distr::Alphanumeric;
use sha2::{Digest, Sha256};

/// Length of a table id: 8 characters of [A-Za-z0-9], 62^8 ≈ 2.2·10^14 ids (lichess's length).
pub const TABLE_ID_LEN: usize = 8;

/// A fresh random table id, drawn from the operating system's CSPRNG-seeded thread RNG.
pub fn new_table_id() -> String {
    rand::rng()
        .sample_iter(&Alphanumeric)
        .take(TABLE_ID_LEN)
        .map(char::from)
        .collect()
}

/// Is `id` shaped like a table id? (Cheap check before any lookup.)
///
/// ```
/// use spelbord::identity::{is_table_id, new_table_id};
/// assert!(is_table_id(&new_table_id()));
/// assert!(!is_table_id("../etc"));
/// ```
pub fn is_table_id(id: &str) -> bool {
    id.len() == TABLE_ID_LEN && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Issues player tokens and recognises the ones it issued. Cheap to copy.
#[derive(Clone, Copy)]
pub struct TokenIssuer {
    /// HMAC-SHA256's block size: any secret that long is a key as it is.
    secret: [u8; SECRET_LEN],
}

/// The length of the server's token secret, in bytes.
pub const SECRET_LEN: usize = 64;

/// Random bytes and signature bytes in a token.
const NONCE_LEN: usize = 16;
const TAG_LEN: usize = 16;

impl TokenIssuer {
    /// An issuer with `secret` (the server's, from the database).
    pub fn new(secret: [u8; SECRET_LEN]) -> TokenIssuer {
        TokenIssuer { secret }
    }

    /// An issuer with a fresh random secret (tests; its tokens do not outlive it).
    pub fn random() -> TokenIssuer {
        TokenIssuer::new(rand::rng().random())
    }

    fn tag(&self, nonce: &[u8]) -> [u8; TAG_LEN] {
        let mut mac = <Hmac<Sha256> as KeyInit>::new(&self.secret.into());
        mac.update(nonce);
        let full = mac.finalize().into_bytes();
        let mut tag = [0; TAG_LEN];
        tag.copy_from_slice(&full[..TAG_LEN]);
        tag
    }

    /// A new token: 16 random bytes and their signature, base64url (43 characters).
    pub fn issue(&self) -> PlayerToken {
        let nonce: [u8; NONCE_LEN] = rand::rng().random();
        let mut bytes = [0; NONCE_LEN + TAG_LEN];
        bytes[..NONCE_LEN].copy_from_slice(&nonce);
        bytes[NONCE_LEN..].copy_from_slice(&self.tag(&nonce));
        PlayerToken(URL_SAFE_NO_PAD.encode(bytes))
    }

    /// Whether this server issued `token`.
    pub fn issued(&self, token: &PlayerToken) -> bool {
        let Ok(bytes) = URL_SAFE_NO_PAD.decode(&token.0) else {
            return false;
        };
        if bytes.len() != NONCE_LEN + TAG_LEN {
            return false;
        }
        let (nonce, tag) = bytes.split_at(NONCE_LEN);
        // Constant-time comparison of the tags.
        let expected = self.tag(nonce);
        expected.iter().zip(tag).fold(0u8, |diff, (a, b)| diff | (a ^ b)) == 0
    }
}

impl fmt::Debug for TokenIssuer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TokenIssuer(…)")
    }
}

/// A player's secret. `Debug` does not print it.
#[derive(Clone, PartialEq, Eq)]
pub struct PlayerToken(String);

/// Shortest and longest token the server accepts from a client.
const TOKEN_MIN: usize = 16;
const TOKEN_MAX: usize = 128;

/// A token that cannot be a player token.
#[derive(Debug, Clone, thiserror::Error)]
#[error("a player token is 16 to 128 characters of A-Z, a-z, 0-9, '-' and '_'")]
pub struct BadToken;

impl PlayerToken {
    /// A new random token: 32 random bytes, base64url (43 characters).
    pub fn generate() -> PlayerToken {
        let bytes: [u8; 32] = rand::rng().random();
        PlayerToken(URL_SAFE_NO_PAD.encode(bytes))
    }

    /// Accepts a client's token if it is well formed.
    pub fn parse(token: &str) -> Result<PlayerToken, BadToken> {
        let well_formed = (TOKEN_MIN..=TOKEN_MAX).contains(&token.len())
            && token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if well_formed {
            Ok(PlayerToken(token.to_owned()))
        } else {
            Err(BadToken)
        }
    }

    /// The secret itself, for the one message that returns it to its owner.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn key(&self) -> PlayerKey {
        PlayerKey(Sha256::digest(self.0.as_bytes()).into())
    }
}

impl fmt::Debug for PlayerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PlayerToken(<secret>)")
    }
}

/// The SHA-256 of a player token: what the server keeps to recognise a player.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlayerKey([u8; 32]);

impl PlayerKey {
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// A key as stored; `None` unless it is 32 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Option<PlayerKey> {
        bytes.try_into().ok().map(PlayerKey)
    }

    /// The key as 64 lowercase hexadecimal digits (how the admin API names players).
    pub fn to_hex(&self) -> String {
        hex_of(&self.0)
    }

    /// A key from 64 hexadecimal digits (either case); `None` for anything else.
    pub fn from_hex(text: &str) -> Option<PlayerKey> {
        // Digits only: `from_str_radix` alone would take a sign.
        if text.len() != 64 || !text.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return None;
        }
        let mut key = [0u8; 32];
        for (byte, pair) in key.iter_mut().zip(text.as_bytes().chunks(2)) {
            let pair = std::str::from_utf8(pair).ok()?;
            *byte = u8::from_str_radix(pair, 16).ok()?;
        }
        Some(PlayerKey(key))
    }
}

/// Bytes as lowercase hexadecimal digits.
pub fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

impl fmt::Debug for PlayerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PlayerKey({:02x}{:02x}{:02x}{:02x}…)",
            self.0[0], self.0[1], self.0[2], self.0[3]
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_back_from_their_hex() {
        let key = PlayerToken::generate().key();
        let hex = key.to_hex();
        assert_eq!(hex.len(), 64);
        assert_eq!(PlayerKey::from_hex(&hex), Some(key));
        assert_eq!(PlayerKey::from_hex(&hex.to_uppercase()), Some(key));
        for bad in [
            "",
            "00",
            &hex[..63],
            &format!("{}zz", &hex[..62]),
            &format!("+{}", &hex[1..]),
        ] {
            assert_eq!(PlayerKey::from_hex(bad), None, "{bad}");
        }
        assert_eq!(PlayerKey::from_hex(&"é".repeat(32)), None);
    }

    #[test]
    fn table_ids_are_short_and_url_safe() {
        for _ in 0..100 {
            let id = new_table_id();
            assert!(is_table_id(&id), "{id}");
        }
        assert!(!is_table_id("abc"));
        assert!(!is_table_id("abcd/fgh"));
    }

    #[test]
    fn generated_tokens_parse_and_differ() {
        let a = PlayerToken::generate();
        let b = PlayerToken::generate();
        assert_ne!(a, b);
        assert_eq!(PlayerToken::parse(a.expose()).map(|t| t.key()).ok(), Some(a.key()));
    }

    #[test]
    fn only_issued_tokens_are_recognised() {
        let issuer = TokenIssuer::random();
        let token = issuer.issue();
        assert_eq!(token.expose().len(), 43);
        assert!(issuer.issued(&token));
        assert!(issuer.issued(&PlayerToken::parse(token.expose()).unwrap()));
        // Another server's token, a chosen one, a random one: not ours.
        assert!(!TokenIssuer::random().issued(&token));
        assert!(!issuer.issued(&PlayerToken::parse("aaaaaaaaaaaaaaaa").unwrap()));
        assert!(!issuer.issued(&PlayerToken::generate()));
        // One character changed breaks the signature.
        let mut forged = token.expose().to_owned();
        let last = if forged.ends_with('A') { "B" } else { "A" };
        forged.replace_range(42.., last);
        assert!(!issuer.issued(&PlayerToken::parse(&forged).unwrap()));
    }

    #[test]
    fn malformed_tokens_are_refused() {
        assert!(PlayerToken::parse("short").is_err());
        assert!(PlayerToken::parse(&"a".repeat(129)).is_err());
        assert!(PlayerToken::parse("has spaces in it, sixteen+").is_err());
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let token = PlayerToken::generate();
        assert!(!format!("{token:?}").contains(token.expose()));
    }
}
