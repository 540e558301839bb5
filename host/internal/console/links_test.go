package console

import (
	"strings"
	"testing"
	"time"

	"glovebox.dev/host/internal/config"
	brokerv1 "glovebox.dev/proto/glovebox/broker/v1"
)

// TestLinksOpenOnce: a link opens once; its second use is refused as reused (not unknown, so it is audited),
// an expired one as expired, and only hashes of tokens are kept.
func TestLinksOpenOnce(t *testing.T) {
	s := newSecrets()
	now := time.Unix(1e9, 0)
	p := &config.Principal{Name: "p"}
	tok := s.mint(&grant{principal: p, guest: "g", mode: brokerv1.ViewerMode_VIEWER_MODE_VIEW, linkID: "l-1", expires: now.Add(time.Minute)}, now)
	cookie, g, res := s.redeem(tok, now)
	if res != redeemed || g.guest != "g" || cookie == "" {
		t.Fatalf("first use: %v %v %q", res, g, cookie)
	}
	if v := s.viewer(cookie, now); v == nil || v.principal != p || !v.expires.Equal(now.Add(ViewerTTL)) {
		t.Fatalf("cookie grant %+v", v)
	}
	if _, g, res := s.redeem(tok, now); res != reusedLink || g.linkID != "l-1" {
		t.Fatalf("second use: %v %v, want reused l-1", res, g)
	}
	if _, g, res := s.redeem("nope", now); res != unknownLink || g != nil {
		t.Fatalf("unknown token: %v %v", res, g)
	}
	late := s.mint(&grant{principal: p, guest: "g", linkID: "l-2", expires: now.Add(time.Second)}, now)
	if _, _, res := s.redeem(late, now.Add(2*time.Second)); res != expiredLink {
		t.Fatalf("expired link: %v", res)
	}
	if s.viewer(cookie, now.Add(ViewerTTL)) != nil {
		t.Fatal("a cookie past its TTL still opens the console")
	}
	for k := range s.links {
		if strings.Contains(k, tok) || strings.Contains(k, late) {
			t.Fatal("a token is kept in the clear")
		}
	}
}

// TestLinksBounded: minting in a loop keeps at most maxLinks links.
func TestLinksBounded(t *testing.T) {
	s := newSecrets()
	now := time.Unix(1e9, 0)
	for i := range maxLinks + 50 {
		s.mint(&grant{expires: now.Add(time.Duration(i+1) * time.Second)}, now)
	}
	if n := len(s.links); n > maxLinks {
		t.Fatalf("%d links kept, want at most %d", n, maxLinks)
	}
}

// TestComboOf: the page's key messages map to X combos; printable shortcuts name the physical key.
func TestComboOf(t *testing.T) {
	for _, tc := range []struct {
		m    clientMessage
		want string
	}{
		{clientMessage{Key: "Enter"}, "Return"},
		{clientMessage{Key: "ArrowLeft", Mods: []string{"shift"}}, "shift+Left"},
		{clientMessage{Key: "PageDown"}, "Next"},
		{clientMessage{Key: "F5"}, "F5"},
		{clientMessage{Key: "A", Code: "KeyA", Mods: []string{"ctrl", "shift"}}, "ctrl+shift+a"},
		{clientMessage{Key: "!", Code: "Digit1", Mods: []string{"ctrl"}}, "ctrl+1"},
		{clientMessage{Key: "+", Code: "Equal", Mods: []string{"ctrl"}}, "ctrl+plus"},
		{clientMessage{Key: "Tab", Mods: []string{"meta"}}, "super+Tab"},
	} {
		got, err := comboOf(tc.m)
		if err != nil || got != tc.want {
			t.Errorf("comboOf(%+v) = %q, %v; want %q", tc.m, got, err, tc.want)
		}
	}
	for _, m := range []clientMessage{{Key: "Unidentified"}, {Key: "Enter", Mods: []string{"hyper"}}, {Key: "Process"}} {
		if _, err := comboOf(m); err == nil {
			t.Errorf("comboOf(%+v) accepted", m)
		}
	}
}

// TestActionOf: input messages become the agent actions that perform them; bad ones name their field.
func TestActionOf(t *testing.T) {
	if r, err := actionOf(clientMessage{T: "down", X: 3, Y: 4, B: 2}); err != nil || r.GetMouseDown().GetButton() != 3 || r.GetMouseDown().GetAt().GetX() != 3 {
		t.Fatalf("down: %v %v", r, err)
	}
	if r, err := actionOf(clientMessage{T: "text", Text: "héllo"}); err != nil || r.GetType().GetText() != "héllo" {
		t.Fatalf("text: %v %v", r, err)
	}
	for _, tc := range []struct {
		m     clientMessage
		field string
	}{
		{clientMessage{T: "down", B: 9}, "b"},
		{clientMessage{T: "text", Text: "\xff"}, "text"},
		{clientMessage{T: "explode"}, "t"},
	} {
		if _, err := actionOf(tc.m); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("actionOf(%+v): %v, want an error naming %s", tc.m, err, tc.field)
		}
	}
}
