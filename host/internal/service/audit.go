package service

import (
	"context"
	"fmt"

	"google.golang.org/grpc"

	"glovebox.dev/host/internal/audit"
	"glovebox.dev/host/internal/broker"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// AuditReader is the part of the audit log AuditService reads; *audit.Log implements it.
type AuditReader interface {
	List(guest string, filter audit.Filter, pageSize int, pageToken string) ([]*brokerv1.AuditRecord, string, error)
	Watch(ctx context.Context, guest string, fromSeq uint64) (*audit.Watcher, error)
}

// Audit is the AuditService facade. Access: admins, and principals with audit rights for guests they may use.
type Audit struct {
	brokerv1.UnimplementedAuditServiceServer
	b   *broker.Broker
	log AuditReader
}

func (s *Audit) check(ctx context.Context, guest string) error {
	var v errdefs.Violations
	if guest == "" {
		v.Addf("guest", "required")
	}
	if err := v.Err(); err != nil {
		return err
	}
	if s.log == nil {
		return fmt.Errorf("no audit log: %w", errdefs.ErrUnavailable)
	}
	return s.b.MayAudit(ctx, guest)
}

// ListAuditRecords pages through a guest's records.
func (s *Audit) ListAuditRecords(ctx context.Context, r *brokerv1.ListAuditRecordsRequest) (*brokerv1.ListAuditRecordsResponse, error) {
	if err := s.check(ctx, r.GetGuest()); err != nil {
		return nil, err
	}
	var v errdefs.Violations
	if n := r.GetPageSize(); n < 0 || n > audit.MaxPageSize {
		v.Addf("page_size", "must be 0..%d, got %d", audit.MaxPageSize, n)
	}
	if r.GetToSeq() != 0 && r.GetToSeq() < r.GetFromSeq() {
		v.Addf("to_seq", "must be 0 or at least from_seq (%d), got %d", r.GetFromSeq(), r.GetToSeq())
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	recs, next, err := s.log.List(r.GetGuest(), audit.Filter{SessionID: r.GetSessionId(), FromSeq: r.GetFromSeq(), ToSeq: r.GetToSeq()}, int(r.GetPageSize()), r.GetPageToken())
	if err != nil {
		return nil, err
	}
	return &brokerv1.ListAuditRecordsResponse{Records: recs, NextPageToken: next}, nil
}

// WatchAuditRecords streams a guest's records until the caller cancels.
func (s *Audit) WatchAuditRecords(r *brokerv1.WatchAuditRecordsRequest, st grpc.ServerStreamingServer[brokerv1.WatchAuditRecordsResponse]) error {
	ctx := st.Context()
	if err := s.check(ctx, r.GetGuest()); err != nil {
		return err
	}
	w, err := s.log.Watch(ctx, r.GetGuest(), r.GetFromSeq())
	if err != nil {
		return err
	}
	for rec := range w.C {
		if err := st.Send(&brokerv1.WatchAuditRecordsResponse{Record: rec}); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return w.Err()
}
