package domkey

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"glovebox.dev/shared/errdefs"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []string // Key, Code pairs
	}{
		{"Enter", []string{"Enter/Enter"}},
		{"Control+a", []string{"Control/ControlLeft", "a/KeyA"}},
		{"Ctrl+Shift+ArrowLeft", []string{"Control/ControlLeft", "Shift/ShiftLeft", "ArrowLeft/ArrowLeft"}},
		{"Control++", []string{"Control/ControlLeft", "+/Equal"}},
		{"+", []string{"+/Equal"}},
		{"Meta+é", []string{"Meta/MetaLeft", "é/"}},
		{"中", []string{"中/"}},
		{"F12", []string{"F12/F12"}},
		{"Space", []string{" /Space"}},
	}
	for _, tc := range tests {
		keys, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		var got []string
		for _, k := range keys {
			got = append(got, k.Key+"/"+k.Code)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
	for _, bad := range []string{"", "Control+", "Fn", "Control++a", "ab", "\x00", "a+b+c+d+e+f+g+h+i"} {
		if _, err := Parse(bad); !errors.Is(err, errdefs.ErrInvalidArgument) {
			t.Errorf("Parse(%q) = %v, want invalid argument", bad, err)
		}
	}
}

func TestTextWith(t *testing.T) {
	a, _ := Lookup("a")
	one, _ := Lookup("1")
	tests := []struct {
		k    Key
		mods int
		want string
	}{
		{a, 0, "a"}, {a, ModShift, "A"}, {a, ModCtrl, ""}, {a, ModShift | ModAlt, ""}, {one, ModShift, "!"},
	}
	for _, tc := range tests {
		if got := tc.k.TextWith(tc.mods); got != tc.want {
			t.Errorf("%s with %d = %q, want %q", tc.k.Key, tc.mods, got, tc.want)
		}
	}
}

// TestProviderKeyNames: the key names the providers' tool shapes send resolve in any case; single characters
// keep their case; unknown names are still refused.
func TestProviderKeyNames(t *testing.T) {
	want := map[string]string{
		"ArrowLeft": "ArrowLeft", "ARROWLEFT": "ArrowLeft", "arrowright": "ArrowRight", "ARROWUP": "ArrowUp", "ArrowDown": "ArrowDown",
		"PageUp": "PageUp", "PAGEUP": "PageUp", "PageDown": "PageDown", "Page_Down": "PageDown",
		"OPTION": "Alt", "CMD": "Meta", "META": "Meta", "SUPER": "Meta", "ESC": "Escape", "ENTER": "Enter", "ctrl": "Control",
		"A": "A", "a": "a",
	}
	for name, key := range want {
		if k, ok := Lookup(name); !ok || k.Key != key {
			t.Errorf("Lookup(%q) = %q, %v; want %q", name, k.Key, ok, key)
		}
	}
	for _, bad := range []string{"ArrowSideways", "OPTIONS", "Enterr"} {
		if k, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) = %q, want unknown", bad, k.Key)
		}
	}
	if keys, err := Parse("CMD+SHIFT+ARROWLEFT"); err != nil || len(keys) != 3 || keys[0].Modifier != ModMeta || keys[1].Modifier != ModShift || keys[2].Key != "ArrowLeft" {
		t.Errorf("Parse(CMD+SHIFT+ARROWLEFT) = %v, %v", keys, err)
	}
}
