package record

import (
	"strings"
	"time"
)

// How long an approval a person allowed for one client app is remembered
// (Answer.Remember).
const (
	// RememberUntilRestart keeps it in the engine's memory: it ends when
	// mcptray stops.
	RememberUntilRestart = "restart"
	// RememberUntilRevoked keeps it in the ApprovalStore until the person
	// revokes it in Settings.
	RememberUntilRevoked = "revoked"
)

// ApprovalKey is what a remembered approval is bound to: the client token
// (its name; "" when auth is off), the client app's declared name (its
// clientInfo.name — every stdio client shares the shim's token, so the
// token alone would let one app answer for another), the tool's name and
// the hash of the tool's definition when it was allowed, so a tool that is
// edited since asks again. When the AI app had answered some of the tool's
// steps before the approval was asked, ToolHash is followed by "/" and the
// hash of those answers (what the person saw), so other answers ask again.
type ApprovalKey struct {
	Token    string `json:"token"`
	Client   string `json:"client"`
	Tool     string `json:"tool"`
	ToolHash string `json:"toolHash"`
}

// RememberedApproval is an approval a person allowed for a client app, so
// that app runs the tool, as it was defined then, without asking again.
type RememberedApproval struct {
	ApprovalKey
	// Since is when the person allowed it.
	Since time.Time `json:"since"`
	// UntilRevoked: kept in the ApprovalStore until revoked; otherwise
	// until mcptray restarts.
	UntilRevoked bool `json:"untilRevoked"`
	// ToolTitle and Matches are filled by Engine.RememberedApprovals: the
	// tool's title now ("" when it has none or is gone), and whether the
	// approval still applies — false once the tool was edited, renamed or
	// deleted, when the next call asks again.
	ToolTitle string `json:"toolTitle,omitempty"`
	Matches   bool   `json:"matches"`
}

// DefinitionHash is the part of ToolHash that is the tool's definition's.
func (k ApprovalKey) DefinitionHash() string {
	h, _, _ := strings.Cut(k.ToolHash, "/")
	return h
}
