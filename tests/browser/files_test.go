package browser_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/testenv"
	"glovebox.dev/shared/testenv/chromium"
	"glovebox.dev/shared/testenv/desktop"
	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// uploadPage reads what it is given with its own script (a file input's change, a drop on the zone) and shows
// each file's sha256 in the DOM, where the test reads it over its own DevTools connection.
const uploadPage = `<!doctype html><html><head><title>Upload</title></head><body>
<label>Upload <input type="file" id="f" multiple></label>
<div id="zone" style="width:300px;height:200px;border:2px dashed #888">Drop here</div>
<p id="input-sums"></p><p id="drop-sums"></p>
<script>
async function sums(files) {
  const out = [];
  for (const f of files) {
    const d = await crypto.subtle.digest('SHA-256', await f.arrayBuffer());
    out.push(f.name + '=' + [...new Uint8Array(d)].map(b => b.toString(16).padStart(2, '0')).join(''));
  }
  return out.join(',');
}
document.getElementById('f').addEventListener('change', async e => {
  document.getElementById('input-sums').textContent = await sums(e.target.files);
});
const zone = document.getElementById('zone');
zone.addEventListener('dragover', e => e.preventDefault());
zone.addEventListener('drop', async e => {
  e.preventDefault();
  document.getElementById('drop-sums').textContent = await sums(e.dataTransfer.files);
});
</script>
<p><a id="dl" href="/report.bin" download="report.bin">Download the report</a></p>
</body></html>`

// TestFilesIntoAndOutOfPage drops a file into a page through the real broker and agent, once onto an
// <input type=file> by ref and once as a real drop event on a zone: the page's own script reads the bytes
// and shows their sha256 in the DOM. A download the page starts is listed and fetched byte-exact.
func TestFilesIntoAndOutOfPage(t *testing.T) {
	testenv.NeedCommands(t, "Xvfb", "openbox", "chromium")
	report := make([]byte, 3<<20+17)
	r := rand.New(rand.NewPCG(7, 8))
	for i := range report {
		report[i] = byte(r.Uint32())
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/report.bin" {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(report)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, uploadPage)
	}))
	t.Cleanup(srv.Close)

	d := desktop.Start(t, desktop.Options{})
	port := chromium.Start(t, d)
	dt := &devtools{port: port}
	tab := dt.newTab(t, srv.URL+"/upload")
	dt.eval(t, tab, `new Promise(r => document.readyState === 'complete' ? r(true) : addEventListener('load', () => r(true)))`, new(bool))
	browserID := "chrome-" + strconv.Itoa(port)
	home := t.TempDir()
	a := agenttest.Start(t, agenttest.Options{Desktop: d, ExtraArgs: []string{"-browser-port", strconv.Itoa(port),
		"-browser-profile", t.TempDir(), "-home", home}})
	b := brokertest.Start(t, a)
	conn := dialBroker(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cc := brokerv1.NewComputerServiceClient(conn)
	files := brokerv1.NewFilesServiceClient(conn)
	se, err := brokerv1.NewSessionServiceClient(conn).CreateSession(ctx, &brokerv1.CreateSessionRequest{Guest: b.Guest})
	if err != nil {
		t.Fatal(err)
	}
	s := se.GetSession().GetId()
	pageText := func(id string) string {
		var v string
		dt.eval(t, tab, `document.getElementById('`+id+`').textContent`, &v)
		return v
	}
	waitText := func(id, want string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for pageText(id) != want {
			if time.Now().After(deadline) {
				t.Fatalf("#%s = %q, want %q", id, pageText(id), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	snap, err := cc.SnapshotTab(ctx, &brokerv1.SnapshotTabRequest{SessionId: s, Request: &agentv1.SnapshotTabRequest{Tab: &agentv1.TabRef{BrowserId: browserID, TabId: tab}}})
	if err != nil {
		t.Fatal(err)
	}
	var input *agentv1.ElementRef
	for _, el := range snap.GetResponse().GetSnapshot().GetElements() {
		if el.GetName() == "Upload" && el.GetRole() != "LabelText" && el.GetRole() != "label" {
			input = &agentv1.ElementRef{SnapshotId: snap.GetResponse().GetSnapshot().GetSnapshotId(), Ref: el.GetRef()}
		}
	}
	if input == nil {
		t.Fatalf("no file input named Upload in the snapshot:\n%s", snap.GetResponse().GetSnapshot().GetText())
	}
	content := []byte("bytes the page reads itself ✓\n")
	sum := sha256.Sum256(content)
	pageDrop := func(mode agentv1.PageDropMode, l *agentv1.Locator) (*brokerv1.DropFilesResponse, error) {
		return dropOne(ctx, files, s, "notes.txt", content, &agentv1.PageDrop{
			Tab: &agentv1.TabRef{BrowserId: browserID, TabId: tab}, Locator: l, Mode: mode})
	}

	resp, err := pageDrop(agentv1.PageDropMode_PAGE_DROP_MODE_FILE_INPUT, &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: input}})
	if err != nil {
		t.Fatalf("drop onto the file input: %v", err)
	}
	waitText("input-sums", "notes.txt="+hex.EncodeToString(sum[:]))
	if f := resp.GetResponse().GetFiles()[0]; !f.GetInPage() || resp.GetResponse().GetPageMode() != agentv1.PageDropMode_PAGE_DROP_MODE_FILE_INPUT {
		t.Errorf("response %v; want the file in the page by FILE_INPUT", resp.GetResponse())
	}

	resp, err = pageDrop(agentv1.PageDropMode_PAGE_DROP_MODE_DROP_EVENT, &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#zone"}})
	if err != nil {
		t.Fatalf("drop event on the zone: %v", err)
	}
	// The second drop of notes.txt was saved as 2-notes.txt: that is the name the page sees.
	waitText("drop-sums", "2-notes.txt="+hex.EncodeToString(sum[:]))
	if got := resp.GetResponse().GetFiles()[0].GetPath(); got != filepath.Join(home, "Drops", "2-notes.txt") {
		t.Errorf("saved at %s", got)
	}

	// A file input refuses a drop onto something else, and nothing is kept.
	if _, err := pageDrop(agentv1.PageDropMode_PAGE_DROP_MODE_FILE_INPUT, &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#zone"}}); !errors.Is(errgrpc.FromError(err), errdefs.ErrUnsupportedAction) {
		t.Errorf("FILE_INPUT onto a div: %v, want UNSUPPORTED_ACTION", err)
	}
	if names, _ := filepath.Glob(filepath.Join(home, "Drops", "*")); len(names) != 2 {
		t.Errorf("after the refused drop the drop directory holds %q, want the two earlier files", names)
	}

	// A download the page starts lands in the download directory, is listed and fetched byte-exact.
	if _, err := cc.Act(ctx, &brokerv1.ActRequest{SessionId: s, Request: &agentv1.ActRequest{Action: &agentv1.ActRequest_PageClick{
		PageClick: &agentv1.PageClick{Tab: &agentv1.TabRef{BrowserId: browserID, TabId: tab},
			Locator: &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: "#dl"}}}}}}); err != nil {
		t.Fatal(err)
	}
	var dl *agentv1.Download
	deadline := time.Now().Add(30 * time.Second)
	for dl == nil {
		ld, err := files.ListDownloads(ctx, &brokerv1.ListDownloadsRequest{SessionId: s})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range ld.GetResponse().GetDownloads() {
			if x.GetName() == "report.bin" && x.GetComplete() && x.GetSize() == int64(len(report)) {
				dl = x
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("report.bin never listed complete: %v", ld.GetResponse())
		}
		time.Sleep(50 * time.Millisecond)
	}
	got, err := fetch(ctx, files, s, dl.GetPath())
	if err != nil || !bytes.Equal(got, report) {
		t.Errorf("fetched %d bytes (%v), want the %d served", len(got), err, len(report))
	}
}

func dropOne(ctx context.Context, files brokerv1.FilesServiceClient, session, name string, content []byte, page *agentv1.PageDrop) (*brokerv1.DropFilesResponse, error) {
	st, err := files.DropFiles(ctx)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(content)
	h := &agentv1.DropFilesHeader{Target: agentv1.DropTarget_DROP_TARGET_PAGE, Page: page,
		Files: []*agentv1.DropFile{{Name: name, Size: int64(len(content)), Sha256: hex.EncodeToString(sum[:])}}}
	if err := st.Send(&brokerv1.DropFilesRequest{SessionId: session, Request: &agentv1.DropFilesRequest{Frame: &agentv1.DropFilesRequest_Header{Header: h}}}); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if err := st.Send(&brokerv1.DropFilesRequest{Request: &agentv1.DropFilesRequest{Frame: &agentv1.DropFilesRequest_Chunk{Chunk: &agentv1.FileChunk{Data: content}}}}); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return st.CloseAndRecv()
}

func fetch(ctx context.Context, files brokerv1.FilesServiceClient, session, path string) ([]byte, error) {
	st, err := files.ReadFile(ctx, &brokerv1.ReadFileRequest{SessionId: session, Request: &agentv1.ReadFileRequest{Path: path}})
	if err != nil {
		return nil, err
	}
	var out []byte
	for {
		m, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, m.GetResponse().GetData()...)
	}
}
