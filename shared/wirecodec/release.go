package wirecodec

import (
	"runtime/debug"
	"sync"
	"time"
)

// Returning a large request's memory. A request of many MiB (the largest valid one is a 16 MiB clipboard
// text, and a hostile one is as large as the server accepts) leaves that much garbage: grpc's frame buffers,
// the contiguous copy decoded here and the decoded strings. The Go runtime gives freed pages back to the OS
// only slowly, so a stream of such requests grew a server's RSS by hundreds of MiB while its live heap
// stayed small. After a request of at least largeRequest bytes, the codec returns free memory to the OS
// (debug.FreeOSMemory: a GC, then every free page released) once releaseDelay has passed without another
// large request, and at most every releaseDelay: a cost of about one GC of a small heap per burst, against an
// upload of many MiB by the sender.
const (
	largeRequest = 4 << 20
	releaseDelay = 100 * time.Millisecond
)

var release struct {
	mu      sync.Mutex
	pending bool
	last    time.Time // of the last large request
}

// noteLarge schedules the release after a large request.
func noteLarge() {
	release.mu.Lock()
	defer release.mu.Unlock()
	release.last = time.Now()
	if release.pending {
		return
	}
	release.pending = true
	go func() {
		for {
			time.Sleep(releaseDelay)
			release.mu.Lock()
			idle := time.Since(release.last) >= releaseDelay
			if idle {
				release.pending = false
			}
			release.mu.Unlock()
			debug.FreeOSMemory()
			if idle {
				return
			}
		}
	}()
}
