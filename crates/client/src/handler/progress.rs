//! Progress routing: `notifications/progress` to the call whose progress token it carries.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use rmcp::model::{ProgressNotificationParam, ProgressToken};

/// Progress a server reported for a call (`notifications/progress`).
#[derive(Debug, Clone, PartialEq)]
pub struct CallProgress {
    /// How far it is; grows with each report.
    pub progress: f64,
    /// Where it ends, when the server knows.
    pub total: Option<f64>,
    /// What it is doing.
    pub message: Option<String>,
}

/// Receives a call's progress reports (called from the connection's task; keep it quick).
pub type ProgressFn = Arc<dyn Fn(&CallProgress) + Send + Sync>;

/// In-flight calls that want progress, by the progress token rmcp put on their request, with
/// the progress last passed on.
#[derive(Default)]
pub struct ProgressRoutes(Mutex<HashMap<ProgressToken, (ProgressFn, f64)>>);

/// Removes its route when dropped.
pub struct ProgressRoute {
    routes: Arc<ProgressRoutes>,
    token: ProgressToken,
}

impl ProgressRoutes {
    /// Sends progress for `token` to `to` until the returned route drops.
    pub fn route(self: &Arc<Self>, token: ProgressToken, to: ProgressFn) -> ProgressRoute {
        self.0.lock().unwrap().insert(token.clone(), (to, f64::NEG_INFINITY));
        ProgressRoute { routes: self.clone(), token }
    }

    /// Passes a report on to its call. Notifications are handled concurrently, so one may
    /// overtake another; progress only ever grows (MCP requires it), so an older one is dropped.
    pub(crate) fn deliver(&self, params: ProgressNotificationParam) {
        let to = {
            let mut routes = self.0.lock().unwrap();
            let Some((to, last)) = routes.get_mut(&params.progress_token) else {
                tracing::debug!(token = ?params.progress_token, "progress for no call in flight");
                return;
            };
            if params.progress <= *last {
                return;
            }
            *last = params.progress;
            to.clone()
        };
        to(&CallProgress { progress: params.progress, total: params.total, message: params.message });
    }
}

impl Drop for ProgressRoute {
    fn drop(&mut self) {
        self.routes.0.lock().unwrap().remove(&self.token);
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    #[test]
    fn progress_reaches_only_its_call_and_stops_when_the_route_is_dropped() {
        let routes = Arc::new(ProgressRoutes::default());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let token = ProgressToken(NumberOrString::Number(7));
        let route = routes.route(token.clone(), Arc::new(move |p: &CallProgress| sink.lock().unwrap().push(p.clone())));
        routes.deliver(ProgressNotificationParam::new(token.clone(), 1.0).with_total(4.0).with_message("step 1"));
        routes.deliver(ProgressNotificationParam::new(ProgressToken(NumberOrString::Number(8)), 1.0));
        routes.deliver(ProgressNotificationParam::new(token.clone(), 0.5).with_message("overtaken"));
        drop(route);
        routes.deliver(ProgressNotificationParam::new(token, 2.0));
        let seen = seen.lock().unwrap();
        assert_eq!(*seen, vec![CallProgress { progress: 1.0, total: Some(4.0), message: Some("step 1".into()) }]);
    }
}
