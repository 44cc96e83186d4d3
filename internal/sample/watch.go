package sample

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/contractbot/contractbot/internal/contract"
	"github.com/contractbot/contractbot/internal/guard"
	"github.com/contractbot/contractbot/internal/versions"
)

// Contract is what a round of the watch judges against: the tree at the head of the
// default branch, its versions index, and how to read a version's schema text.
type Contract struct {
	Tree  *contract.Tree
	Index *versions.Index
	Read  func(versions.Version) ([]byte, error)
}

// Alert is one problem a round found, for the people to tell: the subject's owner and
// the teams whose consumers read the field concerned (every consumer's team for a
// problem of the whole message).
type Alert struct {
	Topic, Subject string
	Problem        ProblemCount
	// Owner is the subject's owner team; Readers the teams whose consumers read the
	// field, sorted, the owner left out.
	Owner   string
	Readers []string
	// Consumers names the consumers that read the field, sorted.
	Consumers []string
	// Channels are the Slack channels of the owner and the readers (teams.yaml),
	// the owner's first.
	Channels []string
}

// Watch samples the contracts' topics on a schedule (serve --sample-brokers): each
// round reads the recent records, keeps the result for the pages (Latest), sets the
// metrics and hands each problem to Alerts (which tells each problem once).
type Watch struct {
	Kafka   Kafka
	Options Options
	// Timeout bounds one round (a minute when 0).
	Timeout time.Duration
	// Contract loads what to judge against now.
	Contract ContractLoader
	// Known asks a registry about ids Git never had (nil: none).
	Known Known
	// Alerts, when set, is told each problem of a round, from the round's
	// goroutine.
	Alerts Alerter
	Log    *slog.Logger

	latest  atomic.Pointer[Snapshot]
	metrics *watchMetrics
}

// ContractLoader loads what a round judges against (serve's loads the default
// branch's head again only when it moved).
type ContractLoader interface {
	Load() (Contract, error)
}

// Alerter tells the people concerned about a problem (the bot's SampleAlerts: on
// Slack, once across replicas).
type Alerter interface {
	Alert(ctx context.Context, a Alert)
}

// Snapshot is a round's result and when it ended.
type Snapshot struct {
	Result *Result
	At     time.Time
	// Err says why the round read nothing ("" when it read).
	Err string
}

// Latest returns the last round's snapshot, nil before the first ends.
func (w *Watch) Latest() *Snapshot { return w.latest.Load() }

// Every runs a round at once and then every interval until ctx ends; a round that
// panics is logged and the next one runs.
func (w *Watch) Every(ctx context.Context, interval time.Duration) {
	guard.Every(ctx, interval, w.Log, "topic sampling", func(ctx context.Context) {
		if err := w.Round(ctx); err != nil && w.Log != nil {
			w.Log.Warn("topic sampling failed", "err", err)
		}
	})
}

// Round samples every topic of the contract once.
func (w *Watch) Round(ctx context.Context) error {
	timeout := w.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, tree, err := w.round(ctx)
	snap := &Snapshot{Result: res, At: time.Now().UTC()}
	if err != nil {
		snap.Err = err.Error()
		if prev := w.latest.Load(); prev != nil {
			snap.Result = prev.Result // keep showing the last result, with the error
		}
		w.latest.Store(snap)
		w.metrics.failed()
		return err
	}
	w.latest.Store(snap)
	w.metrics.set(res)
	if w.Alerts == nil {
		return nil
	}
	for _, a := range Alerts(tree, res) {
		w.Alerts.Alert(ctx, a)
	}
	return nil
}

func (w *Watch) round(ctx context.Context) (*Result, *contract.Tree, error) {
	c, err := w.Contract.Load()
	if err != nil {
		return nil, nil, fmt.Errorf("load the contract: %w", err)
	}
	judges, err := Judges(c.Tree, c.Index, c.Read, nil, w.Options)
	if err != nil {
		return nil, nil, err
	}
	s := NewSampler(judges, w.Known)
	rd, err := ReadKafka(ctx, w.Kafka, s.Topics(), true, func(r Record) { s.Add(r) })
	if err != nil {
		return nil, nil, err
	}
	for _, t := range rd.Missing {
		s.Note(t, "the topic does not exist on the cluster; nothing was read")
	}
	for _, t := range rd.Unfinished {
		s.Note(t, "the round's time limit ended the reading before the topic's end")
	}
	return s.Result(false), c.Tree, nil
}

// Alerts lists the problems of a result with whom to tell about each.
func Alerts(t *contract.Tree, r *Result) []Alert {
	var out []Alert
	for _, tr := range r.Topics {
		s := t.Subject(tr.Subject)
		for _, p := range tr.Problems {
			a := Alert{Topic: tr.Topic, Subject: tr.Subject, Problem: p}
			if s != nil {
				a.Owner = s.Owner
				if p.Part == "key" {
					// The key's subject is another; its readers are the value's too.
					a.Owner = keyOwner(t, tr.Topic, s.Owner)
				}
				a.Readers, a.Consumers = readers(s, p.Field, a.Owner)
				for _, team := range append([]string{a.Owner}, a.Readers...) {
					if tm := t.Teams[team]; tm != nil && tm.Slack != "" && !slices.Contains(a.Channels, tm.Slack) {
						a.Channels = append(a.Channels, tm.Slack)
					}
				}
			}
			out = append(out, a)
		}
	}
	return out
}

func keyOwner(t *contract.Tree, topic, fallback string) string {
	for _, tp := range Topics(t) {
		if tp.Name == topic && tp.Key != nil {
			return tp.Key.Owner
		}
	}
	return fallback
}

// readers returns the teams (the owner left out) and the consumers that read field:
// the field itself, a field inside it or around it, or every field ("*"); every
// consumer for a problem of the whole message ("").
func readers(s *contract.Subject, field, owner string) (teams, consumers []string) {
	for _, c := range s.Consumers {
		if !slices.ContainsFunc(c.Reads, func(r string) bool { return reads(r, field) }) {
			continue
		}
		consumers = append(consumers, c.Name)
		if c.Owner != owner && !slices.Contains(teams, c.Owner) {
			teams = append(teams, c.Owner)
		}
	}
	sort.Strings(teams)
	sort.Strings(consumers)
	return teams, consumers
}

// reads reports whether a consumer's read r concerns field.
func reads(r, field string) bool {
	if field == "" || r == "*" || r == field {
		return true
	}
	return strings.HasPrefix(r, field+".") || strings.HasPrefix(field, r+".")
}

// watchMetrics are the watch's Prometheus gauges, per topic and kind (label values
// come from the contract's topics and the fixed kinds).
type watchMetrics struct {
	messages, conforming *prometheus.GaugeVec
	problems             *prometheus.GaugeVec
	failures             prometheus.Counter
}

// RegisterMetrics registers the watch's metrics.
func (w *Watch) RegisterMetrics(reg prometheus.Registerer) error {
	m := &watchMetrics{
		messages: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "contractbot_sample_messages",
			Help: "Messages read from the topic in the last sampling round."}, []string{"topic"}),
		conforming: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "contractbot_sample_conforming_messages",
			Help: "Messages of the last sampling round that conform to the contract."}, []string{"topic"}),
		problems: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "contractbot_sample_problem_messages",
			Help: "Messages of the last sampling round with a problem of this kind."}, []string{"topic", "kind"}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "contractbot_sample_round_failures_total",
			Help: "Sampling rounds that read nothing (brokers unreachable, the contract not loaded)."}),
	}
	for _, c := range []prometheus.Collector{m.messages, m.conforming, m.problems, m.failures} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	w.metrics = m
	return nil
}

func (m *watchMetrics) set(r *Result) {
	if m == nil || r == nil {
		return
	}
	m.messages.Reset()
	m.conforming.Reset()
	m.problems.Reset()
	for _, t := range r.Topics {
		m.messages.WithLabelValues(t.Topic).Set(float64(t.Messages))
		m.conforming.WithLabelValues(t.Topic).Set(float64(t.Conforming))
		for _, p := range t.Problems {
			m.problems.WithLabelValues(t.Topic, string(p.Kind)).Add(float64(p.Count))
		}
	}
}

func (m *watchMetrics) failed() {
	if m != nil {
		m.failures.Inc()
	}
}
