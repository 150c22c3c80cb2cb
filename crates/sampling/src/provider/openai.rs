//! TODO(provider helper): openai wire format.

use super::{BoxFuture, Completion, Http, Provider, ProviderConfig, ProviderError, ProviderRequest};

/// The openai provider.
pub struct OpenAi {
    pub(super) config: ProviderConfig,
    pub(super) http: Http,
}

impl Provider for OpenAi {
    fn config(&self) -> &ProviderConfig {
        &self.config
    }

    fn complete<'a>(&'a self, _request: ProviderRequest<'a>) -> BoxFuture<'a, Result<Completion, ProviderError>> {
        Box::pin(async move { Err(self.http.unsupported("not written yet")) })
    }
}
