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
