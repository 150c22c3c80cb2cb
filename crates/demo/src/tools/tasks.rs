//! A tool that runs as a task (the `io.modelcontextprotocol/tasks` extension, SEP-2663) for a
//! client that declares the extension: `research_report` answers at once with a task, works
//! through its steps in the background (a status message per step), may ask the user which focus
//! to take (`input_required`, answered with `tasks/update`), stops when `tasks/cancel` arrives,
//! and ends with a short markdown report. rmcp's `TaskManager` keeps the tasks.
//!
//! Also `announce_tools_changed`: tells clients the tool list changed, through their
//! `subscriptions/listen` stream (2026-07-28) or as a plain notification (before).

use std::time::Duration;

use rmcp::{
    model::{CallToolResponse, CallToolResult, ContentBlock, CreateTaskResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, InputRequest, JsonObject},
    schemars,
    service::RequestContext,
    task_manager::{TaskContext, TaskExit, TaskOptions},
    tool, tool_router, ErrorData, RoleServer,
};
use serde::Deserialize;

use super::{
    arguments::{parse as parse_args, schema},
    DemoServer,
};

/// How long one step takes.
const STEP: Duration = Duration::from_millis(400);

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResearchArgs {
    /// What the report is about.
    #[schemars(length(min = 1, max = 200))]
    pub topic: String,
    /// How many steps the work takes (1–50; 0.4 s each).
    #[serde(default = "default_steps")]
    #[schemars(range(min = 1, max = 50))]
    pub steps: u32,
    /// Ask the user for the report's focus halfway through.
    #[serde(default)]
    pub ask: bool,
}

fn default_steps() -> u32 {
    4
}

fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

#[tool_router(router = task_router, vis = "pub(super)")]
impl DemoServer {
    #[tool(
        name = "research_report",
        title = "Write a report (runs as a task)",
        description = "Writes a short report on a topic, as a task: it answers at once with a task \
            the client follows (status messages per step, cancellable), optionally asks the user \
            for the report's focus halfway, and ends with a markdown report. Needs a client that \
            declares the tasks extension (io.modelcontextprotocol/tasks).",
        input_schema = schema::<ResearchArgs>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn research_report(&self, arguments: JsonObject, context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let args: ResearchArgs = match parse_args(arguments) {
            Ok(args) => args,
            Err(error) => return Ok(error.into()),
        };
        if !context.client_capabilities().is_some_and(|c| c.supports_tasks()) {
            let mut refused = text("`research_report` runs only as a task: this client did not declare the tasks extension (io.modelcontextprotocol/tasks).");
            refused.is_error = Some(true);
            return Ok(refused.into());
        }
        let options = TaskOptions::new().with_poll_interval_ms(200).with_status_message(format!("Starting research on {}", args.topic));
        let task = self.tasks.spawn(options, move |task| Box::pin(research(task, args)));
        Ok(CreateTaskResult::new(task).into())
    }

    #[tool(
        name = "announce_tools_changed",
        description = "Sends notifications/tools/list_changed (the list itself stays the same), so a \
            client's list-change handling can be tried: through subscriptions/listen on 2026-07-28, \
            as a plain notification on older protocol versions. Says how many it reached.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn announce_tools_changed(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        if !super::interactive::uses_input_required(&context) {
            let _ = context.peer.notify_tool_list_changed().await;
            return Ok(text("Sent notifications/tools/list_changed to this client."));
        }
        let sinks: Vec<_> = std::mem::take(&mut *self.listeners.lock().unwrap());
        let mut open = Vec::new();
        for sink in sinks {
            // A subscription that is closed goes.
            if sink.notify_tool_list_changed().await.is_ok() {
                open.push(sink);
            }
        }
        let reached = open.len();
        self.listeners.lock().unwrap().extend(open);
        Ok(text(format!("Sent notifications/tools/list_changed to {reached} subscription(s).")))
    }
}

async fn research(task: TaskContext, args: ResearchArgs) -> Result<CallToolResult, TaskExit> {
    let mut focus = None;
    for step in 1..=args.steps {
        task.set_status_message(format!("Step {step} of {}: reading about {}", args.steps, args.topic));
        tokio::select! {
            () = tokio::time::sleep(STEP) => {}
            () = task.cancelled() => return Err(TaskExit::Cancelled),
        }
        if args.ask && focus.is_none() && step * 2 >= args.steps {
            focus = Some(ask_focus(&task, &args.topic).await?);
        }
    }
    let focus = focus.flatten().map(|f| format!(", focused on {f}")).unwrap_or_default();
    Ok(text(format!("# Report: {}\n\n{} steps of research{focus}. Findings: the topic is well documented.", args.topic, args.steps)))
}

/// The user's answer (`None` when they declined or cancelled the form).
async fn ask_focus(task: &TaskContext, topic: &str) -> Result<Option<String>, TaskExit> {
    let schema = ElicitationSchema::builder()
        .required_string_property("focus", |s| s.title("Focus").description("What the report should concentrate on").max_length(100))
        .build()
        .map_err(|e| TaskExit::Error(ErrorData::internal_error(e.to_string(), None)))?;
    let params = ElicitRequestParams::FormElicitationParams { meta: None, message: format!("What should the report on {topic} focus on?"), requested_schema: schema };
    let answer = task.request_input("focus", InputRequest::Elicitation(ElicitRequest::new(params))).await?;
    let answer: ElicitResult = serde_json::from_value(answer).map_err(|e| TaskExit::Error(ErrorData::invalid_params(format!("the answer to `focus` is not an elicitation result: {e}"), None)))?;
    Ok(match answer.action {
        ElicitationAction::Accept => answer.content.and_then(|c| c.get("focus").and_then(|f| f.as_str()).map(str::to_owned)),
        _ => None,
    })
}
