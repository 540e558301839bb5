package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/chromium"
)

// benchScreenEnv is a 1280x800 desktop showing real content, plus a small square the benchmark moves to
// damage the screen between captures. The scene is "terminal" (two overlapping xterms full of text in two
// colour schemes) or "page" (Chromium maximised on a generated article page: the figures were
// measured on a browser page, where the content costs an encoder more than text on a flat background).
func benchScreenEnv(b *testing.B, scene string) (*screenEnv, func()) {
	b.Helper()
	e := startScreenEnv(b)
	switch scene {
	case "terminal":
		testenv.NeedCommands(b, "xterm")
		e.d.StartProgram(b, e.d.Command("xterm", "-geometry", "160x50+0+0", "-T", "bench-xterm", "-e",
			"sh", "-c", "ls -l /usr/bin | head -300; cat /work/shared/DESIGN.md 2>/dev/null; sleep 600"))
		e.d.WaitWindow(b, "^bench-xterm$", 10*time.Second)
		e.d.StartProgram(b, e.d.Command("xterm", "-geometry", "100x30+560+330", "-T", "bench-xterm-2", "-bg", "#ffffdd",
			"-fg", "#202060", "-e", "sh", "-c", "ls -lR /usr/share/doc | head -200; sleep 600"))
		e.d.WaitWindow(b, "^bench-xterm-2$", 10*time.Second)
		time.Sleep(500 * time.Millisecond) // let the programs finish drawing
	case "page":
		showBenchPage(b, e)
	}
	sq := e.paint.square(b, 1200, 700, 8, 8, 0xff00ff)
	x := 0
	damage := func() {
		x ^= 1
		e.paint.move(b, sq, 1200+x*16, 700)
	}
	return e, damage
}

// showBenchPage starts Chromium maximised on the desktop showing benchArticle, and waits until it has painted.
func showBenchPage(b *testing.B, e *screenEnv) {
	b.Helper()
	chromium.Need(b)
	testenv.NeedCommands(b, "xdotool")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, benchArticle())
	}))
	b.Cleanup(srv.Close)
	port := chromium.Start(b, e.d)
	req, err := http.NewRequest(http.MethodPut, fmt.Sprintf("http://127.0.0.1:%d/json/new?%s", port, srv.URL+"/article"), nil)
	if err != nil {
		b.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatalf("open the page: %v", err)
	}
	resp.Body.Close()
	id := e.d.WaitWindow(b, "Glovebox bench article", 30*time.Second)
	if out, err := e.d.Command("xdotool", "windowmove", itoa(id), "0", "0", "windowsize", itoa(id), "1280", "800").CombinedOutput(); err != nil {
		b.Fatalf("xdotool: %v: %s", err, out)
	}
	time.Sleep(2 * time.Second) // relayout and paint at the new size
}

// benchArticle is a documentation-style page: a header with a gradient, navigation, headings, paragraphs, a
// code block, a table, coloured cards and an SVG illustration.
func benchArticle() string {
	var s strings.Builder
	s.WriteString(`<!doctype html><html><head><title>Glovebox bench article</title><style>
body{margin:0;font:15px/1.5 sans-serif;color:#222}
header{background:linear-gradient(90deg,#1e3c72,#2a5298 60%,#6dd5ed);color:#fff;padding:18px 32px}
nav{background:#f3f4f6;padding:8px 32px;border-bottom:1px solid #ddd}nav a{margin-right:18px;color:#1a56db}
main{display:flex;gap:24px;padding:16px 32px}article{flex:3}aside{flex:1}
pre{background:#0f172a;color:#e2e8f0;padding:10px;border-radius:6px;font-size:13px}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:3px 8px}tr:nth-child(even){background:#f6f8fa}
.card{border-radius:8px;padding:10px;margin-bottom:10px;color:#fff}
</style></head><body><header><h1 style="margin:0">Glovebox: driving desktops safely</h1>
<div>Release notes, design and benchmarks</div></header><nav>`)
	for _, n := range []string{"Overview", "Agent", "Broker", "Audit", "Accessibility", "Browser", "Images", "FAQ"} {
		fmt.Fprintf(&s, `<a href="#%s">%s</a>`, n, n)
	}
	s.WriteString(`</nav><main><article><h2>Observe, act, record</h2>`)
	for i := range 3 {
		fmt.Fprintf(&s, `<p>Paragraph %d. The agent runs inside each virtual machine as the desktop user and serves observe, `+
			`act and clipboard services; the broker freezes the target of every action, enforces human takeover and `+
			`writes an audit log in which typed text appears only as a length and a keyed hash. <b>Speed</b> is a `+
			`feature and has numbers, measured side by side with the tools people use today.</p>`, i+1)
	}
	s.WriteString(`<pre>$ glovebox session create --guest desktop-1 --label demo
session s-7f3a created (mode act, idle timeout 10m)
$ glovebox screenshot -s s-7f3a -o shot.png
wrote shot.png (1280x800, 212 KiB) in 4.1 ms</pre><table><tr><th>Verb</th><th>Target</th><th>p50</th><th>Peer</th></tr>`)
	for i, v := range []string{"click", "type", "key", "scroll", "drag", "screenshot", "clipboard", "snapshot"} {
		fmt.Fprintf(&s, `<tr><td>%s</td><td>window %d</td><td>%.2f ms</td><td>%d ms</td></tr>`, v, 0x1200000+i, 0.4+float64(i)/7, 12+i*9)
	}
	s.WriteString(`</table></article><aside>`)
	for i, c := range []string{"#ef4444", "#f59e0b", "#10b981", "#3b82f6", "#8b5cf6"} {
		fmt.Fprintf(&s, `<div class="card" style="background:%s">Card %d: status of component %d, all checks green.</div>`, c, i+1, i+1)
	}
	s.WriteString(`<svg width="260" height="170" viewBox="0 0 260 170"><defs><radialGradient id="g"><stop offset="0" stop-color="#fde68a"/>` +
		`<stop offset="1" stop-color="#f97316"/></radialGradient></defs><rect width="260" height="170" fill="#bae6fd"/>` +
		`<circle cx="200" cy="45" r="28" fill="url(#g)"/><path d="M0 170 L70 80 L130 150 L180 100 L260 170Z" fill="#15803d"/>` +
		`<path d="M40 170 L110 110 L170 170Z" fill="#166534"/></svg></aside></main></body></html>`)
	return s.String()
}

func benchCapture(b *testing.B, e *screenEnv, damage func(), opts *agentv1.ScreenshotOptions) {
	ctx := context.Background()
	var ds []time.Duration
	size := 0
	for b.Loop() {
		if damage != nil {
			b.StopTimer()
			damage()
			b.StartTimer()
		}
		start := time.Now()
		r, err := e.observe.CaptureScreenshot(ctx, &agentv1.CaptureScreenshotRequest{Options: opts})
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		if damage != nil && r.Unchanged {
			b.Fatal("capture after damage answered from the cache")
		}
		if damage == nil && !r.Unchanged && len(ds) > 1 {
			b.Fatal("unchanged screen captured again")
		}
		b.SetBytes(int64(len(r.Image.Data)))
		size = len(r.Image.Data)
	}
	reportPercentiles(b, ds)
	b.ReportMetric(float64(size), "B/frame")
}

// benchScrot runs scrot with args, the last of which is the file it writes.
func benchScrot(b *testing.B, e *screenEnv, args ...string) {
	testenv.NeedCommands(b, "scrot")
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		if out, err := e.d.Command("scrot", args...).CombinedOutput(); err != nil {
			b.Fatalf("scrot: %v: %s", err, out)
		}
		ds = append(ds, time.Since(start))
	}
	reportPercentiles(b, ds)
	if st, err := os.Stat(args[len(args)-1]); err == nil {
		b.ReportMetric(float64(st.Size()), "B/frame")
	}
}

// BenchmarkScreenshotPNG compares a PNG screenshot through gRPC with `scrot` writing a PNG, on each scene,
// after a small change (an 8x8 square moved: a caret, a hover) and after a change of the whole screen (the
// scene's own content scrolled by 8 rows and back, so every band differs).
func BenchmarkScreenshotPNG(b *testing.B) {
	benchScreenshots(b, "png", &agentv1.ScreenshotOptions{}, "-o", "out.png")
}

// BenchmarkScreenshotJPEG compares a JPEG (quality 80) screenshot through gRPC with `scrot -q 80`, like
// BenchmarkScreenshotPNG.
func BenchmarkScreenshotJPEG(b *testing.B) {
	jpeg80 := &agentv1.ScreenshotOptions{Format: agentv1.ImageFormat_IMAGE_FORMAT_JPEG, Quality: 80}
	benchScreenshots(b, "jpeg", jpeg80, "-q", "80", "-o", "out.jpg")
}

// benchScreenshots runs the pairs <scene>/glovebox-<format>-<change> and <scene>/scrot-<format>-<change>;
// scrotArgs ends with the output file name, put in a temporary directory.
func benchScreenshots(b *testing.B, format string, opts *agentv1.ScreenshotOptions, scrotArgs ...string) {
	for _, scene := range []string{"terminal", "page"} {
		b.Run(scene, func(b *testing.B) {
			e, small := benchScreenEnv(b, scene)
			args := slices.Clone(scrotArgs)
			args[len(args)-1] = filepath.Join(b.TempDir(), args[len(args)-1])
			b.Run("glovebox-"+format+"-small", func(b *testing.B) { benchCapture(b, e, small, opts) })
			b.Run("scrot-"+format+"-small", func(b *testing.B) { benchScrot(b, e, args...) })
			full := e.paint.scroller(b, e.importRoot(b), 8)
			b.Run("glovebox-"+format+"-full", func(b *testing.B) { benchCapture(b, e, full, opts) })
			b.Run("scrot-"+format+"-full", func(b *testing.B) { benchScrot(b, e, args...) })
		})
	}
}

func BenchmarkScreenshotUnchanged(b *testing.B) {
	e, _ := benchScreenEnv(b, "terminal")
	b.Run("glovebox-unchanged", func(b *testing.B) { benchCapture(b, e, nil, &agentv1.ScreenshotOptions{}) })
}
