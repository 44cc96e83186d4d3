package bot

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// ServerConfig configures the bot's HTTP server.
type ServerConfig struct {
	WebhookSecret []byte
	// Workers evaluate pull requests in parallel; QueueSize bounds the pull requests
	// that may wait (a full queue answers 503 and GitHub redelivers later).
	Workers, QueueSize int
	// Bot handles the webhooks; nil serves the read side only (no /webhook).
	Bot *Bot
	Log *slog.Logger
	// Mount adds more handlers to the server's mux (the embedded registry, pages).
	Mount func(mux *http.ServeMux)
}

// Server is `contractbot serve`: POST /webhook, /healthz, /readyz and /metrics.
type Server struct {
	cfg     ServerConfig
	mux     *http.ServeMux
	queue   *Queue
	ready   atomic.Bool
	reg     *prometheus.Registry
	hook    *Webhook
	cancel  context.CancelFunc
	workCtx context.Context
}

// NewServer builds the server; its queue's workers start at once.
func NewServer(cfg ServerConfig) *Server {
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 1000
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), reg: prometheus.NewRegistry()}
	s.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	superseded := prometheus.NewCounter(prometheus.CounterOpts{Name: "contractbot_jobs_superseded_total", Help: "Queued evaluations replaced by a newer event for the same pull request."})
	s.reg.MustRegister(superseded)
	s.workCtx, s.cancel = context.WithCancel(context.Background())
	s.queue = NewQueue(s.workCtx, cfg.Workers, cfg.QueueSize, func(string) { superseded.Inc() })
	s.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "contractbot_queue_length", Help: "Pull requests waiting for evaluation."}, func() float64 { return float64(s.queue.Len()) }))
	if cfg.Bot != nil {
		s.hook = &Webhook{Secret: cfg.WebhookSecret, Route: cfg.Bot.Route, Queue: s.queue, Metrics: NewWebhookMetrics(s.reg), Log: cfg.Log}
		s.mux.Handle("POST /webhook", s.hook)
	}
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	s.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !s.ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	if cfg.Mount != nil {
		cfg.Mount(s.mux)
	}
	return s
}

// ServeHTTP serves the mux (for tests with httptest).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Serve accepts connections on l until ctx ends, then stops taking webhooks, lets the
// queued evaluations finish (up to grace) and returns.
func (s *Server) Serve(ctx context.Context, l net.Listener, grace time.Duration) error {
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	s.ready.Store(true)
	s.cfg.Log.Info("serving", "addr", l.Addr().String())
	select {
	case err := <-errc:
		s.cancel()
		return err
	case <-ctx.Done():
	}
	s.ready.Store(false)
	shutdown, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(shutdown)
	done := make(chan struct{})
	go func() { s.queue.Drain(); close(done) }()
	select {
	case <-done:
	case <-shutdown.Done():
		s.cfg.Log.Warn("evaluations still running at shutdown; the reconcile loop of a replica repairs them")
	}
	s.cancel()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
