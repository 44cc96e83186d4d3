package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/contractbot/contractbot/internal/bot"
	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/gitrepo"
	"github.com/contractbot/contractbot/internal/report"
	"github.com/contractbot/contractbot/internal/sample"
	"github.com/contractbot/contractbot/internal/server"
	"github.com/contractbot/contractbot/internal/versions"
)

// serveSampleFlags are serve's flags of the topic sampler (off without
// --sample-brokers).
type serveSampleFlags struct {
	brokers     string
	registryURL string
	interval    time.Duration
	maxMessages int
	kafka       sample.Kafka
}

func (f *serveSampleFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.brokers, "sample-brokers", "", "sample the contracts' topics on these Kafka brokers every --sample-interval: /sample.json, metrics and Slack alerts (docs/sample.md)")
	fl.DurationVar(&f.interval, "sample-interval", 15*time.Minute, "how often the topics are sampled")
	fl.StringVar(&f.registryURL, "sample-registry", "", "a schema registry the sampler asks about ids the contract's history lacks (id-not-in-contract); credentials as for publish")
	fl.IntVar(&f.maxMessages, "sample-max-messages", 100, "the most recent messages read per partition in each round")
	fl.StringVar(&f.kafka.SASLMechanism, "sample-sasl-mechanism", "", "SASL mechanism for --sample-brokers: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (password from CONTRACTBOT_SASL_PASSWORD)")
	fl.StringVar(&f.kafka.SASLUser, "sample-sasl-username", "", "SASL user name for --sample-brokers")
	fl.BoolVar(&f.kafka.TLS, "sample-tls", false, "connect to --sample-brokers with TLS")
	fl.StringVar(&f.kafka.CAFile, "sample-tls-ca", "", "PEM file of the CA that signed the brokers' certificates")
}

// watch returns the sampler of serve, or nil when --sample-brokers is empty. It reads
// its own handle of the repository: the tree with its schemas at the branch's head
// (the pages load theirs without) and a versions index extended as the branch moves.
func (f *serveSampleFlags) watch(ctx context.Context, repoDir, branch string, notify bot.MarkedNotifier, claims bot.Claims, log *slog.Logger) (*sample.Watch, error) {
	if f.brokers == "" {
		return nil, nil
	}
	repo, err := gitrepo.Open(repoDir)
	if err != nil {
		return nil, err
	}
	k := f.kafka
	k.Brokers = strings.Split(f.brokers, ",")
	k.SASLPassword = envSASLPassword()
	k.MaxMessages = f.maxMessages
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("--sample-brokers: %w", err)
	}
	known, err := registryKnows(ctx, f.registryURL)
	if err != nil {
		return nil, fmt.Errorf("--sample-registry: %w", err)
	}
	w := &sample.Watch{Kafka: k, Timeout: min(f.interval, 5*time.Minute), Log: log, Known: known,
		Contract: &contractAtHead{repo: repo, branch: branch}}
	if notify != nil {
		w.Alerts = &bot.SampleAlerts{Notify: notify, Claims: claims, Log: log}
	}
	return w, nil
}

// contractAtHead loads the tree and the versions index at the branch's head, again
// only when the head moved.
type contractAtHead struct {
	repo   *gitrepo.Repo
	branch string

	mu   sync.Mutex
	head plumbing.Hash
	c    sample.Contract
}

func (c *contractAtHead) Load() (sample.Contract, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	head, err := gitrepo.ResolveBranch(c.repo.Repository, c.branch)
	if err != nil {
		return sample.Contract{}, err
	}
	if head == c.head {
		return c.c, nil
	}
	src, err := contract.NewGitSource(c.repo.Repository, head.String())
	if err != nil {
		return sample.Contract{}, err
	}
	tree, err := contract.Load(src)
	if err != nil {
		return sample.Contract{}, err
	}
	ix := c.c.Index
	if ix == nil || ix.Extend(c.repo.Repository, head) != nil {
		if ix, err = versions.Build(c.repo.Repository, head); err != nil {
			return sample.Contract{}, err
		}
	}
	repo := c.repo.Repository
	c.head, c.c = head, sample.Contract{Tree: tree, Index: ix, Read: func(v versions.Version) ([]byte, error) { return ix.Schema(repo, v) }}
	return c.c, nil
}

// sampleMount serves the last round's result as JSON at GET /sample.json (404
// before the first).
func sampleMount(w *sample.Watch) server.Mounter {
	return server.MountFunc(func(mux *http.ServeMux) { mux.Handle("GET /sample.json", sampleHandler(w)) })
}

// sampleHandler serves the last round's result as JSON (404 before the first).
func sampleHandler(w *sample.Watch) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		snap := w.Latest()
		if snap == nil {
			http.Error(rw, "no sampling round has ended yet", http.StatusNotFound)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(struct {
			At    time.Time `json:"at"`
			Error string    `json:"error,omitempty"`
			*sample.Result
		}{snap.At, snap.Err, snap.Result})
	})
}

// envSASLPassword is the SASL password of sample and serve's sampler: from the
// environment only, never a flag.
func envSASLPassword() string { return os.Getenv("CONTRACTBOT_SASL_PASSWORD") }

// sampled gives the health page and the digest the sampler's last result, keyed by
// its round (a web.Sampler).
type sampled struct{ w *sample.Watch }

func (s sampled) Sampled() (*report.Sampled, string) {
	snap := s.w.Latest()
	if snap == nil || snap.Result == nil {
		return nil, ""
	}
	at := snap.At.Format("2006-01-02 15:04 UTC")
	return snap.Result.Sampled("serve's sampler, " + at), snap.At.String()
}
