package tests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"glovebox.dev/tests/internal/agenttest"
)

// desktopImports are the X11, D-Bus and CDP packages (and what leads to them) that only the guest may use.
var desktopImports = []string{
	"github.com/jezek/xgb",
	"github.com/BurntSushi/xgb",
	"github.com/BurntSushi/xgbutil",
	"github.com/godbus/dbus",
	"github.com/chromedp/",
	"github.com/mafredri/cdp",
	"github.com/go-rod/rod",
	"github.com/kbinani/screenshot",
}

// fence is one rule of the dependency fence: packages of module (as listed by go list in its directory)
// must not import anything under the forbidden prefixes.
type fence struct {
	module    string   // directory under the repo root
	withTests bool     // include test-only dependencies
	forbidden []string // import path prefixes
	why       string
	mustSee   string // a package the listing must include, so an empty or wrong listing cannot pass
}

var fences = []fence{
	{"guest", true, []string{"glovebox.dev/host"}, "guest never imports host", "glovebox.dev/shared/errdefs"},
	{"host", true, []string{"glovebox.dev/guest"}, "host never imports guest", "glovebox.dev/host/cmd/glovebox-broker"},
	{"host", false, desktopImports, "host binaries carry no X11, D-Bus or CDP code", "glovebox.dev/host/cmd/glovebox-broker"},
	{"shared", true, append([]string{"glovebox.dev/guest", "glovebox.dev/host"}, desktopImports...),
		"shared imports no X11, D-Bus or CDP package and neither side", "glovebox.dev/shared/errdefs"},
	{"proto", true, append([]string{"glovebox.dev/guest", "glovebox.dev/host", "glovebox.dev/shared"}, desktopImports...),
		"proto is the API only", "glovebox.dev/proto/glovebox/agent/v1"},
}

// crossings returns "pkg imports dep" lines for every dependency under a forbidden prefix. deps maps a
// package to its imports.
func crossings(deps map[string][]string, forbidden []string) []string {
	var out []string
	for pkg, imports := range deps {
		for _, imp := range imports {
			for _, f := range forbidden {
				if imp == strings.TrimSuffix(f, "/") || strings.HasPrefix(imp, strings.TrimSuffix(f, "/")+"/") {
					out = append(out, pkg+" imports "+imp)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestCrossings(t *testing.T) {
	deps := map[string][]string{
		"glovebox.dev/host/cmd/glovebox": {"glovebox.dev/shared/endpoint", "github.com/jezek/xgb/xproto", "github.com/jezek/xgbfoo"},
		"glovebox.dev/shared/endpoint":   {"github.com/chromedp/cdproto/page", "net"},
	}
	got := crossings(deps, desktopImports)
	want := []string{
		"glovebox.dev/host/cmd/glovebox imports github.com/jezek/xgb/xproto",
		"glovebox.dev/shared/endpoint imports github.com/chromedp/cdproto/page",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("crossings (-want +got):\n%s", diff)
	}
}

// moduleDeps lists, for every package of the module in dir and every package they depend on (test
// dependencies too when withTests), the package's direct imports. -e keeps going past packages that do not
// build, whose imports are still listed.
func moduleDeps(t *testing.T, dir string, withTests bool) map[string][]string {
	t.Helper()
	args := []string{"list", "-e", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`}
	if withTests {
		args = append(args, "-test")
	}
	cmd := exec.Command("go", append(args, "./...")...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	deps := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		deps[f[0]] = append(deps[f[0]], f[1:]...)
	}
	if len(deps) == 0 {
		t.Fatalf("go list in %s listed nothing", dir)
	}
	return deps
}

func TestDependencyFence(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal(errors.New("the go command is needed to list dependencies"))
	}
	root := agenttest.RepoRoot(t)
	for _, f := range fences {
		t.Run(fmt.Sprintf("%s/tests=%v", f.module, f.withTests), func(t *testing.T) {
			deps := moduleDeps(t, filepath.Join(root, f.module), f.withTests)
			if _, ok := deps[f.mustSee]; !ok {
				t.Fatalf("go list in %s did not list %s", f.module, f.mustSee)
			}
			if bad := crossings(deps, f.forbidden); len(bad) > 0 {
				t.Errorf("%s:\n  %s", f.why, strings.Join(bad, "\n  "))
			}
		})
	}
}
