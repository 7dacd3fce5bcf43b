package storage

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/record"
)

func TestRecentClients(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	w := newWriter(t, s, ActivityWriterOptions{})
	now := time.Now()
	rec := func(ago time.Duration, client, token string) {
		w.Record(record.Activity{Time: now.Add(-ago), Client: client, Token: token, Method: "tools/call", Outcome: record.OutcomeOK})
	}
	rec(time.Hour, "Old Client", "old")      // before the window
	rec(5*time.Minute, "Cursor", "laptop")   // seen, then again later
	rec(3*time.Minute, "Claude Code", "cli") //
	rec(2*time.Minute, "", "shim")           // no clientInfo: its token names it
	rec(time.Minute, "Cursor", "laptop")     // Cursor's latest
	rec(30*time.Second, "", "")              // names no client
	rec(20*time.Second, "Cursor", "desktop") // same name, another token
	flush(t, w)

	got, err := s.RecentClients(t.Context(), now.Add(-10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	type nt struct{ name, token string }
	var pairs []nt
	for _, c := range got {
		pairs = append(pairs, nt{c.Name, c.Token})
	}
	want := []nt{{"Cursor", "desktop"}, {"Cursor", "laptop"}, {"shim", "shim"}, {"Claude Code", "cli"}}
	if !reflect.DeepEqual(pairs, want) {
		t.Fatalf("RecentClients = %v, want %v", pairs, want)
	}
	if d := got[1].Last.Sub(now.Add(-time.Minute)); d < -time.Millisecond || d > time.Millisecond {
		t.Errorf("Cursor/laptop last seen %v, want its latest record at %v", got[1].Last, now.Add(-time.Minute))
	}

	none, err := s.RecentClients(t.Context(), now.Add(time.Minute))
	if err != nil || len(none) != 0 {
		t.Errorf("nothing recorded after now: got %v, %v", none, err)
	}
}

// TestRecentClientsUsesTheTimeIndex: the tray asks every few seconds, so
// the query must not scan the whole log.
func TestRecentClientsUsesTheTimeIndex(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	rows, err := s.db.Query(`EXPLAIN QUERY PLAN `+recentClientsQuery, time.Now().UTC().Format(timeLayout))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(plan, "; "); !strings.Contains(p, "USING INDEX activity_time") {
		t.Errorf("query plan %q does not use the activity_time index", p)
	}
}
