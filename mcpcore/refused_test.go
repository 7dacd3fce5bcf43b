package mcpcore_test

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
)

// laterSink hands records to an activity writer set once the store exists.
type laterSink struct {
	w atomic.Pointer[storage.ActivityWriter]
}

func (l *laterSink) Record(a record.Activity) {
	if w := l.w.Load(); w != nil {
		w.Record(a)
	}
}

// TestRefusedFloodEvictsNoAcceptedRecord: anyone on this computer can send
// requests with a bad token; 10,000 of them must not push the record of
// one accepted request out of the activity log, however small it is kept.
func TestRefusedFloodEvictsNoAcceptedRecord(t *testing.T) {
	testutil.Long(t, "floods the server with refused requests")
	sink := &laterSink{}
	e := newEnv(t, envOptions{auth: true, activity: sink, settings: func(s *catalog.Settings) { s.ActivityMaxRows = 20 }})
	w := e.st.NewActivityWriter(storage.ActivityWriterOptions{})
	t.Cleanup(func() { _ = w.Close() })
	sink.w.Store(w)
	ctx := testCtx(t)
	token, err := e.st.CreateToken(ctx, "laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	completed(t, toolCall{name: "test_simple_text", token: token}.send(t, e))

	const flood = 10000
	var wg sync.WaitGroup
	var sent atomic.Int64
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	for range 16 {
		wg.Go(func() {
			for sent.Add(1) <= flood {
				r := e.modern("tools/list", nil).as("mcpt_not-a-token").Request
				resp, err := client.Do(r)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("a bad token got HTTP %d", resp.StatusCode)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// What retention does once a minute, now.
	if _, err := e.st.PruneActivity(ctx, storage.ActivityRetention{MaxRows: 20}); err != nil {
		t.Fatal(err)
	}
	recs, err := e.st.Activity(ctx, storage.ActivityQuery{Target: "test_simple_text"})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("the accepted call's record is gone after %d refused requests", flood)
	}
	all, err := e.st.Activity(ctx, storage.ActivityQuery{Limit: storage.MaxActivityLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) > 20+4 {
		t.Errorf("%d records after the flood: refused requests are not counted together", len(all))
	}
	if w.Dropped() != 0 {
		t.Errorf("%d records dropped during the flood", w.Dropped())
	}
}
