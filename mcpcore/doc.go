// Package mcpcore is mcptray's MCP engine: the validation of the catalog
// (package catalog holds its model), the go-sdk servers kept in sync with
// the catalog, the HTTP handler that routes each request to the 2026-07-28 (stateless) or the
// 2025-11-25 (session) era behind an Origin/Host guard, token auth and
// limits, the input steps answered by the client, and sealed request state.
//
// It has no GUI and no SQL: it talks to the outside through small
// interfaces, each declared next to what uses it — Source and SecretReader
// (engine.go), TokenVerifier (handler.go), KeyStore (requeststate.go),
// ActivitySink (activity.go), TaskStore (tasks.go), Asker (asker.go) and
// ApprovalStore (approvals.go).
//
// The flow of a tools/call — the client's rounds, the desktop's questions,
// the action, in the request or as a task — reads top to bottom in
// toolcall.go.
package mcpcore
