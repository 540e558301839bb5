package server

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errgrpc"
)

// navServer serves the navigation cases' pages: /slow (an image that takes 1 s), /badimg (an image whose
// connection is dropped), /reset (a document whose connection is dropped), /empty404, and /first + /second (the
// first document's image is held until the second is asked for, which then answers 400 ms later), /jsredirect
// (a script replaces the document before its image loaded), /hold (an image held 20 s; the channel tells when it is
// asked for); any other path is a page titled with its path.
func navServer(t *testing.T) (*httptest.Server, <-chan struct{}) {
	release := make(chan struct{})
	holding := make(chan struct{}, 1)
	var once sync.Once
	drop := func(w http.ResponseWriter) {
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		html := func(s string) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<!doctype html>"+s)
		}
		switch r.URL.Path {
		case "/slow":
			html(`<title>Slow</title><img id=i src=/slow.png>`)
		case "/slow.png", "/second.png":
			time.Sleep(time.Second)
			w.WriteHeader(http.StatusNotFound)
		case "/badimg":
			html(`<title>Bad image</title><img id=i src=/bad.png>`)
		case "/bad.png", "/reset":
			drop(w)
		case "/jsredirect":
			// The document sends the tab on before its own (slow) image loads: its load never comes.
			html(`<title>Redirect</title><img src=/slow.png><script>location.replace('/target')</script>`)
		case "/empty404":
			w.WriteHeader(http.StatusNotFound)
		case "/first":
			html(`<title>First</title><img src=/first.png>`)
		case "/hold":
			html(`<title>Hold</title><img src=/hold.png>`)
		case "/hold.png":
			select {
			case holding <- struct{}{}:
			default:
			}
			select {
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
			}
		case "/first.png":
			select {
			case <-release:
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
			}
			w.WriteHeader(http.StatusNotFound)
		case "/second":
			once.Do(func() { close(release) })
			// Time for the first document's load to reach the agent before this document commits.
			time.Sleep(400 * time.Millisecond)
			html(`<title>Second</title><img src=/second.png>`)
		default:
			html(`<title>` + r.URL.Path + `</title><p>page</p>`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, holding
}

// TestBrowserEnginesNavigate: navigate on both engines answers what the page shows (read with the test's own
// evaluate): a failed document load is UNAVAILABLE naming the browser's error (net::ERR_CONNECTION_REFUSED,
// NS_ERROR_CONNECTION_REFUSED), an HTTP error with an empty body too (Chromium shows its own error page; Firefox
// an empty one), a slow image holds the navigate (and a reload) until it loaded or the timeout (TIMEOUT), a failing image does
// not fail it, a page whose script goes on to another document is followed there, a crash while it waits ends it
// (TARGET_GONE, cause crashed), and a late load of the document shown before does not end it.
func TestBrowserEnginesNavigate(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/"
	l.Close()
	for _, eng := range []struct {
		name  string
		start func(testing.TB) *pageEngine
	}{{"chromium", newChromiumEngine}, {"firefox", newFirefoxEngine}} {
		t.Run(eng.name, func(t *testing.T) {
			e := eng.start(t)
			srv, holding := navServer(t)
			tab := e.newTab(t, srv.URL+"/page")
			navigate := func(url string, timeoutMs int32) (time.Duration, error) {
				start := time.Now()
				_, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: e.tab(tab), Url: url, TimeoutMs: timeoutMs}}})
				return time.Since(start), err
			}
			page := func() string { return e.evalString(t, tab, "document.title + ' ' + document.readyState") }
			for _, c := range []struct{ url, want string }{
				{refused, "CONNECTION_REFUSED"},
				{srv.URL + "/reset", ""},
				{srv.URL + "/empty404", ""},
			} {
				took, err := navigate(c.url, 10000)
				if reason(err) != "UNAVAILABLE" || !strings.Contains(err.Error(), c.want) || took > 5*time.Second {
					t.Errorf("navigate to %s: %v after %v, want UNAVAILABLE naming %q at once", c.url, err, took, c.want)
				}
			}
			if took, err := navigate(srv.URL+"/slow", 10000); err != nil || took < 900*time.Millisecond {
				t.Errorf("navigate to a page with a 1 s image: %v after %v", err, took)
			} else if got, img := page(), e.eval(t, tab, "document.getElementById('i').complete"); got != "Slow complete" || img != "true" {
				t.Errorf("after navigate, the page says %q, image complete %s", got, img)
			}
			e.eval(t, tab, "window.__mark = 1")
			start := time.Now()
			if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{Tab: e.tab(tab)}}}); err != nil {
				t.Errorf("reload: %v", err)
			} else if took, got, mark := time.Since(start), page(), e.eval(t, tab, "window.__mark || null"); took < 900*time.Millisecond || got != "Slow complete" || mark != "null" {
				t.Errorf("reload of a page with a 1 s image returned after %v, the page says %q (mark %s), want a new document loaded", took, got, mark)
			}
			if _, err := navigate(srv.URL+"/page", 10000); err != nil {
				t.Fatal(err)
			}
			if took, err := navigate(srv.URL+"/slow", 300); reason(err) != "TIMEOUT" || took > 3*time.Second {
				t.Errorf("navigate with 300 ms to a page with a 1 s image: %v after %v, want TIMEOUT", err, took)
			}
			if _, err := navigate(srv.URL+"/badimg", 10000); err != nil {
				t.Errorf("navigate to a page with a failing image: %v", err)
			} else if got := page(); got != "Bad image complete" {
				t.Errorf("after navigate, the page says %q", got)
			}
			if _, err := navigate(srv.URL+"/jsredirect", 10000); err != nil {
				t.Errorf("navigate to a page whose script goes on to another: %v", err)
			} else if got := page(); got != "/target complete" {
				t.Errorf("after navigate to a page whose script goes on to another, the page says %q", got)
			}
			if _, err := navigate(srv.URL+"/page#frag", 10000); err != nil {
				t.Fatal(err)
			}
			if _, err := navigate(srv.URL+"/page#other", 10000); err != nil {
				t.Errorf("same-document navigate: %v", err)
			} else if got := e.evalString(t, tab, "location.hash"); got != "#other" {
				t.Errorf("after a same-document navigate the page is at %q", got)
			}
			// A page that crashes while navigate waits for its load: TARGET_GONE, cause crashed, at once. (On its own
			// site, so Firefox's process of it serves nothing else.)
			done := make(chan error, 1)
			go func() {
				_, err := navigate(strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)+"/hold", 15000)
				done <- err
			}()
			select {
			case <-holding:
			case <-time.After(10 * time.Second):
				t.Fatal("the /hold page did not ask for its image within 10 s")
			}
			e.crash(t, tab)
			select {
			case err := <-done:
				if got, cause := reason(err), errgrpc.Metadata(errgrpc.FromError(err))[errgrpc.MetaCause]; got != "TARGET_GONE" || cause != errgrpc.CauseCrashed {
					t.Errorf("navigate of a tab that crashed meanwhile: %s cause %q (%v), want TARGET_GONE cause crashed", got, cause, err)
				}
			case <-time.After(8 * time.Second):
				t.Fatal("navigate of a tab that crashed meanwhile did not end within 8 s of the crash")
			}
			// The first document still loads its image when the second is asked for.
			if _, err := e.do(t, &agentv1.ActRequest{Action: &agentv1.ActRequest_Navigate{Navigate: &agentv1.Navigate{Tab: e.tab(tab), Url: srv.URL + "/first", TimeoutMs: 500}}}); reason(err) != "TIMEOUT" {
				t.Fatalf("navigate to /first (its image held): %v, want TIMEOUT", err)
			}
			if took, err := navigate(srv.URL+"/second", 10000); err != nil {
				t.Errorf("navigate to /second: %v", err)
			} else if got := page(); got != "Second complete" {
				t.Errorf("navigate to /second returned after %v with the page saying %q, want \"Second complete\"", took, got)
			}
		})
	}
}
