package editor

import (
	"testing"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/app/tryit"
)

func TestMain(m *testing.M) { uitest.Main(m) }

// newTrier is Try it's client of s's server, closed when the test ends.
func newTrier(t *testing.T, s *uitest.Served) *tryit.Trier {
	t.Helper()
	tr, err := tryit.New(s.St, func() string { return s.Url })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}
