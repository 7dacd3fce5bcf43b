-- 0007_upstreams: the other MCP servers mcptray fronts, and what they offer
-- that the person has not approved yet.

-- One row per server (catalog.Upstream as JSON). Its approved tools are in
-- tools, each with an upstream action naming the server.
CREATE TABLE upstreams (
    name       TEXT PRIMARY KEY NOT NULL,
    definition TEXT NOT NULL CHECK (json_valid(definition)),
    updated_at TEXT NOT NULL
) STRICT;

-- A tool a server offers that differs from what the person approved: new,
-- changed, or gone. definition is the server's tool as it offers it now
-- (NULL when gone); hash is its definition hash. Rewritten as a whole for
-- a server each time its tools are read.
CREATE TABLE upstream_changes (
    server     TEXT NOT NULL,
    tool       TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('new', 'changed', 'gone')),
    definition TEXT CHECK (definition IS NULL OR json_valid(definition)),
    hash       TEXT NOT NULL DEFAULT '',
    seen_at    TEXT NOT NULL,
    PRIMARY KEY (server, tool)
) STRICT;
