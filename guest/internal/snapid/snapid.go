// Package snapid names the snapshots an agent process hands out (`<kind>-<random>-<n>`) and classifies an
// id the process does not hold, so every backend says the same about refs from elsewhere: an id of an earlier
// agent process is GENERATION_CHANGED (cause agent_restarted), an id this process never handed out is
// NOT_FOUND (cause no_such_snapshot). The random part makes the ids of two processes disjoint.
package snapid

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// Namer hands out the snapshot ids of one backend in one agent process.
type Namer struct {
	kind   string
	prefix string
	seq    atomic.Uint64
	form   *regexp.Regexp
}

// New returns a Namer for ids `<kind>-<8 random hex digits>-<n>`.
func New(kind string) *Namer {
	var nonce [4]byte
	_, _ = rand.Read(nonce[:])
	return &Namer{kind: kind, prefix: kind + "-" + hex.EncodeToString(nonce[:]) + "-",
		form: regexp.MustCompile(`^` + regexp.QuoteMeta(kind) + `-[0-9a-f]{8}-[1-9][0-9]*$`)}
}

// Next returns a new id.
func (n *Namer) Next() string { return n.prefix + strconv.FormatUint(n.seq.Add(1), 10) }

// Unknown is the error for snapshot id, which the backend does not hold (nor remembers as superseded).
func (n *Namer) Unknown(id string) error {
	if n.form.MatchString(id) && !strings.HasPrefix(id, n.prefix) {
		return errgrpc.WithCause(fmt.Errorf("snapshot %s was taken by an earlier agent process: take a new snapshot: %w", id, errdefs.ErrGenerationChanged),
			errgrpc.CauseAgentRestarted)
	}
	return errgrpc.WithCause(fmt.Errorf("no %s snapshot %s was taken by this agent: %w", n.kind, id, errdefs.ErrNotFound), errgrpc.CauseNoSuchSnapshot)
}

// Owns reports whether id is one this Namer handed out.
func (n *Namer) Owns(id string) bool {
	if !strings.HasPrefix(id, n.prefix) {
		return false
	}
	k, err := strconv.ParseUint(id[len(n.prefix):], 10, 64)
	return err == nil && k >= 1 && k <= n.seq.Load()
}
