package ui

import (
	"testing"

	"github.com/mcptray/mcptray/app/internal/uitest"
)

func TestMain(m *testing.M) { uitest.Main(m) }
