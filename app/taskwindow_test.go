package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/process"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
)

// taskEnv is a real engine on a real SQLite file, served over real HTTP.
type taskEnv struct {
	eng *mcpcore.Engine
	srv *testserver.Server
}

// taskCatalog has a slow command tool that may run as a task: it reports
// one line of progress, writes its pid, then sleeps.
var taskCatalog = &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion, Tools: []catalog.Tool{
	{
		Name: "backup.run", Description: "Backs up (sleeps).", TaskMode: catalog.TaskOptional,
		Params: []catalog.Param{{Name: "pidfile", Type: "string", Required: true}},
		Action: catalog.Action{Command: &catalog.Command{
			Argv:      []catalog.Template{"sh", "-c", `echo "copying photos"; echo $$ > "$1.tmp" && mv "$1.tmp" "$1" && exec sleep 30`, "backup.run", "{{.args.pidfile}}"},
			TimeoutMs: 120000,
			Stream:    "progress",
		}},
	},
	testcatalog.SyncTool(),
}}

// engineTasks is the engine's tasks as the task window reads them, in this
// process (the window process reads them over the link: window_test.go).
type engineTasks struct{ *mcpcore.Engine }

// RunningTasks are the engine's (TaskSource).
func (e engineTasks) RunningTasks(context.Context) ([]record.Task, error) {
	return e.Engine.RunningTasks(), nil
}

// CancelTask cancels on the engine (TaskSource).
func (e engineTasks) CancelTask(_ context.Context, id string) error { return e.Engine.CancelTask(id) }

func newTaskEnv(t *testing.T) *taskEnv {
	t.Helper()
	s := testserver.Start(t, testserver.Options{Catalog: taskCatalog})
	return &taskEnv{eng: s.Engine, srv: s}
}

// startTask starts tool as a task and returns its id.
func (e *taskEnv) startTask(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	return e.srv.StartTask(t, tool, args)
}

// onUI runs f the way the app would, through fyne.DoAndWait (and the
// window's lock, since the test driver runs it inline).
func onUI[T any](tw *TaskWindow, f func() T) T {
	var v T
	fyne.DoAndWait(func() { tw.locked(func() { v = f() }) })
	return v
}

func TestTaskWindowShowsProgressAndCancels(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	env := newTaskEnv(t)
	u := newUI(app, Config{Tasks: engineTasks{env.eng}})
	tw := u.ShowTaskWindow()
	defer tw.closeAndWait()
	if again := u.ShowTaskWindow(); again != tw {
		t.Error("a second task window for the same engine")
	}
	if !onUI(tw, func() bool { return tw.empty.Visible() }) {
		t.Error("no empty-state line without tasks")
	}

	// A task with a total: a determinate bar and its message.
	syncID := env.startTask(t, "sync.run", nil)
	testutil.Eventually(t, "the sync task's progress", func() bool {
		return onUI(tw, func() bool {
			r := tw.row(syncID)
			return r != nil && r.bar.Visible() && r.bar.Max == 10 && r.bar.Value == 3
		})
	})
	onUI(tw, func() bool {
		r := tw.row(syncID)
		if !strings.Contains(r.status.Text, "synced 3 of 10 folders") || !r.cancel.Visible() || r.spinner.Visible() || tw.empty.Visible() {
			t.Errorf("sync row: status %q, cancel %v, spinner %v", r.status.Text, r.cancel.Visible(), r.spinner.Visible())
		}
		if r.title.Text != "Sync my folders" || r.elapsed.Text == "" {
			t.Errorf("title %q, elapsed %q", r.title.Text, r.elapsed.Text)
		}
		return true
	})

	// A command without a total: an indeterminate bar, its line as status.
	pidfile := filepath.Join(t.TempDir(), "pid")
	backupID := env.startTask(t, "backup.run", map[string]any{"pidfile": pidfile})
	pid := testutil.WaitPID(t, pidfile)
	testutil.Eventually(t, "the backup task's status line", func() bool {
		return onUI(tw, func() bool {
			r := tw.row(backupID)
			return r != nil && strings.Contains(r.status.Text, "copying photos")
		})
	})
	onUI(tw, func() bool {
		r := tw.row(backupID)
		if !r.spinner.Visible() || r.bar.Visible() {
			t.Errorf("backup row without a total: spinner %v, bar %v", r.spinner.Visible(), r.bar.Visible())
		}
		if len(tw.list.Objects) != 2 || tw.list.Objects[0] != tw.row(syncID).box || tw.list.Objects[1] != r.box {
			t.Error("running tasks not listed oldest first")
		}
		return true
	})
	if !process.Alive(pid) {
		t.Fatal("the command is not running")
	}

	// Cancel on the desktop: the task is cancelled and its process ends.
	onUI(tw, func() bool { test.Tap(tw.row(backupID).cancel); return true })
	testutil.Eventually(t, "the backup task to be cancelled", func() bool {
		return onUI(tw, func() bool {
			r := tw.row(backupID)
			return r.task.Status == record.TaskCancelled && !r.cancel.Visible() && strings.Contains(r.status.Text, "Cancelled")
		})
	})
	testutil.Eventually(t, "the cancelled task's process to end", func() bool { return !process.Alive(pid) })
	testutil.Eventually(t, "the cancelled task to leave RunningTasks", func() bool {
		for _, rt := range env.eng.RunningTasks() {
			if rt.ID == backupID {
				return false
			}
		}
		return true
	})
	// The ended task stays listed, after the running one.
	onUI(tw, func() bool {
		if len(tw.list.Objects) != 3 || tw.list.Objects[1] != tw.endedHeading || tw.list.Objects[2] != tw.row(backupID).box {
			t.Errorf("ended task not listed after the running one (%d rows)", len(tw.list.Objects))
		}
		return true
	})
	if err := env.eng.CancelTask(syncID); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "no running task", func() bool { return len(env.eng.RunningTasks()) == 0 })
	testutil.Eventually(t, "the empty-state line", func() bool { return onUI(tw, func() bool { return tw.empty.Visible() }) })
}

func TestRenderTaskWindow(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	test.ApplyTheme(t, theme.DefaultTheme()) // before any widget: the real look
	env := newTaskEnv(t)
	tw := newUI(app, Config{Tasks: engineTasks{env.eng}}).ShowTaskWindow()
	defer tw.closeAndWait()
	syncID := env.startTask(t, "sync.run", nil)
	pidfile := filepath.Join(t.TempDir(), "pid")
	backupID := env.startTask(t, "backup.run", map[string]any{"pidfile": pidfile})
	testutil.WaitPID(t, pidfile)
	testutil.Eventually(t, "both rows", func() bool {
		return onUI(tw, func() bool {
			a, b := tw.row(syncID), tw.row(backupID)
			return a != nil && b != nil && a.bar.Value == 3 && strings.Contains(b.status.Text, "copying")
		})
	})
	quick := env.startTask(t, "backup.run", map[string]any{"pidfile": filepath.Join(t.TempDir(), "pid2")})
	if err := env.eng.CancelTask(quick); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the cancelled row", func() bool {
		return onUI(tw, func() bool { r := tw.row(quick); return r != nil && r.task.Status == record.TaskCancelled })
	})
	uitest.Capture(t, tw.win, "tasks.png")
	onUI(tw, func() bool {
		if got := tw.win.Title(); got != "mcptray — tasks" {
			t.Errorf("title %q", got)
		}
		// The running tasks oldest first, each with its tool's title (its
		// name when it has none; never a task id), time so far, Cancel,
		// progress (a bar with a total, a running one without) and the
		// latest progress message; then the ended one, without Cancel.
		const ran = `re:label: \d+:\d\d`
		got := uitest.SeenIn(tw.win.Canvas())
		uitest.Sees(t, "the task window", got,
			"label: 2 tasks running",
			"label: Sync my folders", ran, "button: Cancel",
			"progress: 3/10", "label: synced 3 of 10 folders",
			"label: backup.run", ran, "button: Cancel",
			"progress: running", "label: copying photos",
			"label: Ended recently",
			"label: backup.run", `re:label: took \d+:\d\d`,
			"label: Cancelled here")
		if n := strings.Count(strings.Join(got, "\n"), "button: Cancel"); n != 2 {
			t.Errorf("%d Cancel buttons, want one per running task", n)
		}
		uitest.SeesNone(t, "the task window", got, "Tools that run as tasks", syncID[:8], backupID[:8], "working")
		uitest.Fits(t, tw.win)
		uitest.InView(t, tw.win, "Cancel")
		return true
	})
	_ = env.eng.CancelTask(syncID)
	_ = env.eng.CancelTask(backupID)
}
