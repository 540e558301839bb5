package audit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// segment is one file of a guest's log.
type segment struct {
	first uint64 // seq of its first record, from its name
	path  string
}

func segmentName(first uint64) string { return fmt.Sprintf("audit-%020d.jsonl", first) }

// listSegments returns the guest directory's log files in sequence order.
func listSegments(dir string) ([]segment, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var segs []segment
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, "audit-") || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(name, "audit-"), ".jsonl"), 10, 64)
		if err != nil {
			continue
		}
		segs = append(segs, segment{first: n, path: filepath.Join(dir, name)})
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].first < segs[j].first })
	return segs, nil
}

// lastRecord returns the last parsable record of a file (nil if none). In the last file, bytes after the
// final "\n" are a write that never completed, so never acknowledged: they are truncated away.
func lastRecord(path string, isLast bool, log *slog.Logger) (*brokerv1.AuditRecord, error) {
	flag := os.O_RDONLY
	if isLast {
		flag = os.O_RDWR
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	end, err := lastNewline(f, size)
	if err != nil {
		return nil, err
	}
	end++ // just after the "\n", or 0
	if isLast && end < size {
		log.Warn("audit: truncating torn final line", "file", path, "bytes", size-end)
		if err := f.Truncate(end); err != nil {
			return nil, fmt.Errorf("truncate torn line of %s: %w", path, err)
		}
		if err := datasync(f); err != nil {
			return nil, err
		}
	}
	for end > 0 {
		start, err := lastNewline(f, end-1)
		if err != nil {
			return nil, err
		}
		start++
		line := make([]byte, end-1-start)
		if _, err := f.ReadAt(line, start); err != nil {
			return nil, err
		}
		if rec, err := parseLine(line); err == nil {
			return rec, nil
		}
		log.Warn("audit: unparsable record at end of file; continuing the chain before it", "file", path)
		end = start
	}
	return nil, nil
}

// lastNewline returns the offset of the last "\n" before off, or -1.
func lastNewline(f *os.File, off int64) (int64, error) {
	const block = 64 << 10
	buf := make([]byte, block)
	for off > 0 {
		n := int64(block)
		if off < n {
			n = off
		}
		if _, err := f.ReadAt(buf[:n], off-n); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return off - n + int64(i), nil
		}
		off -= n
	}
	return -1, nil
}

// Position is where a line is: its file and 1-based line number in that file.
type Position struct {
	File string
	Line int
}

// lineFunc sees each line (without "\n"); torn is set for a final line without "\n".
type lineFunc func(pos Position, line []byte, torn bool) error

// errStop ends a scan early without error.
var errStop = errors.New("stop")

// scanLines calls fn for each line of segs, starting with the last file whose first seq is <= fromSeq
// (the names are trusted only to skip files; records are still checked by the callers).
func scanLines(segs []segment, fromSeq uint64, fn lineFunc) error {
	start := 0
	for i, s := range segs {
		if s.first <= fromSeq {
			start = i
		}
	}
	for _, s := range segs[start:] {
		if err := scanFile(s.path, fn); err != nil {
			if errors.Is(err, errStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

func scanFile(path string, fn lineFunc) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 256<<10)
	pos := Position{File: path}
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: collect it whole.
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(line) > 0 {
			pos.Line++
			torn := line[len(line)-1] != '\n'
			if !torn {
				line = line[:len(line)-1]
			}
			if ferr := fn(pos, line, torn); ferr != nil {
				return ferr
			}
		}
		if err != nil {
			return nil
		}
	}
}
