//! The demo server's prompts and argument completion: `describe_chart` (text and the chart
//! itself as an image), `read_the_guide` (the guide as an embedded resource), and suggestions
//! for their arguments and for the `demo://chart/{values}` template's `values`.

use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage, Reference, Role,
};
use rmcp::ErrorData;
use serde_json::{Map, Value};

use super::resources;

/// Value sets offered while typing `values` (the template's and `describe_chart`'s).
const VALUE_EXAMPLES: &[&str] = &["3,1,4,1,5,9", "2,7,1,8,2,8", "1,1,2,3,5,8,13", "10,20,30,40", "1,2,3"];
const AUDIENCES: &[&str] = &["analyst", "executive", "student"];

pub(super) fn list() -> ListPromptsResult {
    ListPromptsResult::with_all_items(vec![
        Prompt::new(
            "describe_chart",
            Some("Asks the model to describe a bar chart of the given values, with the chart attached"),
            Some(vec![
                PromptArgument::new("values").with_description("Comma-separated numbers, e.g. 3,1,4").with_required(true),
                PromptArgument::new("audience").with_description("Who the description is for (analyst, executive, student)"),
            ]),
        )
        .with_title("Describe a chart"),
        Prompt::new("read_the_guide", Some("Hands the model the demo server's guide as an embedded resource"), None::<Vec<PromptArgument>>).with_title("Read the guide"),
        Prompt::new(
            "slow_suggestions",
            Some("A prompt whose argument's suggestions take 30 s: the host's form goes on without them"),
            Some(vec![PromptArgument::new("topic").with_description("Anything").with_required(true)]),
        )
        .with_title("Slow suggestions"),
    ])
}

pub(super) fn get(name: &str, arguments: Option<Map<String, Value>>) -> Result<GetPromptResult, ErrorData> {
    let arg = |key: &str| arguments.as_ref().and_then(|a| a.get(key)).and_then(Value::as_str).map(str::to_owned);
    match name {
        "describe_chart" => {
            let values = arg("values").ok_or_else(|| ErrorData::invalid_params("describe_chart needs `values` (comma-separated numbers)", None))?;
            let audience = arg("audience").unwrap_or_else(|| "analyst".to_owned());
            let png = resources::chart_png_for(&values).map_err(|reason| ErrorData::invalid_params(format!("values: {reason}"), None))?;
            Ok(GetPromptResult::new(vec![
                PromptMessage::new_text(Role::User, format!("Describe this bar chart of {values} for an {audience}: the largest bar, the smallest, and the trend.")),
                PromptMessage::new_image(Role::User, &png, "image/png", None, None),
                PromptMessage::new_text(Role::Assistant, "I will look at the bars from left to right."),
            ])
            .with_description(format!("A chart of {values}, described for an {audience}")))
        }
        "read_the_guide" => Ok(GetPromptResult::new(vec![
            PromptMessage::new_text(Role::User, "Here is the demo server's guide. Which tool returns a PDF?"),
            PromptMessage::new_resource(Role::User, resources::GUIDE_URI.to_owned(), Some("text/markdown".to_owned()), Some(resources::guide().to_owned()), None, None, None),
        ])
        .with_description("The guide, embedded")),
        "slow_suggestions" => Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, format!("Tell me about {}.", arg("topic").unwrap_or_default()))])),
        other => Err(ErrorData::invalid_params(format!("no prompt `{other}`; available: describe_chart, read_the_guide, slow_suggestions"), None)),
    }
}

/// How long `slow_suggestions`' completion takes.
const SLOW: std::time::Duration = std::time::Duration::from_secs(30);

/// Suggestions: examples that start with what was typed (`slow_suggestions`' after [`SLOW`]).
pub(super) async fn complete(request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
    if matches!(&request.r#ref, Reference::Prompt(p) if p.name == "slow_suggestions") {
        tokio::time::sleep(SLOW).await;
    }
    complete_now(request)
}

fn complete_now(request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
    let typed = request.argument.value.as_str();
    let pool: &[&str] = match (&request.r#ref, request.argument.name.as_str()) {
        (Reference::Resource(r), "values") if r.uri == resources::CHART_TEMPLATE => VALUE_EXAMPLES,
        (Reference::Prompt(p), "values") if p.name == "describe_chart" => VALUE_EXAMPLES,
        (Reference::Prompt(p), "audience") if p.name == "describe_chart" => AUDIENCES,
        _ => &[],
    };
    let values: Vec<String> = pool.iter().filter(|v| v.starts_with(typed)).map(|v| (*v).to_owned()).collect();
    let info = CompletionInfo::with_all_values(values).map_err(|e| ErrorData::internal_error(e, None))?;
    Ok(CompleteResult::new(info))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ArgumentInfo;

    #[test]
    fn prompts_fill_in_and_complete() {
        let mut args = Map::new();
        args.insert("values".into(), "1,2,3".into());
        let result = get("describe_chart", Some(args)).unwrap();
        assert_eq!(result.messages.len(), 3);
        assert!(get("describe_chart", None).unwrap_err().message.contains("needs `values`"));
        assert_eq!(get("read_the_guide", None).unwrap().messages.len(), 2);
        let request = CompleteRequestParams::new(Reference::for_resource(resources::CHART_TEMPLATE), ArgumentInfo::new("values", "1,"));
        assert_eq!(complete_now(&request).unwrap().completion.values, vec!["1,1,2,3,5,8,13", "1,2,3"]);
        let request = CompleteRequestParams::new(Reference::for_prompt("describe_chart"), ArgumentInfo::new("audience", "e"));
        assert_eq!(complete_now(&request).unwrap().completion.values, vec!["executive"]);
    }
}
