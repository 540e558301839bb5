package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	"glovebox.dev/host/internal/audit"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

const usageAudit = `  audit verify -dir D [-guest G] [-recordings R]
                                             check the whole hash chain (every guest without -guest) and
                                             every recording sealed in it (R: default "recordings" beside D);
                                             says where it breaks, exit 1 on a break
  audit prove -key FILE (-text T | -stdin) (-dir D -guest G [-seq N] | RECORD-FILE...)
                                             which records and fields hold this text's length and HMAC
                                             (exit 1 when none does; the text is never printed)
  audit tail -guest G [-f] [-n N] [-session ID]
                                             the last N records (default 10) from the broker; -f follows;
                                             -json prints them as the log files hold them
`

func (r *runner) audit(args []string) error {
	const cmd = "audit"
	sub, args, err := r.subcommand(cmd, "", args)
	if err != nil {
		return err
	}
	switch sub {
	case "verify":
		return r.auditVerify(args)
	case "prove":
		return r.auditProve(args)
	case "tail":
		return r.auditTail(args)
	default:
		return usagef(cmd, "unknown audit command %q", sub)
	}
}

// verifyJSON is `audit verify -json` output, one object per guest.
type verifyJSON struct {
	Guest         string   `json:"guest"`
	OK            bool     `json:"ok"`
	Files         int      `json:"files"`
	Records       int      `json:"records"`
	LastSeq       uint64   `json:"lastSeq"`
	LastHash      string   `json:"lastHash"`
	TornTailBytes int      `json:"tornTailBytes,omitempty"`
	Problems      []string `json:"problems,omitempty"`
}

func (r *runner) auditVerify(args []string) error {
	const cmd = "audit"
	fs := r.offlineFlagSet(cmd)
	dir := fs.String("dir", "", "audit log directory")
	guest := fs.String("guest", "", "only this guest")
	recDir := fs.String("recordings", "", "recordings directory")
	if err := r.parseNoArgs(fs, cmd, args); err != nil {
		return err
	}
	if *dir == "" {
		return usagef(cmd, "audit verify needs -dir (the broker's audit directory)")
	}
	guests := []string{*guest}
	if *guest == "" {
		var err error
		if guests, err = guestDirs(*dir); err != nil {
			return err
		}
		if len(guests) == 0 {
			return fmt.Errorf("audit verify: no guest log under %s", *dir)
		}
	}
	broken := false
	for _, g := range guests {
		rep, err := audit.Verify(*dir, g)
		if err != nil {
			return err
		}
		if *recDir == "" {
			*recDir = filepath.Join(filepath.Dir(filepath.Clean(*dir)), "recordings")
		}
		recs, err := recordingProblems(*dir, *recDir, g)
		if err != nil {
			return err
		}
		broken = broken || !rep.OK() || len(recs) > 0
		if r.global.json {
			out := verifyJSON{Guest: g, OK: rep.OK() && len(recs) == 0, Files: rep.Files, Records: rep.Records, LastSeq: rep.LastSeq, LastHash: rep.LastHash, TornTailBytes: rep.TornTailBytes}
			for _, p := range rep.Problems {
				out.Problems = append(out.Problems, p.String())
			}
			out.Problems = append(out.Problems, recs...)
			b, err := json.Marshal(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(r.env.Stdout, "%s\n", b)
			continue
		}
		printReport(r.env.Stdout, rep)
		for _, p := range recs {
			fmt.Fprintf(r.env.Stdout, "guest %s: RECORDING BROKEN: %s\n", g, p)
		}
	}
	if broken {
		return errSilent
	}
	return nil
}

// guestDirNameRE is the audit log's guest name rule (host/internal/audit): the broker keeps a guest's log in
// a directory of that name and passes over every other directory (lost+found, dot directories).
var guestDirNameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$`)

// guestDirs lists the guest directories of an audit directory, as the broker finds them.
func guestDirs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("audit dir: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && guestDirNameRE.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

func printReport(w io.Writer, rep audit.Report) {
	if rep.OK() {
		fmt.Fprintf(w, "guest %s: ok: %d records in %d files, head seq %d hash %s\n", rep.Guest, rep.Records, rep.Files, rep.LastSeq, rep.LastHash)
		if rep.TornTailBytes > 0 {
			fmt.Fprintf(w, "  unfinished last line (%d bytes, never acknowledged; removed at the next broker start)\n", rep.TornTailBytes)
		}
		return
	}
	first := rep.Problems[0]
	fmt.Fprintf(w, "guest %s: BROKEN at %s:%d (seq %d): %s; %d problems in %d records\n", rep.Guest, first.File, first.Line, first.Seq,
		first.Kind, len(rep.Problems), rep.Records)
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "  %s\n", p)
	}
}

func (r *runner) auditProve(args []string) error {
	const cmd = "audit"
	fs := r.offlineFlagSet(cmd)
	keyFile := fs.String("key", "", "the broker's audit key file")
	text := fs.String("text", "", "the text to look for")
	fromStdin := fs.Bool("stdin", false, "read the text from standard input")
	dir := fs.String("dir", "", "audit log directory")
	guest := fs.String("guest", "", "guest")
	seq := fs.Uint64("seq", 0, "only this record")
	pos, err := r.parse(fs, cmd, args)
	if err != nil {
		return err
	}
	if *keyFile == "" {
		return usagef(cmd, "audit prove needs -key FILE")
	}
	var t string
	switch {
	case *fromStdin && *text == "":
		b, err := io.ReadAll(r.env.Stdin)
		if err != nil {
			return fmt.Errorf("stdin: %w", err)
		}
		t = string(b)
	case !*fromStdin && *text != "":
		t = *text
	default:
		return usagef(cmd, "give the text with -text or -stdin")
	}
	if (*dir != "") != (*guest != "") || (*dir == "") == (len(pos) == 0) {
		return usagef(cmd, "give -dir D -guest G, or record files, not both")
	}
	// LoadKey never creates a key: a new key for a missing file could prove nothing.
	key, err := audit.LoadKey(*keyFile)
	if err != nil {
		return err
	}
	matched := 0
	check := func(rec *brokerv1.AuditRecord) error {
		paths := audit.Prove(key, t, rec)
		if len(paths) == 0 {
			return nil
		}
		matched++
		fmt.Fprintf(r.env.Stdout, "guest %s seq %d %s session %s: %s\n", clean(rec.GetGuest()), rec.GetSeq(), clean(rec.GetRpc()), orDash(rec.GetSessionId()),
			strings.Join(paths, ", "))
		return nil
	}
	if *dir != "" {
		err = audit.Scan(*dir, *guest, *seq, func(rec *brokerv1.AuditRecord) error {
			if *seq != 0 && rec.GetSeq() != *seq {
				return errStopScan
			}
			return check(rec)
		})
		if err != nil && !errors.Is(err, errStopScan) {
			return err
		}
	} else {
		for _, p := range pos {
			if err := readRecordFile(p, check); err != nil {
				return err
			}
		}
	}
	if matched == 0 {
		fmt.Fprintln(r.env.Stdout, "no record holds this text")
		return errSilent
	}
	return nil
}

// errStopScan ends audit.Scan after the one record asked for.
var errStopScan = errors.New("stop scan")

// readRecordFile calls fn for each AuditRecord line of a file (an audit log file, or lines copied from one
// or printed by `audit tail -json`).
func readRecordFile(path string, fn func(*brokerv1.AuditRecord) error) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("record file: %w", err)
		}
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		rec := &brokerv1.AuditRecord{}
		if err := protojson.Unmarshal([]byte(b), rec); err != nil {
			return fmt.Errorf("%s:%d: not an audit record: %w", filepath.Base(path), line, err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return sc.Err()
}
