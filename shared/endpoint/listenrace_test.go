package endpoint

import (
	"net"
	"path/filepath"
	"sync"
	"testing"
)

// TestUnixListenersRace starts two listeners on one path at the same moment, many times: one gets the path
// and the other an error; neither is left listening on a socket nobody can reach (its file replaced by the
// other's).
func TestUnixListenersRace(t *testing.T) {
	dir := t.TempDir()
	for i := range 200 {
		p := filepath.Join(dir, "race.sock")
		var (
			wg  sync.WaitGroup
			ls  [2]net.Listener
			err [2]error
		)
		start := make(chan struct{})
		for j := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ls[j], err[j] = Listen(t.Context(), Endpoint{Scheme: SchemeUnix, Path: p}, ListenOptions{})
			}()
		}
		close(start)
		wg.Wait()
		ok := 0
		for j := range 2 {
			if err[j] == nil {
				ok++
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %d of 2 concurrent listeners on one path succeeded (errors %v, %v)", i, ok, err[0], err[1])
		}
		for j := range 2 {
			if ls[j] != nil {
				ls[j].Close()
			}
		}
	}
}
