// Package fault holds mcptray's fault tests: the real programs (the
// headless mcptray and the stdio shim, built once per run) are killed with
// SIGKILL during calls, tasks and an import, then started again, and the
// tests check what a person relies on — the database is whole, no
// committed edit is lost, a task interrupted reads failed and stays so, no
// command process outlives mcptray, and no call runs twice. They also check
// that no mcptray command starts a D-Bus daemon, and that a second
// `mcptray serve` on a held database touches nothing. Unix only (signals).
package fault
