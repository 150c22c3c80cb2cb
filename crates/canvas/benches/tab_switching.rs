//! Tab switching with 200 open tabs: activate (random tab), next, previous, plus the snapshot the
//! UI receives after each intent and a `replace` result landing in the full pane. Prints a table;
//! asserts nothing. `cargo bench -p mcp-canvas-canvas --bench tab_switching` (`TABS=N` to change
//! the count).

use std::{hint::black_box, time::Instant};

use mcp_canvas_canvas::{Canvas, TabId};
use mcp_canvas_contract::{Audience, CanvasMode, DisplayIntent, OutcomeArtifact, ToolOutcome, Viewer};

fn artifact(i: usize) -> OutcomeArtifact {
    OutcomeArtifact {
        id: format!("bench_{i:012x}"),
        name: format!("chart-{i}.png"),
        mime: "image/png".into(),
        size: 1_000,
        sha256: String::new(),
        description: None,
        viewer: Some(Viewer::Image),
        source: format!("content[{i}]"),
        audience: Audience::Both,
        pages: None,
        width: None,
        height: None,
    }
}

fn outcome(artifacts: Vec<OutcomeArtifact>, mode: CanvasMode) -> ToolOutcome {
    ToolOutcome {
        summary: String::new(),
        results: None,
        texts: Vec::new(),
        display: DisplayIntent { open_canvas: true, primary: None, mode, viewer: None },
        artifacts,
        dashboard: None,
        needs_input: None,
        error: None,
        kind: None,
        warnings: Vec::new(),
        meta: None,
    }
}

fn measure(label: &str, iterations: usize, mut op: impl FnMut(usize)) {
    // Warm up, then take the best of 5 runs.
    for i in 0..iterations / 10 {
        op(i);
    }
    let best = (0..5)
        .map(|_| {
            let started = Instant::now();
            for i in 0..iterations {
                op(i);
            }
            started.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);
    let per_op = best / iterations as f64;
    println!("{label:<44} {:>10.1} ns/op {:>14.0} ops/s", per_op * 1e9, 1.0 / per_op);
}

fn main() {
    let tabs: usize = std::env::var("TABS").ok().and_then(|t| t.parse().ok()).unwrap_or(200);
    let mut canvas = Canvas::new();
    canvas.apply_outcome("fill", &outcome((0..tabs).map(artifact).collect(), CanvasMode::Append));
    assert_eq!(canvas.tab_count(), tabs);
    let ids: Vec<TabId> = canvas.active_pane().tabs.iter().map(|t| t.id).collect();
    // A fixed pseudo-random order of tabs to activate (LCG), so runs compare.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let order: Vec<TabId> = (0..4096)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ids[(state >> 33) as usize % ids.len()]
        })
        .collect();

    println!("canvas with {tabs} tabs in one pane (best of 5 runs)\n");
    measure("activate_tab (random tab)", 1_000_000, |i| canvas.activate_tab(black_box(order[i % order.len()])).unwrap());
    measure("activate_tab (last tab)", 1_000_000, |_| canvas.activate_tab(black_box(ids[tabs - 1])).unwrap());
    measure("next_tab", 1_000_000, |_| {
        black_box(canvas.next_tab());
    });
    measure("previous_tab", 1_000_000, |_| {
        black_box(canvas.previous_tab());
    });
    measure("next_tab + view() snapshot", 20_000, |_| {
        canvas.next_tab();
        black_box(canvas.view());
    });
    measure("view() serialized to JSON (IPC payload)", 5_000, |_| {
        black_box(serde_json::to_vec(&canvas.view()).unwrap());
    });
    println!("\nview JSON size: {} bytes", serde_json::to_vec(&canvas.view()).unwrap().len());

    // A `replace` result arriving while the pane holds `tabs` user tabs (none replaceable) plus
    // the previous call's one tab: closes one, opens one.
    let mut canvas = Canvas::new();
    for i in 0..tabs {
        let a = artifact(i);
        canvas.open_artifact(mcp_canvas_canvas::ArtifactTab { artifact_id: a.id, name: a.name, mime: a.mime, viewer: Viewer::Image });
    }
    let results: Vec<ToolOutcome> = (0..2).map(|k| outcome(vec![artifact(10_000 + k)], CanvasMode::Replace)).collect();
    let calls: Vec<String> = (0..2).map(|k| format!("call-{k}")).collect();
    measure("apply_outcome replace (1 of 201 tabs)", 200_000, |i| {
        black_box(canvas.apply_outcome(&calls[i % 2], &results[i % 2]));
    });
    assert_eq!(canvas.tab_count(), tabs + 1);
}
