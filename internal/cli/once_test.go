package cli

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/contractbot/contractbot/internal/gctune"
)

// TestCommandOnce runs one command in process, as the binary does, when
// CONTRACTBOT_ONCE holds its arguments: a CPU profile of one whole run, e.g.
//
//	CONTRACTBOT_ONCE="check --repo DIR --rev change --against main" \
//	  go test ./internal/cli -run TestCommandOnce -count 1 -cpuprofile cpu.out
func TestCommandOnce(t *testing.T) {
	args := os.Getenv("CONTRACTBOT_ONCE")
	if args == "" {
		t.Skip("CONTRACTBOT_ONCE names no command")
	}
	gctune.CLI()
	if code := Main(strings.Fields(args), io.Discard, os.Stderr); code > 1 {
		t.Fatalf("exit %d", code)
	}
}
