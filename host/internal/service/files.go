package service

import (
	"context"

	"google.golang.org/grpc"

	"glovebox.dev/host/internal/broker"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// Files is the FilesService facade.
type Files struct {
	brokerv1.UnimplementedFilesServiceServer
	b *broker.Broker
}

// DropFiles forwards a drop.
func (s *Files) DropFiles(st grpc.ClientStreamingServer[brokerv1.DropFilesRequest, brokerv1.DropFilesResponse]) error {
	resp, err := s.b.DropFiles(st.Context(), st)
	if err != nil {
		return err
	}
	return st.SendAndClose(resp)
}

// ReadFile streams a file out.
func (s *Files) ReadFile(r *brokerv1.ReadFileRequest, st grpc.ServerStreamingServer[brokerv1.ReadFileResponse]) error {
	return s.b.ReadFile(st.Context(), r, st)
}

// ListDownloads lists the browser download directory.
func (s *Files) ListDownloads(ctx context.Context, r *brokerv1.ListDownloadsRequest) (*brokerv1.ListDownloadsResponse, error) {
	return s.b.ListDownloads(ctx, r)
}
