//! Every vector in `tests/xss/*.txt` (see its README) goes through `sanitize_html` and, as raw
//! HTML inside Markdown, through `render_markdown`; an independent checker re-parses each output
//! and must find nothing that could run script or load anything outside the policy. The
//! sanitizer must also be stable: sanitizing its own output changes nothing.

#[path = "support/checker.rs"]
mod checker;

use std::path::Path;

use mcp_canvas_render::{HtmlOptions, render_markdown, render_markdown_with, sanitize_html};

struct Vector {
    origin: String,
    text: String,
}

fn unescape(line: &str) -> String {
    [
        ("{TAB}", "\t"),
        ("{LF}", "\n"),
        ("{CR}", "\r"),
        ("{FF}", "\u{c}"),
        ("{VT}", "\u{b}"),
        ("{NUL}", "\0"),
        ("{SOH}", "\u{1}"),
        ("{SO}", "\u{e}"),
    ]
    .iter()
    .fold(line.to_owned(), |text, (token, character)| {
        text.replace(token, character)
    })
}

fn corpus() -> Vec<Vector> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/xss");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    files.sort();
    let mut vectors = Vec::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        for (number, line) in std::fs::read_to_string(&file).unwrap().lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            vectors.push(Vector {
                origin: format!("{name}:{}", number + 1),
                text: unescape(line),
            });
        }
    }
    vectors
}

#[test]
fn corpus_is_large_enough() {
    let vectors = corpus();
    assert!(vectors.len() >= 150, "only {} vectors", vectors.len());
    let mut unique: Vec<&str> = vectors.iter().map(|vector| vector.text.as_str()).collect();
    unique.sort();
    unique.dedup();
    assert!(
        unique.len() >= 150,
        "only {} distinct vectors",
        unique.len()
    );
}

fn check_all(
    label: &str,
    remote_images: bool,
    render: impl Fn(&str) -> mcp_canvas_render::SanitizedHtml,
) {
    let vectors = corpus();
    let mut failures = Vec::new();
    for vector in &vectors {
        let output = render(&vector.text);
        let mut problems = checker::document_problems(&output.html, remote_images);
        let again = sanitize_html(
            &output.body,
            &HtmlOptions {
                allow_remote_images: remote_images,
            },
        );
        if checker::canonical(&again.body) != checker::canonical(&output.body) {
            problems.push(format!("not stable: {:?} → {:?}", output.body, again.body));
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{} {:?}\n  output: {:?}\n  {}",
                vector.origin,
                vector.text,
                output.body,
                problems.join("\n  ")
            ));
        }
    }
    println!(
        "{label}: {} vectors, {} unsafe",
        vectors.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{label}: {} of {} vectors unsafe:\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n")
    );
}

#[test]
fn every_vector_is_safe_as_html() {
    check_all("html", false, |text| {
        sanitize_html(text, &HtmlOptions::default())
    });
}

#[test]
fn every_vector_is_safe_as_html_with_remote_images_allowed() {
    let options = HtmlOptions {
        allow_remote_images: true,
    };
    check_all("html+remote", true, |text| sanitize_html(text, &options));
}

#[test]
fn every_vector_is_safe_inside_markdown() {
    check_all("markdown", false, render_markdown);
    let options = HtmlOptions {
        allow_remote_images: true,
    };
    check_all("markdown+remote", true, |text| {
        render_markdown_with(text, &options)
    });
}

#[test]
fn vectors_with_a_script_element_report_it() {
    for vector in corpus() {
        let lower = vector.text.to_ascii_lowercase();
        if lower.starts_with("<script>") {
            let output = sanitize_html(&vector.text, &HtmlOptions::default());
            assert!(
                output.removed.scripts >= 1,
                "{} {:?}: {:?}",
                vector.origin,
                vector.text,
                output.removed
            );
        }
    }
}

/// The checker itself must catch what it is there to catch: the raw (unsanitized) vectors put
/// into the same document shell are flagged, and so is each known-bad fragment below.
#[test]
fn checker_flags_unsanitized_input() {
    let shell = sanitize_html("", &HtmlOptions::default()).html;
    assert!(shell.contains("<body>\n\n</body>"), "{shell}");
    let raw_document =
        |body: &str| shell.replace("<body>\n\n</body>", &format!("<body>\n{body}\n</body>"));

    let known_bad = [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<a href=\"java\tscript:alert(1)\">x</a>",
        "<a href=\" javascript:alert(1)\">x</a>",
        "<img src=\"data:text/html,<script>alert(1)</script>\">",
        "<img src=\"data:image/svg+xml;base64,PHN2Zz4=\">",
        "<iframe src=\"https://example.com\"></iframe>",
        "<object data=\"x\"></object>",
        "<embed src=\"x\">",
        "<form action=\"https://example.com\"><input></form>",
        "<style>p{}</style>",
        "<base href=\"https://example.com/\">",
        "<meta http-equiv=\"refresh\" content=\"0;url=https://example.com\">",
        "<link rel=stylesheet href=\"https://example.com/x.css\">",
        "<svg><a xlink:href=\"javascript:alert(1)\">x</a></svg>",
        "<math><mi>x</mi></math>",
        "<p style=\"background:url(https://example.com/x.png)\">x</p>",
        "<img srcset=\"javascript:alert(1) 1x\">",
        "<video poster=\"javascript:alert(1)\"></video>",
        "<button formaction=\"javascript:alert(1)\">x</button>",
        "<img src=\"https://example.com/track.png\">",
        "<a href=\"/relative\" target=\"_blank\" rel=\"noopener noreferrer\">x</a>",
        "<a href=\"https://example.com\">no rel</a>",
        "<blink>x</blink>",
    ];
    for bad in known_bad {
        assert!(
            !checker::document_problems(&raw_document(bad), false).is_empty(),
            "checker misses {bad:?}"
        );
    }
    let vectors = corpus();
    let flagged = vectors
        .iter()
        .filter(|v| !checker::document_problems(&raw_document(&v.text), false).is_empty())
        .count();
    println!("checker flags {flagged} of {} raw vectors", vectors.len());
    assert!(
        flagged * 100 >= vectors.len() * 90,
        "checker flags only {flagged} of {} raw vectors",
        vectors.len()
    );
}
