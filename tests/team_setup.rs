//! docs/team-store.md's setup, done literally: the admin's SQL as the page has it (read from the
//! page), then two members with database roles of their own. The second member's role must reach
//! the schema the first member's created (it once got `permission denied for table
//! mcp_canvas_schema`).

use std::path::Path;

use mcp_canvas_e2e::team::{Postgres, S3Server, PASSWORD};
use serde_json::Value;

/// The SQL of "Once per team", step 2, as docs/team-store.md shows it.
fn documented_sql() -> Vec<String> {
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/team-store.md")).unwrap();
    let step = page.split("2. A database").nth(1).expect("docs/team-store.md has step 2, the database").split("## Each member").next().unwrap();
    let sql: Vec<String> = step.lines().map(str::trim).filter(|l| l.starts_with("CREATE ") || l.starts_with("GRANT ")).map(|l| l.replace('…', PASSWORD)).collect();
    assert!(sql.iter().any(|l| l.contains("ada")) && sql.iter().any(|l| l.contains("bo")), "the page's SQL names two members' roles: {sql:?}");
    sql
}

fn member_as(dir: &Path, role: &str, args: &[&str]) -> mcp_canvas_e2e::Run {
    // The member's own role and password, as the page's settings.toml has them.
    let settings = std::fs::read_to_string(dir.join("settings.toml")).unwrap();
    assert!(settings.contains(&format!("postgres://{role}@")));
    mcp_canvas_e2e::team::member(dir, args, b"")
}

fn join_as(s3: &S3Server, pg: &Postgres, role: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let settings = mcp_canvas_e2e::team::store_settings(s3, pg, role).replace("postgres://canvas@", &format!("postgres://{role}@"));
    std::fs::write(dir.path().join("settings.toml"), settings).unwrap();
    dir
}

fn json_of(run: &mcp_canvas_e2e::Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr))
}

#[test]
fn the_documented_setup_works_for_two_members_with_roles_of_their_own() {
    let (s3, pg) = (S3Server::start(), Postgres::start());
    // A fresh server: the test harness's own database and role go, the page's SQL makes them.
    pg.admin_on("postgres", "DROP DATABASE canvas");
    pg.admin_on("postgres", "DROP ROLE canvas");
    for statement in documented_sql() {
        pg.admin_on("postgres", &statement);
    }
    let (ada, bo) = (join_as(&s3, &pg, "ada"), join_as(&s3, &pg, "bo"));

    // Ada is first: her `store status` creates the schema; her call's chart is shared.
    let status = member_as(ada.path(), "ada", &["store", "status", "--json"]);
    assert_eq!(json_of(&status)["catalog_error"], Value::Null, "{}", status.stdout);
    let call = member_as(ada.path(), "ada", &["call", "demo", "render_chart", "--json", "--args", r#"{"values": [1, 2, 3]}"#]);
    assert_eq!(call.code, 0, "{}", call.stderr);
    let ada_id = json_of(&call)["artifacts"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(pg.admin("SELECT tableowner FROM pg_tables WHERE tablename = 'mcp_canvas_schema'"), "canvas", "the schema belongs to the catalog's owner role");

    // Bo, with a role of his own: status, list, his own call shared, private and shared again, Ada's file pulled.
    let status = member_as(bo.path(), "bo", &["store", "status", "--json"]);
    let status = json_of(&status);
    assert_eq!(status["catalog_error"], Value::Null, "{status}");
    assert_eq!(status["schema_version"], mcp_canvas_team::SCHEMA_VERSION);
    let list = member_as(bo.path(), "bo", &["store", "list", "--json"]);
    assert!(json_of(&list).as_array().unwrap().iter().any(|a| a["record"]["id"] == ada_id.as_str() && a["member"] == "ada"), "{}", list.stdout);
    let call = member_as(bo.path(), "bo", &["call", "demo", "render_chart", "--json", "--args", r#"{"values": [9, 8]}"#]);
    assert!(call.code == 0 && !call.stderr.contains("not sent"), "{}", call.stderr);
    let bo_id = json_of(&call)["artifacts"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(member_as(bo.path(), "bo", &["store", "private", &bo_id]).code, 0);
    let share = member_as(bo.path(), "bo", &["store", "share", &bo_id]);
    assert_eq!(share.code, 0, "{}", share.stderr);
    let pull = member_as(bo.path(), "bo", &["store", "pull", &ada_id]);
    assert_eq!(pull.code, 0, "{}", pull.stderr);
    let sync = member_as(bo.path(), "bo", &["store", "sync", "--json"]);
    assert_eq!(json_of(&sync)["error"], Value::Null, "{}", sync.stdout);
    assert_eq!(pg.admin("SELECT string_agg(member, ',' ORDER BY member) FROM artifacts"), "ada,bo");

    // A role the admin forgot to grant: the error names the grant.
    pg.admin_on("postgres", &format!("CREATE ROLE cy LOGIN PASSWORD '{PASSWORD}'"));
    let cy = join_as(&s3, &pg, "cy");
    let list = member_as(cy.path(), "cy", &["store", "list"]);
    assert!(list.code != 0 && list.stderr.contains("permission denied for table mcp_canvas_schema") && list.stderr.contains("GRANT canvas TO"), "{}", list.stderr);
}
