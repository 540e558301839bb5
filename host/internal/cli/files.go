package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/validate"
)

const usageFiles = `  files drop -s SESSION [-clipboard] FILE...  drop local files into the guest's ~/Drops (-clipboard: also onto
                                             its clipboard as a file list, to paste into a file manager)
  files read -s SESSION [-o OUT] [-max BYTES] PATH
                                             copy a file out of the guest's home (PATH relative to it or absolute;
                                             OUT "-" or none: stdout); its sha256 is checked
  files downloads -s SESSION                 list the guest browser's downloads (fetch one with files read)
`

// transferRate is the slowest transfer a drop or read's deadline allows for beyond -timeout.
const transferRate = 8 << 20

// filesArgs are the positional arguments of each files command.
var filesArgs = map[string]positional{"read": {1, "PATH"}, "downloads": {0, "no arguments"}}

func (r *runner) files(args []string) error {
	const cmd = "files"
	sub, args, err := r.subcommand(cmd, "", args)
	if err != nil {
		return err
	}
	fs := r.flagSet(cmd)
	session := r.sessionFlag(fs)
	var toClipboard bool
	var out string
	var maxBytes int64
	switch sub {
	case "drop":
		fs.BoolVar(&toClipboard, "clipboard", false, "also put the files on the guest's clipboard")
	case "read":
		fs.StringVar(&out, "o", "-", "where to write the file (- for stdout)")
		fs.Int64Var(&maxBytes, "max", 0, "refuse a file larger than this (0: the broker's cap)")
	case "downloads":
	default:
		return usagef(cmd, "unknown files command %q", sub)
	}
	pos, err := r.parse(fs, cmd, args)
	if err != nil {
		return err
	}
	if err := needSession(cmd, *session); err != nil {
		return err
	}
	if err := wantArgsOf(cmd, sub, pos, filesArgs); err != nil {
		return err
	}
	client, err := serviceClient(r, brokerv1.NewFilesServiceClient)
	if err != nil {
		return err
	}
	switch sub {
	case "drop":
		if len(pos) == 0 || len(pos) > validate.MaxDropFiles {
			return usagef(cmd, "want 1..%d FILEs, got %d", validate.MaxDropFiles, len(pos))
		}
		target := agentv1.DropTarget_DROP_TARGET_DIRECTORY
		if toClipboard {
			target = agentv1.DropTarget_DROP_TARGET_DESKTOP_CLIPBOARD
		}
		resp, err := r.drop(client, *session, target, pos)
		if err != nil {
			return err
		}
		return r.emit(resp, func(w io.Writer) {
			for _, f := range resp.GetResponse().GetFiles() {
				fmt.Fprintf(w, "%s -> %s (%d bytes)\n", clean(f.GetName()), clean(f.GetPath()), f.GetSize())
			}
			fmt.Fprintf(w, "audit seq %d\n", resp.GetAuditSeq())
		})
	case "read":
		return r.readOut(client, *session, pos[0], maxBytes, out)
	default:
		resp, err := unary(r, client.ListDownloads, &brokerv1.ListDownloadsRequest{SessionId: *session})
		if err != nil {
			return err
		}
		return r.emit(resp, func(w io.Writer) {
			rows := [][]string{}
			for _, d := range resp.GetResponse().GetDownloads() {
				state := "complete"
				if !d.GetComplete() {
					state = "partial"
				}
				rows = append(rows, []string{strconv.FormatInt(d.GetSize(), 10), time.UnixMilli(d.GetModifiedUnixMs()).UTC().Format(time.RFC3339), state, clean(d.GetPath())})
			}
			table(w, "SIZE\tMODIFIED\tSTATE\tPATH", rows)
		})
	}
}

// localFile is one file to drop: its name, size and sha256, hashed before anything is sent (the header
// declares them).
type localFile struct {
	path string
	size int64
	sum  string
}

func hashFile(path string) (localFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return localFile{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return localFile{}, err
	}
	if !st.Mode().IsRegular() {
		return localFile{}, fmt.Errorf("%s: not a regular file", path)
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return localFile{}, err
	}
	return localFile{path: path, size: n, sum: hex.EncodeToString(h.Sum(nil))}, nil
}

// drop streams local files to the broker, 1 MiB a chunk; the deadline grows with their size.
func (r *runner) drop(client brokerv1.FilesServiceClient, session string, target agentv1.DropTarget, paths []string) (*brokerv1.DropFilesResponse, error) {
	files := make([]localFile, len(paths))
	h := &agentv1.DropFilesHeader{Target: target}
	var total int64
	for i, p := range paths {
		var err error
		if files[i], err = hashFile(p); err != nil {
			return nil, err
		}
		total += files[i].size
		h.Files = append(h.Files, &agentv1.DropFile{Name: filepath.Base(p), Size: files[i].size, Sha256: files[i].sum})
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.global.timeout+time.Duration(total)*time.Second/transferRate)
	defer cancel()
	st, err := client.DropFiles(ctx)
	if err != nil {
		return nil, err
	}
	if err := st.Send(&brokerv1.DropFilesRequest{SessionId: session, Request: &agentv1.DropFilesRequest{
		Frame: &agentv1.DropFilesRequest_Header{Header: h}}}); err != nil {
		return closeDrop(st, err)
	}
	buf := make([]byte, validate.MaxChunkBytes)
	for i, lf := range files {
		f, err := os.Open(lf.path)
		if err != nil {
			return nil, err
		}
		err = sendFile(st, int32(i), f, lf.size, buf)
		f.Close()
		if err != nil {
			return closeDrop(st, err)
		}
	}
	return st.CloseAndRecv()
}

// sendFile sends exactly size bytes of f as chunks of file index i.
func sendFile(st brokerv1.FilesService_DropFilesClient, i int32, f io.Reader, size int64, buf []byte) error {
	for sent := int64(0); sent < size; {
		n, err := io.ReadFull(f, buf[:min(int64(len(buf)), size-sent)])
		if err != nil {
			return fmt.Errorf("read local file (changed while dropped?): %w", err)
		}
		if err := st.Send(&brokerv1.DropFilesRequest{Request: &agentv1.DropFilesRequest{
			Frame: &agentv1.DropFilesRequest_Chunk{Chunk: &agentv1.FileChunk{File: i, Data: buf[:n]}}}}); err != nil {
			return err
		}
		sent += int64(n)
	}
	return nil
}

// closeDrop returns the broker's answer when a send failed because the broker already answered (io.EOF).
func closeDrop(st brokerv1.FilesService_DropFilesClient, err error) (*brokerv1.DropFilesResponse, error) {
	if errors.Is(err, io.EOF) {
		return st.CloseAndRecv()
	}
	return nil, err
}

// readOut streams a guest file to out ("-": stdout), checking the sha256 the stream ends with; a file is
// written to OUT.part first and renamed only when complete.
func (r *runner) readOut(client brokerv1.FilesServiceClient, session, path string, maxBytes int64, out string) error {
	limit := maxBytes
	if limit <= 0 {
		limit = validate.MaxFileBytes
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.global.timeout+time.Duration(limit)*time.Second/transferRate)
	defer cancel()
	st, err := client.ReadFile(ctx, &brokerv1.ReadFileRequest{SessionId: session, Request: &agentv1.ReadFileRequest{Path: path, MaxBytes: maxBytes}})
	if err != nil {
		return err
	}
	var w io.Writer = r.env.Stdout
	var f *os.File
	if out != "-" {
		if f, err = os.OpenFile(out+".part", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err != nil {
			return err
		}
		defer func() {
			f.Close()
			os.Remove(out + ".part")
		}()
		w = f
	}
	h := sha256.New()
	var info *agentv1.ReadFileInfo
	var sum string
	var seq uint64
	for {
		m, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if i := m.GetResponse().GetInfo(); i != nil {
			info = i
		}
		if d := m.GetResponse().GetData(); len(d) > 0 {
			h.Write(d)
			if _, err := w.Write(d); err != nil {
				return err
			}
		}
		if s := m.GetResponse().GetSha256(); s != "" {
			sum = s
		}
		if m.GetAuditSeq() != 0 {
			seq = m.GetAuditSeq()
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		return fmt.Errorf("%s: the bytes received have sha256 %s, the guest sent %s", path, got, sum)
	}
	if f == nil {
		return nil
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(out+".part", out); err != nil {
		return err
	}
	fmt.Fprintf(r.env.Stdout, "wrote %s: %d bytes from %s, sha256 %s (audit seq %d)\n", out, info.GetSize(), clean(info.GetPath()), sum, seq)
	return nil
}

// writeOut writes data to path, or to stdout for "-".
func (r *runner) writeOut(path string, data []byte) error {
	if path == "-" {
		_, err := r.env.Stdout.Write(data)
		return err
	}
	return os.WriteFile(path, data, 0o600)
}
