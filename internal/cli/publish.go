package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/events"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/outbound"
	"github.com/contractbot/contractbot/internal/publish"
	"github.com/contractbot/contractbot/internal/registry"
)

func newPublishCmd() *cobra.Command {
	var vb verbosity
	var bf branchFlags
	var url, sinkSpec, statePath, source, baseline string
	var embedded bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "publish",
		Short: "Publish the default branch's merged schema versions to a registry and send change events",
		Long: `publish walks the default branch's first-parent commits that are not published yet,
oldest first. For each subject whose schema or compatibility level changed in a commit it
sets the subject's level in the registry, registers the version (Protobuf imports as
references), and sends a change event (a CloudEvent carrying the merge's verdict: class,
field changes, affected consumers); then it marks the commit published in the state file.

Without --registry (or with --embedded) nothing is registered: the embedded registry
(contractbot registry serve) already serves the branch; events are still sent.

Every step is idempotent: a run interrupted at any point is finished by the next one,
with no version registered twice and events sent again under the same ids.

--events takes file:PATH (JSON lines, the default: file:<git dir>/contractbot/events.jsonl),
http:URL or https:URL (POST, signed with CONTRACTBOT_EVENTS_SECRET when set) or
kafka:BROKER[,BROKER...]/TOPIC[?compression=none|gzip|snappy|lz4|zstd] (uncompressed unless
asked: every Kafka client reads that). Registry credentials come from CONTRACTBOT_REGISTRY_USER and
CONTRACTBOT_REGISTRY_PASSWORD, or CONTRACTBOT_REGISTRY_TOKEN. See docs/events.md.`,
		Example: `  contractbot publish
  contractbot publish --registry https://registry.example.com \
      --events kafka:broker-1:9092/schema-events
  contractbot publish --repo /srv/contracts --branch origin/main \
      --events https://hooks.example.com/schemas`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if url != "" && embedded {
				return errors.New("--registry and --embedded exclude each other: name a registry to write to, or none to rely on the embedded registry")
			}
			r, branch, err := bf.open()
			if err != nil {
				return err
			}
			defer r.Close()
			head, err := gitrepo.ResolveBranch(r.Repository, branch)
			if err != nil {
				return err
			}
			// One record of what was published per repository: a bare repository's
			// folder, or the Git folder a linked worktree shares with the others.
			gitDir := r.CommonDir()
			if statePath == "" {
				statePath = filepath.Join(gitDir, "contractbot", "published.json")
			}
			if sinkSpec == "" {
				sinkSpec = "file:" + filepath.Join(gitDir, "contractbot", "events.jsonl")
			}
			marker, err := publish.OpenFileMarker(statePath)
			if err != nil {
				return err
			}
			if baseline != "" {
				return markBaseline(cmd.OutOrStdout(), r, marker, baseline, statePath)
			}
			sink, err := openSink(sinkSpec, timeout)
			if err != nil {
				return err
			}
			defer func() {
				if err := sink.Close(); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "closing the event sink: %v\n", err)
				}
			}()
			if source == "" {
				source = sourceOf(r, bf.repo)
			}
			p := &publish.Publisher{Repo: r.Repository, Sink: sink, Marker: marker, Source: source}
			if url != "" {
				c, err := registry.NewClient(url, clientOptions(timeout)...)
				if err != nil {
					return err
				}
				p.Registry = c
			}
			out := cmd.OutOrStdout()
			var versions, levels int
			p.Progress = func(s publish.Summary) {
				v, l := writeSummary(vb.chatty(out), out, s)
				versions, levels = versions+v, levels+l
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			sums, err := p.Publish(ctx, head)
			where := "the embedded registry serves them"
			if url != "" {
				where = "registered at " + outbound.RedactString(url)
			}
			if len(sums) == 0 && err == nil {
				fmt.Fprintf(vb.chatty(out), "nothing to publish: %s is published up to %.12s (state in %s)\n", branch, head, statePath)
				return nil
			}
			again := "run contractbot publish again to finish: what is done is not done twice"
			if registry.IsIncompatible(err) {
				again = "running contractbot publish again fails the same way until the schema or the registry changes (see above); then run it to finish"
			}
			if len(sums) == 0 {
				if registry.IsIncompatible(err) {
					return fmt.Errorf("%w\nnothing was published: the first pending commit failed; %s", err, again)
				}
				return fmt.Errorf("%w\nnothing was published: the first pending commit failed; run contractbot publish again once the cause is fixed", err)
			}
			// The last commit actually marked, which is the head only when nothing failed.
			last := sums[len(sums)-1].Commit
			fmt.Fprintf(vb.chatty(out), "%d commit(s) of %s published up to %.12s: %d version(s), %d level change(s); %s; events to %s; state in %s\n",
				len(sums), branch, last, versions, levels, where, sink, statePath)
			if err != nil {
				fmt.Fprintf(out, "stopped before %.12s: the commits after %.12s up to %.12s are not published yet\n", head, last, head)
				return fmt.Errorf("%w\n%s", err, again)
			}
			return nil
		},
	}
	bf.add(cmd)
	cmd.Flags().StringVar(&url, "registry", "", "the Confluent-compatible registry to write to (default: none, the embedded registry serves the branch)")
	cmd.Flags().BoolVar(&embedded, "embedded", false, "register nothing remotely: the embedded registry serves the branch (the default)")
	cmd.Flags().StringVar(&sinkSpec, "events", "", "where change events go: file:PATH, http(s):URL or kafka:BROKERS/TOPIC, with ?compression= none, gzip, snappy, lz4 or zstd (default: none) (default file:<git dir>/contractbot/events.jsonl)")
	cmd.Flags().StringVar(&statePath, "state", "", "the file that records published commits (default <git dir>/contractbot/published.json)")
	cmd.Flags().StringVar(&source, "source", "", "the CloudEvents source of the events (default: the origin remote's URL, else file://<repository>)")
	cmd.Flags().StringVar(&baseline, "baseline", "", "mark this revision (and so everything before it) published without publishing anything, then stop: for a registry that already holds the history")
	vb.add(cmd, "print nothing but warnings and errors (no line per version, no summary)", "")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "time limit of each request to the registry or the event endpoint")
	return cmd
}

// markBaseline records rev as published: publishing resumes after it.
func markBaseline(w io.Writer, r *gitrepo.Repo, m *publish.FileMarker, rev, statePath string) error {
	h, err := r.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return fmt.Errorf("resolve --baseline %s: %w", rev, err)
	}
	c, err := r.CommitObject(*h)
	if err != nil {
		return fmt.Errorf("resolve --baseline %s: %w", rev, err)
	}
	if err := m.Mark(context.Background(), h.String(), publish.Summary{Commit: h.String(), Time: c.Committer.When.UTC(), Published: []publish.Item{}}); err != nil {
		return err
	}
	fmt.Fprintf(w, "%.12s and every commit before it are marked published in %s; contractbot publish will start after it\n", h, statePath)
	return nil
}

// writeSummary prints one published commit to w, its warnings to warn, and counts its
// versions and level changes.
func writeSummary(w, warn io.Writer, s publish.Summary) (versions, levels int) {
	for _, it := range s.Published {
		what := fmt.Sprintf("version %d (id %d", it.Version, it.ID)
		if it.RegisteredID != 0 && it.RegisteredID != it.ID {
			what += fmt.Sprintf(", registry id %d", it.RegisteredID)
		}
		what += ")"
		if it.LevelOnly {
			what = fmt.Sprintf("version %d unchanged", it.Version)
			levels++
		} else {
			versions++
		}
		fmt.Fprintf(w, "%.12s  %s %s, level %s, event %s\n", s.Commit, it.Subject, what, it.Level, it.Event)
		if it.NotLatest != "" {
			fmt.Fprintf(warn, "%.12s  warning: %s: %s\n", s.Commit, it.Subject, it.NotLatest)
		}
	}
	return versions, levels
}

// openSink opens the event sink a --events value names.
func openSink(spec string, timeout time.Duration) (events.Sink, error) {
	kind, rest, _ := strings.Cut(spec, ":")
	switch kind {
	case "file":
		if rest == "" {
			return nil, errors.New("--events file: needs a path, e.g. file:events.jsonl")
		}
		return events.OpenFile(rest)
	case "http", "https":
		var opts []events.HTTPOption
		if secret := os.Getenv("CONTRACTBOT_EVENTS_SECRET"); secret != "" {
			opts = append(opts, events.WithSecret([]byte(secret)))
		}
		return events.NewHTTP(spec, append(opts, events.WithHTTPTimeout(timeout))...), nil
	case "kafka":
		rest, query, _ := strings.Cut(rest, "?")
		brokers, topic, err := events.ParseKafka(rest)
		if err != nil {
			return nil, err
		}
		params, err := url.ParseQuery(query)
		if err != nil {
			return nil, fmt.Errorf("--events %q: %w", spec, err)
		}
		for k := range params {
			if k != "compression" {
				return nil, fmt.Errorf("--events %q: unknown option %q; the Kafka sink takes compression=%s", spec, k, strings.Join(events.KafkaCompressions, "|"))
			}
		}
		compression, err := events.KafkaCompression(params.Get("compression"))
		if err != nil {
			return nil, fmt.Errorf("--events %q: %w", spec, err)
		}
		k, err := events.NewKafka(brokers, topic, compression)
		if err != nil {
			return nil, err
		}
		// A run must end when the cluster stays down: an event not acknowledged within
		// six times the request timeout fails the run (the next run sends it again).
		return &boundedSink{Sink: k, limit: 6 * timeout}, nil
	}
	return nil, fmt.Errorf("--events %q: write file:PATH, http(s)://HOST/PATH or kafka:BROKER[,BROKER]/TOPIC[?compression=none|gzip|snappy|lz4|zstd]", spec)
}

// boundedSink gives each Send a time limit.
type boundedSink struct {
	events.Sink
	limit time.Duration
}

func (b *boundedSink) Send(ctx context.Context, e events.Event) error {
	ctx, cancel := context.WithTimeout(ctx, b.limit)
	defer cancel()
	return b.Sink.Send(ctx, e)
}

func (b *boundedSink) String() string { return fmt.Sprint(b.Sink) }

// sourceOf names the repository for the events: its origin remote, else its path.
func sourceOf(r *gitrepo.Repo, path string) string {
	if rem, err := r.Remote("origin"); err == nil && len(rem.Config().URLs) > 0 {
		return rem.Config().URLs[0]
	}
	if r.Root != "" {
		path = r.Root
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return "file://" + filepath.ToSlash(abs)
}
