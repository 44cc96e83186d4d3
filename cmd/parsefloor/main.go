// Command parsefloor reads and parses every file of a contract tree with the libraries
// `contractbot lint` uses, checking nothing (internal/parsefloor), under the same
// collector settings as contractbot: the floor lint's time and memory are measured
// against in docs/performance.md.
//
//	go run ./cmd/parsefloor DIR
package main

import (
	"fmt"
	"os"

	"github.com/contractbot/contractbot/internal/gctune"
	"github.com/contractbot/contractbot/internal/parsefloor"
)

func main() {
	gctune.CLI()
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: parsefloor DIR (a checked-out contract repository)")
		os.Exit(2)
	}
	n, err := parsefloor.Run(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "parsefloor:", err)
		os.Exit(1)
	}
	fmt.Printf("%d files read and parsed\n", n)
}
