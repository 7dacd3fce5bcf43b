-- 0003_tasks_approvals: the tasks of the tasks extension (io.modelcontextprotocol/tasks),
-- kept so a task outlives the process that ran it, and the approvals given
-- during a request, in the activity log.

-- One row per task. JSON columns hold the wire values: the outstanding input
-- requests (input_required), the tools/call result (completed) or the
-- JSON-RPC error (failed). expires_at is created_at + ttl_ms.
CREATE TABLE tasks (
    id                TEXT PRIMARY KEY NOT NULL,
    owner             TEXT NOT NULL DEFAULT '',
    tool              TEXT NOT NULL DEFAULT '',
    status            TEXT NOT NULL,
    status_message    TEXT NOT NULL DEFAULT '',
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL,
    ttl_ms            INTEGER NOT NULL DEFAULT 0,
    poll_interval_ms  INTEGER NOT NULL DEFAULT 0,
    expires_at        TEXT NOT NULL DEFAULT '',
    input_requests    TEXT NOT NULL DEFAULT '',
    result            TEXT NOT NULL DEFAULT '',
    error             TEXT NOT NULL DEFAULT '',
    progress          REAL NOT NULL DEFAULT 0,
    total             REAL NOT NULL DEFAULT 0,
    progress_message  TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX tasks_expires_at ON tasks (expires_at);
CREATE INDEX tasks_status ON tasks (status);

-- The approvals given during the request, as a JSON array of strings
-- ("" when none).
ALTER TABLE activity ADD COLUMN approvals TEXT NOT NULL DEFAULT '';
