//! TODO(provider helper): ollama wire format.

use super::{BoxFuture, Completion, Http, Provider, ProviderConfig, ProviderError, ProviderRequest};

/// The ollama provider.
pub struct Ollama {
    pub(super) config: ProviderConfig,
    pub(super) http: Http,
}

impl Provider for Ollama {
    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn complete<'a>(&'a self, _request: ProviderRequest<'a>) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(async move { Err(self.http.unsupported("not written yet")) })
    }
}
