package storage

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/record"
)

// pageSized is an accepted call whose record takes one page (4,096 bytes
// as activitySizes counts): its detail is 500 four-byte characters, the
// most a record keeps.
func pageSized(i int) record.Activity {
	a := call(fmt.Sprintf("tool-%03d", i), record.OutcomeOK)
	a.Detail = strings.Repeat("😀", 500)
	return a
}

// activityBytes is the size of the records where selects, as
// activitySizes counts it, and how many there are.
func activityBytes(t *testing.T, s *Store, where string) (bytes, rows int64) {
	t.Helper()
	if err := s.db.QueryRow(`SELECT COALESCE(SUM(size), 0), count(*) FROM (`+activitySizes(where)+`)`).Scan(&bytes, &rows); err != nil {
		t.Fatal(err)
	}
	return bytes, rows
}

// TestActivityRetentionBySize: the log is bounded by its size as well as
// by its rows, and the writer prunes as soon as a tenth of the limit was
// written, not once a minute only: a flood of calls must not outgrow it.
func TestActivityRetentionBySize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	const limit = 400_000
	w := newWriter(t, s, ActivityWriterOptions{MaxBytes: limit, RetentionInterval: time.Hour, BatchSize: 10})
	for i := range 300 { // 1.2 MB
		w.Record(pageSized(i))
	}
	flush(t, w)
	size, rows := activityBytes(t, s, "1")
	if size > limit+limit/pruneShare {
		t.Errorf("the writer kept %d records of %d bytes in all, over the limit of %d (and the tenth written between prunings)", rows, size, limit)
	}
	if recs, err := s.Activity(ctx, ActivityQuery{Limit: 1}); err != nil || recs[0].Target != "tool-299" {
		t.Fatalf("the newest record is %+v (%v), want tool-299's", recs, err)
	}

	// Now exactly: accepted calls keep nine tenths of the limit, in as
	// many of the newest records as fit; refused requests the last tenth,
	// and their flood pushes no accepted record out.
	for m := range 40 {
		a := refused(fmt.Sprintf("403 Forbidden: Origin %q is not allowed", strings.Repeat("😀", 500)))
		a.Time = time.Now().Add(time.Duration(m) * time.Minute) // each minute's first is kept
		w.Record(a)
	}
	flush(t, w)
	if _, err := s.PruneActivity(ctx, ActivityRetention{MaxBytes: limit}); err != nil {
		t.Fatal(err)
	}
	accepted, acceptedRows := activityBytes(t, s, "NOT "+refusedSQL)
	if want := int64(limit-limit/refusedShare) / 4096; acceptedRows != want || accepted != want*4096 {
		t.Errorf("%d accepted records kept, %d bytes; want the %d newest", acceptedRows, accepted, want)
	}
	if n := countActivity(t, s, `WHERE target = 'tool-299'`); n != 1 {
		t.Error("the newest accepted record was pruned")
	}
	if refusedSize, _ := activityBytes(t, s, refusedSQL); refusedSize > limit/refusedShare || refusedSize == 0 {
		t.Errorf("refused records keep %d bytes, want some, at most %d", refusedSize, limit/refusedShare)
	}
}

// TestActivitySizesMatchPages: what activitySizes counts is what SQLite's
// pages hold, within a tenth, for records of ordinary calls and for the
// largest a record can be; the byte limit a person reads in Settings is
// only as true as this.
func TestActivitySizesMatchPages(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("😀", 1<<12)
	list := []string{huge, huge, huge, huge, huge, huge, huge, huge, huge, huge, huge}
	for name, a := range map[string]record.Activity{
		"ordinary": call("current_time", record.OutcomeOK),
		"1 KB":     {Method: "tools/call", Target: "t", Detail: strings.Repeat("é", 500)},
		"largest": {Era: huge, Client: huge, ClientVersion: huge, Token: huge, Method: huge, Target: huge, Detail: huge,
			Approvals: list, Capabilities: list},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := openTest(t)
			before := usedPages(t, s)
			w := newWriter(t, s, ActivityWriterOptions{MaxBytes: 1 << 40})
			for range 400 {
				w.Record(a)
			}
			flush(t, w)
			counted, _ := activityBytes(t, s, "1")
			used := usedPages(t, s) - before
			if r := float64(counted) / float64(used); r < 0.9 || r > 1.15 {
				t.Errorf("400 records counted as %d bytes, on %d bytes of pages (%.2f)", counted, used, r)
			}
		})
	}
}

// usedPages is the bytes of the database's pages in use.
func usedPages(t *testing.T, s *Store) int64 {
	t.Helper()
	var count, free, size int64
	for q, v := range map[string]*int64{`PRAGMA page_count`: &count, `PRAGMA freelist_count`: &free, `PRAGMA page_size`: &size} {
		if err := s.db.QueryRow(q).Scan(v); err != nil {
			t.Fatal(err)
		}
	}
	return (count - free) * size
}
