package server

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// Side-by-side benchmarks of the browser backend (through gRPC) and playwright-core (connectOverCDP to the same
// Chromium), on a generated page of about 1,400 DOM elements:
//
//	BenchmarkBrowserSnapshot/glovebox-snapshot  vs /playwright-snapshot  (locator('body').ariaSnapshot())
//	BenchmarkBrowserClick/glovebox-click        vs /playwright-click     (click by ref vs page.click(selector))
//	BenchmarkBrowserFill/glovebox-fill          vs /playwright-fill      (16 characters; page.fill)
//
// The playwright side is bench/playwright_page.mjs, run with node and playwright-core from $PLAYWRIGHT_DIR (default
// <repo>/bench/out/playwright: `npm install --prefix bench/out/playwright playwright-core`); it is skipped with the
// reason when either is missing.

// browserBench is one Chromium with the big page open, shared by the benchmarks of a run.
type browserBench struct {
	e   *chromeEnv
	tab string
}

func newBrowserBench(b *testing.B) *browserBench {
	e := newChromeEnv(b)
	return &browserBench{e: e, tab: e.newTab(b, e.url("/big"))}
}

// playwright runs the playwright side of op for b.N iterations and reports its own timings.
func (bb *browserBench) playwright(b *testing.B, op string) {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("node is not installed: the playwright side needs node and playwright-core")
	}
	dir := os.Getenv("PLAYWRIGHT_DIR")
	if dir == "" {
		dir, _ = filepath.Abs("../../../bench/out/playwright")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core")); err != nil {
		b.Skipf("playwright-core is not installed in %s (npm install --prefix %s playwright-core)", dir, dir)
	}
	script, _ := filepath.Abs("../../../bench/playwright_page.mjs")
	cmd := exec.Command(node, script, "http://127.0.0.1:"+strconv.Itoa(bb.e.port), bb.e.url("/big"), op, strconv.Itoa(b.N))
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_DIR="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("playwright %s: %v", op, err)
	}
	var res struct {
		P50 float64 `json:"p50_ms"`
		NS  float64 `json:"mean_ns"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		b.Fatalf("playwright %s said %q: %v", op, out, err)
	}
	b.ReportMetric(res.NS, "ns/op")
	b.ReportMetric(res.P50, "p50-ms")
}

func BenchmarkBrowserSnapshot(b *testing.B) {
	bb := newBrowserBench(b)
	b.Run("glovebox-snapshot", func(b *testing.B) {
		n := 0
		timeOp(b, func() {
			resp, err := bb.e.br.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: bb.e.tab(bb.tab)})
			if err != nil {
				b.Fatal(err)
			}
			n = len(resp.GetSnapshot().GetElements())
		})
		b.ReportMetric(float64(n), "elements")
	})
	b.Run("playwright-snapshot", func(b *testing.B) { bb.playwright(b, "snapshot") })
}

func BenchmarkBrowserClick(b *testing.B) {
	bb := newBrowserBench(b)
	s := bb.e.snapshot(b, bb.tab)
	r := ref(b, s, "button", "Act 5")
	b.Run("glovebox-click", func(b *testing.B) {
		timeOp(b, func() {
			_, err := bb.e.do(b, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{
				Tab: bb.e.tab(bb.tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: r}}}}})
			if err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("playwright-click", func(b *testing.B) { bb.playwright(b, "click") })
}

func BenchmarkBrowserFill(b *testing.B) {
	bb := newBrowserBench(b)
	s := bb.e.snapshot(b, bb.tab)
	r := ref(b, s, "textbox", "Field 5")
	b.Run("glovebox-fill", func(b *testing.B) {
		timeOp(b, func() {
			_, err := bb.e.do(b, &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{
				Tab: bb.e.tab(bb.tab), Locator: &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: r}}, Text: "sixteen chars ok"}}})
			if err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("playwright-fill", func(b *testing.B) { bb.playwright(b, "fill") })
}
