package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStdioImages serves a tool through the stdio transport to the official SDK client over pipes: the client
// gets each image's exact bytes (two images in one result, several calls), guest text that looks like a
// stand-in's JSON passes unchanged, and nothing is left pending.
func TestStdioImages(t *testing.T) {
	imgs := &images{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	var sent [][]byte
	lookalike := `"data":"` + base64.StdEncoding.EncodeToString(make([]byte, imageToken)) + `"`
	srv.AddTool(&mcp.Tool{Name: "shot", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, b := make([]byte, 300<<10), make([]byte, 1000)
		rand.Read(a)
		rand.Read(b)
		sent = append(sent, a, b)
		out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: lookalike},
			&mcp.ImageContent{Data: a, MIMEType: "image/png"}, &mcp.ImageContent{Data: b, MIMEType: "image/jpeg"}}}
		if err := imgs.stand(out); err != nil {
			return nil, err
		}
		return out, nil
	})
	toSrvR, toSrvW := io.Pipe()
	toCliR, toCliW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go srv.Run(ctx, &stdioTransport{r: toSrvR, w: toCliW, images: imgs})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: toCliR, Writer: toSrvW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for call := range 3 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shot"})
		if err != nil || res.IsError || len(res.Content) != 3 {
			t.Fatalf("call %d: %v %v", call, err, res)
		}
		if tc, _ := res.Content[0].(*mcp.TextContent); tc == nil || tc.Text != lookalike {
			t.Errorf("call %d: the text block came back as %v, want it unchanged", call, res.Content[0])
		}
		for i, want := range sent[2*call : 2*call+2] {
			img, _ := res.Content[1+i].(*mcp.ImageContent)
			if img == nil || !bytes.Equal(img.Data, want) {
				t.Fatalf("call %d image %d: not the bytes sent (%d bytes back, %d sent)", call, i, len(img.Data), len(want))
			}
		}
	}
	if n := len(imgs.pending); n != 0 {
		t.Errorf("%d images still pending after their answers were written", n)
	}
}

// TestImagesBound: images whose answer is never written (a cancelled call) are dropped past maxPendingImages.
func TestImagesBound(t *testing.T) {
	imgs := &images{}
	for range maxPendingImages + 10 {
		if err := imgs.stand(&mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x")}}}); err != nil {
			t.Fatal(err)
		}
	}
	if len(imgs.pending) != maxPendingImages || len(imgs.order) != maxPendingImages {
		t.Errorf("%d pending (%d in order), want %d", len(imgs.pending), len(imgs.order), maxPendingImages)
	}
}
