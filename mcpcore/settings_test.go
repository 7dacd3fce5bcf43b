package mcpcore_test

import (
	"slices"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

// TestPaginationFollowsPageSize lists the tools page by page with the page
// size from the settings, then follows a change of that setting.
func TestPaginationFollowsPageSize(t *testing.T) {
	e := newEnv(t, envOptions{settings: func(s *catalog.Settings) { s.PageSize = 5 }})
	want := len(conformanceCatalog(t).Tools)
	pages := func() (sizes []int, names []string) {
		cursor := ""
		for range want + 1 {
			params := map[string]any{}
			if cursor != "" {
				params["cursor"] = cursor
			}
			var page struct {
				toolList
				NextCursor string `json:"nextCursor"`
			}
			e.send(t, e.modern("tools/list", params).Request).result(t, &page)
			sizes = append(sizes, len(page.Tools))
			names = append(names, page.names()...)
			if cursor = page.NextCursor; cursor == "" {
				return sizes, names
			}
		}
		t.Fatal("the pages never ended")
		return nil, nil
	}
	sizes, names := pages()
	if len(names) != want || !slices.IsSorted(names) || slices.Max(sizes) != 5 || len(sizes) != (want+4)/5 {
		t.Errorf("pages of %v holding %d tools (want pages of 5 holding %d, in name order): %v", sizes, len(names), want, names)
	}
	if err := e.st.PutSettings(testCtx(t), withPageSize(t, e, 100)); err != nil {
		t.Fatal(err)
	}
	e.waitSettings(t, func(s catalog.Settings) bool { return s.PageSize == 100 })
	if sizes, _ := pages(); len(sizes) != 1 || sizes[0] != want {
		t.Errorf("after the page size changed to 100: pages of %v", sizes)
	}
}

func withPageSize(t *testing.T, e *env, n int) catalog.Settings {
	t.Helper()
	s, err := e.st.Settings(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	s.PageSize = n
	return s
}

// TestDiscoverFollowsSettings changes the server's identity and cache hints
// while it runs; server/discover reflects them without a restart.
func TestDiscoverFollowsSettings(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := testCtx(t)
	s, err := e.st.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.ServerName, s.Instructions, s.CacheTTLMs, s.CacheScope = "my-tools", "Use greet to say hello.", 1234, "private"
	if err := e.st.PutSettings(ctx, s); err != nil {
		t.Fatal(err)
	}
	e.waitSettings(t, func(got catalog.Settings) bool { return got.Instructions == s.Instructions })
	var d struct {
		Instructions string `json:"instructions"`
		TTLMs        int    `json:"ttlMs"`
		CacheScope   string `json:"cacheScope"`
		Meta         struct {
			ServerInfo struct {
				Name string `json:"name"`
			} `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	e.send(t, e.modern("server/discover", nil).Request).result(t, &d)
	if d.Instructions != s.Instructions || d.Meta.ServerInfo.Name != "my-tools" || d.TTLMs != 1234 || d.CacheScope != "private" {
		t.Errorf("discover after the settings change: %+v", d)
	}
}

// TestTokenAllowedNoTools: an empty allowlist means no tools, never all.
func TestTokenAllowedNoTools(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	none, err := e.st.CreateToken(testCtx(t), "none", []string{})
	if err != nil {
		t.Fatal(err)
	}
	if l := e.listTools(t, none); len(l.Tools) != 0 || l.CacheScope != "private" {
		t.Errorf("a token allowed no tools lists %v (cacheScope %q)", l.names(), l.CacheScope)
	}
}
