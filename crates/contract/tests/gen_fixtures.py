"""Writes the seed_* and edge_* contract fixtures into tests/fixtures/ (python3, standard library).

    python3 crates/contract/tests/gen_fixtures.py
    UPDATE_EXPECT=1 cargo test -p mcp-canvas-contract --test fixtures   # only for new fixtures
    git diff crates/contract/tests/fixtures                              # then READ the outcomes

Binaries are real and deterministic (PNG with CRCs, a PDF with a correct xref table, GIF, ZIP,
WAV). A file that already exists keeps its `expected` block: rerunning never blesses a change.
"""
import base64
import io
import json
import os
import random
import struct
import sys
import wave
import zipfile
import zlib

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
# ---------------------------------------------------------------- real small binaries
def png(width=1, height=1, seed=None, rgb=(255, 0, 0)):
    """A valid PNG. With a seed, noisy pixels (so it compresses badly and is bigger)."""
    rng = random.Random(seed)
    rows = b""
    for _ in range(height):
        rows += b"\x00"
        for _ in range(width):
            rows += bytes(rng.randrange(256) for _ in range(3)) if seed is not None else bytes(rgb)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def pdf(text="Hello from MCP Canvas"):
    """A minimal valid one-page PDF with a correct xref table."""
    stream = f"BT /F1 18 Tf 20 50 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return out


def gif():
    """A valid 1x1 GIF89a."""
    return (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\x00\x00\x00\x00\x00"
            b"!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")


def zip_bytes(files=None):
    files = files or {"readme.txt": "hello from a zip\n", "data.csv": "a,b\n1,2\n"}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, date_time=(2025, 1, 1, 0, 0, 0))
            z.writestr(info, text)
    return buf.getvalue()


def wav(frames=200):
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(8000)
        w.writeframes(bytes((i * 7) % 256 for i in range(frames)))
    return buf.getvalue()


def b64(data):
    return base64.b64encode(data if isinstance(data, bytes) else data.encode()).decode()


def b64url(data):
    return base64.urlsafe_b64encode(data).decode()


def wrapped(data, width=76, sep="\r\n"):
    text = b64(data)
    return sep.join(text[i:i + width] for i in range(0, len(text), width))


HTML = b"<!DOCTYPE html>\n<html><head><title>Report</title></head><body><h1>Q3 report</h1><p>42 rows.</p></body></html>\n"
SVG = b"<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><script>alert(1)</script><rect width=\"10\" height=\"10\"/></svg>\n"


FIXTURES = {}


def fx(name, about, result, **extra):
    assert name not in FIXTURES, name
    FIXTURES[name] = dict(about=about, result=result, **extra)


def jblock(obj, indent=2, **extra):
    return {"type": "text", "text": json.dumps(obj, indent=indent), "mimeType": "application/json", **extra}


def md(text, **extra):
    return {"type": "text", "text": text, "mimeType": "text/markdown", **extra}


def text(t, **extra):
    return {"type": "text", "text": t, **extra}


def both(obj, *before, indent=2):
    """How a well-behaved server sends a JSON payload: a JSON text block plus structuredContent."""
    return {"content": [*before, jblock(obj, indent=indent)], "structuredContent": obj}


PDF = pdf()
PNG_SMALL = png(1, 1)
PNG_NOISY = png(8, 8, seed=7)  # > 192 bytes, so > 256 base64 characters: layer 3 examines it

# ---------------------------------------------------------------- seed 000 §6

fx("seed_000_ex1_results_only", "000 §6 example 1: `results` only. The v2 contract is recognised, `results` is the structured result and the summary; nothing is stored.",
   both({"results": {"expression": "234*97", "result": 22698}}), server="calc", tool="calculate")

ex2 = {
    "results": {"summary": "Report generated"},
    "meta_data": {"rows": 42, "elapsed_ms": 120},
    "artifacts": [
        {"name": "report.html", "b64": b64(HTML), "mime": "text/html", "size": len(HTML)},
        {"name": "chart.png", "b64": b64(PNG_NOISY), "mime": "image/png", "size": len(PNG_NOISY)},
    ],
    "display": {"open_canvas": True, "primary_file": "report.html", "mode": "replace", "viewer_hint": "html"},
}
fx("seed_000_ex2_artifacts_with_display", "000 §6 example 2: two v2 artifacts (real HTML and PNG bytes, true sizes), meta_data kept, display hints: primary is report.html, viewer html, canvas opens. Summary has one line per artifact, no base64.",
   both(ex2), server="reports", tool="make_report")

ex3 = {
    "results": "Generated embeddings (see files)",
    "returned_file_names": ["vec1.json", "vec2.json"],
    "returned_file_contents": [b64(json.dumps({"chunk": 1, "vector": [0.12, -0.5, 0.33]})), b64(json.dumps({"chunk": 2, "vector": [0.01, 0.9, -0.2]}))],
    "meta_data": {"dimension": 1536, "chunks": 2},
}
fx("seed_000_ex3_legacy_arrays", "000 §6 example 3: legacy returned_file_names/returned_file_contents become two JSON artifacts named from the legacy names; `results` string is the summary text.",
   both(ex3), server="embed", tool="embed_documents")

ex4 = {
    "results": {"status": "opened"},
    "canvas": {"open": True, "id": "monitor-42", "persistence": "session", "type": "iframe",
               "url": "https://mcp.example.com/dash?session=abc", "token": "cap-7f3e9a", "title": "Live Monitor"},
}
fx("seed_000_ex4_dashboard", "000 §6 example 4: a valid iframe `canvas` envelope becomes a dashboard (session persistence, token passed through); the summary names only the origin, never the token or query.",
   both(ex4), server="monitor", tool="open_monitor")

# ---------------------------------------------------------------- seed 003 appendix B

workbook = {"content": b64(pdf("Sales Dashboard")), "name": "Sales Dashboard", "format": "pdf"}
fx("seed_003_download_workbook", "003 appendix B: download_workbook returns a base64 PDF in `content` (no rule configured). Layer 3 finds it by its decoded bytes; named from the sibling `name`; `content` becomes an artifact reference.",
   both(workbook), server="tableau", tool="download_workbook")

fx("seed_003_download_workbook_with_rule", "003 §3.4/§5.3: the same result with a per-tool TOML rule; the summary is the rule's template with {name} and {size_human} filled in.",
   both(workbook), server="tableau", tool="download_workbook",
   rules_toml='[[rules]]\ntool = "download_*"\nserver = "tableau*"\n[[rules.fields]]\npath = "content"\ncontent_type = "pdf"\nmime = "application/pdf"\nfilename_field = "name"\nsummary = "Downloaded workbook \'{name}\' as PDF ({size_human}). Reference: {artifact_id}"\n')

view = {"pdf_data": b64(pdf("Revenue by Region")), "view_name": "Revenue by Region", "generated_at": "2025-12-22T10:30:00Z"}
fx("seed_003_get_view_as_pdf", "003 appendix B: get_view_as_pdf returns `pdf_data`; stored as a PDF named from `view_name`, the rest of the object stays as results.",
   both(view), server="tableau", tool="get_view_as_pdf")

fx("seed_003_list_workbooks_passthrough", "003 appendix B: list_workbooks has no binary and passes through untouched: results equal the input, no artifacts, no warnings.",
   both({"workbooks": [{"id": "123", "name": "Sales", "project": "Analytics"}, {"id": "456", "name": "Marketing", "project": "Analytics"}]}),
   server="tableau", tool="list_workbooks")

# ---------------------------------------------------------------- seed 004

patterns = [
    {"id": "error-handling-match", "title": "Error Handling with Match", "category": "error-handling", "difficulty": "beginner",
     "description": "Use Effect.match to handle errors...", "tags": ["Effect.match", "error-handling"]},
    {"id": "catch-tag", "title": "Catch Tagged Errors", "category": "error-handling", "difficulty": "intermediate",
     "description": "Use Effect.catchTag for typed recovery.", "tags": ["Effect.catchTag"]},
    {"id": "schema-validate", "title": "Validate with Schema", "category": "validation", "difficulty": "beginner",
     "description": "Decode unknown input with Schema.", "tags": ["Schema"]},
]
search = {
    "kind": "patternSearchResults:v1",
    "query": {"q": "error", "format": "markdown", "limit": 5},
    "metadata": {"totalCount": 3, "categories": {"error-handling": 2, "validation": 1}, "difficulties": {"beginner": 2, "intermediate": 1},
                 "renderedCards": 2, "renderedCardIds": ["error-handling-match", "catch-tag"], "contractMarkers": {"index": 1, "cards": 2, "version": "v1"}},
    "patterns": patterns,
}
md_index = md("<!-- kind:pattern-index:v1 -->\n# Search Results for \"error\"\nFound **3** patterns.")
md_card1 = md("<!-- kind:pattern-card:v1 -->\n## Error Handling with Match\nUse Effect.match to handle errors...")
md_card2 = md("<!-- kind:pattern-card:v1 -->\n## Catch Tagged Errors\nUse Effect.catchTag for typed recovery.")
fx("seed_004_search_patterns_markdown", "004 search_patterns format=markdown: markdown blocks (contract markers removed from the texts) and structuredContent only (no JSON block), which becomes results with its kind.",
   {"content": [md_index, md_card1, md_card2], "structuredContent": search}, server="patterns", tool="search_patterns")
search_json = dict(search, query={"q": "concurrency", "format": "json"})
fx("seed_004_search_patterns_json", "004 search_patterns format=json: one JSON block (canonical) equal to structuredContent; no texts, results carry the kind.",
   both(search_json), server="patterns", tool="search_patterns")
search_both = dict(search, query={"q": "service", "format": "both"})
fx("seed_004_search_patterns_both", "004 search_patterns format=both: markdown blocks first, then the JSON block (canonical, removed from texts).",
   both(search_both, md_index, md_card1), server="patterns", tool="search_patterns")

needs_empty = {
    "kind": "needsInput:v1", "type": "elicitation",
    "message": "What pattern are you looking for? Please provide a search query.",
    "needsInput": {"fields": ["q"], "reason": "Search query is required to find relevant patterns",
                   "suggestions": {"q": ["error handling", "service pattern", "concurrency", "resource management"]}},
}
fx("seed_004_needs_input_empty_query", "004 needsInput (empty query, format=markdown): the markdown prompt plus structuredContent needsInput:v1 become needs_input with fields and suggestions; the summary asks for input.",
   {"content": [md("## Search Query Needed\n\nWhat pattern are you looking for? Please provide a search query.")], "structuredContent": needs_empty},
   server="patterns", tool="search_patterns")
needs_broad = {
    "kind": "needsInput:v1", "type": "elicitation",
    "message": "Found 50 patterns. Would you like to narrow your search by category or difficulty?",
    "needsInput": {"fields": ["category", "difficulty"], "reason": "Too many results (50). Narrowing filters will help find the right pattern.",
                   "suggestions": {"category": ["error-handling", "service", "validation"], "difficulty": ["beginner", "intermediate", "advanced"]}},
    "options": [
        {"label": "error-handling", "value": "error-handling", "description": "Filter by error-handling category", "field": "category"},
        {"label": "beginner", "value": "beginner", "description": "Filter by beginner difficulty", "field": "difficulty"},
    ],
}
fx("seed_004_needs_input_too_broad", "004 needsInput (too broad): two fields, suggestions per field and options with their `field` are all parsed.",
   {"content": [md("## Narrow Your Search\n\nFound 50 patterns. Would you like to narrow your search by category or difficulty?")], "structuredContent": needs_broad},
   server="patterns", tool="search_patterns")

details = {
    "kind": "patternDetails:v1", "id": "effect-service", "title": "Effect.Service Pattern", "category": "service", "difficulty": "intermediate",
    "summary": "Create reusable services using Effect.Service...", "description": "Full description of the pattern...",
    "tags": ["Effect.Service", "dependency-injection"],
    "useGuidance": {"useWhen": "When you need to create reusable, testable services", "avoidWhen": "For simple one-off operations"},
    "sections": [{"title": "Description", "content": "Full description...", "type": "description"},
                 {"title": "Example", "content": "export class MyService...", "type": "example"}],
    "examples": [{"code": "export class MyService extends Effect.Service<MyService>()(\"MyService\", {}) {}", "language": "typescript", "description": "Basic service definition"}],
    "provenance": {"source": "Effect Patterns API", "timestamp": "2026-01-22T21:30:00.000Z", "version": "pps-v2", "marker": "v1"},
}
fx("seed_004_get_pattern", "004 get_pattern normal: markdown card (marker removed) plus patternDetails:v1 structuredContent as results.",
   {"content": [md("# Effect.Service Pattern\n\n<!-- kind:pattern-card:v1 -->\nCreate reusable services using Effect.Service...")], "structuredContent": details},
   server="patterns", tool="get_pattern")
invalid_id = {
    "kind": "needsInput:v1", "type": "elicitation",
    "message": "Pattern \"invalid-id\" not found. Please provide a valid pattern ID.",
    "needsInput": {"fields": ["id"], "reason": "Pattern ID \"invalid-id\" is invalid or does not exist",
                   "suggestions": {"id": ["effect-service", "error-handling-match"]}},
    "options": [
        {"label": "effect-service", "value": "effect-service", "description": "Pattern ID: effect-service", "field": "id"},
        {"label": "error-handling-match", "value": "error-handling-match", "description": "Pattern ID: error-handling-match", "field": "id"},
    ],
}
fx("seed_004_get_pattern_invalid_id", "004 get_pattern with an invalid id: needsInput:v1 (not an error) with id suggestions and options.",
   {"content": [md("## Pattern Not Found\n\nPattern \"invalid-id\" not found...")], "structuredContent": invalid_id},
   server="patterns", tool="get_pattern")
tool_error = {"kind": "toolError:v1", "code": "NETWORK_ERROR", "message": "Could not reach the Effect Patterns API (timeout after 10s).",
              "retryable": True, "details": {"endpoint": "/api/patterns", "timeoutMs": 10000}}
fx("seed_004_tool_error", "004 toolError:v1 with isError: code, message, retryable and details are parsed; the summary starts with the error.",
   {"content": [{"type": "text", "text": "Network error: could not reach the Effect Patterns API.", "mimeType": "text/plain"}, jblock(tool_error)],
    "structuredContent": tool_error, "isError": True}, server="patterns", tool="search_patterns")

# ---------------------------------------------------------------- edge cases: where binaries hide

fx("edge_nested_pdf_at_depth", "A base64 PDF five levels deep (objects in arrays) is found, named from its sibling `filename`, and replaced by a reference in place.",
   both({"job": {"outputs": [{"stage": "render", "files": [{"filename": "deep.pdf", "blob": b64(pdf("deep"))}]}]}}))
fx("edge_array_of_pdfs", "An array of base64 PDFs (no names) gives one artifact each, named <tool>.pdf, <tool>-2.pdf, <tool>-3.pdf.",
   both({"pdfs": [b64(pdf("one")), b64(pdf("two")), b64(pdf("three"))]}), tool="export_all")
fx("edge_line_wrapped_base64_in_json", "Base64 wrapped at 76 characters with CRLF (MIME style) inside a JSON field is still recognised and decoded to the exact PDF.",
   both({"report": {"name": "wrapped.pdf", "data": wrapped(pdf("wrapped"))}}))
purl = png(8, 8, seed=11)
assert "+" in b64(purl) or "/" in b64(purl)
fx("edge_url_safe_base64_image", "An image block whose data uses the URL-safe alphabet (- and _) and no padding decodes to the same PNG bytes.",
   {"content": [{"type": "image", "data": b64url(purl).rstrip("="), "mimeType": "image/png"}]})
fx("edge_data_url_whole_field", "A whole JSON field holding a data: URL (base64 PNG) becomes an artifact with the URL's MIME type; named from the sibling `title`.",
   both({"chart": {"title": "Revenue", "src": "data:image/png;base64," + b64(PNG_SMALL)}}))
fx("edge_data_url_percent_encoded_svg", "A percent-encoded (not base64) data: URL with an SVG is decoded and stored as image/svg+xml.",
   both({"icon": "data:image/svg+xml," + "%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%22%20width%3D%224%22%20height%3D%224%22%3E%3Crect%20width%3D%224%22%20height%3D%224%22%2F%3E%3C%2Fsvg%3E" + "%20" * 60}))
fx("edge_data_url_inside_markdown", "A markdown image with a data: URL inside prose: the image is stored and the markdown keeps an artifact: reference where the bytes were.",
   {"content": [md("# Chart\n\nHere it is: ![revenue](data:image/png;base64," + b64(PNG_SMALL) + ") and that is all.")]})
fx("edge_whole_text_block_is_base64_png", "A text block that is nothing but base64 of a PNG (server forgot the image block) becomes an image artifact; no text is left.",
   {"content": [text("Chart follows."), text(b64(PNG_NOISY))]})
fx("edge_raw_base64_inside_prose_is_scrubbed", "Raw base64 (not a data: URL) inside a sentence is not extracted, but the summary never carries it: the run is replaced by a note.",
   {"content": [text("Here is the file: " + b64(pdf("inline")) + " (end)")]})
fx("edge_gif_image_block", "A real GIF in an image block is stored as image/gif with the image viewer.",
   {"content": [{"type": "image", "data": b64(gif()), "mimeType": "image/gif"}]})
fx("edge_audio_wav_block", "An audio block with a real WAV (declared audio/wav) is stored, audio viewer, declared type kept (wav and x-wav are the same).",
   {"content": [{"type": "audio", "data": b64(wav()), "mimeType": "audio/wav"}]})
fx("edge_zip_artifact_not_showable", "A zip artifact is stored but has no viewer, so the canvas does not open by itself.",
   both({"results": "archive ready", "artifacts": [{"name": "bundle.zip", "b64": b64(zip_bytes()), "mime": "application/zip"}]}))

# ---------------------------------------------------------------- contract shapes

fx("edge_legacy_mismatched_lengths", "Legacy arrays with 3 names and 2 contents: a warning, and only the 2 complete pairs are stored.",
   both({"results": "files", "returned_file_names": ["a.txt", "b.txt", "c.txt"], "returned_file_contents": [b64("alpha\n"), b64("beta\n")]}))
fx("edge_artifacts_and_legacy_both", "`artifacts` and legacy arrays both present: `artifacts` wins (000 §1), the legacy arrays are ignored with a warning.",
   both({"results": "x", "artifacts": [{"name": "new.png", "b64": b64(PNG_SMALL), "mime": "image/png"}],
         "returned_file_names": ["old.png"], "returned_file_contents": [b64(png(2, 2))]}))
fx("edge_invalid_base64_artifact_kept_out", "An artifact whose b64 is not base64 is not stored (warning); the valid one beside it is kept.",
   both({"results": "two files", "artifacts": [{"name": "bad.png", "b64": "this is *not* base64!!", "mime": "image/png"},
                                               {"name": "good.png", "b64": b64(PNG_SMALL), "mime": "image/png"}]}))
good = b64(gif())  # 43 bytes: ends with "==", the last data character carries 4 unused bits
assert good.endswith("==") and good[-3] in "AQgw"
bad_tail = good[:-3] + chr(ord(good[-3]) + 1) + "=="  # unused bits set: strict decoders refuse it
fx("edge_base64_with_bad_trailing_bits", "Base64 whose last character carries non-zero padding bits (not decodable by a strict decoder) is kept out at normalization with a warning, not left to fail in the store.",
   {"content": [{"type": "image", "data": bad_tail, "mimeType": "image/gif"}, text("after")]})
fx("edge_empty_content", "`content: []` and nothing else: no texts, no artifacts, a clear summary.", {"content": []})
fx("edge_is_error_with_image", "isError with a text and an image: the error comes from the text, the image is still stored and referenced.",
   {"content": [text("Rendering failed halfway; partial chart attached."), {"type": "image", "data": b64(PNG_SMALL), "mimeType": "image/png"}], "isError": True})
fx("edge_duplicate_artifact_names", "Two artifacts named chart.png with different bytes: the second becomes 'chart (2).png'; primary_file picks the first.",
   both({"results": "two charts", "artifacts": [{"name": "chart.png", "b64": b64(png(1, 1, rgb=(0, 0, 255))), "mime": "image/png"},
                                                {"name": "chart.png", "b64": b64(png(1, 1, rgb=(0, 255, 0))), "mime": "image/png"}],
         "display": {"primary_file": "chart.png"}}))
fx("edge_declared_size_mismatch", "An artifact's declared `size` disagrees with its bytes: stored anyway with the true size, and a warning.",
   both({"results": "r", "artifacts": [{"name": "x.png", "b64": b64(PNG_SMALL), "mime": "image/png", "size": 99999}]}))
fx("edge_artifact_without_b64", "An artifact entry without b64/data is skipped with a warning naming it.",
   both({"results": "r", "artifacts": [{"name": "ghost.pdf", "mime": "application/pdf"}, "not an object"]}))
fx("edge_contract_with_extra_keys", "A v2 payload that carries artifacts plus keys outside the contract (`status`, `debug`): still the contract, and the extra keys are named in a warning rather than dropped silently.",
   both({"results": "saved", "status": "ok", "debug": {"ms": 5}, "artifacts": [{"name": "a.png", "b64": b64(PNG_SMALL), "mime": "image/png"}]}))
fx("edge_summary_bound_many_artifacts", "Fifteen images with max_summary_chars = 600: the artifact lines stop at their share of the budget with '…and N more artifacts', and the summary stays within 600 characters.",
   {"content": [text("Rendered 15 thumbnails.")] + [{"type": "image", "data": b64(png(1, 1, rgb=(i, 0, 0))), "mimeType": "image/png"} for i in range(15)]},
   tool="thumbs", rules_toml="max_summary_chars = 600\n")
fx("edge_tool_error_kind_without_is_error", "A toolError:v1 JSON block without isError still yields the error (the kind decides).",
   both({"kind": "toolError:v1", "code": "NOT_FOUND", "message": "Workbook 42 does not exist.", "retryable": False}))
fx("edge_results_with_pagination_keys", "A plain API object that happens to have a `results` key next to other keys (REST pagination: count/next) is NOT the v2 contract: nothing is dropped.",
   both({"count": 2, "next": "https://api.example.com/items?page=2", "previous": None, "results": [{"id": 1}, {"id": 2}]}))
fx("edge_display_key_in_plain_data", "A plain object with a `display` string field (a monitor spec) is not mistaken for the v2 display block.",
   both({"display": "27-inch 4K", "brightness": 350}), tool="get_monitor")

# ---------------------------------------------------------------- MIME lies

fx("edge_mime_lie_png_is_html", "An image block declared image/png whose bytes are HTML is NOT an image: stored as text/html (sanitized HTML viewer) with a warning.",
   {"content": [{"type": "image", "data": b64(HTML), "mimeType": "image/png"}]})
fx("edge_mime_lie_png_is_svg", "Declared image/png but the bytes are SVG (with a script): stored as image/svg+xml, never as image/png; warning.",
   {"content": [{"type": "image", "data": b64(SVG), "mimeType": "image/png"}]})
fx("edge_mime_lie_pdf_is_text", "A resource blob declared application/pdf whose bytes are plain text is stored as text/plain, not as a PDF; warning.",
   {"content": [{"type": "resource", "resource": {"uri": "file:///r/report.pdf", "mimeType": "application/pdf", "blob": b64("This is not a PDF, just words.\n")}}]})
fx("edge_mime_lie_html_is_png", "A v2 artifact declared text/html whose bytes are a real PNG is stored as image/png (a real binary beats a textual declaration).",
   both({"results": "r", "artifacts": [{"name": "page.html", "b64": b64(PNG_SMALL), "mime": "text/html"}]}))

# A declared type is data: only a real media type is kept, anything else is a warning and the bytes decide.
fx("edge_mime_crlf_header_injection", "An image block whose mimeType carries CR/LF and a header (`image/png\\r\\nX-Injected: 1`): not a media type, so it is ignored with a warning naming it escaped, and the bytes decide (image/png); only the escaped form, in the warning, reaches the summary.",
   {"content": [text("Chart attached."), {"type": "image", "data": b64(png(2, 2)), "mimeType": "image/png\r\nX-Injected: 1\r\n\r\n<script>"}]})
fx("edge_mime_control_characters", "A resource blob whose mimeType holds ESC, NUL and BEL: refused with a warning; its bytes (words) are text/plain. A text block's control-character mimeType is dropped the same way.",
   {"content": [{"type": "resource", "resource": {"uri": "file:///r/notes", "mimeType": "application/x-\u001b[31mevil\u0000\u0007", "blob": b64("Just some words in a file.\n")}},
                text("Plain words.", mimeType="text/\u001b]0;title\u0007plain")]})
fx("edge_mime_10kb", "A 10 KB mimeType on a v2 artifact, a text resource and a text block: longer than 255 bytes, refused with a warning quoting only its first 40 characters; the PDF is application/pdf by its bytes, the text resource text/plain, the text block has no type.",
   {"content": [text("Two files.", mimeType="text/" + "x" * 10240),
                {"type": "resource", "resource": {"uri": "file:///r/readme.txt", "mimeType": "text/" + "y" * 10240, "text": "Read me.\n"}}],
    "structuredContent": {"results": "r", "artifacts": [{"name": "report.pdf", "b64": b64(PDF), "mime": "application/" + "z" * 10240}]}})
fx("edge_mime_parameters_and_case", "Valid media types are kept in canonical form: `IMAGE/PNG` and `image/png; charset=\"x\"` are image/png artifacts (an artifact keeps the type alone), a text block's `text/html;;` is text/html and `Text/Markdown ;Charset=UTF-8` text/markdown; charset=UTF-8. No warnings.",
   {"content": [{"type": "image", "data": b64(png(3, 1)), "mimeType": "IMAGE/PNG"},
                {"type": "image", "data": b64(png(1, 3)), "mimeType": "image/png; charset=\"x\""},
                text("<b>bold</b> words", mimeType="text/html;;"),
                text("# Title", mimeType="Text/Markdown ;Charset=UTF-8")]})
fx("edge_mime_empty", "An empty or blank mimeType is no declaration: the bytes decide, without a warning; a text block keeps no type.",
   {"content": [{"type": "image", "data": b64(png(4, 1)), "mimeType": ""},
                text("words", mimeType="  ")],
    "structuredContent": {"results": "r", "artifacts": [{"name": "report.pdf", "b64": b64(PDF), "mime": ""}]}})

# ---------------------------------------------------------------- names

fx("edge_name_path_traversal", "An artifact named ../../etc/passwd is reduced to its last component (never a path), with a warning.",
   both({"results": "r", "artifacts": [{"name": "../../etc/passwd", "b64": b64("root:x:0:0\n"), "mime": "text/plain"}]}))
fx("edge_name_control_characters", "Control characters (NUL, newline, ESC) in a name become underscores.",
   both({"results": "r", "artifacts": [{"name": "re\u0000port\n\u001b[31m.pdf", "b64": b64(PDF), "mime": "application/pdf"}]}))
fx("edge_name_bidi_override", "A name with a right-to-left override (invoice\u202efdp.exe displays as 'invoiceexe.pdf') loses the override, so the real extension shows; the bytes start with 'MZ' (an executable's signature), so the declared PDF type is refused and nothing opens.",
   both({"results": "r", "artifacts": [{"name": "invoice\u202efdp.exe", "b64": b64("MZ not really an exe\n"), "mime": "application/pdf"}]}))
fx("edge_name_very_long", "A 300-character name is cut to 120 characters, keeping the extension.",
   both({"results": "r", "artifacts": [{"name": "q" * 300 + ".png", "b64": b64(PNG_SMALL), "mime": "image/png"}]}))

# ---------------------------------------------------------------- annotations

fx("edge_audience_user_only_text", "Text annotated audience [user] is shown to the user but never appears in the summary; the assistant/both texts do.",
   {"content": [text("SECRET-FOR-USER-EYES: full account statement", annotations={"audience": ["user"]}),
                text("For the model: 3 transactions found.", annotations={"audience": ["assistant"], "priority": 0.9}),
                text("Shared line.")]})
fx("edge_audience_user_only_image", "An image annotated audience [user] is stored and shown, but the summary does not mention it.",
   {"content": [text("Done."), {"type": "image", "data": b64(PNG_SMALL), "mimeType": "image/png", "annotations": {"audience": ["user"]}}]})
fx("edge_audience_user_only_everything", "A result that is only an image for the user: stored and shown, never named to the model, whose summary says content came for the user only (not that the tool returned nothing).",
   {"content": [{"type": "image", "data": b64(png(5, 1)), "mimeType": "image/png", "annotations": {"audience": ["user"]}},
                text("The full statement, for your eyes.", annotations={"audience": ["user"]})]})
fx("edge_audience_assistant_only_image", "An image for the assistant only is listed in the summary but does not open the canvas.",
   {"content": [{"type": "image", "data": b64(PNG_SMALL), "mimeType": "image/png", "annotations": {"audience": ["assistant"]}}]})
fx("edge_is_error_user_only_text", "isError where the first text is for the user only: the error message in the summary must not come from it.",
   {"content": [text("USER-ONLY: internal trace id 77 and stack", annotations={"audience": ["user"]}), text("Quota exceeded for this month.")], "isError": True})
fx("edge_user_only_json_block", "A canonical JSON block annotated audience [user]: still parsed as the structured result, but its content stays out of the summary, and the PDF found inside it is a user-only artifact (not listed for the model).",
   {"content": [text("Balance retrieved."), jblock({"iban": "DE89370400440532013000", "balance": 1234.5, "statement": {"filename": "statement.pdf", "data": b64(pdf("statement"))}}, annotations={"audience": ["user"]})]})
fx("edge_priority_annotations", "priority 0.8 is kept on the text; priority 1.5 is outside 0..1 and warned about (the text is kept).",
   {"content": [text("important", annotations={"priority": 0.8}), text("odd", annotations={"priority": 1.5, "audience": ["user", "assistant"]})]})

# ---------------------------------------------------------------- resources and block types

fx("edge_resource_text_json", "A text resource (application/json) is stored as a JSON artifact named from its URI; title becomes the description.",
   {"content": [{"type": "resource", "resource": {"uri": "file:///project/config.json", "title": "Configuration File", "mimeType": "application/json", "text": "{\"key\": \"value\"}"}}]})
fx("edge_resource_blob_pdf", "A resource blob holding a real PDF is stored as application/pdf with the PDF viewer, named from the URI's last segment (percent-decoded).",
   {"content": [{"type": "resource", "resource": {"uri": "tableau://workbook/12345/Sales%20Report.pdf", "mimeType": "application/pdf", "blob": b64(PDF)}}]})
fx("edge_resource_link", "A resource_link becomes a one-line text with name, URI and description; nothing is fetched or stored.",
   {"content": [{"type": "resource_link", "uri": "file:///project/src/main.rs", "name": "main.rs", "description": "Primary application entry point", "mimeType": "text/x-rust"}]})
fx("edge_unknown_block_between_valid", "An unknown block type between two valid text blocks is skipped with a warning; both texts are kept.",
   {"content": [text("before"), {"type": "video", "url": "https://x"}, text("after")]})

# ---------------------------------------------------------------- display and canvas

fx("edge_display_invalid_mode", "display.mode 'fullscreen' is not replace|append|split: replace, with a warning.",
   both({"results": "r", "artifacts": [{"name": "a.png", "b64": b64(PNG_SMALL), "mime": "image/png"}], "display": {"mode": "fullscreen"}}))
fx("edge_display_split_mode", "display.mode 'split' and open_canvas true are honoured.",
   both({"results": "r", "artifacts": [{"name": "a.png", "b64": b64(PNG_SMALL), "mime": "image/png"}], "display": {"mode": "split", "open_canvas": True}}))
fx("edge_primary_file_names_nothing", "display.primary_file names no artifact: warning, and the first showable artifact is primary (the zip is skipped).",
   both({"results": "r", "artifacts": [{"name": "a.zip", "b64": b64(zip_bytes()), "mime": "application/zip"},
                                       {"name": "b.png", "b64": b64(PNG_SMALL), "mime": "image/png"}],
         "display": {"primary_file": "missing.pdf"}}))
fx("edge_viewer_hints", "Artifact viewer hints: 'code' on a text file is accepted, 'hologram' is unknown (warning), 'pdf' on a PNG does not suit (warning, image viewer kept).",
   both({"results": "r", "artifacts": [
       {"name": "main.py", "b64": b64("print('hi')\n"), "mime": "text/x-python", "viewer": "code"},
       {"name": "x.png", "b64": b64(PNG_SMALL), "mime": "image/png", "viewer": "hologram"},
       {"name": "y.png", "b64": b64(png(1, 1, rgb=(1, 2, 3))), "mime": "image/png", "viewer": "pdf"}]}))
fx("edge_display_viewer_hint_mismatch", "display.viewer_hint 'html' while the primary artifact is a PNG: the hint does not suit the primary and is dropped with a warning.",
   both({"results": "r", "artifacts": [{"name": "a.png", "b64": b64(PNG_SMALL), "mime": "image/png"}], "display": {"viewer_hint": "html"}}))
fx("edge_canvas_valid_pinned_split", "A valid canvas envelope with pinned persistence and split mode.",
   both({"results": {"status": "opened"}, "canvas": {"open": True, "id": "sales-live", "persistence": "pinned", "type": "iframe", "url": "https://dash.example.com/live", "title": "Sales", "mode": "split"}}))
fx("edge_canvas_javascript_url", "A canvas envelope with a javascript: URL is refused with a warning; no dashboard.",
   both({"results": "r", "canvas": {"open": True, "id": "x", "url": "javascript:alert(document.cookie)"}}))
fx("edge_canvas_userinfo_url", "A canvas URL carrying user:password@ is refused.",
   both({"results": "r", "canvas": {"open": True, "id": "x", "url": "https://admin:hunter2@dash.example.com/"}}))
fx("edge_canvas_bad_persistence", "persistence 'forever' is not session|ephemeral|pinned: session, with a warning; the envelope is kept.",
   both({"results": "r", "canvas": {"open": True, "id": "x", "url": "https://dash.example.com/", "persistence": "forever"}}))
fx("edge_canvas_open_false", "A canvas envelope with open: false is no dashboard and no warning.",
   both({"results": "r", "canvas": {"open": False, "id": "x", "url": "https://dash.example.com/"}}))

# ---------------------------------------------------------------- sizes, schemas, rules

big_meta = {f"metric_{i:03d}": f"value number {i} with some padding text" for i in range(120)}
fx("edge_meta_data_over_4kb", "meta_data over 4 KB serialized becomes a JSON artifact (meta_data.json) with a warning instead of being inlined.",
   {"content": [jblock({"results": "ok", "meta_data": big_meta}, indent=None)]})
fx("edge_json_block_vs_structured_disagree", "The JSON block and structuredContent disagree: warning, and the JSON block is canonical (004).",
   {"content": [jblock({"total": 5, "source": "json-block"})], "structuredContent": {"total": 4, "source": "structuredContent"}})
fx("edge_structured_only_no_content", "structuredContent with no content at all is used as the structured result.",
   {"structuredContent": {"temperature": 22.5, "conditions": "Partly cloudy"}})
fx("edge_output_schema_required_missing", "The tool's outputSchema requires `temperature` and `humidity`; the result lacks `humidity`: warning, result kept.",
   both({"temperature": 22.5, "conditions": "Partly cloudy"}),
   output_schema={"type": "object", "properties": {"temperature": {"type": "number"}, "humidity": {"type": "number"}}, "required": ["temperature", "humidity"]})
fx("edge_rule_star_path", "A rule path with [*] extracts every page image, names them from `label` (extension added) and fills the template per page.",
   both({"document": "Q3", "pages": [{"page": 1, "label": "cover", "png": b64(png(1, 1, rgb=(10, 10, 10)))}, {"page": 2, "label": "totals", "png": b64(png(1, 1, rgb=(20, 20, 20)))}]}),
   tool="render_pages",
   rules_toml='[[rules]]\ntool = "render_*"\n[[rules.fields]]\npath = "pages[*].png"\nmime = "image/png"\nfilename_field = "label"\nsummary = "Page {page} \'{filename}\' ({size_human})"\n')
fx("edge_rule_value_not_base64", "A rule names a field whose value is ordinary text: left inline with a warning, nothing stored.",
   both({"content": "Sorry, the workbook is empty.", "name": "Empty"}), server="tableau", tool="download_workbook",
   rules_toml='[[rules]]\ntool = "download_workbook"\n[[rules.fields]]\npath = "content"\nmime = "application/pdf"\n')
fx("edge_rules_toml_invalid", "A rules file with an unknown key is refused as a configuration error (not silently ignored).",
   {"content": [text("x")]}, rules_toml='[[rules]]\ntool = "x"\npaht = "typo"\nfields = []\n')

para = ("The quarterly review covered revenue, churn and hiring across all regions. "
        "Each team presented its numbers and the open risks for the next quarter. ")
long_text = ""
i = 0
while len(long_text) < 12_000:
    i += 1
    long_text += f"[{i}] " + para
fx("edge_long_markdown_with_data_url", "A 12,000-character markdown text that starts with a data: URL image: the image is stored, and the stored text artifact must not contain the internal ⟦artifact:N⟧ placeholder (its head shows what replaced it).",
   {"content": [md("![cover](data:image/png;base64," + b64(PNG_SMALL) + ")\n\n" + long_text)]}, tool="notes")
rows = [{"row": i, "city": "Springfield", "amount": i * 3.5, "note": "ordinary row of a long table"} for i in range(120)]
fx("edge_long_results_with_binary", "Results over 10,000 characters that also held a base64 PDF: the PDF is stored, the results become a JSON artifact, and that stored JSON must not contain the internal ⟦artifact:N⟧ placeholder.",
   {"structuredContent": {"attachment": b64(pdf("att")), "rows": rows}}, tool="big_table")
fx("edge_image_block_with_data_url", "An image block whose `data` is a whole data: URL instead of bare base64 (a common server mistake) is still decoded and stored.",
   {"content": [{"type": "image", "data": "data:image/png;base64," + b64(PNG_SMALL), "mimeType": "image/png"}]})
fx("edge_text_over_10000_chars", "A 12,000-character text block exceeds max_inline_chars: stored as a text artifact, the summary carries a head/tail preview and a warning.",
   {"content": [text(long_text)]}, tool="meeting_notes")

# ---------------------------------------------------------------- no false positives

hexid = "".join("%02x" % ((i * 37 + 11) % 256) for i in range(160))  # 320 hex chars
fx("edge_no_false_positive_long_hex", "A 320-character hex id and a list of sha256 ids: hex is in the base64 alphabet but decodes to nothing recognisable, so it stays inline (results and summary); no artifact.",
   both({"trace": hexid, "commits": ["%064x" % (i * 0x9e3779b97f4a7c15) for i in range(1, 6)]}))
jwt = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + base64.urlsafe_b64encode(json.dumps({"sub": "1234567890", "name": "John Doe", "iat": 1516239022, "scope": "read:reports write:reports admin:none " * 4}).encode()).decode().rstrip("=")
       + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
fx("edge_no_false_positive_jwt", "A long JWT (dots between base64url parts) is not base64 as a whole: stays inline, no artifact, and the model's summary keeps it usable (its claims decode to text).",
   both({"access_token": jwt, "token_type": "Bearer"}))
fx("edge_no_false_positive_aaaa_run", "A 1,024-character run of 'A' (valid base64 of zero bytes) is not a binary: stays inline in results, no artifact (the summary still never carries a 1 KB run).",
   both({"padding": "A" * 1024, "note": "zeros"}))
english = ("It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness, "
           "it was the epoch of belief, it was the epoch of incredulity, it was the season of Light, it was the season of Darkness.")
fx("edge_no_false_positive_base64_of_english", "Base64 of plain English prose decodes to text, not a binary or document: the field stays inline, no artifact.",
   both({"encoded_quote": b64(english + " " + english)}))
uuids = ["%08x-%04x-4%03x-a%03x-%012x" % (i * 2654435761 % 2**32, i * 40503 % 2**16, i % 4096, (i * 7) % 4096, i * 0x5DEECE66D % 2**48) for i in range(1, 21)]
fx("edge_no_false_positive_uuid_list", "Twenty UUIDs, as an array and as one space-separated string (all characters in the URL-safe base64 alphabet): inline, no artifact.",
   both({"ids": uuids, "ids_joined": " ".join(uuids)}))
prose = ""
while len(prose) < 5000:
    prose += "Long ordinary prose about the migration plan keeps going, sentence after sentence, without any encoded data in it at all. "
fx("edge_no_false_positive_long_prose", "5,000 characters of ordinary prose (under the 10,000 limit): stays inline as text, no artifact; the summary is cut to its bound.",
   {"content": [text(prose)]})
csvish = "name,qty\napple,3\npear,1\nfig,9\n" * 10
fx("edge_base64_of_csv_is_a_document", "Base64 of a real CSV table in a JSON field is recognised as text/csv by content and stored (a document hidden in base64), named from `filename`.",
   both({"export": {"filename": "fruit", "data": b64(csvish)}}))

deep = {"v": b64(PDF)}
for _ in range(6):
    deep = {"n": deep}
fx("edge_nesting_deeper_than_limit", "JSON nested deeper than max_depth (set to 3 here; default 64): the walk stops with a warning instead of recursing without bound; the result is kept and the summary still carries no base64 payload.",
   {"structuredContent": deep}, rules_toml="max_depth = 3\n")

os.makedirs(OUT, exist_ok=True)
for name, body in FIXTURES.items():
    path = os.path.join(OUT, name + ".json")
    if os.path.exists(path):
        old = json.load(open(path))
        if "expected" in old:
            body["expected"] = old["expected"]
    with open(path, "w") as f:
        f.write(json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
print(len(FIXTURES), "fixtures;", sum(1 for n in FIXTURES if n.startswith("seed_")), "seed,", sum(1 for n in FIXTURES if n.startswith("edge_")), "edge")
