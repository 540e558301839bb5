package mcp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"glovebox.dev/shared/errdefs"
)

// The stdio transport writes screenshots into the answer once. The SDK encodes a tool result to JSON and then
// re-scans it whole twice more (encoding/json compacts every Marshaler's output, and the JSON-RPC envelope holds
// the result as a RawMessage), so an image's base64 was scanned byte by byte three times: most of the server's
// CPU per screenshot. On stdio a result's images go through the SDK as a short random stand-in (imageToken
// bytes), and Write puts the real base64 where the stand-in's is, encoding it straight into the line written.
// The model receives the very same image bytes. The streamable-HTTP endpoint (the SDK's own transport) sends the
// images as they are.

const (
	// imageToken is the stand-in's length in bytes (base64: 24 characters, no padding). 144 random bits: no text
	// in an answer holds it unless it was given the stand-in, which never leaves this process.
	imageToken = 18
	// maxPendingImages bounds the images waiting for their answer to be written (an answer the SDK drops, for
	// a cancelled call, leaves its images here until they are pushed out).
	maxPendingImages = 64
	// maxLine bounds one incoming JSON-RPC line (as the SDK's IOTransport does).
	maxLine = 16 << 20
)

// images holds a session's screenshots by stand-in until their answer is written.
type images struct {
	mu      sync.Mutex
	pending map[string][]byte // base64 of the stand-in -> the image bytes
	order   []string
}

// stand replaces each image's data in out with a fresh stand-in and keeps the data for splice.
func (m *images) stand(out *mcp.CallToolResult) error {
	for _, c := range out.Content {
		img, ok := c.(*mcp.ImageContent)
		if !ok {
			continue
		}
		tok := make([]byte, imageToken)
		if _, err := rand.Read(tok); err != nil {
			return fmt.Errorf("image stand-in: %w", errdefs.ErrInternal)
		}
		key := base64.StdEncoding.EncodeToString(tok)
		m.mu.Lock()
		if m.pending == nil {
			m.pending = map[string][]byte{}
		}
		m.pending[key] = img.Data
		m.order = append(m.order, key)
		if len(m.order) > maxPendingImages {
			delete(m.pending, m.order[0])
			m.order = m.order[1:]
		}
		m.mu.Unlock()
		img.Data = tok
	}
	return nil
}

// take removes and returns the image a stand-in's base64 names.
func (m *images) take(key string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	data, ok := m.pending[key]
	if ok {
		delete(m.pending, key)
		for i, k := range m.order {
			if k == key {
				m.order = append(m.order[:i], m.order[i+1:]...)
				break
			}
		}
	}
	return data, ok
}

// dataKey is how an image's data begins in the SDK's JSON (imageAudioWire: "data" as a base64 string).
var dataKey = []byte(`"data":"`)

// splice appends result to dst with every stand-in's base64 replaced by its image's, and reports whether it
// found any.
func (m *images) splice(dst, result []byte) ([]byte, bool) {
	found := false
	for {
		i := bytes.Index(result, dataKey)
		if i < 0 || len(result) < i+len(dataKey)+base64.StdEncoding.EncodedLen(imageToken)+1 {
			break
		}
		start := i + len(dataKey)
		end := start + base64.StdEncoding.EncodedLen(imageToken)
		data, ok := []byte(nil), false
		if result[end] == '"' {
			data, ok = m.take(string(result[start:end]))
		}
		if !ok {
			dst = append(dst, result[:start]...)
			result = result[start:]
			continue
		}
		found = true
		dst = append(dst, result[:start]...)
		dst = base64.StdEncoding.AppendEncode(dst, data)
		result = result[end:]
	}
	return append(dst, result...), found
}

// stdioTransport is newline-delimited JSON-RPC over a reader and a writer, as the SDK's IOTransport, with the
// images of tool results written once (see images). JSON-RPC batches (removed from MCP in 2025-06-18, and sent
// by none of the SDKs' clients) end the connection.
type stdioTransport struct {
	r      io.ReadCloser
	w      io.Writer
	images *images
}

// Connect starts reading lines.
func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &stdioConn{w: t.w, images: t.images, incoming: make(chan lineOrErr), closed: make(chan struct{}), r: t.r}
	go c.readLoop()
	return c, nil
}

type lineOrErr struct {
	line []byte
	err  error
}

type stdioConn struct {
	r        io.ReadCloser
	w        io.Writer
	images   *images
	incoming chan lineOrErr
	closed   chan struct{}
	once     sync.Once
	mu       sync.Mutex // one Write at a time, each one line
	buf      []byte     // the line being written, kept for the next (screenshots are the same size each time)
}

// readLoop sends each non-empty line to Read until the reader fails or the connection closes.
func (c *stdioConn) readLoop() {
	br := bufio.NewReaderSize(c.r, 64<<10)
	for {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) == 0 && err == nil {
			continue
		}
		select {
		case c.incoming <- lineOrErr{line, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line of at most maxLine bytes (without its end).
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("mcp stdio: a message over %d bytes", maxLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && len(bytes.TrimSpace(line)) > 0 && errors.Is(err, io.EOF) {
			return line, nil // a last message without its newline
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// Read answers the next message.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case v := <-c.incoming:
		if v.err != nil {
			return nil, v.err
		}
		if b := bytes.TrimSpace(v.line); len(b) > 0 && b[0] == '[' {
			return nil, fmt.Errorf("mcp stdio: JSON-RPC batches are not supported")
		}
		return jsonrpc.DecodeMessage(v.line)
	}
}

// envelope is a JSON-RPC response without its result, which Write appends itself.
type envelope struct {
	Version string `json:"jsonrpc"`
	ID      any    `json:"id"`
}

// Write writes msg as one line; a tool result's image stand-ins are replaced by the images.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	buf := c.buf[:0]
	resp, ok := msg.(*jsonrpc.Response)
	if ok && resp.Error == nil && len(resp.Result) > 0 && bytes.Contains(resp.Result, dataKey) {
		head, err := json.Marshal(envelope{Version: "2.0", ID: resp.ID.Raw()})
		if err != nil {
			return err
		}
		buf = append(buf, head[:len(head)-1]...)
		buf = append(buf, `,"result":`...)
		buf, _ = c.images.splice(buf, resp.Result)
		buf = append(buf, '}')
	} else {
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			return err
		}
		buf = append(buf, data...)
	}
	buf = append(buf, '\n')
	_, err := c.w.Write(buf)
	if cap(buf) <= 32<<20 {
		c.buf = buf
	}
	return err
}

// Close ends the connection (a Read waiting returns io.EOF).
func (c *stdioConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		err = c.r.Close()
	})
	return err
}

// SessionID is empty: stdio has one session.
func (c *stdioConn) SessionID() string { return "" }

// ServeStdio serves the session's MCP server over r and w (newline-delimited JSON-RPC) until the client goes
// away or ctx ends.
func (s *Session) ServeStdio(ctx context.Context, r io.ReadCloser, w io.Writer) error {
	s.images = &images{}
	return s.Server().Run(ctx, &stdioTransport{r: r, w: w, images: s.images})
}
