-- 0004_remembered_approvals: the approvals a person allowed "until I revoke
-- it" in the approval window, so they outlive a restart.

-- One row per approval: the client token's name ('' when auth is off), the
-- client app's declared name (clientInfo.name: every stdio client shares the
-- shim's token), the tool's name and the SHA-256 of its definition when it
-- was allowed (mcpcore's toolHash: an edited tool no longer matches and asks
-- again). Rows of a tool since edited, renamed or deleted stay until revoked:
-- the Settings list shows them as no longer matching.
CREATE TABLE remembered_approvals (
    token      TEXT NOT NULL,
    client     TEXT NOT NULL,
    tool       TEXT NOT NULL,
    tool_hash  TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (token, client, tool, tool_hash)
) STRICT;
