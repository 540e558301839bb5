package endpoint

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func TestScanFor(t *testing.T) {
	nonce := strings.Repeat("ab", 16)
	other := strings.Repeat("cd", 16)
	tests := []struct {
		name      string
		stream    string
		accept    string // the only nonce accepted; "" accepts any
		wantNonce string
		wantRest  string
		wantErr   bool
	}{
		{"clean", string(helloLine(nonce)) + "PRI * HTTP/2.0", "", nonce, "PRI * HTTP/2.0", false},
		{"stale bytes before", "\x00\x00\x12\x04garbage of an old connection" + string(helloLine(nonce)), "", nonce, "", false},
		{"malformed nonce then valid", "\n" + serialMagic + "HELLO XYZ\n" + string(helloLine(nonce)), "", nonce, "", false},
		{"uppercase nonce refused", "\n" + serialMagic + "HELLO " + strings.ToUpper(nonce) + "\n", "", "", "", true},
		{"old READY skipped", string(readyLine(other)) + "old frames" + string(readyLine(nonce)) + "new", nonce, nonce, "new", false},
		{"truncated line", string(helloLine(nonce))[:20], "", "", "", true},
		{"nothing", "", "", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			word := serialHelloWord
			if strings.Contains(tt.stream, "READY") {
				word = serialReadyWord
			}
			accept := func(n string) bool { return tt.accept == "" || n == tt.accept }
			// One byte per read: a line split across reads must be found the same way.
			for _, r := range []io.Reader{strings.NewReader(tt.stream), &oneByteReader{s: tt.stream}} {
				n, rest, err := scanFor(r, word, accept, 0)
				if (err != nil) != tt.wantErr {
					t.Fatalf("err = %v, want error %v", err, tt.wantErr)
				}
				if err != nil {
					continue
				}
				// The rest is what came with the read that completed the line; read the remainder too.
				all, _ := io.ReadAll(io.MultiReader(bytes.NewReader(rest), r))
				if diff := cmp.Diff([]string{tt.wantNonce, tt.wantRest}, []string{n, string(all)}); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			}
		})
	}
}

type oneByteReader struct{ s string }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0], r.s = r.s[0], r.s[1:]
	return 1, nil
}

func TestScanForGivesUp(t *testing.T) {
	_, _, err := scanFor(strings.NewReader(strings.Repeat("x", 10000)), serialHelloWord, func(string) bool { return true }, 4096)
	if err == nil || errors.Is(err, errSerialEOF) {
		t.Fatalf("err = %v, want the scan limit", err)
	}
}

func TestResetWatcher(t *testing.T) {
	for _, split := range []int{0, 1, 5, len(serialReset) - 1} {
		var w resetWatcher
		// A WINDOW_UPDATE frame (4 bytes of payload), then the RESET line where the next frame would start.
		stream := "\x00\x00\x04\x08\x00\x00\x00\x00\x00" + "\x00\x01\x00\x00" + "\n" + serialReset + "more"
		i := strings.Index(stream, serialReset) + split
		if w.seen([]byte(stream[:i])) && split < len(serialReset) && split > 0 {
			t.Errorf("split %d: RESET seen before it was complete", split)
		}
		if !w.seen([]byte(stream[i:])) && split > 0 {
			t.Errorf("split %d: RESET not seen", split)
		}
	}
	var w resetWatcher
	if w.seen([]byte("GLOVEBOX-SERIAL v1 RESE")) || w.seen([]byte("T")) {
		t.Error("RESET without its newline counted")
	}
	// Inside a frame's payload the line is guest content (a page's text, the clipboard), split or not; the
	// next frame boundary is still followed.
	payload := "text \n" + serialReset + " more"
	data := string([]byte{0, 0, byte(len(payload)), 0, 0, 0, 0, 0, 1}) + payload
	for split := range len(data) {
		var w resetWatcher
		if w.seen([]byte(data[:split])) || w.seen([]byte(data[split:])) {
			t.Errorf("split %d: RESET inside a DATA frame's payload counted", split)
		}
		if !w.seen([]byte("\n" + serialReset)) {
			t.Errorf("split %d: RESET at the frame boundary after it not seen", split)
		}
	}
}

// guestListener returns a serial listener over a pipePort and the port.
func guestListener(t *testing.T) (*serialListener, *pipePort) {
	t.Helper()
	p := &pipePort{}
	l := newSerialListener(p, "/dev/virtio-ports/test", slog.New(slog.DiscardHandler))
	t.Cleanup(func() { l.Close() })
	return l, p
}

// acceptAsync runs Accept in the background.
func acceptAsync(l net.Listener) <-chan net.Conn {
	ch := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			close(ch)
			return
		}
		ch <- c
	}()
	return ch
}

func readLine(t *testing.T, c net.Conn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b []byte
	one := make([]byte, 1)
	for {
		if _, err := c.Read(one); err != nil {
			t.Fatalf("read line after %q: %v", b, err)
		}
		b = append(b, one[0])
		if one[0] == '\n' && len(b) > 1 {
			return string(b)
		}
	}
}

func TestSerialListenerHandshakeAndHostLeaving(t *testing.T) {
	l, p := guestListener(t)
	nonce := strings.Repeat("0f", 16)
	accepted := acceptAsync(l)

	h := p.connect()
	go h.Write(append([]byte("stale HTTP/2 bytes of a connection long gone"), append(helloLine(nonce), "after"...)...))
	if got, want := readLine(t, h), string(readyLine(nonce)); got != want {
		t.Fatalf("guest answered %q, want %q", got, want)
	}
	c := <-accepted
	buf := make([]byte, 16)
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != "after" {
		t.Fatalf("first read = %q, %v; want the bytes after HELLO", buf[:n], err)
	}

	// The host leaves: the connection ends for good, even once a new host has connected.
	p.disconnect(h)
	if _, err := c.Read(buf); !errors.Is(err, io.EOF) {
		t.Fatalf("read after the host left: %v, want EOF", err)
	}
	next := acceptAsync(l)
	h2 := p.connect()
	if _, err := c.Write([]byte("late")); err == nil {
		t.Fatal("write on an ended connection succeeded")
	}
	select {
	case <-next:
		t.Fatal("accepted a second connection while the first was still open")
	case <-time.After(50 * time.Millisecond):
	}
	c.Close()
	nonce2 := strings.Repeat("1e", 16)
	go h2.Write(helloLine(nonce2))
	if got, want := readLine(t, h2), string(readyLine(nonce2)); got != want {
		t.Fatalf("second handshake: guest answered %q, want %q", got, want)
	}
	c2 := <-next
	go h2.Write([]byte("for c2"))
	n, err = c2.Read(buf)
	if err != nil || string(buf[:n]) != "for c2" {
		t.Fatalf("second connection read %q, %v", buf[:n], err)
	}
}

func TestSerialPendingWriteFailsOnClose(t *testing.T) {
	l, p := guestListener(t)
	accepted := acceptAsync(l)
	h := p.connect()
	nonce := strings.Repeat("aa", 16)
	go h.Write(helloLine(nonce))
	readLine(t, h)
	c := <-accepted
	p.disconnect(h) // the host is away: the write below waits
	werr := make(chan error, 1)
	go func() { _, err := c.Write([]byte("pending")); werr <- err }()
	time.Sleep(20 * time.Millisecond)
	c.Close()
	select {
	case err := <-werr:
		if err == nil {
			t.Fatal("pending write succeeded after Close")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pending write still blocked after Close")
	}
	// The next host connection sees the READY of its own handshake, not "pending".
	next := acceptAsync(l)
	h2 := p.connect()
	nonce2 := strings.Repeat("bb", 16)
	go h2.Write(helloLine(nonce2))
	if got := readLine(t, h2); got != string(readyLine(nonce2)) {
		t.Fatalf("new host read %q first", got)
	}
	(<-next).Close()
}

// chardevServer stands in for QEMU's chardev socket: one unix listener whose connections are attached to
// the port one at a time, a disconnect detaching the host.
func chardevServer(t *testing.T, p *pipePort) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chardev.sock")
	ul, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		open []net.Conn
	)
	t.Cleanup(func() {
		ul.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			u, err := ul.Accept()
			if err != nil {
				return
			}
			h := p.connect()
			mu.Lock()
			open = append(open, u, h)
			mu.Unlock()
			done := make(chan struct{}, 2)
			wg.Add(2)
			go func() { defer wg.Done(); io.Copy(h, u); done <- struct{}{} }()
			go func() { defer wg.Done(); io.Copy(u, h); done <- struct{}{} }()
			<-done
			p.disconnect(h)
			u.Close()
		}
	}()
	return path
}

func TestSerialGRPCRecovers(t *testing.T) {
	p := &pipePort{}
	path := chardevServer(t, p)
	serve := func() (*grpc.Server, *serialListener) {
		l := newSerialListener(p, "/dev/virtio-ports/test", slog.New(slog.DiscardHandler))
		g := grpc.NewServer()
		healthpb.RegisterHealthServer(g, health.NewServer())
		go g.Serve(l)
		return g, l
	}
	g, _ := serve()
	e, err := Parse("serial+unix://" + path)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string) time.Duration {
		t.Helper()
		target, opts := GRPCTarget(e)
		cc, err := grpc.NewClient(target, append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))...)
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil {
			t.Fatalf("%s: health check: %v", what, err)
		}
		return time.Since(start)
	}
	check("first connection")
	// The host side restarts (a new client): the guest sees the old connection end and re-accepts.
	if d := check("host reconnect"); d < SerialReconnectGap {
		t.Errorf("reconnect after %v, want at least the %v gap", d, SerialReconnectGap)
	}

	// The agent restarts while a host connection stays up: RESET makes the host reconnect.
	target, opts := GRPCTarget(e)
	cc, err := grpc.NewClient(target, append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	hc := healthpb.NewHealthClient(cc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil {
		t.Fatal(err)
	}
	g.Stop() // closes the listener (the port) and the connection, like the agent process dying
	p.reopen()
	start := time.Now()
	g2, _ := serve()
	defer g2.Stop()
	// The call in flight when the agent died may fail; the connection must be back within seconds.
	for {
		_, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true))
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no recovery from the agent restart: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("recovered from an agent restart in %v", time.Since(start))
}

func TestSerialDialWaitsForReady(t *testing.T) {
	// A guest that answers another nonce first (stale) and then the right one.
	path := filepath.Join(t.TempDir(), "c.sock")
	ul, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	go func() {
		u, err := ul.Accept()
		if err != nil {
			return
		}
		defer u.Close()
		hello := readLine(t, u)
		nonce := strings.TrimSuffix(strings.TrimPrefix(hello, "\n"+serialMagic+serialHelloWord), "\n")
		u.Write(append(append([]byte("old frames"), readyLine(strings.Repeat("99", 16))...), append(readyLine(nonce), "h2"...)...))
		io.Copy(io.Discard, u)
	}()
	c, err := Dial(t.Context(), Endpoint{Scheme: SchemeSerialUnix, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := make([]byte, 2)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "h2" {
		t.Fatalf("after the handshake read %q, %v; want h2", got, err)
	}

	// No READY before the context ends: the dial fails and says so.
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	ul2, err := net.Listen("unix", path+"2")
	if err != nil {
		t.Fatal(err)
	}
	defer ul2.Close()
	go func() {
		u, err := ul2.Accept()
		if err == nil {
			defer u.Close()
			io.Copy(io.Discard, u)
		}
	}()
	if _, err := Dial(ctx, Endpoint{Scheme: SchemeSerialUnix, Path: path + "2"}); err == nil || !strings.Contains(err.Error(), "READY") {
		t.Fatalf("dial to a silent guest: %v", err)
	}
}
