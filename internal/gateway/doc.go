// Package gateway keeps the tools of the other MCP servers mcptray fronts
// (catalog.Upstream) in mcptray's catalog, so that everything mcptray
// applies to its own tools applies to theirs: token allowlists, "ask
// first", the activity log, limits, tasks.
//
// Each tool is served as the person approved it: the catalog holds the
// server's definition with its hash (catalog.UpstreamTool.Pin). When the
// server later offers a tool that is new, changed or gone, the tool is held
// back from clients (catalog.UpstreamTool.Held) and the change waits for
// the person's approval (record.UpstreamChange), with what changed.
package gateway
