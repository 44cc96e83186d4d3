package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCalendarGolden runs contractbot calendar on the project's example tree with a
// fixed clock.
func TestCalendarGolden(t *testing.T) {
	repo := filepath.Join("..", "..")
	const now = "2026-12-01T09:00:00Z"
	const conflictsTree = "testdata/calendar/conflicts"
	tests := []struct {
		name   string
		args   []string
		code   int
		golden string
	}{
		{"default range text", []string{"--tz", "Europe/Berlin"}, 0, "agenda.txt"},
		{"team in its zone", []string{"--team", "data-warehouse", "--to", "2026-12-20"}, 0, "data-warehouse.txt"},
		{"json", []string{"--from", "2026-12-07", "--to", "2026-12-13", "--tz", "Europe/Berlin", "--format", "json"}, 0, "week.json"},
		{"ics", []string{"--from", "2026-12-01", "--to", "2027-01-31", "--format", "ics"}, 0, "calendar.ics"},
		{"unknown team", []string{"--team", "nobody"}, 2, "unknown-team.stderr"},
		{"bad date", []string{"--from", "12/01/2026"}, 2, "bad-date.stderr"},
		{"to before from", []string{"--from", "2026-12-10", "--to", "2026-12-01"}, 2, "to-before-from.stderr"},
		{"bad zone", []string{"--tz", "Mars/Olympus"}, 2, "bad-zone.stderr"},
		{"bad format", []string{"--format", "xml"}, 2, "bad-format.stderr"},
		// Monday 09:00: the weekend freeze ended at 08:00 (ended, not ongoing); the
		// window of the day's entry is still ahead.
		{"ended this morning", []string{"--now", "2026-12-07T09:00:00+01:00", "--tz", "Europe/Berlin", "--to", "2026-12-08"}, 0, "ended.txt"},
		// A small tree with a conflict and an entry inside a freeze.
		{"conflicts text", []string{"--repo", conflictsTree, "--from", "2026-12-07", "--to", "2026-12-13", "--tz", "Europe/Berlin"}, 0, "conflicts.txt"},
		{"conflicts json", []string{"--repo", conflictsTree, "--from", "2026-12-08", "--to", "2026-12-11", "--format", "json"}, 0, "conflicts.json"},
		{"conflicts ics", []string{"--repo", conflictsTree, "--from", "2026-12-07", "--to", "2026-12-13", "--format", "ics"}, 0, "conflicts.ics"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"calendar", "--repo", repo, "--now", now}, tt.args...)
			stdout, stderr, code := runCLI(t, args...)
			if code != tt.code {
				t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			got := stdout
			if strings.HasSuffix(tt.golden, ".stderr") {
				got = stderr
			} else if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
			checkGolden(t, "../calendar/"+tt.golden, got)
		})
	}
}

func TestCalendarICSHasCRLFOnly(t *testing.T) {
	stdout, _, code := runCLI(t, "calendar", "--repo", filepath.Join("..", ".."), "--now", "2026-12-01T09:00:00Z", "--format", "ics")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if n, m := strings.Count(stdout, "\n"), strings.Count(stdout, "\r\n"); n != m || n == 0 {
		t.Errorf("%d line feeds, %d of them after CR", n, m)
	}
}
