package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
)

// followInterval is how often `activity --follow` looks for new records.
const followInterval = 250 * time.Millisecond

// activityRow lays out one line of the activity table; fixed widths keep
// the columns aligned across the batches --follow prints.
const activityRow = "%-23s  %-16s  %-12s  %-20s  %-28s  %-14s  %9s\n"

// activityCmd prints the activity log, oldest of the selected records
// first; with --follow it then prints new records as any process writes
// them (it polls the database by record id), until interrupted.
func activityCmd(ctx context.Context, args []string, env Env) error {
	fs, db := newFlags("activity")
	limit := fs.Int("limit", 50, "how many recent records to print first (0: none)")
	client := fs.String("client", "", "only requests from this client (its name)")
	tool := fs.String("tool", "", "only requests about this tool (or prompt name, or resource URI)")
	outcome := fs.String("outcome", "", "only this outcome: "+strings.Join(activityOutcomes(), ", "))
	follow := fs.Bool("follow", false, "keep printing new records until interrupted")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"usage: mcptray activity [--limit N] [--client X] [--tool X] [--outcome X] [--follow]"}
	}
	if *outcome != "" && !slices.Contains(activityOutcomes(), *outcome) {
		return usageError{fmt.Sprintf("--outcome %q: must be one of %s", *outcome, strings.Join(activityOutcomes(), ", "))}
	}
	if *limit < 0 || *limit > storage.MaxActivityLimit {
		return usageError{fmt.Sprintf("--limit: must be between 0 and %d", storage.MaxActivityLimit)}
	}
	return withStore(*db, func(st *storage.Store) error {
		q := storage.ActivityQuery{Client: *client, Target: *tool, Outcome: *outcome}
		// Everything up to last is history; --follow prints what comes after.
		last, err := st.LastActivityID(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, activityRow, "TIME", "CLIENT", "TOKEN", "METHOD", "TARGET", "OUTCOME", "DURATION")
		if *limit > 0 {
			q.Limit, q.BeforeID = *limit, last+1
			recs, err := st.Activity(ctx, q)
			if err != nil {
				return err
			}
			for i := len(recs) - 1; i >= 0; i-- {
				printActivity(env.Stdout, recs[i])
			}
		}
		if !*follow {
			return nil
		}
		q.Limit, q.BeforeID = storage.MaxActivityLimit, 0
		t := time.NewTicker(followInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
			recs, err := st.ActivityAfter(ctx, last, q)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			for _, r := range recs {
				printActivity(env.Stdout, r)
				last = r.ID
			}
		}
	})
}

// activityOutcomes are the outcomes a record can have.
func activityOutcomes() []string {
	return append(slices.Clone(record.Outcomes), storage.OutcomeDropped)
}

// printActivity prints one record as a table line.
func printActivity(w io.Writer, r storage.ActivityRecord) {
	out := r.Outcome
	if r.Outcome == record.OutcomeError && r.ErrorCode != 0 {
		out += " " + strconv.FormatInt(r.ErrorCode, 10)
	}
	target := r.Target
	if r.Method == storage.ActivityDroppedMethod {
		target = r.Detail
	}
	fmt.Fprintf(w, activityRow,
		r.Time.Local().Format("2006-01-02 15:04:05.000"),
		cell(r.Client, 16), cell(r.Token, 12), cell(r.Method, 20), cell(target, 28), cell(out, 14),
		formatDuration(r.Duration))
	for _, a := range r.Approvals {
		fmt.Fprintf(w, "    %s\n", a)
	}
}

// cell fits s in width runes, "-" when empty, cut with "…" when too long.
func cell(s string, width int) string {
	if s == "" {
		return "-"
	}
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}

// formatDuration prints a duration with three significant digits or so.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(10 * time.Microsecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
