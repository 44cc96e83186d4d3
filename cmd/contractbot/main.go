// Command contractbot is the one binary of the project: init, lint, codeowners, check,
// impact, serve, compat, calendar, registry, publish, lineage, report and sample.
package main

import (
	"os"

	"github.com/contractbot/contractbot/internal/cli"
	"github.com/contractbot/contractbot/internal/gctune"
)

func main() {
	gctune.CLI()
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
