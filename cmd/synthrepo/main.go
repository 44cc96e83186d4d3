// Command synthrepo generates a synthetic contract repository (see internal/synth):
//
//	go run ./cmd/synthrepo -subjects 10000 -commits 5000 -seed 1 -checkout DIR
//
// It prints what it made and how long it took. With -hostile NAME it prints one of the
// hostile schemas of internal/synth instead (deep-proto, reused-avro, wide-proto-100k,
// ...), for the measurements in docs/performance.md.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/contractbot/contractbot/internal/synth"
)

func main() {
	var o synth.Options
	var checkout, dir string
	var plain bool
	flag.IntVar(&o.Subjects, "subjects", 100, "contract folders (subjects)")
	flag.IntVar(&o.Commits, "commits", 1, "commits on main")
	flag.IntVar(&o.ConsumersPerSubject, "consumers", 2, "consumer files per subject")
	flag.Int64Var(&o.Seed, "seed", 1, "random seed")
	flag.IntVar(&o.Domains, "domains", 0, "domain folders (default subjects/50)")
	flag.Float64Var(&o.ProtobufShare, "protobuf", 0.2, "share of Protobuf subjects, 0..1")
	flag.StringVar(&checkout, "checkout", "", "create the repository in `DIR` and check the final tree out there")
	flag.StringVar(&dir, "repo", "", "create the repository in `DIR` without a checkout")
	flag.BoolVar(&plain, "plain", false, "with -checkout: write the final tree only, no Git")
	hostile := flag.String("hostile", "", "print the hostile schema `NAME` and exit: "+strings.Join(synth.HostileNames(), ", "))
	flag.Parse()
	if *hostile != "" {
		gen, ok := synth.HostileSchemas[*hostile]
		if !ok {
			fmt.Fprintf(os.Stderr, "synthrepo: no hostile schema %q; name one of %s\n", *hostile, strings.Join(synth.HostileNames(), ", "))
			os.Exit(2)
		}
		fmt.Print(gen())
		return
	}
	if (checkout == "") == (dir == "") {
		fmt.Fprintln(os.Stderr, "synthrepo: give exactly one of -checkout DIR or -repo DIR")
		flag.Usage()
		os.Exit(2)
	}
	var (
		st  synth.Stats
		err error
	)
	switch {
	case plain:
		st, err = synth.WriteTree(checkout, o)
		dir = checkout
	case checkout != "":
		o.Checkout = true
		dir = checkout
		_, st, err = synth.GenerateStats(dir, o)
	default:
		_, st, err = synth.GenerateStats(dir, o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "synthrepo:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d subjects (%d avro, %d protobuf), %d consumers, %d lineage edges, %d teams, %d calendar entries, %d files\n",
		dir, st.Subjects, st.Avro, st.Protobuf, st.Consumers, st.LineageEdges, st.Teams, st.CalendarFiles, st.Files)
	if !plain {
		fmt.Printf("%d commits on %s, head %s, %d objects\n", st.Commits, synth.Branch, st.Head, st.Objects)
	}
	fmt.Printf("took %s\n", st.Elapsed.Round(1e6))
}
