// Package framesite serves the frame tests' pages: a top page and the documents of its iframes on two origins
// (127.0.0.1 and localhost, another site: Chromium and Firefox put such a frame in a process of its own), each
// frame reporting what its controls saw to its own server, so a test reads a frame's state there and not through
// the code under test. The Chromium backend's and the engine table's frame tests share it.
package framesite

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Doc is frame n's document: a button, a field and a scrolling box, each reporting what it saw (and whether the
// event was trusted) with a request to its own server. The offsets put the controls away from the frame's origin.
func Doc(n string) string {
	return `<!doctype html><title>Frame ` + n + `</title>
<script>const hit = s => fetch('/hit?' + new URLSearchParams({n: '` + n + `', e: s}));</script>
<body style="margin:0"><div style="height:60px"></div><span style="display:inline-block;width:90px"></span>
<button onclick="hit('click ' + event.isTrusted)" onmouseover="hit('hover ' + event.isTrusted)">Press ` + n + `</button>
<input aria-label="Field ` + n + `" oninput="hit('input ' + this.value)" onkeydown="hit('key ' + event.key + ' ' + event.isTrusted)"
 onselect="hit('select ' + this.selectionStart + '-' + this.selectionEnd)" onchange="hit('change ' + this.value)">
<div role="region" aria-label="Box ` + n + `" style="height:60px;overflow:auto" onscroll="hit('scroll ' + this.scrollTop)"><div style="height:600px">tall</div></div>`
}

// Site is a served frame site: Top is the same-origin server's URL, Cross the other site's.
type Site struct {
	Top, Cross string
	hits       chan string
}

// Serve serves topBody (given the other site's URL) at every path but /frame?n= (Doc(n)) and /hit (a frame's
// report) on both origins, closed when the test ends.
func Serve(t testing.TB, topBody func(cross string) string) *Site {
	s := &Site{hits: make(chan string, 256)}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/hit":
			s.hits <- r.URL.Query().Get("n") + " " + r.URL.Query().Get("e")
		case "/frame":
			fmt.Fprint(w, Doc(r.URL.Query().Get("n")))
		default:
			fmt.Fprint(w, topBody(s.Cross))
		}
	})
	a := httptest.NewServer(h)
	t.Cleanup(a.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	b.Start()
	t.Cleanup(b.Close)
	s.Top = a.URL
	s.Cross = "http://localhost:" + strings.TrimPrefix(b.URL, "http://127.0.0.1:")
	return s
}

// Await waits (bounded, 5 s) for a frame to report want, failing with everything reported instead; it answers
// what was reported before want.
func (s *Site) Await(t testing.TB, want string) []string {
	t.Helper()
	var seen []string
	timeout := time.After(5 * time.Second)
	for {
		select {
		case h := <-s.hits:
			if h == want {
				return seen
			}
			seen = append(seen, h)
		case <-timeout:
			t.Fatalf("the frame did not report %q within 5s; it reported %q", want, seen)
		}
	}
}
