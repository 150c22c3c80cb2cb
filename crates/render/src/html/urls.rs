//! Which URL may stay in which attribute. ammonia has already removed every scheme outside
//! `policy::URL_SCHEMES` (reading schemes as a browser does); this narrows what is left.

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};

use ammonia::Url;

/// The only `data:` images kept. No SVG (it can carry script), no HTML.
const DATA_IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Keeps, rewrites or drops (`None`) one `href`/`src` value.
pub(crate) fn filter<'v>(
    element: &str,
    attribute: &str,
    value: &'v str,
    allow_remote_images: bool,
    blocked: &AtomicUsize,
) -> Option<Cow<'v, str>> {
    let image_source = element == "img" && attribute == "src";
    let link = element == "a" && attribute == "href";
    if !image_source && !link {
        return None;
    }
    let trimmed = value.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
    if trimmed.starts_with("//") || trimmed.starts_with("\\\\") {
        // Scheme-relative: a remote image, or a link to wherever; both are dropped.
        if image_source && !allow_remote_images {
            blocked.fetch_add(1, Ordering::Relaxed);
        }
        return None;
    }
    let url = match Url::parse(value) {
        Ok(url) => url,
        // Relative (ammonia removes those too) or unparsable.
        Err(_) => return None,
    };
    let keep = match url.scheme() {
        "http" | "https" if image_source => {
            if !allow_remote_images {
                blocked.fetch_add(1, Ordering::Relaxed);
            }
            allow_remote_images
        }
        "http" | "https" | "mailto" | "tel" => link,
        "data" => image_source && is_allowed_data_image(url.path()),
        "artifact" => image_source,
        _ => false,
    };
    keep.then_some(Cow::Borrowed(value))
}

/// `path` is what follows `data:`, e.g. `image/png;base64,iVBOR…`.
fn is_allowed_data_image(path: &str) -> bool {
    let media_type = path
        .split([';', ','])
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    DATA_IMAGE_TYPES.contains(&media_type.as_str())
}
