package validate

import (
	"fmt"
	"strings"
	"unicode/utf8"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// Bounds of file transfers (the agent's own; a broker policy may lower them).
const (
	// MaxDropFiles is the most files one drop carries.
	MaxDropFiles = 64
	// MaxFileBytes bounds one dropped or read file.
	MaxFileBytes = 256 << 20
	// MaxDropBytes bounds the sum of a drop's files.
	MaxDropBytes = 512 << 20
	// MaxChunkBytes bounds one FileChunk or ReadFileResponse.data.
	MaxChunkBytes = 1 << 20
	// MaxFileNameBytes bounds a declared name (the saved name is shorter, see the files package).
	MaxFileNameBytes = 4096
	// MaxPathBytes bounds a path to read.
	MaxPathBytes = 4096
)

// DropLimits are the caps a drop is checked against: the agent's, or lower ones from a broker policy.
type DropLimits struct {
	FileBytes, DropBytes int64
}

// AgentDropLimits are the agent's own caps.
var AgentDropLimits = DropLimits{FileBytes: MaxFileBytes, DropBytes: MaxDropBytes}

// DropFilesHeader checks a drop's header against lim and returns a *errdefs.BadRequest naming each bad
// field, or nil. A drop over a size cap is a bad request too: nothing was sent yet.
func DropFilesHeader(h *agentv1.DropFilesHeader, lim DropLimits) error {
	var v errdefs.Violations
	if h == nil {
		v.Addf("header", "required as the first message")
		return v.Err()
	}
	id(&v, "owner", h.GetOwner(), false)
	known(&v, "target", int32(h.GetTarget()), agentv1.DropTarget_name)
	switch p := h.GetPage(); {
	case h.GetTarget() == agentv1.DropTarget_DROP_TARGET_PAGE && p == nil:
		v.Addf("page", "required with target DROP_TARGET_PAGE")
	case h.GetTarget() != agentv1.DropTarget_DROP_TARGET_PAGE && p != nil:
		v.Addf("page", "only with target DROP_TARGET_PAGE")
	case p != nil:
		tabRef(&v, "page.tab", p.GetTab())
		locator(&v, "page.locator", p.GetLocator(), true)
		if p.GetMode() == agentv1.PageDropMode_PAGE_DROP_MODE_UNSPECIFIED {
			v.Addf("page.mode", "required: DROP_EVENT or FILE_INPUT")
		} else {
			known(&v, "page.mode", int32(p.GetMode()), agentv1.PageDropMode_name)
		}
	}
	files := h.GetFiles()
	if len(files) == 0 || len(files) > MaxDropFiles {
		v.Addf("files", "must hold 1..%d files, got %d", MaxDropFiles, len(files))
	}
	var total int64
	for i, f := range files {
		if v.Len() >= MaxListViolations {
			break
		}
		field := fmt.Sprintf("files[%d]", i)
		switch n := f.GetName(); {
		case n == "":
			v.Addf(field+".name", "required")
		case len(n) > MaxFileNameBytes:
			v.Addf(field+".name", "must be at most %d bytes, got %d", MaxFileNameBytes, len(n))
		case !utf8.ValidString(n):
			v.Addf(field+".name", "invalid UTF-8 at byte %d", invalidAt(n))
		}
		switch s := f.GetSize(); {
		case s < 0:
			v.Addf(field+".size", "must not be negative, got %d", s)
		case s > lim.FileBytes:
			v.Addf(field+".size", "must be at most %d bytes, got %d", lim.FileBytes, s)
		default:
			total += s
		}
		if !IsSHA256Hex(f.GetSha256()) {
			v.Addf(field+".sha256", "must be 64 lowercase hex digits")
		}
	}
	if total > lim.DropBytes {
		v.Addf("files", "must hold at most %d bytes in all, got %d", lim.DropBytes, total)
	}
	return v.Err()
}

// FileChunk checks one chunk of a drop, given as the file index it names and the size of its data, against
// the index of the file whose bytes are due and how many of them are still due.
func FileChunk(chunkFile int32, n int, file int, due int64) error {
	var v errdefs.Violations
	if int(chunkFile) != file {
		v.Addf("chunk.file", "must be %d (files are sent in order, each complete), got %d", file, chunkFile)
	}
	switch {
	case n == 0 || n > MaxChunkBytes:
		v.Addf("chunk.data", "must hold 1..%d bytes, got %d", MaxChunkBytes, n)
	case int64(n) > due:
		v.Addf("chunk.data", "%d bytes past the declared size of files[%d]", int64(n)-due, file)
	}
	return v.Err()
}

// ReadFile checks r and returns a *errdefs.BadRequest naming each bad field, or nil. Where the path leads
// is the agent's check (it needs the file system).
func ReadFile(r *agentv1.ReadFileRequest) error {
	var v errdefs.Violations
	switch p := r.GetPath(); {
	case p == "":
		v.Addf("path", "required")
	case len(p) > MaxPathBytes:
		v.Addf("path", "must be at most %d bytes, got %d", MaxPathBytes, len(p))
	case !utf8.ValidString(p):
		v.Addf("path", "invalid UTF-8 at byte %d", invalidAt(p))
	case strings.ContainsRune(p, 0):
		v.Addf("path", "must not contain NUL")
	}
	if m := r.GetMaxBytes(); m < 0 || m > MaxFileBytes {
		v.Addf("max_bytes", "must be 0..%d, got %d", MaxFileBytes, m)
	}
	return v.Err()
}

// IsSHA256Hex reports whether s is a sha256 in lowercase hex.
func IsSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
