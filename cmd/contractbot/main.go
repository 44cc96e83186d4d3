// Command contractbot is the one binary of the project: lint, codeowners, compat,
// check, impact, calendar, publish, registry and serve.
package main

import (
	"os"
	"runtime/debug"

	"github.com/contractbot/contractbot/internal/cli"
	"github.com/contractbot/contractbot/internal/gctune"
)

func main() {
	tuneGC()
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}

// tuneGC trades memory for speed: loading a large tree allocates many short-lived
// objects, and collecting less often cuts the collector's share of the time. A soft
// memory limit keeps the heap bounded: 768 MiB, raised to twice the live heap when a big
// tree's live set needs more (gctune). GOGC and GOMEMLIMIT still take precedence.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	gctune.SoftLimit(768 << 20)
}
