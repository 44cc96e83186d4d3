package contract_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"github.com/hamba/avro/v2"
	"go.yaml.in/yaml/v3"

	"github.com/contractbot/contractbot/internal/contract"
)

// parseOnly reads every file of the tree under dir and parses it with the libraries
// lint uses, on every core and nothing else: YAML into yaml/v3 nodes, Avro with
// hamba/avro's own parser, each Protobuf file with protocompile (source info kept,
// imports read from contracts/). It is the floor lint is compared with.
func parseOnly(dir string) (files int, err error) {
	var paths []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	contracts := filepath.Join(dir, "contracts")
	work := make(chan string)
	errs := make(chan error, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			for p := range work {
				if err := parseFile(contracts, p); err != nil && first == nil {
					first = fmt.Errorf("%s: %w", p, err)
				}
			}
			errs <- first
		}()
	}
	for _, p := range paths {
		work <- p
	}
	close(work)
	wg.Wait()
	close(errs)
	for e := range errs {
		if e != nil {
			return 0, e
		}
	}
	return len(paths), nil
}

func parseFile(contracts, p string) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	switch filepath.Ext(p) {
	case ".yaml", ".yml":
		var n yaml.Node
		return yaml.Unmarshal(data, &n)
	case ".avsc":
		_, err := avro.ParseBytesWithCache(data, "", &avro.SchemaCache{})
		return err
	case ".proto":
		rel, err := filepath.Rel(contracts, p)
		if err != nil {
			return err
		}
		comp := protocompile.Compiler{
			Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{contracts}}),
			SourceInfoMode: protocompile.SourceInfoStandard,
		}
		_, err = comp.Compile(context.Background(), filepath.ToSlash(rel))
		return err
	}
	return nil
}

// cpuTime is the CPU time (user + system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLintVsParseOnly runs contract.Load (lint, no cache) and parseOnly on the
// generated tree alternately, and reports the CPU time and wall time of each per run
// and the ratio lint / parse-only of their CPU times.
func BenchmarkLintVsParseOnly(b *testing.B) {
	dir, _ := benchTree(b)
	var lintCPU, parseCPU, lintWall, parseWall time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		c0, w0 := cpuTime(), time.Now()
		tree, err := contract.Load(contract.NewDirSource(dir))
		if err != nil {
			b.Fatal(err)
		}
		if n := tree.Diagnostics.Errors(); n > 0 {
			b.Fatalf("%d errors in the generated tree, first: %s", n, tree.Diagnostics[0])
		}
		lintCPU, lintWall = lintCPU+cpuTime()-c0, lintWall+time.Since(w0)
		tree = nil
		runtime.GC()
		c0, w0 = cpuTime(), time.Now()
		n, err := parseOnly(dir)
		if err != nil {
			b.Fatal(err)
		}
		if n < 3*benchSubjects() {
			b.Fatalf("parse-only read %d files", n)
		}
		parseCPU, parseWall = parseCPU+cpuTime()-c0, parseWall+time.Since(w0)
	}
	per := func(d time.Duration) float64 { return d.Seconds() / float64(b.N) }
	b.ReportMetric(per(lintCPU), "lint-cpu-s/op")
	b.ReportMetric(per(parseCPU), "parse-only-cpu-s/op")
	b.ReportMetric(per(lintWall), "lint-wall-s/op")
	b.ReportMetric(per(parseWall), "parse-only-wall-s/op")
	b.ReportMetric(lintCPU.Seconds()/parseCPU.Seconds(), "cpu-ratio")
}
