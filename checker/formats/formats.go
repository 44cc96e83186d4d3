// Package formats is the table of schema formats: the one place that lists the
// engines of the binary. Everything above the checker finds a subject's engine here by
// its format name (contract.yaml's `format:`), so adding a format is one package that
// implements checker.Engine and one row in builtin below.
package formats

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/contractbot/contractbot/checker"
	"github.com/contractbot/contractbot/checker/avro"
	"github.com/contractbot/contractbot/checker/jsonschema"
	"github.com/contractbot/contractbot/checker/protobuf"
)

// builtin lists the formats of the binary, in the order messages and listings name
// them.
var builtin = []checker.Engine{
	avro.Engine{},
	protobuf.Engine{},
	jsonschema.Engine{},
}

// row is an engine of the table with its description, read once.
type row struct {
	engine checker.Engine
	desc   checker.Description
}

var (
	mu    sync.RWMutex
	table = rows(builtin)
)

func rows(es []checker.Engine) []row {
	out := make([]row, len(es))
	for i, e := range es {
		out[i] = row{e, e.Describe()}
	}
	return out
}

// All returns the engines of the table, in order.
func All() []checker.Engine {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]checker.Engine, len(table))
	for i, r := range table {
		out[i] = r.engine
	}
	return out
}

// Names returns the format names of the table, in order.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, len(table))
	for i, r := range table {
		out[i] = string(r.desc.Format)
	}
	return out
}

// Lookup finds the engine of a format name, case-insensitively.
func Lookup(format string) (checker.Engine, bool) {
	f := checker.Format(strings.ToLower(strings.TrimSpace(format)))
	mu.RLock()
	defer mu.RUnlock()
	for _, r := range table {
		if r.desc.Format == f {
			return r.engine, true
		}
	}
	return nil, false
}

// ByExtension finds the engine whose schema files end like name (".avsc",
// ".proto"), case-insensitively.
func ByExtension(name string) (checker.Engine, bool) {
	ext := strings.ToLower(path.Ext(name))
	if ext == "" {
		return nil, false
	}
	mu.RLock()
	defer mu.RUnlock()
	for _, r := range table {
		if slices.Contains(r.desc.Extensions, ext) {
			return r.engine, true
		}
	}
	return nil, false
}

// Register adds an engine to the table and returns the function that removes it
// again. The formats of the binary are the rows of builtin; Register is for tests that
// show a new format flows through every caller, and for programs that embed
// contractbot with a format of their own. An engine whose format is already in the
// table replaces it until removed.
func Register(e checker.Engine) (remove func()) {
	f := e.Describe().Format
	mu.Lock()
	defer mu.Unlock()
	prev := table
	next := slices.DeleteFunc(slices.Clone(table), func(r row) bool { return r.desc.Format == f })
	table = append(next, row{e, e.Describe()})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		table = prev
	}
}
