//! What a server offers besides tools, in the real window (Xvfb, WebDriver), against the demo
//! server: its resources (open one in the canvas, fill in a template with the server's
//! `completion/complete` suggestions, a bad value's error, watch the scratch note while a tool
//! changes it), its prompts (suggestions, the messages in the canvas, copy as JSON), and a tool
//! result's `resource_link` opened from the results list.

use mcp_canvas_e2e::{
    binary, cli,
    webdriver::{call_with, screenshot, until, wait_for, with_app},
};
use serde_json::{json, Value};
use thirtyfour::prelude::*;

const NOTE: &str = "Watched from the window: 42 apples";

async fn active_tab(driver: &WebDriver) -> String {
    wait_for(driver, "section.pane.active .tab.active .tab-label").await.prop("textContent").await.unwrap().unwrap_or_default()
}

/// Types into the field of argument `name` (in the open form), one key at a time as a person would.
async fn type_into(driver: &WebDriver, name: &str, text: &str) {
    let input = wait_for(driver, &format!("[data-argument='{name}'] input")).await;
    input.click().await.unwrap();
    input.send_keys(text).await.unwrap();
}

async fn pick_suggestion(driver: &WebDriver, name: &str, wanted: &[&str], choice: &str) {
    let script = format!("const s = [...document.querySelectorAll(\"[data-argument='{name}'] .suggestion\")].map(b => b.textContent); return s.length > 0 && s;");
    let shown: Vec<String> = serde_json::from_value(until(driver, "offers_suggestions", &script).await).unwrap();
    assert_eq!(shown, wanted, "the server's suggestions for `{name}`");
    let click = format!("[...document.querySelectorAll(\"[data-argument='{name}'] .suggestion\")].find(b => b.textContent === {choice:?}).click(); return true;");
    driver.execute(&click, vec![]).await.unwrap();
    let value = wait_for(driver, &format!("[data-argument='{name}'] input")).await.value().await.unwrap();
    assert_eq!(value.as_deref(), Some(choice));
}

async fn painted_image(driver: &WebDriver, what: &str) {
    until(driver, what, "const i = document.querySelector('section.pane.active .tab-body img, section.pane.active img'); return i && i.complete && i.naturalWidth > 0;").await;
}

async fn drive(driver: WebDriver) {
    // Resources: the list, and one opened in the canvas (once the server is listed: the list
    // moves as it arrives).
    wait_for(&driver, r#"[data-server="demo"] button[data-tool="list_files"]"#).await;
    wait_for(&driver, r#"[data-server="demo"] button[data-offer="resources"]"#).await.click().await.unwrap();
    wait_for(&driver, ".offer-item[data-uri='demo://chart.png'] button.resource-open").await.click().await.unwrap();
    until(&driver, "offers_resource_tab", "const t = document.querySelector('section.pane.active .tab.active .tab-label'); return t && t.textContent === 'chart.png';").await;
    painted_image(&driver, "offers_resource_image").await;
    wait_for(&driver, ".offer-result h3").await;
    // Its text as written (the heading is styled in capitals, which WebDriver's text would give).
    let last = driver.execute("return document.querySelector('.offer-result h3').textContent;", vec![]).await.unwrap();
    assert_eq!(last.json(), "Last read: demo://chart.png");

    // A template: suggestions as one types, the URI it makes, opened.
    type_into(&driver, "values", "1,").await;
    pick_suggestion(&driver, "values", &["1,1,2,3,5,8,13", "1,2,3"], "1,2,3").await;
    let uri = wait_for(&driver, ".template-uri code").await.text().await.unwrap();
    assert_eq!(uri, "demo://chart/1%2C2%2C3");
    wait_for(&driver, "button.template-open").await.click().await.unwrap();
    until(&driver, "offers_template_read", "const h = document.querySelector('.offer-result h3'); return h && h.textContent === 'Last read: demo://chart/1%2C2%2C3';").await;
    painted_image(&driver, "offers_template_image").await;
    screenshot(&driver, "offers_resources.png").await;

    // A value the server refuses: its reason, and the window goes on.
    let input = wait_for(&driver, "[data-argument='values'] input").await;
    input.clear().await.unwrap();
    input.send_keys("1,x").await.unwrap();
    wait_for(&driver, "button.template-open").await.click().await.unwrap();
    let error = until(&driver, "offers_template_error", "const e = document.querySelector('.offer-error'); return e && e.textContent;").await;
    assert!(error.as_str().unwrap().contains("`x` is not a number"), "{error}");

    // Watch the scratch note, then change it with a tool: the watched tab is read again.
    wait_for(&driver, ".offer-item[data-uri='demo://notes/scratch'] button.resource-watch").await.click().await.unwrap();
    until(&driver, "offers_watching", "const s = document.querySelector(\".offer-item[data-uri='demo://notes/scratch'] .watch-state\"); return s && s.textContent.includes('live');").await;
    wait_for(&driver, r#"[data-server="demo"] button[data-tool="write_note"]"#).await.click().await.unwrap();
    call_with(&driver, &json!({ "text": NOTE }).to_string()).await;
    wait_for(&driver, r#"[data-server="demo"] button[data-offer="resources"]"#).await.click().await.unwrap();
    until(&driver, "offers_watch_update", "const s = document.querySelector(\".offer-item[data-uri='demo://notes/scratch'] .watch-state\"); return s && s.textContent.includes('updated 1×');").await;
    until(&driver, "offers_watch_tab", "return [...document.querySelectorAll('section.pane .tab-label')].some(t => t.textContent === 'scratch.md');").await;
    wait_for(&driver, ".offer-item[data-uri='demo://notes/scratch'] button.resource-watch").await.click().await.unwrap();
    until(&driver, "offers_unwatched", "const b = document.querySelector(\".offer-item[data-uri='demo://notes/scratch'] button.resource-watch\"); return b && b.textContent === 'Watch';").await;

    // Prompts: suggestions for both arguments, the messages in the canvas, copied as JSON.
    wait_for(&driver, r#"[data-server="demo"] button[data-offer="prompts"]"#).await.click().await.unwrap();
    wait_for(&driver, "button.prompt-item[data-prompt='describe_chart']").await.click().await.unwrap();
    type_into(&driver, "values", "3").await;
    pick_suggestion(&driver, "values", &["3,1,4,1,5,9"], "3,1,4,1,5,9").await;
    type_into(&driver, "audience", "e").await;
    pick_suggestion(&driver, "audience", &["executive"], "executive").await;
    wait_for(&driver, "button.prompt-get").await.click().await.unwrap();
    let transcript = until(&driver, "offers_prompt", "const t = document.querySelector('.prompt-transcript'); return t && t.textContent;").await;
    let transcript = transcript.as_str().unwrap();
    assert!(transcript.contains("Describe this bar chart of 3,1,4,1,5,9 for an executive"), "{transcript}");
    assert!(transcript.contains("*[image (image/png): attachment 1, in the tab beside this one]*"), "{transcript}");
    assert!(!transcript.contains("iVBOR"), "no base64 in what the window shows");
    until(&driver, "offers_prompt_tabs", "const t = [...document.querySelectorAll('section.pane.active .tab-label')].map(e => e.textContent); return t.some(l => l.endsWith('.md')) && t.some(l => l.endsWith('.png'));").await;
    assert!(active_tab(&driver).await.ends_with(".md"), "the transcript is the primary tab");
    wait_for(&driver, "button.copy-json").await.click().await.unwrap();
    let copied = until(&driver, "offers_copied", "const c = document.querySelector('.copied'); return c && c.textContent;").await;
    assert_eq!(copied, json!("JSON copied"));
    screenshot(&driver, "offers_prompts.png").await;

    // A tool result's resource_link, opened from the results list.
    wait_for(&driver, r#"[data-server="demo"] button[data-tool="list_files"]"#).await.click().await.unwrap();
    call_with(&driver, "{}").await;
    wait_for(&driver, ".history .result button.resource-link[data-uri='demo://guide.md']").await.click().await.unwrap();
    until(&driver, "offers_link_tab", "const t = document.querySelector('section.pane.active .tab.active .tab-label'); return t && t.textContent === 'guide.md';").await;
    screenshot(&driver, "offers_resource_link.png").await;

    // Skills: the chart skill's SKILL.md and a reference open, checked; the tampered one is
    // refused by name and nothing of it is shown.
    let skills = wait_for(&driver, r#"[data-server="demo"] button[data-offer="skills"]"#).await;
    skills.scroll_into_view().await.unwrap();
    skills.click().await.unwrap();
    wait_for(&driver, ".skill-item[data-skill='read-a-chart'] button.skill-open").await.click().await.unwrap();
    let verified = until(&driver, "skills_verified", "const v = document.querySelector('.skill-verified'); return v && v.textContent;").await;
    assert!(verified.as_str().unwrap().contains("frontmatter as listed") && verified.as_str().unwrap().contains("digest sha256:"), "{verified}");
    until(&driver, "skills_tab", "const t = document.querySelector('section.pane.active .tab.active .tab-label'); return t && t.textContent === 'SKILL.md';").await;
    wait_for(&driver, ".skill-item[data-skill='read-a-chart'] button.skill-file[data-path='references/palette.md']").await.click().await.unwrap();
    until(&driver, "skills_file_tab", "const t = document.querySelector('section.pane.active .tab.active .tab-label'); return t && t.textContent === 'palette.md';").await;
    wait_for(&driver, ".skill-item[data-skill='tampered-example'] button.skill-open").await.click().await.unwrap();
    let refused = until(&driver, "skills_refused", "const e = document.querySelector('.offer-error'); return e && e.dataset.kind === 'refused' && e.textContent;").await;
    assert!(refused.as_str().unwrap().contains("skill `skill://tampered-example/SKILL.md` of server `demo` was not loaded") && refused.as_str().unwrap().contains("the manifest says"), "{refused}");
    let labels: Vec<String> = serde_json::from_value(driver.execute("return [...document.querySelectorAll('.tab-label')].map(t => t.textContent);", vec![]).await.unwrap().json().clone()).unwrap();
    assert!(!labels.iter().any(|l| l.contains("tampered")), "nothing of a refused skill is shown: {labels:?}");
    screenshot(&driver, "offers_skills.png").await;

    // The protocol view: a chart call's answer, its image a note naming the artifact it became.
    let chart = wait_for(&driver, r#"[data-server="demo"] button[data-tool="render_chart"]"#).await;
    chart.scroll_into_view().await.unwrap();
    chart.click().await.unwrap();
    let summary = call_with(&driver, r#"{"values": [2, 7, 1, 8]}"#).await;
    let reference = summary.split("Reference: ").nth(1).and_then(|r| r.split_whitespace().next()).expect("a reference").to_owned();
    let protocol = wait_for(&driver, r#"[data-server="demo"] button[data-offer="protocol"]"#).await;
    protocol.scroll_into_view().await.unwrap();
    protocol.click().await.unwrap();
    until(&driver, "protocol_listed", "return document.querySelectorAll('.protocol-entry').length > 5;").await;
    let methods: Vec<String> = serde_json::from_value(driver.execute("return [...document.querySelectorAll('.protocol-entry')].map(e => e.dataset.method);", vec![]).await.unwrap().json().clone()).unwrap();
    for expected in ["resources/read", "prompts/get", "completion/complete", "tools/call", "tools/list"] {
        assert!(methods.iter().any(|m| m == expected), "{expected} in {methods:?}");
    }
    let filter = wait_for(&driver, "input.protocol-method").await;
    filter.send_keys("tools/call").await.unwrap();
    until(&driver, "protocol_filtered", "const m = [...document.querySelectorAll('.protocol-entry')].map(e => e.dataset.method); return m.length > 0 && m.every(x => x === 'tools/call');").await;
    // The newest answer is the chart's: expanded, it shows the note, not the base64.
    wait_for(&driver, ".protocol-entry.received.response .protocol-row").await.click().await.unwrap();
    let text = wait_for(&driver, ".protocol-text").await.text().await.unwrap();
    assert!(text.contains(&format!("→ artifact {reference}")), "{text}");
    assert!(!text.contains("iVBOR"), "no base64 in the protocol view");
    let latency = wait_for(&driver, ".protocol-entry.received.response .protocol-latency").await.text().await.unwrap();
    assert!(latency.ends_with(" ms"), "{latency}");
    // Only this call: its request and its answer.
    wait_for(&driver, "button.protocol-only-call").await.click().await.unwrap();
    until(&driver, "protocol_call", "const e = [...document.querySelectorAll('.protocol-entry')]; return e.length >= 2 && e.length <= 4 && document.querySelector('.protocol-call-filter');").await;
    screenshot(&driver, "offers_protocol.png").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a display and tauri-driver; scripts/test.sh runs it under xvfb-run"]
async fn resources_prompts_and_links_open_in_the_canvas() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("servers.json"), json!({ "mcpServers": { "demo": { "command": binary("mcp-canvas-demo") } } }).to_string()).unwrap();
    with_app(&binary("mcp-canvas"), dir.path(), |driver, _| drive(driver)).await;

    // What the window read is stored and audited like a call: the watched note's second read
    // holds the text the tool wrote.
    let listed = cli(dir.path(), &["artifacts", "list", "--json"]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let listed: Value = serde_json::from_str(&listed.stdout).unwrap();
    let items = listed["items"].as_array().unwrap();
    let notes: Vec<&Value> = items.iter().filter(|a| a["name"] == "scratch.md" && a["tool"] == "resources/read").collect();
    assert!(notes.len() >= 2, "the first read and the watched re-read: {listed}");
    let out = dir.path().join("note.md");
    let export = cli(dir.path(), &["artifacts", "export", notes[0]["id"].as_str().unwrap(), out.to_str().unwrap()]);
    assert_eq!(export.code, 0, "{}", export.stderr);
    assert!(std::fs::read_to_string(&out).unwrap().contains(NOTE), "the newest read is the changed note");
    let prompts: Vec<&Value> = items.iter().filter(|a| a["tool"] == "prompts/get").collect();
    assert_eq!(prompts.len(), 2, "the transcript and the chart: {listed}");
    assert!(!items.iter().any(|a| a["name"].as_str().is_some_and(|n| n.contains("tampered"))), "a refused skill stores nothing: {listed}");
}
