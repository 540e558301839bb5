package policy

import (
	"errors"
	"testing"
	"time"

	"glovebox.dev/shared/errdefs"
)

func TestLooksSecret(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"hello world", false},
		{"The quick brown fox jumps over the lazy dog 1234", false},
		{"internationalization and localization", false},
		{"你好，世界 🙂", false},
		{"https://example.com/path/to/page", false},
		{"AKIAIOSFODNN7EXAMPLE", true},
		{"-----BEGIN RSA PRIVATE KEY-----", true},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXNpZ25hdHVyZQ", true},
		{"PASSWORD: correcthorse", true},
		{"api_key=abcd1234", true},
		{"ghp_abcdefghijklmnopqrstuvwxyz0123456789", true},
		{"Zx8qP2mW9vL4kR7tY1nB6cJ3", true},
		{"da39a3ee5e6b4b0d3255bfef95601890afd80709", true},
	}
	for _, tc := range tests {
		if got, rule := LooksSecret(tc.text); got != tc.want {
			t.Errorf("LooksSecret(%q) = %v (%s), want %v", tc.text, got, rule, tc.want)
		}
	}
}

func TestBucket(t *testing.T) {
	b := NewBucket(10, 2)
	now := time.Unix(0, 0)
	var got []bool
	for _, dt := range []time.Duration{0, 0, 0, 50 * time.Millisecond, 100 * time.Millisecond} {
		now = now.Add(dt)
		err := b.Take(now)
		if err != nil && !errors.Is(err, errdefs.ErrResourceExhausted) {
			t.Fatal(err)
		}
		got = append(got, err == nil)
	}
	want := []bool{true, true, false, false, true}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("take %d = %v, want %v (all %v)", i, got[i], want[i], got)
		}
	}
	if err := NewBucket(-1, 0).Take(now); err != nil {
		t.Errorf("unlimited bucket refused: %v", err)
	}
}
