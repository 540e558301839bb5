package endpoint

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hybridVsock stands in for Firecracker's hybrid vsock socket: it reads "CONNECT PORT\n" and answers with
// reply(port); on "OK ..." it echoes the stream back, as a guest service would answer.
func hybridVsock(t *testing.T, reply func(port string) string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "v.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				port, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "CONNECT ")
				if !ok {
					return
				}
				ans := reply(port)
				if ans == "" {
					return // nothing listens: Firecracker closes the socket
				}
				if _, err := io.WriteString(c, ans); err != nil || !strings.HasPrefix(ans, "OK") {
					return
				}
				io.Copy(c, r)
			}()
		}
	}()
	return path
}

func TestHVSockDial(t *testing.T) {
	tests := []struct {
		name    string
		reply   func(port string) string
		wantErr string
	}{
		{"ok with host port", func(p string) string { return "OK 1073741824\n" }, ""},
		{"ok alone", func(p string) string { return "OK\n" }, ""},
		{"ok then guest bytes at once", func(p string) string { return "OK 5\nhello" }, ""},
		{"nothing listening", func(p string) string { return "" }, "closed before OK"},
		{"refused", func(p string) string { return "ERR no listener\n" }, `reply "ERR no listener"`},
		{"endless reply", func(p string) string { return strings.Repeat("O", 100) }, "reply longer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotPort string
			path := hybridVsock(t, func(p string) string { gotPort = p; return tt.reply(p) })
			e, err := Parse("hvsock://" + path + ":1024")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			c, err := Dial(ctx, e)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if gotPort != "1024" {
				t.Errorf("CONNECT port %q, want 1024", gotPort)
			}
			// The stream after OK is the guest's: nothing of it was swallowed with the reply.
			want := "ping"
			if strings.Contains(tt.name, "guest bytes") {
				want = "helloping"
			}
			fmt.Fprint(c, "ping")
			got := make([]byte, len(want))
			if _, err := io.ReadFull(c, got); err != nil || string(got) != want {
				t.Errorf("stream read %q, %v; want %q", got, err, want)
			}
		})
	}
}

func TestHVSockDialSilentHypervisor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err == nil {
			defer c.Close()
			io.Copy(io.Discard, c)
		}
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err = Dial(ctx, Endpoint{Scheme: SchemeHVSock, Path: path, Port: 5})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
}
