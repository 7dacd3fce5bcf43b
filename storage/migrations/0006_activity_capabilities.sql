-- 0006_activity_capabilities: what the client declared it can answer
-- (forms, links, sampling, roots, tasks), kept with each request so that a
-- person can see why a question went to the desktop rather than the AI app.
-- A JSON array of words; '' when the request carried no capabilities (a
-- 2026-07-28 request without them, or a record from before this column).
ALTER TABLE activity ADD COLUMN capabilities TEXT NOT NULL DEFAULT '';
