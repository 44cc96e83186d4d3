package bot

import "github.com/prometheus/client_golang/prometheus"

// Metrics counts what the bot could not do. A nil *Metrics counts nothing.
type Metrics struct {
	SideEffectFailures *prometheus.CounterVec
}

// NewMetrics registers the bot's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{SideEffectFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "contractbot_side_effect_failures_total",
		Help: "Side effects of an evaluation that failed (comment, check_run, commit_status, review_request, label, slack, claim); the others went on.",
	}, []string{"effect"})}
	reg.MustRegister(m.SideEffectFailures)
	return m
}

func (m *Metrics) failed(effect string) {
	if m != nil {
		m.SideEffectFailures.WithLabelValues(effect).Inc()
	}
}
