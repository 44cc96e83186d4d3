package cli

import "flag"

// update rewrites golden files: go test ./internal/cli/ -update
var update = flag.Bool("update", false, "rewrite golden files")
