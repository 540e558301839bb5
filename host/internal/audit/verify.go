package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
)

// ProblemKind names what is wrong at a place in the chain.
type ProblemKind string

// The problems Verify reports.
const (
	// ProblemUnparsable: the line is not an AuditRecord (edited JSON, a cut in the middle of a file).
	ProblemUnparsable ProblemKind = "unparsable line"
	// ProblemTornLine: a line without "\n" at the end of a file that is not the last one.
	ProblemTornLine ProblemKind = "torn line"
	// ProblemHashMismatch: the record's content does not hash to its hash (a field was edited).
	ProblemHashMismatch ProblemKind = "hash mismatch"
	// ProblemPrevHashMismatch: prev_hash is not the previous record's hash (a record before it was removed,
	// replaced or moved).
	ProblemPrevHashMismatch ProblemKind = "prev_hash mismatch"
	// ProblemSeqGap: records are missing before this one.
	ProblemSeqGap ProblemKind = "seq gap"
	// ProblemSeqOrder: the seq is not above the previous one (a duplicated or moved record).
	ProblemSeqOrder ProblemKind = "seq out of order"
	// ProblemFileName: a file's name does not match the seq of its first record.
	ProblemFileName ProblemKind = "file name mismatch"
	// ProblemGuest: the record names another guest.
	ProblemGuest ProblemKind = "guest mismatch"
	// ProblemMissing: the log has files but no record at all.
	ProblemMissing ProblemKind = "missing record"
)

// Problem is one place where the chain does not verify.
type Problem struct {
	Position
	// Seq is the record's seq as written, 0 when the line does not parse.
	Seq    uint64
	Kind   ProblemKind
	Detail string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: seq %d: %s: %s", p.File, p.Line, p.Seq, p.Kind, p.Detail)
}

// Report is the result of Verify.
type Report struct {
	Guest   string
	Files   int
	Records int
	// LastSeq and LastHash are the chain's head: compare them with a copy kept elsewhere to detect records
	// removed from the end, which the chain alone cannot show.
	LastSeq  uint64
	LastHash string
	// TornTailBytes is the size of an unfinished final line in the last file: a write in progress, or one
	// never acknowledged before a crash (the next Open removes it). It is not a problem.
	TornTailBytes int
	// Problems lists every place the chain breaks, in file order; empty when it verifies.
	Problems []Problem
}

// OK reports whether the chain verified.
func (r Report) OK() bool { return len(r.Problems) == 0 }

// Err returns nil when the chain verified, else an error naming the first problem and the count.
func (r Report) Err() error {
	if r.OK() {
		return nil
	}
	return fmt.Errorf("audit log of guest %q does not verify (%d problems), first at %s: %w",
		r.Guest, len(r.Problems), r.Problems[0], errdefs.ErrInternal)
}

// Verify checks a guest's whole chain in dir, offline: every line parses, seqs run from 1 without gaps
// across files, each file is named after its first record, each prev_hash is the previous record's hash and
// each hash matches its record. It reports every problem with its file, line and seq; after one it carries on
// from the record as written, so one edited record is reported once. The error is for failures to read.
func Verify(dir, guest string) (Report, error) {
	r := Report{Guest: guest}
	if err := checkGuest(guest); err != nil {
		return r, err
	}
	segs, err := listSegments(filepath.Join(dir, guest))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("audit log of guest %q: %w", guest, errdefs.ErrNotFound)
		}
		return r, err
	}
	r.Files = len(segs)
	var (
		expect   uint64 = 1 // next seq
		prevHash string
		skipped  uint64 // lines since the last record that did not parse: each may have held one record
		buf      []byte
	)
	add := func(pos Position, seq uint64, kind ProblemKind, format string, args ...any) {
		r.Problems = append(r.Problems, Problem{Position: pos, Seq: seq, Kind: kind, Detail: fmt.Sprintf(format, args...)})
	}
	for i, s := range segs {
		first := true
		isLast := i == len(segs)-1
		err := scanFile(s.path, func(pos Position, line []byte, torn bool) error {
			if torn {
				if isLast {
					r.TornTailBytes = len(line)
					return nil
				}
				add(pos, 0, ProblemTornLine, "%d bytes without a newline at the end of a file that is not the last", len(line))
				skipped++
				return nil
			}
			rec, err := parseLine(line)
			if err != nil {
				add(pos, 0, ProblemUnparsable, "%v", err)
				skipped++
				first = false
				return nil
			}
			r.Records++
			seq := rec.GetSeq()
			if first && seq != s.first {
				add(pos, seq, ProblemFileName, "file named for seq %d starts with seq %d", s.first, seq)
			}
			first = false
			switch {
			case seq > expect+skipped:
				add(pos, seq, ProblemSeqGap, "records %d..%d missing", expect+skipped, seq-1)
			case seq < expect:
				add(pos, seq, ProblemSeqOrder, "seq %d after seq %d", seq, expect-1)
			}
			// After a line that did not parse, the previous hash is unknown.
			if skipped == 0 {
				if rec.GetPrevHash() != prevHash {
					add(pos, seq, ProblemPrevHashMismatch, "prev_hash %.12s…, previous record's hash %.12s…", rec.GetPrevHash(), prevHash)
				}
			}
			if rec.GetGuest() != guest {
				add(pos, seq, ProblemGuest, "record of guest %q", rec.GetGuest())
			}
			stored := rec.GetHash()
			rec.Hash = ""
			h, err := hashUnsealed(rec, buf)
			if err != nil || h != stored {
				add(pos, seq, ProblemHashMismatch, "hash %.12s…, content hashes to %.12s…", stored, h)
			}
			expect, prevHash, skipped = seq+1, stored, 0
			r.LastSeq, r.LastHash = seq, stored
			return nil
		})
		if err != nil {
			return r, fmt.Errorf("audit log of guest %q: %w", guest, err)
		}
	}
	if len(segs) > 0 && r.Records == 0 && len(r.Problems) == 0 && r.Files > 1 {
		add(Position{File: segs[0].path}, 0, ProblemMissing, "no record in %d files", r.Files)
	}
	return r, nil
}

// VerifyRecord reports whether rec's hash matches its content (not its place in the chain).
func VerifyRecord(rec *brokerv1.AuditRecord) bool {
	h, err := Hash(rec)
	return err == nil && h == rec.GetHash()
}
