package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/record"
)

// Activity writer defaults; see ActivityWriterOptions. The batch delay is
// also what a crash (kill -9, power loss) can lose of the log: records of
// requests answered in the last DefaultActivityBatchDelay, and those of the
// batch being written.
const (
	DefaultActivityBuffer            = 4096
	DefaultActivityBatchSize         = 200
	DefaultActivityBatchDelay        = 10 * time.Millisecond
	DefaultActivityRetentionInterval = time.Minute
)

// MaxRefusedRows caps the records of refused requests (record.Activity's
// Refused) the log keeps, apart from activityMaxRows, which counts accepted
// requests only: anyone on this computer can send refused requests, and
// they must never push the record of an accepted one out.
const MaxRefusedRows = 1000

// DefaultActivityMaxBytes bounds the activity log's size on disk, whatever
// the row limit: 50 MB, which any disk spares. Records of ordinary calls
// take 200 to 400 bytes (2 to 4 MB at the default 10,000), so it binds
// only when a person raises the row limit past some 150,000, or when
// clients send texts as long as their caps allow (record.Activity's
// Capped: up to 24 KB a record, 240 MB at 10,000).
const DefaultActivityMaxBytes = 50_000_000

// pruneShare: retention is applied again at once when a pruneShare-th of
// the byte limit was written since it last was, so a flood of calls
// outgrows the limit by that at most, not by what a minute of calls holds.
const pruneShare = 10

// refusedShare: refused requests keep a tenth of the byte limit, and
// accepted ones the rest, as MaxRefusedRows is a tenth of the default row
// limit; so refused requests never push an accepted one out by their size
// either.
const refusedShare = 10

// activitySizes is a query of the id and size of each record that where
// selects: the size is about what SQLite's pages give it. A row (its
// texts as stored and activityRowOverhead) takes its share of a page among
// the rows that fit in one, and a row too long for a page whole pages:
// counting the texts alone missed a quarter of the pages that rows of 6 KB
// take; now they agree within a tenth from the smallest rows (190 bytes)
// to the largest (24 KB), as TestActivitySizesMatchPages checks.
func activitySizes(where string) string {
	return fmt.Sprintf(`SELECT id, CASE WHEN b <= %[1]d THEN %[2]d / (%[1]d / b) ELSE (b + %[2]d - 1) / %[2]d * %[2]d END AS size
	FROM (SELECT id, octet_length(time) + octet_length(era) + octet_length(client) + octet_length(client_version) +
		octet_length(token) + octet_length(method) + octet_length(target) + octet_length(outcome) + octet_length(detail) +
		octet_length(approvals) + octet_length(capabilities) + %[3]d AS b FROM activity WHERE %[4]s)`,
		pageRoom, pageBytes, activityRowOverhead, where)
}

// pageBytes is SQLite's page size, its default, which mcptray keeps; a page
// has pageRoom bytes for rows beyond its own headers.
const (
	pageBytes = 4096
	pageRoom  = 4000
)

// activityRowOverhead is what a record takes beside its texts: its
// numbers, its row and cell headers and its entry in the time index
// (measured: records of ordinary calls take 182 bytes of pages each).
const activityRowOverhead = 64

// maxRefusalKinds bounds the kinds of refused requests counted apart in a
// minute; a refused request's detail can hold what its sender chose (a
// Host, an Origin), so beyond it they are counted together.
const maxRefusalKinds = 32

// Activity query limits: a query returns DefaultActivityLimit records
// unless it asks for another number, and never more than MaxActivityLimit.
const (
	DefaultActivityLimit = 100
	MaxActivityLimit     = 10000
)

// The synthetic record an ActivityWriter writes when it had to drop
// records: Method ActivityDroppedMethod, Outcome OutcomeDropped, and a
// Detail such as "12 activity records dropped (buffer full: 12)".
const (
	ActivityDroppedMethod = "mcptray/activityDropped"
	OutcomeDropped        = "dropped"
)

// subscriberBuffer is how many records a live subscriber may fall behind
// before it misses some.
const subscriberBuffer = 256

// An ActivityWriter is the engine's activity sink.
// ActivityRecord is a stored activity record and its id. Ids increase with
// every record written, and are never reused.
type ActivityRecord struct {
	ID int64 `json:"id"`
	record.Activity
}

// ActivityQuery selects activity records. Zero fields select everything.
type ActivityQuery struct {
	// Since keeps records at or after this time.
	Since time.Time
	// BeforeID keeps records with a smaller id (to page back, or to pin a
	// query to what existed at some point).
	BeforeID int64
	// Client, Token, Method, Target and Outcome keep records whose field
	// equals the given value. Target is the tool or prompt name, or the
	// resource URI.
	Client  string
	Token   string
	Method  string
	Target  string
	Outcome string
	// Limit caps the number of records: DefaultActivityLimit when 0 or
	// less, MaxActivityLimit at most.
	Limit int
}

// activityColumns are the columns every activity query reads, in scan order.
const activityColumns = `id, time, era, client, client_version, token, method, target, duration_us, outcome, error_code, detail, approvals, capabilities`

// Activity returns the records q selects, newest first.
func (s *Store) Activity(ctx context.Context, q ActivityQuery) ([]ActivityRecord, error) {
	where, args := q.where(0)
	return s.queryActivity(ctx, `SELECT `+activityColumns+` FROM activity`+where+` ORDER BY id DESC LIMIT ?`,
		append(args, q.limit())...)
}

// ActivityAfter returns the records q selects whose id is greater than
// afterID, oldest first: what a follower polls for, passing the id of the
// last record it saw (or LastActivityID when it starts). It sees the
// records of every process writing to the database.
func (s *Store) ActivityAfter(ctx context.Context, afterID int64, q ActivityQuery) ([]ActivityRecord, error) {
	where, args := q.where(afterID)
	return s.queryActivity(ctx, `SELECT `+activityColumns+` FROM activity`+where+` ORDER BY id LIMIT ?`,
		append(args, q.limit())...)
}

// LastActivityID is the id of the newest record, 0 when there is none.
func (s *Store) LastActivityID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM activity`).Scan(&id); err != nil {
		return 0, fmt.Errorf("read activity: %w", err)
	}
	return id, nil
}

// RecentClient is a client seen in the activity log: its name (the
// clientInfo name it sent, else its token's name) and token, with the time
// of its latest record.
type RecentClient struct {
	Name  string
	Token string
	Last  time.Time
}

// recentClientsQuery is RecentClients' query; its range on time uses the
// activity_time index.
const recentClientsQuery = `SELECT CASE WHEN client <> '' THEN client ELSE token END AS name, token, MAX(time) AS last
	FROM activity WHERE time >= ? AND (client <> '' OR token <> '')
	GROUP BY name, token ORDER BY last DESC, name`

// RecentClients lists the clients with records at or after since, the most
// recently seen first, one entry per name and token. Records that name no
// client (no clientInfo and no token) are left out. The time index keeps
// it cheap however long the log is.
func (s *Store) RecentClients(ctx context.Context, since time.Time) ([]RecentClient, error) {
	rows, err := s.db.QueryContext(ctx, recentClientsQuery, since.UTC().Format(timeLayout))
	if err != nil {
		return nil, fmt.Errorf("read recent clients: %w", err)
	}
	defer rows.Close()
	var out []RecentClient
	for rows.Next() {
		var (
			c    RecentClient
			last string
		)
		if err := rows.Scan(&c.Name, &c.Token, &last); err != nil {
			return nil, fmt.Errorf("read recent clients: %w", err)
		}
		if c.Last, err = parseTime(last); err != nil {
			return nil, fmt.Errorf("read recent clients: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read recent clients: %w", err)
	}
	return out, nil
}

// ActivityRetention is how much of the activity log to keep. A limit of 0
// or less is not applied.
type ActivityRetention struct {
	// MaxAge deletes the records older than it.
	MaxAge time.Duration
	// MaxRows keeps the newest MaxRows records of accepted requests, and
	// the newest MaxRefusedRows (at most MaxRows) of refused ones.
	MaxRows int
	// MaxBytes keeps the newest records that fit in it: refused requests
	// in a tenth, accepted ones in the rest (sizes as activitySizes counts).
	MaxBytes int64
}

// PruneActivity deletes the records beyond r's limits, refused and
// accepted requests each counted apart, oldest first. It returns how many
// records it deleted.
func (s *Store) PruneActivity(ctx context.Context, r ActivityRetention) (int64, error) {
	var deleted int64
	err := s.quietTx(ctx, func(tx *sql.Tx) error {
		for _, d := range r.deletions() {
			res, err := tx.ExecContext(ctx, d.query, d.arg)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			deleted += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune activity: %w", err)
	}
	return deleted, nil
}

// deletion is one DELETE of PruneActivity and its one argument.
type deletion struct {
	query string
	arg   any
}

// deletions are the DELETEs that apply r, in order: by age, then for each
// class of record (accepted, refused) by count and by size.
func (r ActivityRetention) deletions() []deletion {
	var out []deletion
	if r.MaxAge > 0 {
		out = append(out, deletion{`DELETE FROM activity WHERE time < ?`, time.Now().Add(-r.MaxAge).UTC().Format(timeLayout)})
	}
	refusedBytes := r.MaxBytes / refusedShare
	for _, class := range []struct {
		where string
		rows  int
		bytes int64
	}{{"NOT " + refusedSQL, r.MaxRows, r.MaxBytes - refusedBytes}, {refusedSQL, min(r.MaxRows, MaxRefusedRows), refusedBytes}} {
		if class.rows > 0 {
			out = append(out, deletion{`DELETE FROM activity WHERE ` + class.where + ` AND id <= (SELECT id FROM activity WHERE ` +
				class.where + ` ORDER BY id DESC LIMIT 1 OFFSET ?)`, class.rows})
		}
		if class.bytes > 0 {
			// The newest record whose running total, counted from the
			// newest, passes the limit goes, and every older one.
			out = append(out, deletion{`DELETE FROM activity WHERE ` + class.where + ` AND id <= (SELECT id FROM (SELECT id, SUM(size) OVER (ORDER BY id DESC) AS kept FROM (` +
				activitySizes(class.where) + `)) WHERE kept > ? ORDER BY id DESC LIMIT 1)`, class.bytes})
		}
	}
	return out
}

// refusedSQL selects the records of refused requests (record.Activity's
// Refused).
var refusedSQL = fmt.Sprintf("(method LIKE '%s%%')", record.RefusedMethodPrefix)

// where builds the WHERE clause of q (and id > afterID when afterID > 0).
func (q ActivityQuery) where(afterID int64) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, arg any) {
		conds = append(conds, cond)
		args = append(args, arg)
	}
	if afterID > 0 {
		add("id > ?", afterID)
	}
	if q.BeforeID > 0 {
		add("id < ?", q.BeforeID)
	}
	if !q.Since.IsZero() {
		add("time >= ?", q.Since.UTC().Format(timeLayout))
	}
	for _, f := range []struct{ col, v string }{
		{"client", q.Client}, {"token", q.Token}, {"method", q.Method}, {"target", q.Target}, {"outcome", q.Outcome},
	} {
		if f.v != "" {
			add(f.col+" = ?", f.v)
		}
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// limit is q's effective limit.
func (q ActivityQuery) limit() int {
	switch {
	case q.Limit <= 0:
		return DefaultActivityLimit
	case q.Limit > MaxActivityLimit:
		return MaxActivityLimit
	}
	return q.Limit
}

// queryActivity runs a query over activityColumns.
func (s *Store) queryActivity(ctx context.Context, query string, args ...any) ([]ActivityRecord, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	defer rows.Close()
	var out []ActivityRecord
	for rows.Next() {
		var (
			r         ActivityRecord
			at        string
			dur       int64
			approvals string
			caps      string
		)
		err := rows.Scan(&r.ID, &at, &r.Era, &r.Client, &r.ClientVersion, &r.Token, &r.Method, &r.Target,
			&dur, &r.Outcome, &r.ErrorCode, &r.Detail, &approvals, &caps)
		if err != nil {
			return nil, fmt.Errorf("read activity: %w", err)
		}
		if approvals != "" {
			if err := json.Unmarshal([]byte(approvals), &r.Approvals); err != nil {
				return nil, fmt.Errorf("read activity %d: approvals: %w", r.ID, err)
			}
		}
		if caps != "" {
			if err := json.Unmarshal([]byte(caps), &r.Capabilities); err != nil {
				return nil, fmt.Errorf("read activity %d: capabilities: %w", r.ID, err)
			}
		}
		if r.Time, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("read activity %d: %w", r.ID, err)
		}
		r.Duration = time.Duration(dur) * time.Microsecond
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	return out, nil
}

// quietTx runs fn in one transaction on the watch connection, whose own
// commits do not move its data_version: writes that are not catalog,
// settings or token changes (activity records) must not make this Store's
// Changes fire. Other processes on the same file do see them as changes.
func (s *Store) quietTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	return inTx(ctx, s.watchConn, fn)
}

// ActivityWriterOptions tune an ActivityWriter; zero fields take defaults.
type ActivityWriterOptions struct {
	// Buffer is how many records may wait to be written (default
	// DefaultActivityBuffer); beyond it Record drops and counts them.
	Buffer int
	// BatchSize caps the records written in one transaction (default
	// DefaultActivityBatchSize).
	BatchSize int
	// BatchDelay is the longest a record waits for others to share its
	// transaction (default DefaultActivityBatchDelay).
	BatchDelay time.Duration
	// RetentionInterval is the least time between two applications of the
	// retention settings (default DefaultActivityRetentionInterval).
	RetentionInterval time.Duration
	// MaxBytes bounds the log's size (ActivityRetention's MaxBytes;
	// default DefaultActivityMaxBytes). Once a tenth of it was written
	// since retention was last applied, it is applied again at once.
	MaxBytes int64
}

// ActivityWriter writes activity records to the database in the
// background. Record never blocks: records wait in a bounded buffer, and a
// goroutine writes them in batches, one transaction each (up to BatchSize
// records, or what arrived within BatchDelay of the first). When the
// buffer is full a record is dropped and counted, and the next batch
// carries a synthetic record saying how many were dropped
// (ActivityDroppedMethod). After a batch, at most once per
// RetentionInterval, it applies the settings ActivityMaxRows and
// ActivityMaxAgeDays and the limit MaxBytes; sooner when a tenth of
// MaxBytes was written since, so that a flood of calls cannot outgrow the
// limit by more than that.
//
// Refused requests (record.Activity's Refused) are counted, not queued one
// by one: in each minute, the first of each kind (same method, target,
// token, code and detail) is recorded at once, and the others of its kind
// become one record at the end of the minute ("41 more like this since
// 10:02:07: …"), so a flood of them neither fills the buffer nor the log.
//
// Close it before its Store.
type ActivityWriter struct {
	st  *Store
	opt ActivityWriterOptions

	// mu orders Record against Close: records accepted before Close are
	// written, later ones are discarded.
	mu     sync.RWMutex
	closed bool

	// pending holds the records queued and not yet taken by the writer
	// goroutine, at most opt.Buffer: it grows with a burst and is handed
	// back after one, where a channel that size would hold some 900 KB for
	// the whole run. wake (capacity 1) says some are pending.
	qmu     sync.Mutex
	pending []record.Activity
	wake    chan struct{}
	flushCh chan chan error
	done    chan struct{}
	stopped chan struct{}

	// droppedFull and droppedFailed count records lost since the last
	// synthetic record, because the buffer was full or a write failed;
	// droppedTotal counts all.
	droppedFull   atomic.Uint64
	droppedFailed atomic.Uint64
	droppedTotal  atomic.Uint64
	lastErr       atomic.Pointer[string]

	// lastPrune is when retention was last applied, and sincePrune how
	// many bytes (recordBytes) were written since; run goroutine only.
	lastPrune  time.Time
	sincePrune int64

	subsMu sync.Mutex
	subs   map[chan record.Activity]func() bool // nil once closed

	closeOnce sync.Once
	closeErr  error

	refusals refusals
}

// refusals counts the refused requests of the current minute.
type refusals struct {
	mu     sync.Mutex
	minute time.Time
	kinds  map[refusalKind]*refusal
	// timer writes the counts at the end of the minute; it runs only while
	// some are counted and not yet written.
	timer *time.Timer
}

// refusalKind is what makes refused requests alike.
type refusalKind struct {
	method, target, token, detail string
	code                          int64
}

// refusal is one kind of refused request in the current minute: the first
// (recorded at once), and how many more came since it was last written.
type refusal struct {
	first record.Activity
	more  int
	since time.Time
}

// NewActivityWriter starts an activity writer on this Store.
func (s *Store) NewActivityWriter(opt ActivityWriterOptions) *ActivityWriter {
	if opt.Buffer <= 0 {
		opt.Buffer = DefaultActivityBuffer
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = DefaultActivityBatchSize
	}
	if opt.BatchDelay <= 0 {
		opt.BatchDelay = DefaultActivityBatchDelay
	}
	if opt.RetentionInterval <= 0 {
		opt.RetentionInterval = DefaultActivityRetentionInterval
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultActivityMaxBytes
	}
	w := &ActivityWriter{
		st:      s,
		opt:     opt,
		wake:    make(chan struct{}, 1),
		flushCh: make(chan chan error),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
		subs:    make(map[chan record.Activity]func() bool),
	}
	go w.run()
	return w
}

// Record queues one record and returns at once; a zero Time becomes now.
// Its texts are cut to their caps (record.Activity's Capped) first: they
// hold what clients sent, which must fill neither the buffer nor the disk.
// When the buffer is full, or the writer is closed, the record is dropped
// (counted in Dropped; while the writer runs, a synthetic record reports
// it). It is safe to call from any goroutine.
func (w *ActivityWriter) Record(a record.Activity) {
	a = a.Capped()
	if a.Time.IsZero() {
		a.Time = time.Now()
	}
	if a.Refused() && !w.countRefusal(a) {
		return
	}
	w.queue(a)
}

// queue hands one record to the writer goroutine, or drops it.
func (w *ActivityWriter) queue(a record.Activity) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		w.droppedTotal.Add(1)
		return
	}
	w.qmu.Lock()
	full := len(w.pending) >= w.opt.Buffer
	if !full {
		w.pending = append(w.pending, a)
	}
	w.qmu.Unlock()
	if full {
		w.droppedFull.Add(1)
		w.droppedTotal.Add(1)
		return
	}
	select {
	case w.wake <- struct{}{}:
	default: // already told
	}
}

// spareKept is the largest pending slice the writer keeps to queue into
// again; a bigger one, left by a burst, goes back to the runtime.
const spareKept = 256

// take hands the writer the records pending, queueing the next ones into
// spare (emptied), so that a steady flow of records allocates nothing.
func (w *ActivityWriter) take(spare []record.Activity) []record.Activity {
	if cap(spare) > spareKept {
		spare = nil
	}
	w.qmu.Lock()
	defer w.qmu.Unlock()
	got := w.pending
	w.pending = spare[:0]
	return got
}

// countRefusal counts a refused request; it reports whether the record
// should be written now (the first of its kind this minute).
func (w *ActivityWriter) countRefusal(a record.Activity) bool {
	r := &w.refusals
	r.mu.Lock()
	defer r.mu.Unlock()
	if minute := a.Time.Truncate(time.Minute); !minute.Equal(r.minute) {
		w.writeRefusalsLocked()
		r.minute, r.kinds = minute, map[refusalKind]*refusal{}
	}
	k := refusalKind{method: a.Method, target: a.Target, token: a.Token, detail: a.Detail, code: a.ErrorCode}
	if _, ok := r.kinds[k]; !ok && len(r.kinds) >= maxRefusalKinds {
		k = refusalKind{method: a.Method, target: a.Target, detail: "other refused requests (too many kinds to count apart)"}
		a.Token, a.ErrorCode, a.Detail = "", 0, k.detail
	}
	kind := r.kinds[k]
	if kind == nil {
		r.kinds[k] = &refusal{first: a}
		return true
	}
	if kind.more == 0 {
		kind.since = a.Time
	}
	kind.more++
	if r.timer == nil {
		r.timer = time.AfterFunc(time.Until(r.minute.Add(time.Minute)), w.writeRefusals)
	}
	return false
}

// writeRefusals writes the refused requests counted and not yet written.
func (w *ActivityWriter) writeRefusals() {
	w.refusals.mu.Lock()
	defer w.refusals.mu.Unlock()
	w.writeRefusalsLocked()
}

// writeRefusalsLocked queues one record per kind of refused request
// counted since it was last written; refusals.mu is held.
func (w *ActivityWriter) writeRefusalsLocked() {
	r := &w.refusals
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	for _, kind := range r.kinds {
		if kind.more == 0 {
			continue
		}
		a := kind.first
		a.Time, a.Duration = kind.since, 0
		a.Detail = fmt.Sprintf("%d more like this since %s: %s", kind.more, kind.since.Local().Format("15:04:05"), kind.first.Detail)
		kind.more = 0
		w.queue(a)
	}
}

// Dropped is how many records were lost so far: buffer overflows, failed
// writes, and records arriving after Close.
func (w *ActivityWriter) Dropped() uint64 { return w.droppedTotal.Load() }

// Flush writes every record recorded before it was called, and returns the
// error of the last write, if any.
func (w *ActivityWriter) Flush(ctx context.Context) error {
	w.writeRefusals()
	ack := make(chan error, 1)
	select {
	case w.flushCh <- ack:
	case <-w.stopped:
		return nil // Close wrote everything
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-ack:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close writes the records still queued, stops the writer and closes every
// subscription. Calling it again returns the first result.
func (w *ActivityWriter) Close() error {
	w.closeOnce.Do(func() {
		w.writeRefusals()
		w.mu.Lock()
		w.closed = true
		w.mu.Unlock()
		close(w.done)
		<-w.stopped
		w.subsMu.Lock()
		for ch, stop := range w.subs {
			stop()
			close(ch)
		}
		w.subs = nil
		w.subsMu.Unlock()
	})
	return w.closeErr
}

// SubscribeActivity returns a channel that receives every record this
// writer commits (synthetic ones included), after its transaction
// commits. Delivery never slows the writer: a subscriber more than 256
// records behind misses records. The channel is closed when ctx ends or
// the writer closes. Records written by other processes do not arrive
// here; follow them with ActivityAfter.
func (w *ActivityWriter) SubscribeActivity(ctx context.Context) <-chan record.Activity {
	ch := make(chan record.Activity, subscriberBuffer)
	w.subsMu.Lock()
	defer w.subsMu.Unlock()
	if w.subs == nil {
		close(ch)
		return ch
	}
	w.subs[ch] = context.AfterFunc(ctx, func() {
		w.subsMu.Lock()
		defer w.subsMu.Unlock()
		if _, ok := w.subs[ch]; ok {
			delete(w.subs, ch)
			close(ch)
		}
	})
	return ch
}

// run is the writer goroutine.
func (w *ActivityWriter) run() {
	defer close(w.stopped)
	batch := make([]record.Activity, 0, w.opt.BatchSize)
	timer := time.NewTimer(w.opt.BatchDelay)
	timer.Stop()
	defer timer.Stop()
	var lastErr error
	write := func() {
		if err := w.commit(batch); err != nil {
			lastErr = err
		}
		batch = batch[:0]
		timer.Stop()
	}
	// drain moves everything queued into batches, writing each full one;
	// a batch begun waits BatchDelay for more.
	var spare []record.Activity
	drain := func() {
		recs := w.take(spare)
		for _, a := range recs {
			if len(batch) == 0 {
				timer.Reset(w.opt.BatchDelay)
			}
			batch = append(batch, a)
			if len(batch) >= w.opt.BatchSize {
				write()
			}
		}
		clear(recs) // the records' strings are not kept alive by the spare
		spare = recs
	}
	for {
		var due <-chan time.Time
		if len(batch) > 0 {
			due = timer.C
		}
		select {
		case <-w.wake:
			drain()
		case <-due:
			write()
		case ack := <-w.flushCh:
			lastErr = nil
			drain()
			write()
			ack <- lastErr
		case <-w.done:
			lastErr = nil
			drain()
			write()
			w.closeErr = lastErr
			return
		}
	}
}

// commit writes a batch, plus a synthetic record for any dropped ones, in
// one transaction, then hands the records to subscribers and applies
// retention when due. A failed write drops the batch, counting it.
func (w *ActivityWriter) commit(batch []record.Activity) error {
	full, failed := w.droppedFull.Swap(0), w.droppedFailed.Swap(0)
	synthetic := 0
	if full+failed > 0 {
		batch = append(batch, w.droppedRecord(full, failed))
		synthetic = 1
	}
	if len(batch) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := w.st.quietTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO activity
			(time, era, client, client_version, token, method, target, duration_us, outcome, error_code, detail, approvals, capabilities)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, a := range batch {
			_, err := stmt.ExecContext(ctx, a.Time.UTC().Format(timeLayout), a.Era, a.Client, a.ClientVersion, a.Token,
				a.Method, a.Target, a.Duration.Microseconds(), a.Outcome, a.ErrorCode, a.Detail, approvalsJSON(a.Approvals),
				capabilitiesJSON(a.Capabilities))
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		real := uint64(len(batch) - synthetic)
		w.droppedFull.Add(full)
		w.droppedFailed.Add(failed + real)
		w.droppedTotal.Add(real)
		msg := err.Error()
		w.lastErr.Store(&msg)
		return fmt.Errorf("write activity: %w", err)
	}
	w.publish(batch)
	for _, a := range batch {
		w.sincePrune += recordBytes(a)
	}
	if time.Since(w.lastPrune) >= w.opt.RetentionInterval || w.sincePrune >= w.opt.MaxBytes/pruneShare {
		w.lastPrune, w.sincePrune = time.Now(), 0
		w.applyRetention(ctx)
	}
	return nil
}

// recordBytes is about what a record's row holds once stored, its texts
// and activityRowOverhead: enough to know when to prune again.
func recordBytes(a record.Activity) int64 {
	n := len(timeLayout) + len(a.Era) + len(a.Client) + len(a.ClientVersion) + len(a.Token) + len(a.Method) +
		len(a.Target) + len(a.Outcome) + len(a.Detail) + activityRowOverhead
	for _, l := range [][]string{a.Approvals, a.Capabilities} {
		for _, s := range l {
			n += len(s) + len(`"",`)
		}
	}
	return int64(n)
}

// droppedRecord is the synthetic record reporting dropped records.
func (w *ActivityWriter) droppedRecord(full, failed uint64) record.Activity {
	var why []string
	if full > 0 {
		why = append(why, fmt.Sprintf("buffer full: %d", full))
	}
	if failed > 0 {
		e := "?"
		if p := w.lastErr.Load(); p != nil {
			e = *p
		}
		why = append(why, fmt.Sprintf("write failed: %d, %s", failed, e))
	}
	return record.Activity{
		Time:    time.Now(),
		Method:  ActivityDroppedMethod,
		Outcome: OutcomeDropped,
		Detail:  fmt.Sprintf("%d activity records dropped (%s)", full+failed, strings.Join(why, "; ")),
	}.Capped() // the database's error text is not ours to bound
}

// publish hands committed records to every subscriber without waiting.
func (w *ActivityWriter) publish(batch []record.Activity) {
	w.subsMu.Lock()
	defer w.subsMu.Unlock()
	for ch := range w.subs {
		for _, a := range batch {
			select {
			case ch <- a:
			default: // this subscriber is behind: it misses the record
			}
		}
	}
}

// applyRetention applies the retention settings and MaxBytes. It is best
// effort: a failure is retried at the next interval.
func (w *ActivityWriter) applyRetention(ctx context.Context) {
	set, err := w.st.Settings(ctx)
	if err != nil {
		return
	}
	_, _ = w.st.PruneActivity(ctx, ActivityRetention{MaxAge: time.Duration(set.ActivityMaxAgeDays) * 24 * time.Hour,
		MaxRows: set.ActivityMaxRows, MaxBytes: w.opt.MaxBytes})
}

// capabilitiesJSON is how a record's declared capabilities are stored: a
// JSON array, "[]" for a client that declared none, or "" when the request
// carried none to read (nil).
func capabilitiesJSON(c []string) string {
	if c == nil {
		return ""
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// approvalsJSON is how a record's approvals are stored: a JSON array, or ""
// when there are none.
func approvalsJSON(a []string) string {
	if len(a) == 0 {
		return ""
	}
	b, _ := json.Marshal(a)
	return string(b)
}
