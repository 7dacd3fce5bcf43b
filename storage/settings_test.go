package storage

import (
	"context"
	"reflect"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

func TestSettingsDefaults(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	got, err := s.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, catalog.DefaultSettings()) {
		t.Errorf("Settings on a new database = %+v, want defaults", got)
	}
}

func TestSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	set := catalog.DefaultSettings()
	set.ServerTitle = "My tools"
	set.Instructions = "Use greet to say hello."
	set.AllowedOrigins = []string{"https://example.com"}
	set.PageSize = 25
	set.CacheScope = "private"
	set.Port = 9000
	set.AskPolicy = catalog.AskClientOnly
	if err := s.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	got, err := s.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, set) {
		t.Errorf("got %+v\nwant %+v", got, set)
	}
	// Clearing optional fields is stored too.
	set.ServerTitle, set.AllowedOrigins = "", nil
	if err := s.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Settings(ctx); !reflect.DeepEqual(got, set) {
		t.Errorf("after clearing: got %+v\nwant %+v", got, set)
	}
}

func TestSettingsInvalidNotStored(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	before := dump(t, s)
	set := catalog.DefaultSettings()
	set.PageSize = 0
	if err := s.PutSettings(ctx, set); err == nil {
		t.Fatal("PutSettings accepted pageSize 0")
	}
	if after := dump(t, s); after != before {
		t.Errorf("database changed:\n%s", after)
	}
}

func TestSettingsToleratesUnknownAndBadKeys(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	for _, row := range [][2]string{
		{"futureKnob", `{"nested":true}`},
		{"pageSize", `"lots"`},
		{"serverName", `"from-db"`},
	} {
		if _, err := s.db.Exec(`INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)`, row[0], row[1], now()); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := catalog.DefaultSettings()
	want.ServerName = "from-db"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	// Writing settings keeps keys this binary does not know.
	if err := s.PutSettings(ctx, want); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM settings WHERE key = 'futureKnob'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("unknown key dropped (n=%d, err=%v)", n, err)
	}
}

func TestSettingsPortAndAskPolicyValidated(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	before := dump(t, s)
	for _, bad := range []func(*catalog.Settings){
		func(set *catalog.Settings) { set.Port = 70000 },
		func(set *catalog.Settings) { set.Port = -1 },
		func(set *catalog.Settings) { set.AskPolicy = "maybe" },
		func(set *catalog.Settings) { set.AskPolicy = "" },
	} {
		set := catalog.DefaultSettings()
		bad(&set)
		if err := s.PutSettings(ctx, set); err == nil {
			t.Errorf("PutSettings accepted port %d, askPolicy %q", set.Port, set.AskPolicy)
		}
	}
	if after := dump(t, s); after != before {
		t.Errorf("database changed:\n%s", after)
	}
	// Port 0 is stored as such and means the default port.
	set := catalog.DefaultSettings()
	set.Port = 0
	if err := s.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Settings(ctx); got.Port != 0 || got.ListenPort() != catalog.DefaultPort {
		t.Errorf("port 0: stored %d, listen port %d", got.Port, got.ListenPort())
	}
}
