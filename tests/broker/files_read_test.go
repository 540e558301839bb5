package broker_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// readFile reads a file through the broker and returns its bytes, the sha256 the stream ended with and how
// many data messages arrived.
func readFile(ctx context.Context, files brokerv1.FilesServiceClient, session, path string, maxBytes int64) (data []byte, sum string, chunks int, seq uint64, err error) {
	st, err := files.ReadFile(ctx, &brokerv1.ReadFileRequest{SessionId: session, Request: &agentv1.ReadFileRequest{Path: path, MaxBytes: maxBytes}})
	if err != nil {
		return nil, "", 0, 0, err
	}
	for {
		m, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return data, sum, chunks, seq, nil
		}
		if err != nil {
			return data, sum, chunks, seq, err
		}
		if d := m.GetResponse().GetData(); len(d) > 0 {
			data = append(data, d...)
			chunks++
		}
		if s := m.GetResponse().GetSha256(); s != "" {
			sum = s
		}
		if m.GetAuditSeq() != 0 {
			seq = m.GetAuditSeq()
		}
	}
}

// TestReadFileThroughBroker reads a file under the home directory byte-exact, and refuses, naming the field
// and sending no byte, paths that climb out ("../"), absolute paths outside home, symlinks to /etc (a file and
// a directory), and a file larger than max_bytes.
func TestReadFileThroughBroker(t *testing.T) {
	f := startFiles(t, nil)
	content := []byte(strings.Repeat("glovebox read out 0123456789\n", 100000)) // ~2.9 MB: several chunks
	if err := os.MkdirAll(filepath.Join(f.home, "Downloads"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.home, "Downloads", "out.txt"), content, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(f.home, "passwd")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(f.home, "etc")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, path := range []string{"Downloads/out.txt", filepath.Join(f.home, "Downloads", "out.txt")} {
		got, sum, chunks, seq, err := readFile(ctx, f.files, f.session, path, 0)
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		want := sha256.Sum256(content)
		if string(got) != string(content) || sum != hex.EncodeToString(want[:]) || chunks < 3 || seq == 0 {
			t.Errorf("read %s: %d bytes in %d chunks, sha256 %s, audit seq %d; want %d bytes, sha256 %x, >= 3 chunks, a seq",
				path, len(got), chunks, sum, seq, len(content), want)
		}
	}
	for _, c := range []struct {
		path string
		max  int64
		err  error
		want string
	}{
		{"../etc/passwd", 0, errdefs.ErrInvalidArgument, "request.path"},
		{"Downloads/../../x", 0, errdefs.ErrInvalidArgument, "request.path"},
		{"/etc/passwd", 0, errdefs.ErrInvalidArgument, "request.path"},
		{"passwd", 0, errdefs.ErrInvalidArgument, "request.path"},
		{"etc/hostname", 0, errdefs.ErrInvalidArgument, "request.path"},
		{"Downloads", 0, errdefs.ErrInvalidArgument, "request.path"},
		{"Downloads/none.txt", 0, errdefs.ErrNotFound, "path"},
		{"Downloads/out.txt", 1000, errdefs.ErrResourceExhausted, "max_bytes"},
		{"Downloads/out.txt", -1, errdefs.ErrInvalidArgument, "request.max_bytes"},
	} {
		got, _, chunks, _, err := readFile(ctx, f.files, f.session, c.path, c.max)
		if !errors.Is(errgrpc.FromError(err), c.err) || !strings.Contains(err.Error(), c.want) || chunks != 0 || len(got) != 0 {
			t.Errorf("read %q max %d: %v after %d bytes; want %v naming %s and no byte", c.path, c.max, err, len(got), c.err, c.want)
		}
	}
}

// TestFilesPolicy: a principal whose policy denies file transfer gets POLICY_DENIED for drops and reads,
// and caps lower than the agent's refuse a drop over them before any byte is written.
func TestFilesPolicy(t *testing.T) {
	f := startFiles(t, func(cfg map[string]any) {
		p := cfg["principals"].([]map[string]any)
		p[0]["files"] = map[string]any{"max_file_bytes": 1000, "max_read_bytes": 10}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := drop(ctx, f.files, f.session, agentv1.DropTarget_DROP_TARGET_UNSPECIFIED, payload{name: "a", size: 1001, seed: 1})
	if !errors.Is(errgrpc.FromError(err), errdefs.ErrInvalidArgument) || !strings.Contains(err.Error(), "request.files[0].size") {
		t.Errorf("drop over the principal's cap: %v; want INVALID_ARGUMENT naming request.files[0].size", err)
	}
	if _, err := os.Stat(filepath.Join(f.home, "Drops")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused drop created the drop directory (%v)", err)
	}
	if _, err := drop(ctx, f.files, f.session, agentv1.DropTarget_DROP_TARGET_UNSPECIFIED, payload{name: "a", size: 1000, seed: 1}); err != nil {
		t.Fatalf("drop at the cap: %v", err)
	}
	if _, _, _, _, err := readFile(ctx, f.files, f.session, "Drops/a", 0); !errors.Is(errgrpc.FromError(err), errdefs.ErrResourceExhausted) {
		t.Errorf("read over the principal's cap: %v; want RESOURCE_EXHAUSTED", err)
	}

	denied := startFiles(t, func(cfg map[string]any) {
		cfg["principals"].([]map[string]any)[0]["files"] = map[string]any{"deny": true}
	})
	if _, err := drop(ctx, denied.files, denied.session, agentv1.DropTarget_DROP_TARGET_UNSPECIFIED, payload{name: "a", size: 10, seed: 1}); !errors.Is(errgrpc.FromError(err), errdefs.ErrPolicyDenied) {
		t.Errorf("drop by a denied principal: %v; want POLICY_DENIED", err)
	}
	if _, _, _, _, err := readFile(ctx, denied.files, denied.session, "x", 0); !errors.Is(errgrpc.FromError(err), errdefs.ErrPolicyDenied) {
		t.Errorf("read by a denied principal: %v; want POLICY_DENIED", err)
	}
	if _, err := os.Stat(filepath.Join(denied.home, "Drops")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied drop created the drop directory (%v)", err)
	}
}
