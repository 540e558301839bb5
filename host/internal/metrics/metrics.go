// Package metrics holds glovebox-broker's Prometheus metrics and their HTTP handler. Labels are method, gRPC
// code, guest and state names only: never session ids (unbounded), text or image bytes.
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the broker's collectors on their own registry. A nil *Metrics records nothing, so tests and
// the domain code need no metrics to run.
type Metrics struct {
	reg          *prometheus.Registry
	rpcs         *prometheus.CounterVec
	rpcLatency   *prometheus.HistogramVec
	sessions     prometheus.Gauge
	guestStates  *prometheus.GaugeVec
	auditFsync   prometheus.Histogram
	auditQueue   prometheus.Gauge
	auditAppend  prometheus.Histogram
	queueWaiting *prometheus.GaugeVec
}

// New registers the broker's collectors (plus the Go runtime and process collectors) on a new registry.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		rpcs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "glovebox_broker_rpcs_total", Help: "RPCs served, by method, gRPC code and guest.",
		}, []string{"method", "code", "guest"}),
		rpcLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "glovebox_broker_rpc_duration_seconds", Help: "RPC latency, by method, gRPC code and guest.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2.5, 14),
		}, []string{"method", "code", "guest"}),
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "glovebox_broker_sessions_open", Help: "Open sessions.",
		}),
		guestStates: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "glovebox_broker_guests", Help: "Guests by connection state.",
		}, []string{"state"}),
		auditFsync: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "glovebox_broker_audit_fsync_seconds", Help: "Audit log fsync latency (one per group commit).",
			Buckets: prometheus.ExponentialBuckets(0.00005, 2, 16),
		}),
		auditQueue: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "glovebox_broker_audit_queue_depth", Help: "Audit records waiting for the next group commit.",
		}),
		auditAppend: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "glovebox_broker_audit_append_seconds", Help: "Time until an appended audit record is durable.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 2, 16),
		}),
		queueWaiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "glovebox_broker_mutations_queued", Help: "Mutations waiting for a guest's input queue.",
		}, []string{"guest"}),
	}
	m.reg.MustRegister(m.rpcs, m.rpcLatency, m.sessions, m.guestStates, m.auditFsync, m.auditQueue, m.auditAppend,
		m.queueWaiting, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is the registry the collectors are on.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// RPC records one finished RPC.
func (m *Metrics) RPC(method, code, guest string, d time.Duration) {
	if m == nil {
		return
	}
	m.rpcs.WithLabelValues(method, code, guest).Inc()
	m.rpcLatency.WithLabelValues(method, code, guest).Observe(d.Seconds())
}

// SessionsOpen adds delta to the open session count.
func (m *Metrics) SessionsOpen(delta int) {
	if m == nil {
		return
	}
	m.sessions.Add(float64(delta))
}

// GuestState moves one guest from state old to state new ("" for none).
func (m *Metrics) GuestState(old, new string) {
	if m == nil {
		return
	}
	if old != "" {
		m.guestStates.WithLabelValues(old).Dec()
	}
	if new != "" {
		m.guestStates.WithLabelValues(new).Inc()
	}
}

// AuditFsync records one fsync of the audit log.
func (m *Metrics) AuditFsync(d time.Duration) {
	if m == nil {
		return
	}
	m.auditFsync.Observe(d.Seconds())
}

// AuditQueueDepth sets the number of records waiting for a group commit.
func (m *Metrics) AuditQueueDepth(n int) {
	if m == nil {
		return
	}
	m.auditQueue.Set(float64(n))
}

// AuditAppend records the time one Append took to become durable.
func (m *Metrics) AuditAppend(d time.Duration) {
	if m == nil {
		return
	}
	m.auditAppend.Observe(d.Seconds())
}

// MutationsQueued adds delta to a guest's queued mutations.
func (m *Metrics) MutationsQueued(guest string, delta int) {
	if m == nil {
		return
	}
	m.queueWaiting.WithLabelValues(guest).Add(float64(delta))
}

// ObserveFsync implements audit.Observer: one group commit's fsync latency.
func (m *Metrics) ObserveFsync(guest string, d time.Duration, records int) { m.AuditFsync(d) }

// ObserveQueueDepth implements audit.Observer: records waiting for a group commit.
func (m *Metrics) ObserveQueueDepth(guest string, depth int) { m.AuditQueueDepth(depth) }
