// Package browser_test drives a real Chromium through the real glovebox-broker and glovebox-agent binaries,
// and checks every effect in the page over the test's own DevTools connection.
package browser_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"glovebox.dev/tests/internal/agenttest"
	"glovebox.dev/tests/internal/brokertest"
)

// devtools is the test's own DevTools access to the browser, independent of the code under test.
type devtools struct {
	port int
	next atomic.Int64
}

// newTab opens a tab on url through the DevTools HTTP endpoint and returns its target id.
func (d *devtools) newTab(t testing.TB, url string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, fmt.Sprintf("http://127.0.0.1:%d/json/new?%s", d.port, url), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("new tab: %v", err)
	}
	defer resp.Body.Close()
	var tab struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&tab); err != nil || tab.ID == "" {
		t.Fatalf("new tab: %v %+v", err, tab)
	}
	return tab.ID
}

// eval evaluates expr in a tab over a fresh page connection (closed after) and unmarshals its value into out;
// a failure fails the test.
func (d *devtools) eval(t testing.TB, tab, expr string, out any) {
	t.Helper()
	if err := d.tryEval(tab, expr, out); err != nil {
		t.Fatal(err)
	}
}

// tryEval is eval answering its failure (for a poll across a reload, when the page may be between documents).
func (d *devtools) tryEval(tab, expr string, out any) error {
	ws, err := websocket.Dial(fmt.Sprintf("ws://127.0.0.1:%d/devtools/page/%s", d.port, tab), "", "http://127.0.0.1/")
	if err != nil {
		return fmt.Errorf("dial page %s: %v", tab, err)
	}
	defer ws.Close()
	ws.SetDeadline(time.Now().Add(10 * time.Second))
	id := d.next.Add(1)
	msg := map[string]any{"id": id, "method": "Runtime.evaluate", "params": map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}}
	if err := websocket.JSON.Send(ws, msg); err != nil {
		return fmt.Errorf("eval send: %v", err)
	}
	for {
		var reply struct {
			ID     int64
			Error  *struct{ Message string }
			Result struct {
				Result struct {
					Value json.RawMessage
				}
				ExceptionDetails *struct{ Text string }
			}
		}
		if err := websocket.JSON.Receive(ws, &reply); err != nil {
			return fmt.Errorf("eval %s: %v", expr, err)
		}
		if reply.ID != id {
			continue
		}
		if reply.Error != nil {
			return fmt.Errorf("eval %s: %s", expr, reply.Error.Message)
		}
		if reply.Result.ExceptionDetails != nil {
			return fmt.Errorf("eval %s: %s", expr, reply.Result.ExceptionDetails.Text)
		}
		if err := json.Unmarshal(reply.Result.Result.Value, out); err != nil {
			return fmt.Errorf("eval %s = %s: %v", expr, reply.Result.Result.Value, err)
		}
		return nil
	}
}

// auditText is every audit file of the directory, concatenated.
func auditText(t testing.TB, auditDir string) string {
	t.Helper()
	var all strings.Builder
	err := filepath.WalkDir(auditDir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(p) == ".key" {
			return err
		}
		data, err := os.ReadFile(p)
		all.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return all.String()
}

// dialBroker connects to the broker's unix socket; the connection is closed when the test ends.
func dialBroker(t testing.TB, b *brokertest.Broker) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(b.URI, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(agenttest.MaxMessageBytes)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}
