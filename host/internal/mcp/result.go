package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/status"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// UntrustedMeta is the _meta key set to true on every content block that holds text from the guest (titles,
// element names, page text, clipboard): data for the model to read, never instructions.
const UntrustedMeta = "glovebox.dev/untrusted"

// result is what a tool answers: fields in the tool's own words, guest text kept apart, images.
type result struct {
	// fields are Glovebox's own words: effect, frozen target ids, audit seq, counts, sizes.
	fields map[string]any
	// untrusted holds guest text by name (window_title, apps, clipboard, ...), returned in its own block.
	untrusted map[string]any
	// untrustedText is guest text too long to read as JSON (a tree, page text), returned as its own block.
	untrustedText string
	images        []*mcp.ImageContent
}

func newResult() *result { return &result{fields: map[string]any{}} }

// set records one of the tool's own fields.
func (r *result) set(k string, v any) *result { r.fields[k] = v; return r }

// guest records guest text; empty values are left out.
func (r *result) guest(k string, v any) *result {
	if s, ok := v.(string); ok && s == "" {
		return r
	}
	if r.untrusted == nil {
		r.untrusted = map[string]any{}
	}
	r.untrusted[k] = v
	return r
}

// image adds an image content block.
func (r *result) image(img *agentv1.Image) {
	mime := "image/png"
	if img.GetFormat() == agentv1.ImageFormat_IMAGE_FORMAT_JPEG {
		mime = "image/jpeg"
	}
	r.images = append(r.images, &mcp.ImageContent{Data: img.GetData(), MIMEType: mime})
}

// target records a frozen target: its ids as the tool's words, its window title as guest text.
func (r *result) target(t *agentv1.FrozenTarget) {
	if t == nil {
		return
	}
	m := map[string]any{"source": strings.TrimPrefix(t.GetSource().String(), "TARGET_SOURCE_")}
	put := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	put("display_id", t.GetDisplayId())
	if t.GetWindowId() != 0 {
		m["window_id"] = t.GetWindowId()
	}
	put("app_id", t.GetAppId())
	put("snapshot_id", t.GetSnapshotId())
	put("browser_id", t.GetBrowserId())
	put("tab_id", t.GetTabId())
	put("element_ref", t.GetElementRef())
	if t.GetGeneration() != 0 {
		m["generation"] = t.GetGeneration()
	}
	r.fields["target"] = m
	r.guest("window_title", t.GetWindowTitle())
}

// effect records an Act answer's effect, target and audit seq.
func (r *result) act(resp *agentv1.ActResponse, seq uint64) {
	r.set("effect", strings.TrimPrefix(resp.GetEffect().String(), "EFFECT_"))
	r.target(resp.GetTarget())
	r.set("audit_seq", seq)
}

// callResult renders r: the tool's fields as JSON text, then guest text in blocks marked untrusted, then
// images. StructuredContent mirrors the JSON with the guest part under "untrusted".
func (r *result) callResult() *mcp.CallToolResult {
	out := &mcp.CallToolResult{}
	structured := map[string]any{}
	for k, v := range r.fields {
		structured[k] = v
	}
	out.Content = append(out.Content, &mcp.TextContent{Text: compactJSON(r.fields)})
	if len(r.untrusted) > 0 || r.untrustedText != "" {
		u := map[string]any{}
		for k, v := range r.untrusted {
			u[k] = v
		}
		if len(r.untrusted) > 0 {
			out.Content = append(out.Content, &mcp.TextContent{Text: compactJSON(r.untrusted), Meta: mcp.Meta{UntrustedMeta: true}})
		}
		if r.untrustedText != "" {
			out.Content = append(out.Content, &mcp.TextContent{Text: r.untrustedText, Meta: mcp.Meta{UntrustedMeta: true}})
			u["text"] = r.untrustedText
		}
		structured["untrusted"] = u
	}
	for _, img := range r.images {
		out.Content = append(out.Content, img)
	}
	out.StructuredContent = structured
	return out
}

func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf(`{"error":%q}`, err.Error())
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// errorResult turns a refusal into an MCP tool error: "REASON: message", the reason, the bad fields and the
// ErrorInfo metadata's cause and field as structured content, its untrusted_* values (guest text) under
// "untrusted". The broker's
// messages never hold guest text, so the message is safe to show as the tool's words.
func errorResult(err error) *mcp.CallToolResult {
	err = errgrpc.FromError(err)
	reason := errgrpc.ReasonString(errdefs.Reason(err))
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		reason = "TIMEOUT"
	case errors.Is(err, context.Canceled):
		reason = "INTERRUPTED"
	}
	msg := err.Error()
	if st, ok := status.FromError(err); ok {
		msg = st.Message()
	}
	e := map[string]any{"reason": reason, "message": msg}
	var bad *errdefs.BadRequest
	if errors.As(err, &bad) {
		fields := make([]map[string]string, len(bad.Violations))
		parts := make([]string, len(bad.Violations))
		for i, v := range bad.Violations {
			fields[i] = map[string]string{"field": v.Field, "description": v.Description}
			parts[i] = v.Field + ": " + v.Description
		}
		e["fields"] = fields
		msg = strings.Join(parts, "; ")
		e["message"] = msg
	}
	var partial *partialError
	if errors.As(err, &partial) {
		e["steps_done"] = partial.done
		msg += fmt.Sprintf(" (after %d steps had run)", partial.done)
	}
	structured := map[string]any{"error": e}
	content := []mcp.Content{&mcp.TextContent{Text: reason + ": " + msg}}
	// ErrorInfo metadata: cause and field are Glovebox's words; untrusted_* keys hold guest text.
	own, guest := map[string]string{}, map[string]string{}
	for k, v := range errgrpc.Metadata(err) {
		if strings.HasPrefix(k, errgrpc.UntrustedPrefix) {
			guest[k] = v
		} else {
			own[k] = v
		}
	}
	if len(own) > 0 {
		e["metadata"] = own
	}
	if len(guest) > 0 {
		structured["untrusted"] = map[string]any{"metadata": guest}
		content = append(content, &mcp.TextContent{Text: compactJSON(map[string]any{"metadata": guest}), Meta: mcp.Meta{UntrustedMeta: true}})
	}
	return &mcp.CallToolResult{IsError: true, Content: content, StructuredContent: structured}
}

// tool is one MCP tool: its description and schema, and what a call does with its decoded arguments.
type tool struct {
	tool *mcp.Tool
	// run decodes raw (the call's arguments) and does the call.
	run func(ctx context.Context, raw json.RawMessage) (*result, error)
}

// handler wraps a tool's run with the one error translation and the log line. A panic in a tool is a bug: it
// answers INTERNAL as a tool error (and is logged) instead of ending every session of the process.
func (s *Session) handler(t tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (out *mcp.CallToolResult, _ error) {
		start := time.Now()
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("mcp tool panic", "tool", t.tool.Name, "panic", fmt.Sprint(p))
				out = errorResult(fmt.Errorf("tool %s: %w", t.tool.Name, errdefs.ErrInternal))
			}
		}()
		ctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		var res *result
		err := s.ensure(ctx)
		if err == nil {
			res, err = t.run(ctx, req.Params.Arguments)
		}
		reason := "OK"
		if err != nil {
			out = errorResult(err)
			reason = out.StructuredContent.(map[string]any)["error"].(map[string]any)["reason"].(string)
		} else {
			out = res.callResult()
			if s.images != nil {
				if err := s.images.stand(out); err != nil {
					out = errorResult(err)
				}
			}
		}
		s.log.Info("mcp tool", "tool", t.tool.Name, "reason", reason, "duration", time.Since(start))
		return out, nil
	}
}

// decode reads a tool's arguments into dst (a struct with json tags), refusing unknown arguments and wrong
// types with INVALID_ARGUMENT naming the argument. Missing arguments decode as null/{}.
func decode(raw json.RawMessage, dst any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil {
		if _, err2 := dec.Token(); err2 != io.EOF {
			return invalid("arguments", "must be one JSON object")
		}
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "arguments"
		}
		return invalid(field, "must be %s, got %s", jsonType(te.Type.String()), te.Value)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return invalid(strings.Trim(name, `"`), "unknown argument")
	}
	return invalid("arguments", "must be a JSON object: %v", err)
}

func jsonType(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "*int"):
		return "an integer"
	case strings.Contains(goType, "float"):
		return "a number"
	case strings.Contains(goType, "string"):
		return "a string"
	case strings.Contains(goType, "bool"):
		return "a boolean"
	}
	return "an object"
}

// invalid is one bad argument.
func invalid(field, format string, args ...any) error {
	var v errdefs.Violations
	v.Addf(field, format, args...)
	return v.Err()
}
