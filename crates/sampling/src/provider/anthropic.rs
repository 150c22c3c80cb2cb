//! TODO(provider helper): anthropic wire format.

use super::{BoxFuture, Completion, Http, Provider, ProviderConfig, ProviderError, ProviderRequest};

/// The anthropic provider.
pub struct Anthropic {
    pub(super) config: ProviderConfig,
    pub(super) http: Http,
}

impl Provider for Anthropic {
    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn complete<'a>(&'a self, _request: ProviderRequest<'a>) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(async move { Err(self.http.unsupported("not written yet")) })
    }
}
