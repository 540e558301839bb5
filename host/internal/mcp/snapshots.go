package mcp

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// Text budgets of get_app_state and browser_snapshot.
const (
	// defaultBudgetBytes is 4 KiB of tree text, about 1k tokens.
	defaultBudgetBytes = 4096
	minBudgetBytes     = 256
	maxBudgetBytes     = 1 << 20
	// bytesPerToken converts a max_tokens budget to bytes (English-like tree text runs ~4 bytes a token).
	bytesPerToken = 4
	// keptSnapshots bounds the snapshots a session remembers for refs without snapshot_id and continuations.
	keptSnapshots = 16
)

// snapshotMemo is a snapshot the session handed out: what its refs act on and its text, for continuations.
type snapshotMemo struct {
	id   string
	app  *agentv1.AppTarget // an accessibility snapshot
	tab  *agentv1.TabRef    // a page snapshot
	text string
}

// snapshots remembers the session's recent snapshots, newest last.
type snapshots struct {
	mu   sync.Mutex
	list []*snapshotMemo
}

func (m *snapshots) add(s *snapshotMemo) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.list = append(m.list, s)
	if len(m.list) > keptSnapshots {
		m.list = m.list[len(m.list)-keptSnapshots:]
	}
}

// find returns the snapshot with id, or the newest one for an empty id; field names the argument in errors.
func (m *snapshots) find(field, id string) (*snapshotMemo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id == "" {
		if len(m.list) == 0 {
			return nil, invalid(field, "no snapshot yet: call get_app_state or browser_snapshot first")
		}
		return m.list[len(m.list)-1], nil
	}
	for i := len(m.list) - 1; i >= 0; i-- {
		if m.list[i].id == id {
			return m.list[i], nil
		}
	}
	return nil, errgrpc.WithCause(fmt.Errorf("snapshot_id: not one of this session's last %d snapshots: %w", keptSnapshots, errdefs.ErrNotFound),
		errgrpc.CauseSnapshotUnknown, errgrpc.MetaField, "snapshot_id")
}

// budget is the text budget in bytes from max_bytes or max_tokens (at most one).
func budget(maxBytes, maxTokens *int) (int, error) {
	switch {
	case maxBytes != nil && maxTokens != nil:
		return 0, invalid("max_tokens", "give max_bytes or max_tokens, not both")
	case maxTokens != nil:
		if *maxTokens < minBudgetBytes/bytesPerToken || *maxTokens > maxBudgetBytes/bytesPerToken {
			return 0, invalid("max_tokens", "must be %d..%d, got %d", minBudgetBytes/bytesPerToken, maxBudgetBytes/bytesPerToken, *maxTokens)
		}
		return *maxTokens * bytesPerToken, nil
	case maxBytes != nil:
		if *maxBytes < minBudgetBytes || *maxBytes > maxBudgetBytes {
			return 0, invalid("max_bytes", "must be %d..%d, got %d", minBudgetBytes, maxBudgetBytes, *maxBytes)
		}
		return *maxBytes, nil
	}
	return defaultBudgetBytes, nil
}

// page cuts text at offset into at most limit bytes, ending at a line end when one fits (else at a rune
// boundary), and returns the page and the offset of the rest (0 when nothing is left).
func page(text string, offset, limit int) (string, int) {
	rest := text[offset:]
	if len(rest) <= limit {
		return rest, 0
	}
	cut := strings.LastIndexByte(rest[:limit], '\n') + 1
	if cut == 0 {
		cut = limit
		for cut > 0 && !utf8.RuneStart(rest[cut]) {
			cut--
		}
	}
	return rest[:cut], offset + cut
}

// continuation is the token for the rest of a snapshot's text.
func continuation(id string, offset int) string { return id + "@" + strconv.Itoa(offset) }

// parseContinuation reads a continuation token back.
func parseContinuation(tok string) (string, int, error) {
	id, off, ok := strings.Cut(tok, "@")
	n, err := strconv.Atoi(off)
	if !ok || err != nil || n <= 0 {
		return "", 0, invalid("continuation", "must be a token from an earlier answer")
	}
	return id, n, nil
}

// pageOf answers one page of a remembered snapshot into r.
func pageOf(r *result, snap *snapshotMemo, offset, limit int) error {
	if offset > len(snap.text) {
		return invalid("continuation", "offset beyond the snapshot's text")
	}
	text, next := page(snap.text, offset, limit)
	r.set("snapshot_id", snap.id).set("text_bytes", len(text)).set("total_bytes", len(snap.text))
	if next > 0 {
		r.set("continuation", continuation(snap.id, next))
	}
	r.untrustedText = text
	return nil
}
