package firefox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"glovebox.dev/shared/firefoxprofile"
)

// grownBytes is how much more memory the tab's content process must hold after grow than before.
const grownBytes = 150 << 20

// CrashTab ends the content process of one tab of the Firefox on port with SIGKILL, as a crash would (the test
// Firefox runs with its crash reporter off). Which process shows the tab is found by what the tab does: grow must
// make the tab's page hold and touch at least 200 MiB (a filled typed array), and the one content process of that
// Firefox whose resident memory grew by 150 MiB is killed. Other tabs keep their processes as long as they show
// another site (Firefox puts each site in its own processes).
func CrashTab(t testing.TB, port int, grow func()) {
	t.Helper()
	parent := mainPID(t, port)
	before := contentRSS(parent)
	grow()
	var grown []int
	for deadline := time.Now().Add(5 * time.Second); len(grown) == 0; time.Sleep(50 * time.Millisecond) {
		for pid, rss := range contentRSS(parent) {
			if b, ok := before[pid]; ok && rss-b >= grownBytes {
				grown = append(grown, pid)
			}
		}
		if len(grown) == 0 && time.Now().After(deadline) {
			t.Fatalf("no content process of the firefox on port %d grew by %d MiB", port, grownBytes>>20)
		}
	}
	if len(grown) > 1 {
		t.Fatalf("content processes %v of the firefox on port %d all grew: cannot tell the tab's", grown, port)
	}
	if err := syscall.Kill(grown[0], syscall.SIGKILL); err != nil {
		t.Fatalf("kill content process %d: %v", grown[0], err)
	}
}

// mainPID is the pid of the Firefox started with the remote agent on port.
func mainPID(t testing.TB, port int) int {
	t.Helper()
	flag := firefoxprofile.PortFlag + strconv.Itoa(port)
	for pid, args := range cmdlines() {
		if slices.Contains(args, flag) && !slices.Contains(args, "-contentproc") {
			return pid
		}
	}
	t.Fatalf("no firefox process has %s", flag)
	return 0
}

// contentRSS is the resident memory, in bytes, of each web content process of the Firefox whose pid is parent.
func contentRSS(parent int) map[int]int {
	out := map[int]int{}
	for pid, args := range cmdlines() {
		i := slices.Index(args, "-parentPid")
		if !slices.Contains(args, "-isForBrowser") || i < 0 || i+1 >= len(args) || args[i+1] != strconv.Itoa(parent) {
			continue
		}
		statm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "statm"))
		if f := strings.Fields(string(statm)); err == nil && len(f) > 1 {
			pages, _ := strconv.Atoi(f[1])
			out[pid] = pages * os.Getpagesize()
		}
	}
	return out
}

// cmdlines are the command lines of the running processes, by pid, split into arguments.
func cmdlines() map[int][]string {
	out := map[int][]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) == 1 {
			// Processes of Firefox's fork server rewrite their command line as one space-joined string.
			args = strings.Fields(args[0])
		}
		out[pid] = args
	}
	return out
}
