-- 0001_init: the catalog (one table per kind, each row a JSON definition),
-- settings, client tokens and the server's own keys.

CREATE TABLE tools (
    name       TEXT PRIMARY KEY NOT NULL,
    definition TEXT NOT NULL CHECK (json_valid(definition)),
    updated_at TEXT NOT NULL
) STRICT;

CREATE TABLE resources (
    uri        TEXT PRIMARY KEY NOT NULL,
    definition TEXT NOT NULL CHECK (json_valid(definition)),
    updated_at TEXT NOT NULL
) STRICT;

CREATE TABLE resource_templates (
    uri_template TEXT PRIMARY KEY NOT NULL,
    definition   TEXT NOT NULL CHECK (json_valid(definition)),
    updated_at   TEXT NOT NULL
) STRICT;

CREATE TABLE prompts (
    name       TEXT PRIMARY KEY NOT NULL,
    definition TEXT NOT NULL CHECK (json_valid(definition)),
    updated_at TEXT NOT NULL
) STRICT;

-- One row per settings field, keyed by its JSON name; keys this binary does
-- not know are kept and ignored.
CREATE TABLE settings (
    key        TEXT PRIMARY KEY NOT NULL,
    value      TEXT NOT NULL CHECK (json_valid(value)),
    updated_at TEXT NOT NULL
) STRICT;

-- Client tokens: only the SHA-256 of the secret is stored. tools is a JSON
-- array of tool names, or NULL for every tool.
CREATE TABLE tokens (
    name         TEXT PRIMARY KEY NOT NULL,
    hash         BLOB NOT NULL UNIQUE,
    tools        TEXT CHECK (tools IS NULL OR json_valid(tools)),
    created_at   TEXT NOT NULL,
    last_used_at TEXT
) STRICT;

CREATE TABLE server_keys (
    name  TEXT PRIMARY KEY NOT NULL,
    value BLOB NOT NULL
) STRICT;
