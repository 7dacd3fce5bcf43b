package storage

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/mcptray/mcptray/record"
)

// refused is a request turned away before it was read.
func refused(detail string) record.Activity {
	return record.Activity{Method: "HTTP POST", Target: "/mcp", Outcome: record.OutcomeError, ErrorCode: -32600, Detail: detail}
}

// refusedCount is how many requests the stored refused records stand for:
// one each, plus the "N more like this" they say.
func refusedCount(t *testing.T, s *Store) (requests, rows int) {
	t.Helper()
	recs, err := s.Activity(context.Background(), ActivityQuery{Limit: MaxActivityLimit})
	if err != nil {
		t.Fatal(err)
	}
	more := regexp.MustCompile(`^(\d+) more like this since `)
	for _, r := range recs {
		if !r.Refused() {
			continue
		}
		rows++
		if m := more.FindStringSubmatch(r.Detail); m != nil {
			n, _ := strconv.Atoi(m[1])
			requests += n
		} else {
			requests++
		}
	}
	return requests, rows
}

func TestRefusedRequestsAreCounted(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	w := newWriter(t, s, ActivityWriterOptions{})
	start := time.Now()
	for range 10000 {
		w.Record(refused("401 Unauthorized: invalid bearer token"))
	}
	w.Record(refused("403 Forbidden: Origin \"http://evil.example\" is not allowed"))
	flush(t, w)
	requests, rows := refusedCount(t, s)
	// Two kinds, each written once at first and once counted: a minute
	// turning during the burst may add one more of each.
	if requests != 10001 || rows > 2*2+2 {
		t.Fatalf("10001 refused requests stored as %d rows standing for %d", rows, requests)
	}
	if w.Dropped() != 0 {
		t.Errorf("%d records dropped", w.Dropped())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("recording 10001 refused requests took %v", took)
	}
}

func TestRefusedKindsAreBounded(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	w := newWriter(t, s, ActivityWriterOptions{})
	// A sender choosing what each refusal says (a Host, an Origin) gets no
	// more than maxRefusalKinds kinds a minute, and one for the rest.
	for i := range 5000 {
		w.Record(refused("403 Forbidden: Host \"h" + strconv.Itoa(i) + "\" is not allowed"))
	}
	flush(t, w)
	requests, rows := refusedCount(t, s)
	if requests != 5000 || rows > 2*(maxRefusalKinds+1)+2 {
		t.Fatalf("5000 refusals of distinct kinds stored as %d rows standing for %d", rows, requests)
	}
}

func TestPruneKeepsAcceptedApartFromRefused(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	w := newWriter(t, s, ActivityWriterOptions{})
	w.Record(call("kept", record.OutcomeOK))
	flush(t, w)
	// Refused records of many kinds, newer than the accepted one.
	for m := range 40 {
		for i := range maxRefusalKinds {
			a := refused("403 Forbidden: Host \"h" + strconv.Itoa(i) + "\" is not allowed")
			a.Time = time.Now().Add(time.Duration(m) * time.Minute)
			w.Record(a)
		}
	}
	flush(t, w)
	if _, err := s.PruneActivity(context.Background(), ActivityRetention{MaxRows: 5}); err != nil {
		t.Fatal(err)
	}
	if n := countActivity(t, s, `WHERE target = 'kept'`); n != 1 {
		t.Fatalf("the accepted record was pruned to make room for refused ones")
	}
	if n := countActivity(t, s, `WHERE `+refusedSQL); n != 5 {
		t.Errorf("%d refused records kept, want 5 (min(activityMaxRows, MaxRefusedRows))", n)
	}
}
