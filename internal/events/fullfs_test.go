package events

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/testutil"
)

// TestFileOnAFullDisk: on a real file system that fills up, Send fails while it is
// full and leaves only whole lines, so the events sent again once space is freed are
// each one line that parses.
func TestFileOnAFullDisk(t *testing.T) {
	dir := testutil.FullFS(t, 64<<10)
	path := filepath.Join(dir, "events.jsonl")
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e := sample()
	e.Data.Calendar = strings.Repeat("x", 10000) // more than the page left free
	if err := f.Send(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	filler := testutil.Fill(t, dir, 4096)
	second := e
	second.ID = "second"
	for range 2 {
		if err := f.Send(context.Background(), second); err == nil {
			t.Fatal("Send succeeded on a full disk")
		}
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := f.Send(context.Background(), second); err != nil {
		t.Fatal(err)
	}
	lines := ReadLines(t, path)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	for i, l := range lines {
		var got Event
		if err := json.Unmarshal(l, &got); err != nil {
			t.Errorf("line %d is torn: %v", i+1, err)
		}
	}
}
