package app

import (
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/record"
)

// rowOutcomes are the targets and outcomes of the rows shown, top first.
func rowOutcomes(tab *ActivityTab) string {
	return inTab(tab, func() string {
		var out []string
		for _, r := range tab.shown {
			out = append(out, r.Target+" "+r.Outcome)
		}
		return strings.Join(out, ", ")
	})
}

// TestActivityTabShowsAFinishedCallOnce: a call that ran past a second has
// a "running" record and then its final one; once the final one is
// written, read at once or as it comes while the tab shows, the call shows
// once, as it ended. A call still running shows as running.
func TestActivityTabShowsAFinishedCallOnce(t *testing.T) {
	uitest.NewTestApp(t)
	l := newActivityLog(t)
	start := time.Now().Add(-3 * time.Second).Truncate(time.Millisecond)
	call := func(tool, outcome string, at time.Time) record.Activity {
		a := callRecord("Claude Code", tool, outcome, "")
		a.Time = at
		return a
	}
	l.write(t, call("slow.sync", record.OutcomeRunning, start), call("slow.sync", record.OutcomeOK, start),
		call("slow.other", record.OutcomeRunning, start.Add(time.Millisecond)))
	tab := shownActivityTab(t, l)
	testutil.EventuallyShows(t, "the finished call once, the other running", func() (bool, string) {
		got := rowOutcomes(tab)
		return got == "slow.other running, slow.sync ok", got
	})
	// The other call ends while the tab shows.
	l.write(t, call("slow.other", record.OutcomeCancelled, start.Add(time.Millisecond)))
	testutil.EventuallyShows(t, "the second call as it ended, once", func() (bool, string) {
		got := rowOutcomes(tab)
		return got == "slow.other cancelled, slow.sync ok", got
	})
}
