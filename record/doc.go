// Package record is what mcptray writes down as it serves, as plain data:
// a request's line in the activity log, a task of the tasks extension, an
// approval a person asked to remember, the client token a request came
// with, and a running command's process group. The engine (mcpcore) makes
// them and storage keeps them; neither needs the other's libraries to
// share them. It imports no other package of mcptray's.
package record
