// Package labelpage serves a test page with one button whose label the test decides and whose clicks the page
// reports back, so a test reads both on its own server, not through the code under test.
package labelpage

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// page polls /label every 100 ms for the button's label and POSTs /clicked on each click.
const page = `<!doctype html><title>Recorded page</title>
<main><h1>Recorded page</h1><button id="b">%s</button></main>
<script>
const b = document.getElementById('b');
b.addEventListener('click', () => fetch('/clicked', {method: 'POST'}));
setInterval(async () => {
  const l = await (await fetch('/label')).text();
  if (b.textContent !== l) b.textContent = l;
}, 100);
</script>`

// Server is a running page server (closed when the test ends).
type Server struct {
	// URL is the page's address.
	URL string

	mu     sync.Mutex
	label  string
	clicks int
}

// Start serves the page with the button labelled label.
func Start(t testing.TB, label string) *Server {
	t.Helper()
	s := &Server{label: label}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// ServeHTTP serves the page, its label and its click reports.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case "/label":
		fmt.Fprint(w, s.label)
	case "/clicked":
		s.clicks++
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, page, s.label)
	}
}

// SetLabel renames the button (the page picks it up within 100 ms).
func (s *Server) SetLabel(l string) {
	s.mu.Lock()
	s.label = l
	s.mu.Unlock()
}

// Clicks is how many clicks the page reported.
func (s *Server) Clicks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clicks
}

// WaitClicks waits until the page reported n clicks.
func (s *Server) WaitClicks(t testing.TB, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for s.Clicks() != n {
		if time.Now().After(deadline) {
			t.Fatalf("the page reported %d clicks within %v, want %d", s.Clicks(), timeout, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
