package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errgrpc"
)

// jsonOptions print one object per line, so `-json` output is JSON lines for jq and scripts.
var jsonOptions = protojson.MarshalOptions{UseProtoNames: false, EmitUnpopulated: false}

// emit prints m as protojson when -json is set, else calls human.
func (r *runner) emit(m proto.Message, human func(w io.Writer)) error {
	if r.global.json {
		b, err := jsonOptions.Marshal(m)
		if err != nil {
			return fmt.Errorf("marshal %T: %w", m, err)
		}
		_, err = fmt.Fprintf(r.env.Stdout, "%s\n", b)
		return err
	}
	human(r.env.Stdout)
	return nil
}

// printError prints an RPC error as its ErrorInfo reason (or gRPC code when there is none) and message, or,
// for INVALID_ARGUMENT with field violations, one "REASON: field: description" line per bad field, followed
// by the ErrorInfo metadata. Any other error is printed as "glovebox: message".
func printError(w io.Writer, err error) {
	st, ok := status.FromError(err)
	if !ok {
		fmt.Fprintf(w, "glovebox: %v\n", err)
		return
	}
	reason := st.Code().String()
	reason = codeName(reason)
	var md map[string]string
	var violations []*errdetails.BadRequest_FieldViolation
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			if d.GetDomain() == errgrpc.Domain && d.GetReason() != "" {
				reason = d.GetReason()
				md = d.GetMetadata()
			}
		case *errdetails.BadRequest:
			violations = append(violations, d.GetFieldViolations()...)
		}
	}
	if len(violations) > 0 {
		for _, v := range violations {
			fmt.Fprintf(w, "%s: %s: %s\n", reason, v.GetField(), clean(v.GetDescription()))
		}
	} else {
		fmt.Fprintf(w, "%s: %s\n", reason, clean(st.Message()))
	}
	keys := make([]string, 0, len(md))
	for k := range md {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %s: %s\n", k, clean(md[k]))
	}
}

// codeName turns a codes.Code String ("InvalidArgument") into the canonical upper-case name
// ("INVALID_ARGUMENT") the API documents.
func codeName(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// clean makes text from the guest or the broker safe to print on a terminal: control characters (escape
// sequences included) are shown quoted instead of interpreted.
func clean(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }) < 0 {
		return s
	}
	q := fmt.Sprintf("%q", s)
	return q[1 : len(q)-1]
}

// table prints rows aligned in columns.
func table(w io.Writer, header string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
}

// stamp formats a timestamp for people; unset is "-".
func stamp(ts *timestamppb.Timestamp) string {
	if ts == nil {
		return "-"
	}
	return ts.AsTime().Local().Format(time.DateTime)
}

// orDash returns s, or "-" when empty, for table cells.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return clean(s)
}

// shortEnum strips an enum value's type prefix ("SESSION_MODE_ACT" -> "act").
func shortEnum(name, prefix string) string {
	return strings.ToLower(strings.TrimPrefix(name, prefix))
}

// describeTarget renders a Target for people.
func describeTarget(t *agentv1.Target) string {
	switch {
	case t == nil:
		return "whole screen"
	case t.GetWindow() != nil:
		return fmt.Sprintf("window 0x%x", t.GetWindow().GetWindowId())
	case t.GetDisplay() != nil && t.GetDisplay().GetDisplayId() != "":
		return "display " + clean(t.GetDisplay().GetDisplayId())
	default:
		return "whole screen"
	}
}

// describeFrozen renders a FrozenTarget for people.
func describeFrozen(t *agentv1.FrozenTarget) string {
	if t == nil {
		return "-"
	}
	var parts []string
	if t.GetWindowId() != 0 {
		w := fmt.Sprintf("window 0x%x", t.GetWindowId())
		if t.GetWindowTitle() != "" {
			w += fmt.Sprintf(" %q", t.GetWindowTitle())
		}
		parts = append(parts, w)
	} else {
		parts = append(parts, "root window")
	}
	if t.GetDisplayId() != "" {
		parts = append(parts, "display "+clean(t.GetDisplayId()))
	}
	parts = append(parts, "source "+shortEnum(t.GetSource().String(), "TARGET_SOURCE_"))
	parts = append(parts, fmt.Sprintf("generation %d", t.GetGeneration()))
	return strings.Join(parts, ", ")
}

// describeRect renders a Rect as "WxH+X+Y" (X geometry notation).
func describeRect(r *agentv1.Rect) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%dx%d+%d+%d", r.GetWidth(), r.GetHeight(), r.GetX(), r.GetY())
}
