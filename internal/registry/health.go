package registry

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/contractbot/contractbot/internal/guard"
	"github.com/contractbot/contractbot/internal/versions"
)

// The causes of a degraded registry: the label values of its metrics.
const (
	// CauseHistoryRewritten: the branch no longer holds the served commit on its
	// first-parent history (a force push); ids would change, so it is refused.
	CauseHistoryRewritten = "history_rewritten"
	// CauseBranchUnreadable: the branch cannot be resolved (deleted, unreadable).
	CauseBranchUnreadable = "branch_unreadable"
	// CauseIndexFailed: indexing the new commits failed (unreadable objects, ...).
	CauseIndexFailed = "index_failed"
)

var causes = []string{CauseHistoryRewritten, CauseBranchUnreadable, CauseIndexFailed}

// Status is what the registry says of its following of the branch.
type Status struct {
	// Branch is the branch followed; Serving the commit served.
	Branch, Serving string
	// Degraded is set while the registry cannot follow the branch; it then keeps
	// serving Serving. Cause is one of the Cause constants, Reason a sentence that
	// says what happened and what to do, Since when it started, BranchHead the
	// commit the branch points at ("" when it cannot be read).
	Degraded   bool
	Cause      string
	Reason     string
	Since      time.Time
	BranchHead string
}

// health is the registry's record of its own state, with its metrics.
type health struct {
	mu     sync.Mutex
	status Status
	key    string // cause and branch head of the last alert: one alert per distinct cause

	degraded *prometheus.GaugeVec
	failures *prometheus.CounterVec
}

func newHealth() *health {
	h := &health{
		degraded: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "contractbot_registry_degraded",
			Help: "1 while the embedded registry cannot follow its branch and serves an older commit, by cause."}, []string{"cause"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "contractbot_registry_refresh_failures_total",
			Help: "Refreshes of the embedded registry that failed, by cause."}, []string{"cause"}),
	}
	for _, c := range causes {
		h.degraded.WithLabelValues(c).Set(0)
		h.failures.WithLabelValues(c)
	}
	return h
}

// RegisterMetrics registers the registry's metrics (contractbot_registry_degraded,
// contractbot_registry_refresh_failures_total) with r.
func (s *Server) RegisterMetrics(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{s.health.degraded, s.health.failures} {
		if err := r.Register(c); err != nil {
			return fmt.Errorf("register the registry's metrics: %w", err)
		}
	}
	return nil
}

// Status returns the registry's state: the commit it serves and, when it cannot
// follow its branch, why.
func (s *Server) Status() Status {
	s.health.mu.Lock()
	defer s.health.mu.Unlock()
	st := s.health.status
	st.Branch, st.Serving = s.branchName(), s.Head()
	return st
}

// Degraded returns "" while the registry follows its branch, else a sentence saying
// which commit it serves and why (for /readyz and the pages).
func (s *Server) Degraded() string {
	st := s.Status()
	if !st.Degraded {
		return ""
	}
	return st.Reason
}

// record notes the outcome of a refresh: a failure makes the registry degraded (one
// log line and one OnDegraded call per distinct cause and branch head, the metric
// every time), a success after failures makes it whole again.
func (s *Server) record(branchHead plumbing.Hash, err error) {
	h := s.health
	h.mu.Lock()
	defer h.mu.Unlock()
	if err == nil {
		if h.status.Degraded {
			h.degraded.WithLabelValues(h.status.Cause).Set(0)
			s.log.Info("embedded registry: following the branch again", "branch", s.branchName(), "head", s.Head(),
				"degraded_for", time.Since(h.status.Since).Round(time.Second).String())
		}
		h.status, h.key = Status{}, ""
		return
	}
	cause := CauseIndexFailed
	switch {
	case errors.Is(err, versions.ErrHistoryRewritten):
		cause = CauseHistoryRewritten
	case branchHead.IsZero():
		cause = CauseBranchUnreadable
	}
	h.failures.WithLabelValues(cause).Inc()
	served := s.Head()
	var reason string
	switch cause {
	case CauseHistoryRewritten:
		reason = fmt.Sprintf("The branch %s was rewritten: commit %.12s, which the registry serves, is no longer on its first-parent history (the branch is at %.12s). The registry keeps serving %.12s, so schema ids stay stable; restore the branch's history, or restart serve to index the new history (ids assigned after the divergence may change).",
			s.branchName(), served, branchHead, served)
	case CauseBranchUnreadable:
		reason = fmt.Sprintf("The branch %s cannot be read (%v). The registry keeps serving %.12s; check that the branch exists in the clone and that the clone is readable.", s.branchName(), err, served)
	default:
		reason = fmt.Sprintf("Indexing the branch %s at %.12s failed (%v). The registry keeps serving %.12s; check the clone (git fsck) and the disk.", s.branchName(), branchHead, err, served)
	}
	if !h.status.Degraded || h.status.Cause != cause {
		if h.status.Degraded {
			h.degraded.WithLabelValues(h.status.Cause).Set(0)
		}
		h.status.Since = time.Now()
	}
	h.status.Degraded, h.status.Cause, h.status.Reason, h.status.BranchHead = true, cause, reason, branchHead.String()
	if branchHead.IsZero() {
		h.status.BranchHead = ""
	}
	h.degraded.WithLabelValues(cause).Set(1)
	if key := cause + "@" + h.status.BranchHead; key != h.key {
		h.key = key
		s.log.Error("embedded registry: degraded: "+reason, "cause", cause, "branch", s.branchName(), "serving", served, "err", err)
		if s.src.OnDegraded != nil {
			st := h.status
			st.Branch, st.Serving = s.branchName(), served
			go func() {
				_ = guard.Do(s.log, "embedded registry: degraded alert", func() error { s.src.OnDegraded(st); return nil })
			}()
		}
	}
}
