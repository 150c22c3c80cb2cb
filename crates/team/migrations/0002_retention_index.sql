-- Team retention finds unpinned artifacts unused since a cutoff without scanning the team.
CREATE INDEX artifacts_team_retention ON artifacts (team, last_used_at_ms) WHERE NOT pinned;
