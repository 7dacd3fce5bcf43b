-- 0002_secrets_activity: the names of the user's secrets (their values live
-- in the OS keyring, or in the fallback file when no keyring is reachable)
-- and the activity log. server_keys stays for existing databases: each key
-- moves to the secret store the first time it is used, and its row is deleted.

CREATE TABLE secrets (
    name       TEXT PRIMARY KEY NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
) STRICT;

-- One row per request. AUTOINCREMENT keeps ids increasing even after
-- retention empties the table, so a reader following new rows by id never
-- misses one.
CREATE TABLE activity (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    time           TEXT NOT NULL,
    era            TEXT NOT NULL DEFAULT '',
    client         TEXT NOT NULL DEFAULT '',
    client_version TEXT NOT NULL DEFAULT '',
    token          TEXT NOT NULL DEFAULT '',
    method         TEXT NOT NULL DEFAULT '',
    target         TEXT NOT NULL DEFAULT '',
    duration_us    INTEGER NOT NULL DEFAULT 0,
    outcome        TEXT NOT NULL DEFAULT '',
    error_code     INTEGER NOT NULL DEFAULT 0,
    detail         TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX activity_time ON activity (time);
