package atspi

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// selectText selects a range of el's text, or puts the caret before or after it, and reads the result back.
func (b *Backend) selectText(ctx context.Context, ref string, el *element, a *agentv1.ElementSelectText, resp *agentv1.ActResponse) error {
	if el.ifaces&hasText == 0 {
		return fmt.Errorf("%s (%s) has no Text interface: %w", ref, el.role, errdefs.ErrUnsupportedAction)
	}
	o := el.ref
	var text string
	if err := b.call(ctx, o.Name, o.Path, ifText+".GetText", int32(0), int32(-1)).Store(&text); err != nil {
		return classify(ref, err)
	}
	start, end, err := findRange(ref, text, a)
	if err != nil {
		return err
	}
	var want [2]int32
	switch a.GetCaret() {
	case agentv1.CaretPlacement_CARET_PLACEMENT_BEFORE, agentv1.CaretPlacement_CARET_PLACEMENT_AFTER:
		pos := start
		if a.GetCaret() == agentv1.CaretPlacement_CARET_PLACEMENT_AFTER {
			pos = end
		}
		var n int32
		if b.call(ctx, o.Name, o.Path, ifText+".GetNSelections").Store(&n) == nil {
			for i := n - 1; i >= 0; i-- {
				b.call(ctx, o.Name, o.Path, ifText+".RemoveSelection", i)
			}
		}
		if err := b.boolCall(ctx, ref, o, ifText+".SetCaretOffset", pos); err != nil {
			return err
		}
		want = [2]int32{pos, pos}
		resp.Effect = agentv1.Effect_EFFECT_DONE
		var v dbus.Variant
		if b.call(ctx, o.Name, o.Path, ifProperties+".Get", ifText, "CaretOffset").Store(&v) == nil {
			if got, ok := v.Value().(int32); ok && got == pos {
				resp.Effect = agentv1.Effect_EFFECT_VERIFIED
			}
		}
	default:
		var n int32
		_ = b.call(ctx, o.Name, o.Path, ifText+".GetNSelections").Store(&n)
		method, args := ifText+".AddSelection", []any{start, end}
		if n > 0 {
			method, args = ifText+".SetSelection", []any{int32(0), start, end}
		}
		if err := b.boolCall(ctx, ref, o, method, args...); err != nil {
			return err
		}
		want = [2]int32{start, end}
		resp.Effect = agentv1.Effect_EFFECT_DONE
		var gs, ge int32
		if b.call(ctx, o.Name, o.Path, ifText+".GetSelection", int32(0)).Store(&gs, &ge) == nil && gs == start && ge == end {
			resp.Effect = agentv1.Effect_EFFECT_VERIFIED
		}
	}
	resp.Selection = &agentv1.TextRange{Start: want[0], End: want[1]}
	return nil
}

// boolCall calls a method answering a boolean and turns false into UNSUPPORTED_ACTION.
func (b *Backend) boolCall(ctx context.Context, ref string, o objRef, method string, args ...any) error {
	var ok bool
	if err := b.call(ctx, o.Name, o.Path, method, args...).Store(&ok); err != nil {
		return classify(ref, err)
	}
	if !ok {
		return fmt.Errorf("%s: the application refused %s: %w", ref, method[strings.LastIndex(method, ".")+1:], errdefs.ErrUnsupportedAction)
	}
	return nil
}

// findRange is the range (in characters) an element_select_text names within text: its offsets, checked
// against the text's length, or the one place prefix+text+suffix occurs. No match is NOT_FOUND; several
// matches are TARGET_AMBIGUOUS.
func findRange(ref, text string, a *agentv1.ElementSelectText) (start, end int32, err error) {
	length := int32(utf8.RuneCountInString(text))
	if off := a.GetOffsets(); off != nil {
		if off.GetEnd() > length {
			var v errdefs.Violations
			v.Addf("action.element_select_text.range.offsets.end", "must be at most %d (the length of %s's text), got %d", length, ref, off.GetEnd())
			return 0, 0, v.Err()
		}
		return off.GetStart(), off.GetEnd(), nil
	}
	m := a.GetMatch()
	whole := m.GetPrefix() + m.GetText() + m.GetSuffix()
	var at []int
	for i := 0; i <= len(text)-len(whole); {
		j := strings.Index(text[i:], whole)
		if j < 0 {
			break
		}
		at = append(at, i+j)
		_, size := utf8.DecodeRuneInString(text[i+j:])
		i += j + max(size, 1)
	}
	switch len(at) {
	case 0:
		return 0, 0, fmt.Errorf("%s: the text does not contain prefix+text+suffix (%d bytes): %w", ref, len(whole), errdefs.ErrNotFound)
	case 1:
	default:
		return 0, 0, fmt.Errorf("%s: prefix+text+suffix occurs %d times in the text; make prefix or suffix longer: %w", ref, len(at), errdefs.ErrTargetAmbiguous)
	}
	s := at[0] + len(m.GetPrefix())
	start = int32(utf8.RuneCountInString(text[:s]))
	end = start + int32(utf8.RuneCountInString(m.GetText()))
	return start, end, nil
}
