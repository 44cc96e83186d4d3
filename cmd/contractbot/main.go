// Command contractbot is the one binary of the project: lint, codeowners, compat,
// check, impact, calendar, publish, registry and serve.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/contractbot/contractbot/internal/cli"
)

func main() {
	if err := cli.New().Execute(); err != nil {
		var exit *cli.ExitError
		if errors.As(err, &exit) {
			os.Exit(exit.Code)
		}
		fmt.Fprintln(os.Stderr, "contractbot:", err)
		os.Exit(2)
	}
}
