//! Keeping the store within its quota and age limit, off the call path.
//!
//! A call that stored artifacts asks for a run ([`Housekeeping::after_store`]); runs are
//! coalesced (at most one running and one waiting, however many calls finish meanwhile) and
//! happen on a blocking thread. A run evicts by the catalog and deletes only the evicted blobs;
//! walking the whole blob directory (`ArtifactStore::gc`) is left to the app's start and
//! `mcp-canvas-cli artifacts gc`. [`Housekeeping::flush`] waits for a pending run (the CLI's
//! one-shot commands call it through `Host::shutdown`).

use std::sync::{
    atomic::{AtomicBool, Ordering},
    Arc, Mutex, RwLock,
};

use mcp_canvas_store::ArtifactStore;

use crate::settings::Settings;

pub(crate) struct Housekeeping {
    store: Arc<ArtifactStore>,
    settings: Arc<RwLock<Arc<Settings>>>,
    /// A run is scheduled and has not started yet.
    scheduled: Arc<AtomicBool>,
    last: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Housekeeping {
    pub fn new(store: Arc<ArtifactStore>, settings: Arc<RwLock<Arc<Settings>>>) -> Self {
        Self { store, settings, scheduled: Arc::default(), last: Mutex::new(None) }
    }

    /// Artifacts were stored: apply the limits soon, in the background.
    pub fn after_store(&self) {
        if self.scheduled.swap(true, Ordering::SeqCst) {
            return;
        }
        let (store, settings, scheduled) = (self.store.clone(), self.settings.clone(), self.scheduled.clone());
        let run = move || {
            scheduled.store(false, Ordering::SeqCst);
            let limits = settings.read().unwrap().artifacts.clone();
            if let Err(e) = store.enforce(&limits, crate::host::Host::now_ms()) {
                tracing::warn!("applying the artifact quota failed: {e}");
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let handle = runtime.spawn_blocking(run);
                let previous = self.last.lock().unwrap().replace(handle);
                // A run still going keeps going; only the newest is awaited by `flush`.
                drop(previous);
            }
            Err(_) => run(),
        }
    }

    /// Waits for the newest run to finish.
    pub async fn flush(&self) {
        let last = self.last.lock().unwrap().take();
        if let Some(last) = last {
            let _ = last.await;
        }
    }
}
