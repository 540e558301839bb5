package bidi

import (
	"context"
	"errors"
	"testing"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

const fillPage = `<!doctype html><title>Fill</title>
<input id="a" aria-label="A" value="old a"><textarea id="t" aria-label="T">old t</textarea>
<div id="ce" contenteditable="true" role="textbox" aria-label="E">old e</div><button id="b">B</button>
<input class="two"><input class="two"><input id="m" type="email" aria-label="M">
<input id="up" aria-label="Up" value="abc" oninput="this.value = this.value.toUpperCase()">
<script>window.__log=[]; for (const id of ['a','t','ce']) document.getElementById(id).addEventListener('input', e => __log.push(id + ' ' + e.isTrusted));</script>`

// TestFillLocators fills Firefox fields by refs and selectors (inputs, textareas, contenteditable) with trusted
// keys and checks the page's own values and events through a bare evaluate of the test's; refusals keep their
// classes, a value the page rewrites is a mismatch, and a ref from before a reload is refused.
func TestFillLocators(t *testing.T) {
	lf := startFirefox(t)
	srv := serveHTML(t, fillPage)
	ctx := context.Background()
	tr := lf.newTab(t, ctx, srv.URL)
	snap, err := lf.b.SnapshotTab(ctx, &agentv1.SnapshotTabRequest{Tab: tr})
	if err != nil {
		t.Fatal(err)
	}
	refOf := func(name string) *agentv1.Locator {
		for _, el := range snap.GetSnapshot().GetElements() {
			if el.GetName() == name {
				return &agentv1.Locator{Kind: &agentv1.Locator_Ref{Ref: &agentv1.ElementRef{SnapshotId: snap.GetSnapshot().GetSnapshotId(), Ref: el.GetRef()}}}
			}
		}
		t.Fatalf("no %q in the snapshot", name)
		return nil
	}
	sel := func(s string) *agentv1.Locator { return &agentv1.Locator{Kind: &agentv1.Locator_Selector{Selector: s}} }
	fill := func(l *agentv1.Locator, text string) (*agentv1.ActResponse, error) {
		return lf.act(ctx, &agentv1.ActRequest{Action: &agentv1.ActRequest_Fill{Fill: &agentv1.Fill{Tab: tr, Locator: l, Text: text}}})
	}
	for _, c := range []struct {
		name string
		loc  *agentv1.Locator
		text string
		expr string
	}{
		{"ref", refOf("A"), "中文 😀 one", "document.getElementById('a').value"},
		{"ref again", refOf("A"), "two", "document.getElementById('a').value"},
		{"textarea ref", refOf("T"), "line", "document.getElementById('t').value"},
		{"contenteditable ref", refOf("E"), "édité 👍", "document.getElementById('ce').innerText"},
		{"input selector", sel("#a"), "by selector", "document.getElementById('a').value"},
		{"email", refOf("M"), "a@example.org", "document.getElementById('m').value"},
		{"empty", sel("#t"), "", "document.getElementById('t').value"},
	} {
		resp, err := fill(c.loc, c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := lf.readString(t, ctx, tr, c.expr); got != c.text {
			t.Errorf("%s: page has %q, want %q", c.name, got, c.text)
		}
		if resp.GetValue() != c.text || resp.GetEffect() != agentv1.Effect_EFFECT_VERIFIED {
			t.Errorf("%s: answered %q %v", c.name, resp.GetValue(), resp.GetEffect())
		}
	}
	if got := lf.readString(t, ctx, tr, "__log.every(s => s.endsWith(' true')) ? 'trusted' : __log.join('|')"); got != "trusted" {
		t.Errorf("page saw untrusted input events: %q", got)
	}
	for _, c := range []struct {
		name string
		loc  *agentv1.Locator
		want error
	}{
		{"button ref", refOf("B"), errdefs.ErrUnsupportedAction},
		{"no match", sel("#nothing"), errdefs.ErrNotFound},
		{"two matches", sel(".two"), errdefs.ErrTargetAmbiguous},
		{"bad selector", sel("[["), errdefs.ErrInvalidArgument},
	} {
		if _, err := fill(c.loc, "x"); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := fill(refOf("Up"), "abc"); !errors.Is(err, errdefs.ErrInternal) {
		t.Errorf("fill rewritten by the page: %v, want a mismatch", err)
	}
	if got := lf.readString(t, ctx, tr, "document.getElementById('up').value"); got != "ABC" {
		t.Errorf("the page's field has %q", got)
	}
	stale := refOf("A")
	if _, err := lf.act(ctx, &agentv1.ActRequest{Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{Tab: tr}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := fill(stale, "x"); !errors.Is(err, errdefs.ErrStaleRef) {
		t.Errorf("ref after reload: %v, want stale", err)
	}
	// Firefox restores form values on reload: the field keeps what it had, never the refused fill's text.
	if got := lf.readString(t, ctx, tr, "document.getElementById('a').value"); got == "x" {
		t.Errorf("after reload the field has %q: the stale ref was filled", got)
	}
}
