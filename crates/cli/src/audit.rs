//! `audit`: this data dir's audit log, or with `--team` the team's audit trail (every member's
//! calls and sampling exchanges, what this member may see), filtered.

use std::process::ExitCode;

use clap::Args;
use mcp_canvas_host::Host;
use mcp_canvas_store::AuditFilter;
use mcp_canvas_team::{TeamAuditQuery, TeamLogKind};

use crate::fail;

/// `audit`'s options.
#[derive(Args, Debug)]
pub(crate) struct AuditArgs {
    /// The team's audit trail (team store): every member's calls and sampling exchanges, except
    /// calls naming a teammate's private artifact.
    #[arg(long)]
    team: bool,
    /// Only this server's calls (and, with --team, its sampling exchanges).
    #[arg(long)]
    server: Option<String>,
    /// Only calls of this tool.
    #[arg(long)]
    tool: Option<String>,
    /// Only this outcome (`ok`, `tool_error`, `protocol_error`, `timeout`, `cancelled`,
    /// `refused`; for sampling exchanges their decision: `automatic`, `approved`, `rejected`, …).
    #[arg(long)]
    outcome: Option<String>,
    /// With --team: only this member's rows.
    #[arg(long, requires = "team")]
    member: Option<String>,
    /// From this time on: `30m`, `12h`, `7d` ago, or a UTC date `YYYY-MM-DD`.
    #[arg(long, value_parser = parse_since)]
    since: Option<i64>,
    /// With --team: only calls, or only sampling exchanges.
    #[arg(long, value_enum, requires = "team")]
    kind: Option<Kind>,
    /// How many rows to show.
    #[arg(long, default_value_t = 50)]
    limit: u32,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Kind {
    Calls,
    Sampling,
}

pub(crate) async fn run(host: &Host, args: AuditArgs) -> ExitCode {
    if args.team {
        return team(host, args).await;
    }
    let filter = AuditFilter { server: args.server.as_deref(), tool: args.tool.as_deref(), outcome: args.outcome.as_deref(), since_ms: args.since, until_ms: None };
    match host.store().audit_log_matching(&filter, args.limit) {
        Ok(records) if args.json => {
            outln!("{}", serde_json::to_string_pretty(&records).expect("serializes"));
            ExitCode::SUCCESS
        }
        Ok(records) => {
            for r in records {
                let identity = r.identity.map(|i| format!(" as {i}")).unwrap_or_default();
                outln!("{}\t{}/{}{identity}\t{}\t{} ms\t{}\t{}", r.started_ms, r.server, r.tool, r.outcome, r.duration_ms, r.arguments, r.artifact_ids.join(","));
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(args.json, &e.to_string()),
    }
}

async fn team(host: &Host, args: AuditArgs) -> ExitCode {
    let query = TeamAuditQuery {
        kind: args.kind.map(|k| match k {
            Kind::Calls => TeamLogKind::Call,
            Kind::Sampling => TeamLogKind::Sampling,
        }),
        member: args.member,
        server: args.server,
        tool: args.tool,
        outcome: args.outcome,
        since_ms: args.since,
        until_ms: None,
        limit: args.limit,
        offset: 0,
    };
    match host.team_audit(&query).await {
        Ok(rows) if args.json => {
            outln!("{}", serde_json::to_string_pretty(&rows).expect("serializes"));
            ExitCode::SUCCESS
        }
        Ok(rows) => {
            for r in rows {
                match (&r.call, &r.exchange) {
                    (Some(call), _) => outln!("{}\t{}\t{}/{}\t{}\t{} ms\t{}\t{}", r.at_ms, r.member, r.server, call.tool, r.outcome, call.duration_ms, call.arguments, r.artifact_ids.join(",")),
                    (None, Some(exchange)) => {
                        let model = format!("{}/{}", exchange["provider"].as_str().unwrap_or(""), exchange["model"].as_str().unwrap_or(""));
                        outln!("{}\t{}\t{}/sampling\t{}\t{model}", r.at_ms, r.member, r.server, r.outcome);
                    }
                    (None, None) => outln!("{}\t{}\t{}/{}\t{}", r.at_ms, r.member, r.server, r.tool.as_deref().unwrap_or("-"), r.outcome),
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(args.json, &e.to_string()),
    }
}

/// `30m`, `12h`, `7d` (that long before now) or `YYYY-MM-DD` (midnight UTC), as ms since the epoch.
fn parse_since(text: &str) -> Result<i64, String> {
    let bad = || format!("`{text}` is not a time: use e.g. 30m, 12h, 7d or 2026-11-01");
    let unit = |c: char| match c {
        's' => Some(1_000),
        'm' => Some(60_000),
        'h' => Some(3_600_000),
        'd' => Some(86_400_000),
        _ => None,
    };
    if let Some((n, ms)) = text.char_indices().last().and_then(|(i, c)| Some((text[..i].parse::<i64>().ok()?, unit(c)?))) {
        return Ok(Host::now_ms() - n * ms);
    }
    let parts: Vec<&str> = text.split('-').collect();
    let [y, m, d] = parts.as_slice() else { return Err(bad()) };
    let (y, m, d): (i64, i64, i64) = (y.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?, d.parse().map_err(|_| bad())?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || y.to_string().len() != 4 {
        return Err(bad());
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Ok((era * 146_097 + doe - 719_468) * 86_400_000)
}

#[cfg(test)]
mod tests {
    #[test]
    fn since_takes_durations_and_dates() {
        assert_eq!(super::parse_since("1970-01-02"), Ok(86_400_000));
        assert_eq!(super::parse_since("2026-11-27"), Ok(1_795_737_600_000));
        let hour_ago = super::parse_since("1h").unwrap();
        assert!((mcp_canvas_host::Host::now_ms() - hour_ago - 3_600_000).abs() < 60_000);
        assert!(super::parse_since("yesterday").unwrap_err().contains("30m, 12h, 7d"));
        assert!(super::parse_since("2026-13-01").is_err());
    }
}
