//! Watching one resource for changes: on 2026-07-28 a `subscriptions/listen` stream whose filter
//! names the URI (`resourceSubscriptions`), before it `resources/subscribe` and the
//! `notifications/resources/updated` the server then sends. Either way the watcher gets the URI
//! each time the server says it changed; dropping it ends the stream (or sends
//! `resources/unsubscribe`).

use rmcp::model::{ServerNotification, SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams};
use tokio::sync::{broadcast, mpsc};

use crate::{connection::ServerConnection, error::ClientError};

/// A watched resource (see [`ServerConnection::watch_resource`]).
pub struct ResourceWatch {
    updates: mpsc::Receiver<()>,
    task: tokio::task::JoinHandle<()>,
    /// 2025 era: unsubscribes when dropped.
    unsubscribe: Option<(rmcp::Peer<rmcp::RoleClient>, String)>,
}

impl ResourceWatch {
    /// Waits for the next change; `None` when the connection or the stream ended. Changes that
    /// came while nobody waited are folded into one.
    pub async fn changed(&mut self) -> Option<()> {
        self.updates.recv().await?;
        while self.updates.try_recv().is_ok() {}
        Some(())
    }
}

impl Drop for ResourceWatch {
    fn drop(&mut self) {
        self.task.abort();
        if let Some((peer, uri)) = self.unsubscribe.take() {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                #[allow(deprecated)] // the 2025-11-25 way, which that era's servers need
                runtime.spawn(async move {
                    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), peer.unsubscribe(UnsubscribeRequestParams::new(uri))).await;
                });
            }
        }
    }
}

impl ServerConnection {
    /// Starts watching `uri`. Fails when the server does not offer resource subscriptions.
    pub async fn watch_resource(&self, uri: &str) -> Result<ResourceWatch, ClientError> {
        let info = self.peer.peer_info().ok_or_else(|| self.request_error("watching a resource", "the handshake has not finished".to_owned()))?;
        if info.capabilities.resources.as_ref().and_then(|r| r.subscribe) != Some(true) {
            return Err(self.request_error(&format!("watching `{uri}`"), "the server does not offer resource subscriptions (capabilities.resources.subscribe)".to_owned()));
        }
        let (tx, updates) = mpsc::channel(16);
        let what = format!("watching `{uri}`");
        if info.protocol_version.has_initialize() {
            // Subscribe only after listening, so no update between the two is missed.
            let mut heard = self.client.resource_updates.subscribe();
            let wanted = uri.to_owned();
            let peer = self.peer.clone();
            let task = tokio::spawn(async move {
                loop {
                    // The sender lives as long as the connection object; the connection itself
                    // may end first (the server exited): looked at once a second.
                    let heard = tokio::select! {
                        heard = heard.recv() => heard,
                        () = tokio::time::sleep(std::time::Duration::from_secs(1)) => {
                            if peer.is_transport_closed() {
                                return;
                            }
                            continue;
                        }
                    };
                    match heard {
                        Ok(uri) if uri == wanted => {
                            let _ = tx.try_send(());
                        }
                        Ok(_) => {}
                        Err(broadcast::error::RecvError::Lagged(_)) => {
                            let _ = tx.try_send(());
                        }
                        Err(broadcast::error::RecvError::Closed) => return,
                    }
                }
            });
            let watch = ResourceWatch { updates, task, unsubscribe: Some((self.peer.clone(), uri.to_owned())) };
            #[allow(deprecated)] // the 2025-11-25 way, which that era's servers need
            self.peer.subscribe(SubscribeRequestParams::new(uri)).await.map_err(|e| self.service_error(&what, &e))?;
            return Ok(watch);
        }
        let filter = SubscriptionFilter::builder().resource_subscription(uri).build();
        let mut subscription = self.peer.listen(filter).await.map_err(|e| self.service_error(&what, &e))?;
        if !subscription.acknowledged().resource_subscriptions.as_ref().is_some_and(|uris| uris.iter().any(|u| u == uri)) {
            return Err(self.request_error(&what, "the server did not accept a subscription to it".to_owned()));
        }
        let wanted = uri.to_owned();
        let task = tokio::spawn(async move {
            while let Ok(Some(notification)) = subscription.next().await {
                if let ServerNotification::ResourceUpdatedNotification(updated) = notification {
                    if updated.params.uri == wanted {
                        let _ = tx.try_send(());
                    }
                }
            }
        });
        Ok(ResourceWatch { updates, task, unsubscribe: None })
    }
}
