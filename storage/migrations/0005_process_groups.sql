-- 0005_process_groups: what a crash must not leave running, and task ends that stay ended.

-- One row per running command: its process group (the leader's pid) and the
-- leader's start time as the OS counts it, so the next start of mcptray kills
-- what a crash left running and never a process that merely got a reused id.
-- A row is written when the program starts and deleted when it ends.
CREATE TABLE process_groups (
    id          INTEGER PRIMARY KEY NOT NULL,
    started     INTEGER NOT NULL,
    program     TEXT NOT NULL DEFAULT '',
    recorded_at TEXT NOT NULL
) STRICT;

-- A task that ended (completed, failed, cancelled) stays as it ended: no
-- writer — a runner finishing late, a second process — can change its
-- status, result or error afterwards.
CREATE TRIGGER tasks_end_is_final
BEFORE UPDATE ON tasks
WHEN OLD.status IN ('completed', 'failed', 'cancelled')
 AND (NEW.status IS NOT OLD.status OR NEW.result IS NOT OLD.result OR NEW.error IS NOT OLD.error)
BEGIN
    SELECT RAISE(ABORT, 'the task already ended; its status does not change');
END;
