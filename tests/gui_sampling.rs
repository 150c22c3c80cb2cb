//! Sampling in the real window (Xvfb, WebDriver), answered by a real small model (SmolLM2-135M
//! on 127.0.0.1, `scripts/setup.sh --tests`): Settings → Sampling shows the provider; the demo's
//! `sample_text` asks, the dialog shows the request, the user edits the prompt, approves, reviews
//! and edits the completion, and the tool receives the user's text; a second request is
//! rejected with a reason the tool quotes; a `__schema__` request is approved and its object
//! comes back; the server's transcript shows all three, newest first.
//!
//! Ignored by plain `cargo test` (needs a display and tauri-driver); `scripts/test.sh` runs it
//! under `xvfb-run`.

use mcp_canvas_e2e::{
    binary, cli,
    llm::LlmServer,
    webdriver::{newest_result_after, replace_text, result_count, screenshot, set_arguments, wait_for, wait_for_script, with_app},
};
use serde_json::json;
use thirtyfour::prelude::*;

/// Calls the selected tool and waits for its sampling dialog.
async fn call_and_wait_for_dialog(driver: &WebDriver, arguments: &str) -> (u64, WebElement) {
    set_arguments(driver, arguments).await;
    let before = result_count(driver).await;
    wait_for(driver, "button.call-button").await.click().await.unwrap();
    (before, wait_for(driver, r#".sampling-dialog[role="dialog"]"#).await)
}

async fn drive(driver: WebDriver) {
    // Settings → Sampling lists the configured provider and the demo server's row.
    wait_for(&driver, "button.open-settings").await.click().await.unwrap();
    let provider = wait_for(&driver, r#".sampling-provider[data-provider="local"]"#).await;
    let base_url = provider.find(By::Css(".provider-base-url")).await.unwrap().prop("value").await.unwrap().unwrap_or_default();
    assert!(base_url.starts_with("http://127.0.0.1:") && base_url.ends_with("/v1"), "{base_url}");
    wait_for(&driver, r#".sampling-servers [data-server="demo"] select.sampling-server-policy"#).await;
    provider.scroll_into_view().await.unwrap();
    let overflow = driver
        .execute(
            "const p = document.querySelector('.settings-panel'); const right = p.getBoundingClientRect().right; \
             const left = p.getBoundingClientRect().left; const wide = [...p.querySelectorAll('*:not(option)')].filter(e => e.getBoundingClientRect().right > right + 1 || e.getBoundingClientRect().left < left - 1).slice(0, 5).map(e => e.tagName + '.' + e.className); \
             return [p.scrollWidth - p.clientWidth, wide];",
            vec![],
        )
        .await
        .unwrap()
        .json()
        .clone();
    assert!(overflow[0].as_i64().unwrap() <= 0, "Settings → Sampling fits the panel's width: {overflow}");
    screenshot(&driver, "settings_sampling.png").await;
    wait_for(&driver, "button.settings-close").await.click().await.unwrap();

    // 1. Edit the prompt, approve with review, edit the completion: the tool gets the user's text.
    wait_for(&driver, r#"[data-server="demo"] button[data-tool="sample_text"]"#).await.click().await.unwrap();
    let (before, dialog) = call_and_wait_for_dialog(&driver, r#"{"prompt": "Name a fruit.", "max_tokens": 24}"#).await;
    let shown = dialog.text().await.unwrap();
    for expected in ["demo asks for an LLM completion", "You are a concise assistant.", "Name a fruit.", "max tokens 24", "hints smollm2"] {
        assert!(shown.contains(expected), "the dialog shows {expected:?}: {shown}");
    }
    screenshot(&driver, "sampling_request.png").await;
    wait_for(&driver, "button.sampling-edit-button").await.click().await.unwrap();
    replace_text(&wait_for(&driver, "textarea.sampling-edit-prompt").await, "Name a vegetable.").await;
    let review = wait_for(&driver, "input.sampling-review-toggle").await;
    if !review.is_selected().await.unwrap() {
        review.click().await.unwrap();
    }
    wait_for(&driver, "button.sampling-approve").await.click().await.unwrap();
    // The model's answer, to review.
    let completion = wait_for(&driver, "textarea.sampling-review-text").await;
    let answered = completion.prop("value").await.unwrap().unwrap_or_default();
    assert!(!answered.trim().is_empty(), "the real model answered");
    screenshot(&driver, "sampling_review.png").await;
    replace_text(&completion, "Carrot, edited by the user.").await;
    wait_for(&driver, "button.sampling-send").await.click().await.unwrap();
    let result = newest_result_after(&driver, before).await;
    assert!(result.contains("Carrot, edited by the user.") && result.contains("model smollm2"), "{result}");

    // 2. Rejected with a reason: the tool's error quotes it.
    let (before, _) = call_and_wait_for_dialog(&driver, r#"{"prompt": "Name a city."}"#).await;
    replace_text(&wait_for(&driver, "input.sampling-reason").await, "not now, thanks").await;
    wait_for(&driver, "button.sampling-reject").await.click().await.unwrap();
    let result = newest_result_after(&driver, before).await;
    assert!(result.contains("not now, thanks"), "{result}");

    // 3. Structured output: the dialog says so and names the __schema__ tool; the object returns.
    wait_for(&driver, r#"[data-server="demo"] button[data-tool="sample_structured"]"#).await.click().await.unwrap();
    let (before, dialog) = call_and_wait_for_dialog(&driver, r#"{"topic": "a harbour town"}"#).await;
    // The eyebrow is upper-cased by CSS, and WebDriver reads rendered text.
    let shown = dialog.text().await.unwrap().to_lowercase();
    assert!(shown.contains("structured output (__schema__)") && shown.contains("tools offered: __schema__ (choice: required)"), "{shown}");
    wait_for(&driver, "button.sampling-approve").await.click().await.unwrap();
    let result = newest_result_after(&driver, before).await;
    assert!(result.contains("has a population of"), "{result}");

    // The transcript: three exchanges, newest first, the structured one with its three messages.
    wait_for(&driver, r#"[data-server="demo"] button.server-sampling"#).await.click().await.unwrap();
    let decisions = wait_for_script(
        &driver,
        "const e = [...document.querySelectorAll('.sampling-log-entry')].map(e => e.dataset.decision); return e.length === 3 ? e : null;",
        vec![],
    )
    .await;
    assert_eq!(decisions, json!(["approved", "rejected", "response_edited"]));
    wait_for(&driver, ".sampling-log-entry summary").await.click().await.unwrap();
    let opened = wait_for(&driver, ".sampling-log-entry details[open]").await.text().await.unwrap().to_lowercase();
    assert!(opened.contains("messages for history (3)") && opened.contains("acknowledgement") && opened.contains("parsed"), "{opened}");
    let parsed = wait_for(&driver, ".sampling-log-entry details[open] .sampling-log-parsed").await.prop("textContent").await.unwrap().unwrap_or_default();
    let parsed: serde_json::Value = serde_json::from_str(&parsed).unwrap_or_else(|e| panic!("the parsed object is shown as JSON ({e}): {parsed}"));
    assert!(parsed["name"].is_string(), "{parsed}");
    screenshot(&driver, "sampling_transcript.png").await;
    wait_for(&driver, "button.sampling-log-close").await.click().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn a_request_is_shown_edited_reviewed_rejected_and_kept_in_the_window() {
    let llm = LlmServer::start();
    let data_dir = tempfile::tempdir().unwrap();
    std::fs::write(data_dir.path().join("settings.toml"), llm.settings("ask")).unwrap();
    with_app(&binary("mcp-canvas"), data_dir.path(), |driver, _| drive(driver)).await;
    // What the window showed is what the CLI reads from the same catalog.
    let log = cli(data_dir.path(), &["sampling", "log", "demo", "--json"]);
    let records: Vec<serde_json::Value> = serde_json::from_str(&log.stdout).expect("sampling log --json");
    assert_eq!(records.len(), 3, "{}", log.stdout);
    // One block is written as one block, not a list of one.
    assert_eq!(records[2]["editedRequest"]["messages"][0]["content"]["text"], "Name a vegetable.", "{}", log.stdout);
}
