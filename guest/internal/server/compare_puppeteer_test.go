package server

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"glovebox.dev/guest/internal/browser"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// Side-by-side benchmarks of the browser engines (through gRPC and the engine router) and puppeteer-core driving
// the same browser, on both engines (Firefox ESR over WebDriver BiDi, Chromium over CDP), on the generated page of
// about 1,400 DOM elements:
//
//	BenchmarkPuppeteerSnapshot/<engine>/glovebox-snapshot vs /puppeteer-snapshot (Chromium: page.accessibility.snapshot();
//	  Firefox, where puppeteer-core has no accessibility snapshot over BiDi (it needs CDP): page.evaluate of
//	  Glovebox's own snapshot script, the closest a puppeteer harness gets)
//	BenchmarkPuppeteerClick/<engine>/glovebox-click       vs /puppeteer-click    (click by ref vs page.click(selector))
//	BenchmarkPuppeteerFill/<engine>/glovebox-fill         vs /puppeteer-fill     (16 characters; locator(selector).fill)
//
// The puppeteer side is bench/puppeteer_page.mjs, run with node and puppeteer-core from $PUPPETEER_DIR (default
// <repo>/bench/puppeteer: `npm ci --prefix bench/puppeteer`, pinned by its package-lock.json); it is skipped with
// the reason when either is missing. Firefox takes one BiDi session, so the Glovebox side runs first and ends its
// session before puppeteer connects.

// puppeteer runs the puppeteer side of op for b.N iterations on e's browser and reports its own timings.
func puppeteer(b *testing.B, e *pageEngine, pageURL, op string) {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("node is not installed: the puppeteer side needs node and puppeteer-core")
	}
	dir := os.Getenv("PUPPETEER_DIR")
	if dir == "" {
		dir, _ = filepath.Abs("../../../bench/puppeteer")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "puppeteer-core")); err != nil {
		b.Skipf("puppeteer-core is not installed in %s (npm ci --prefix %s)", dir, dir)
	}
	e.yield()
	script, _ := filepath.Abs("../../../bench/puppeteer_page.mjs")
	cmd := exec.Command(node, script, e.name, strconv.Itoa(e.port), pageURL, op, strconv.Itoa(b.N))
	cmd.Env = append(os.Environ(), "PUPPETEER_DIR="+dir)
	if op == "pagescript" {
		f := filepath.Join(b.TempDir(), "snapshot.js")
		if err := os.WriteFile(f, []byte(browser.Scripts.Snapshot), 0o600); err != nil {
			b.Fatal(err)
		}
		cmd.Env = append(cmd.Env, "SNAPSHOT_SCRIPT="+f)
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("puppeteer %s on %s: %v", op, e.name, err)
	}
	var res struct {
		P50 float64 `json:"p50_ms"`
		NS  float64 `json:"mean_ns"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		b.Fatalf("puppeteer %s said %q: %v", op, out, err)
	}
	b.ReportMetric(res.NS, "ns/op")
	b.ReportMetric(res.P50, "p50-ms")
}

// puppeteerEngines runs bench on each engine, with its browser showing the big page in tab.
func puppeteerEngines(b *testing.B, bench func(b *testing.B, e *pageEngine, tab string)) {
	for _, eng := range []struct {
		name  string
		start func(testing.TB) *pageEngine
	}{{"firefox", newFirefoxEngine}, {"chromium", newChromiumEngine}} {
		b.Run(eng.name, func(b *testing.B) {
			e := eng.start(b)
			bench(b, e, e.newTab(b, e.url("/big")))
		})
	}
}

func BenchmarkPuppeteerSnapshot(b *testing.B) {
	puppeteerEngines(b, func(b *testing.B, e *pageEngine, tab string) {
		b.Run("glovebox-snapshot", func(b *testing.B) {
			n := 0
			timeOp(b, func() {
				resp, err := e.br.SnapshotTab(context.Background(), &agentv1.SnapshotTabRequest{Tab: e.tab(tab)})
				if err != nil {
					b.Fatal(err)
				}
				n = len(resp.GetSnapshot().GetElements())
			})
			b.ReportMetric(float64(n), "elements")
		})
		op := "snapshot"
		if e.name == "firefox" {
			op = "pagescript"
		}
		b.Run("puppeteer-snapshot", func(b *testing.B) { puppeteer(b, e, e.url("/big"), op) })
	})
}

func BenchmarkPuppeteerClick(b *testing.B) {
	puppeteerEngines(b, func(b *testing.B, e *pageEngine, tab string) {
		r := ref(b, e.snapshot(b, tab), "button", "Act 5")
		b.Run("glovebox-click", func(b *testing.B) {
			timeOp(b, func() {
				if _, err := e.do(b, &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{PageClick: &agentv1.PageClick{Tab: e.tab(tab), Locator: byRef(r)}}}); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run("puppeteer-click", func(b *testing.B) { puppeteer(b, e, e.url("/big"), "click") })
	})
}

func BenchmarkPuppeteerFill(b *testing.B) {
	puppeteerEngines(b, func(b *testing.B, e *pageEngine, tab string) {
		r := ref(b, e.snapshot(b, tab), "textbox", "Field 5")
		b.Run("glovebox-fill", func(b *testing.B) {
			timeOp(b, func() {
				if _, err := e.do(b, &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: e.tab(tab), Locator: byRef(r), Text: "sixteen chars ok"}}}); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run("puppeteer-fill", func(b *testing.B) { puppeteer(b, e, e.url("/big"), "fill") })
	})
}
