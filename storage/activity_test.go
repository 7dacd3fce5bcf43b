package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
)

// newWriter starts an activity writer, closed when the test ends.
func newWriter(t *testing.T, s *Store, opt ActivityWriterOptions) *ActivityWriter {
	t.Helper()
	w := s.NewActivityWriter(opt)
	t.Cleanup(func() { _ = w.Close() })
	return w
}

func flush(t *testing.T, w *ActivityWriter) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := w.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

func countActivity(t *testing.T, s *Store, where string, args ...any) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM activity `+where, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func call(target, outcome string) record.Activity {
	return record.Activity{Era: "2026-07-28", Client: "claude-code", ClientVersion: "2.1", Token: "laptop",
		Method: "tools/call", Target: target, Duration: 1500 * time.Microsecond, Outcome: outcome}
}

func TestActivityBurstLosesNothing(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	w := s.NewActivityWriter(ActivityWriterOptions{})
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 1000 {
		wg.Go(func() {
			<-start
			w.Record(call(fmt.Sprintf("tool-%d", i), record.OutcomeOK))
		})
	}
	close(start)
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := countActivity(t, s, ``); n != 1000 {
		t.Errorf("%d rows, want 1000", n)
	}
	if n := countActivity(t, s, `WHERE method = ?`, ActivityDroppedMethod); n != 0 {
		t.Errorf("%d dropped-records entries", n)
	}
	var distinct int
	if err := s.db.QueryRow(`SELECT count(DISTINCT target) FROM activity`).Scan(&distinct); err != nil || distinct != 1000 {
		t.Errorf("%d distinct targets, %v", distinct, err)
	}
	if w.Dropped() != 0 {
		t.Errorf("Dropped = %d", w.Dropped())
	}
}

func TestActivityOverflowIsCounted(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcptray.db")
	s := openAt(t, path)
	// Another connection holds the write lock: the writer stalls while the
	// records arrive, and its small buffer overflows.
	blocker, err := openAt(t, path).db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	w := newWriter(t, s, ActivityWriterOptions{Buffer: 10, BatchSize: 5})
	for i := range 100 {
		w.Record(call(fmt.Sprintf("tool-%d", i), record.OutcomeOK))
	}
	time.Sleep(50 * time.Millisecond)
	if err := blocker.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	dropped := int(w.Dropped())
	if dropped == 0 {
		t.Fatal("nothing dropped")
	}
	kept := countActivity(t, s, `WHERE method = 'tools/call'`)
	if kept+dropped != 100 {
		t.Errorf("kept %d + dropped %d != 100", kept, dropped)
	}
	// Drops are reported by synthetic records (one per batch that follows
	// some), which together count every dropped record.
	recs, err := s.Activity(context.Background(), ActivityQuery{Method: ActivityDroppedMethod})
	if err != nil || len(recs) == 0 {
		t.Fatalf("dropped-records entries: %+v, %v", recs, err)
	}
	reported := 0
	for _, r := range recs {
		var n, m int
		if _, err := fmt.Sscanf(r.Detail, "%d activity records dropped (buffer full: %d)", &n, &m); err != nil || n != m || r.Outcome != OutcomeDropped {
			t.Errorf("entry = %+v (%v)", r, err)
		}
		reported += n
	}
	if reported != dropped {
		t.Errorf("entries report %d dropped, Dropped = %d", reported, dropped)
	}
}

func TestActivityQuery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	w := newWriter(t, s, ActivityWriterOptions{})
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	recs := []record.Activity{
		{Time: base, Era: "2025-11-25", Client: "cursor", ClientVersion: "1.0", Token: "work", Method: "tools/call",
			Target: "greet", Duration: 2500 * time.Microsecond, Outcome: record.OutcomeOK, Detail: "Hello",
			Capabilities: []string{"forms", "roots"}},
		{Time: base.Add(time.Minute), Era: "2026-07-28", Client: "claude-code", Method: "tools/call",
			Target: "deploy", Duration: 3 * time.Second, Outcome: record.OutcomeToolError, Detail: "exit 1",
			Capabilities: []string{}}, // declared none: not the same as not saying
		{Time: base.Add(2 * time.Minute), Era: "2026-07-28", Client: "claude-code", Method: "resources/read",
			Target: "file:///notes/a.md", Outcome: record.OutcomeError, ErrorCode: -32602, Detail: "no such file"},
		{Time: base.Add(3 * time.Minute), Era: "2026-07-28", Client: "cursor", Method: "tools/call",
			Target: "greet", Outcome: record.OutcomeInputRequired,
			Approvals: []string{"approval: allowed on the desktop", "wipe: denied: not now"}},
	}
	for _, a := range recs {
		w.Record(a)
	}
	flush(t, w)

	all, err := s.Activity(ctx, ActivityQuery{})
	if err != nil || len(all) != 4 {
		t.Fatalf("all: %d, %v", len(all), err)
	}
	for i, r := range all { // newest first, every field kept
		want := recs[len(recs)-1-i]
		if !r.Time.Equal(want.Time) {
			t.Errorf("record %d time %v, want %v", i, r.Time, want.Time)
		}
		r.Time = want.Time
		if !reflect.DeepEqual(r.Activity, want) {
			t.Errorf("record %d = %+v\nwant %+v", i, r.Activity, want)
		}
		if i > 0 && r.ID >= all[i-1].ID {
			t.Errorf("ids not descending: %d after %d", r.ID, all[i-1].ID)
		}
	}
	targets := func(q ActivityQuery) string {
		t.Helper()
		rs, err := s.Activity(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.Target)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		q    ActivityQuery
		want string
	}{
		{ActivityQuery{Client: "cursor"}, "greet,greet"},
		{ActivityQuery{Target: "deploy"}, "deploy"},
		{ActivityQuery{Outcome: record.OutcomeError}, "file:///notes/a.md"},
		{ActivityQuery{Method: "tools/call", Client: "claude-code"}, "deploy"},
		{ActivityQuery{Token: "work"}, "greet"},
		{ActivityQuery{Since: base.Add(90 * time.Second)}, "greet,file:///notes/a.md"},
		{ActivityQuery{Limit: 2}, "greet,file:///notes/a.md"},
		{ActivityQuery{BeforeID: all[1].ID}, "deploy,greet"},
		{ActivityQuery{Client: "nobody"}, ""},
	} {
		if got := targets(tc.q); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.q, got, tc.want)
		}
	}
	after, err := s.ActivityAfter(ctx, all[2].ID, ActivityQuery{})
	if err != nil || len(after) != 2 || after[0].ID != all[1].ID || after[1].ID != all[0].ID {
		t.Errorf("ActivityAfter = %+v, %v", after, err)
	}
	if last, err := s.LastActivityID(ctx); err != nil || last != all[0].ID {
		t.Errorf("LastActivityID = %d, %v", last, err)
	}
}

func TestActivityRetentionByCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	set, _ := s.Settings(ctx)
	set.ActivityMaxRows = 10
	if err := s.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	w := newWriter(t, s, ActivityWriterOptions{RetentionInterval: time.Nanosecond})
	for i := range 30 {
		w.Record(call(fmt.Sprintf("tool-%02d", i), record.OutcomeOK))
	}
	flush(t, w)
	recs, err := s.Activity(ctx, ActivityQuery{})
	if err != nil || len(recs) != 10 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if recs[0].Target != "tool-29" || recs[9].Target != "tool-20" {
		t.Errorf("kept %s … %s, want the newest (tool-29 … tool-20)", recs[0].Target, recs[9].Target)
	}
}

func TestActivityRetentionByAge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	set, _ := s.Settings(ctx)
	set.ActivityMaxAgeDays = 1
	if err := s.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	w := newWriter(t, s, ActivityWriterOptions{RetentionInterval: time.Nanosecond})
	for i := range 5 {
		old := call(fmt.Sprintf("old-%d", i), record.OutcomeOK)
		old.Time = time.Now().Add(-49 * time.Hour)
		w.Record(old)
		w.Record(call(fmt.Sprintf("new-%d", i), record.OutcomeOK))
	}
	flush(t, w)
	if n := countActivity(t, s, `WHERE target LIKE 'old-%'`); n != 0 {
		t.Errorf("%d old records kept", n)
	}
	if n := countActivity(t, s, `WHERE target LIKE 'new-%'`); n != 5 {
		t.Errorf("%d new records kept, want 5", n)
	}
	// PruneActivity directly: limits of 0 apply nothing.
	if n, err := s.PruneActivity(ctx, ActivityRetention{}); err != nil || n != 0 {
		t.Errorf("PruneActivity with no limits = %d, %v", n, err)
	}
	if n, err := s.PruneActivity(ctx, ActivityRetention{MaxRows: 2}); err != nil || n != 3 {
		t.Errorf("PruneActivity(MaxRows 2) = %d, %v", n, err)
	}
}

func TestActivitySubscription(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	w := newWriter(t, s, ActivityWriterOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	live := w.SubscribeActivity(ctx)
	stuck := w.SubscribeActivity(context.Background()) // never read
	for i := range 3 {
		w.Record(call(fmt.Sprintf("tool-%d", i), record.OutcomeOK))
	}
	for i := range 3 {
		select {
		case a := <-live:
			if want := fmt.Sprintf("tool-%d", i); a.Target != want {
				t.Errorf("record %d: %q, want %q", i, a.Target, want)
			}
		case <-time.After(wait):
			t.Fatalf("record %d not delivered", i)
		}
	}
	// A subscriber that never reads does not hold the writer back.
	for i := range 1000 {
		w.Record(call(fmt.Sprintf("more-%d", i), record.OutcomeOK))
	}
	flush(t, w)
	if n := countActivity(t, s, ``); n != 1003 {
		t.Errorf("%d rows, want 1003", n)
	}
	if len(stuck) != subscriberBuffer {
		t.Errorf("stuck subscriber holds %d, want %d", len(stuck), subscriberBuffer)
	}
	cancel()
	for range live { // drains, then ends: closed when ctx ends
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for range stuck { // closed by Close
	}
	if _, ok := <-w.SubscribeActivity(context.Background()); ok {
		t.Error("subscription after Close is open")
	}
}

func TestActivityFollowAcrossStores(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mcptray.db")
	server, follower := openAt(t, path), openAt(t, path)
	w := newWriter(t, server, ActivityWriterOptions{})
	w.Record(call("before", record.OutcomeOK))
	flush(t, w)
	last, err := follower.LastActivityID(ctx)
	if err != nil || last == 0 {
		t.Fatalf("LastActivityID = %d, %v", last, err)
	}
	go func() {
		for i := range 50 {
			w.Record(call(fmt.Sprintf("tool-%02d", i), record.OutcomeOK))
			time.Sleep(2 * time.Millisecond)
		}
	}()
	var got []string
	deadline := time.Now().Add(wait)
	for len(got) < 50 && time.Now().Before(deadline) {
		recs, err := follower.ActivityAfter(ctx, last, ActivityQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			got = append(got, r.Target)
			last = r.ID
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(got) != 50 {
		t.Fatalf("followed %d records: %v", len(got), got)
	}
	for i, target := range got {
		if want := fmt.Sprintf("tool-%02d", i); target != want {
			t.Errorf("record %d: %q, want %q", i, target, want)
		}
	}
}

func TestActivityWritesDoNotSignalChanges(t *testing.T) {
	t.Parallel()
	s, err := Open(filepath.Join(t.TempDir(), "quiet.db"), mcpcore.Validator{}, WithPollInterval(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	w := s.NewActivityWriter(ActivityWriterOptions{RetentionInterval: time.Nanosecond})
	defer w.Close()
	changes := s.Changes(ctx)
	for i := range 20 {
		w.Record(call(fmt.Sprintf("tool-%d", i), record.OutcomeOK))
	}
	flush(t, w)
	if _, err := s.PruneActivity(ctx, ActivityRetention{MaxRows: 5}); err != nil {
		t.Fatal(err)
	}
	if receive(changes, 200*time.Millisecond) {
		t.Error("Changes fired for activity records")
	}
}

func TestActivityAfterClose(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	w := s.NewActivityWriter(ActivityWriterOptions{})
	w.Record(call("kept", record.OutcomeOK))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Record(call("late", record.OutcomeOK)) // must not panic or block
	if err := w.Flush(context.Background()); err != nil {
		t.Errorf("Flush after Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if n := countActivity(t, s, ``); n != 1 {
		t.Errorf("%d rows, want 1", n)
	}
	if w.Dropped() != 1 {
		t.Errorf("Dropped = %d, want 1", w.Dropped())
	}
}
