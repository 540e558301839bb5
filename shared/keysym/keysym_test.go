package keysym

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/testenv"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		name string
		want Keysym
	}{
		{"Return", 0xff0d},
		{"return", 0xff0d},
		{"RETURN", 0xff0d},
		{"enter", 0xff0d},
		{"Enter", 0xff0d},
		{"Tab", 0xff09},
		{"tab", 0xff09},
		{"esc", 0xff1b},
		{"Escape", 0xff1b},
		{"del", 0xffff},
		{"Delete", 0xffff},
		{"backspace", 0xff08},
		{"BackSpace", 0xff08},
		{"ctrl", 0xffe3},
		{"control", 0xffe3},
		{"Control_R", 0xffe4},
		{"shift", 0xffe1},
		{"alt", 0xffe9},
		{"super", 0xffeb},
		{"win", 0xffeb},
		{"cmd", 0xffeb},
		{"meta", 0xffe7},
		{"hyper", 0xffed},
		{"altgr", 0xfe03},
		{"pgup", 0xff55},
		{"pageup", 0xff55},
		{"Page_Up", 0xff55},
		{"Prior", 0xff55},
		{"pgdn", 0xff56},
		{"pagedown", 0xff56},
		{"space", 0x20},
		{"plus", 0x2b},
		{"+", 0x2b},
		{"minus", 0x2d},
		{"up", 0xff52},
		{"down", 0xff54},
		{"left", 0xff51},
		{"right", 0xff53},
		{"home", 0xff50},
		{"end", 0xff57},
		{"insert", 0xff63},
		{"F5", 0xffc2},
		{"f5", 0xffc2},
		{"F35", 0xffe0},
		{"a", 0x61},
		{"A", 0x41},
		{"1", 0x31},
		{"/", 0x2f},
		{"é", 0xe9},
		{"eacute", 0xe9},
		{"Eacute", 0xc9},
		{"€", 0x20ac},
		{"α", 0x7e1},
		{"中", 0x0100_4e2d},
		{"😀", 0x0101_f600},
		{"U+4E2D", 0x0100_4e2d},
		{"U4E2D", 0x0100_4e2d},
		{"0xff0d", 0xff0d},
		{"XF86AudioPlay", 0x1008ff14},
		{"xf86audioplay", 0x1008ff14},
		{"XF86Macro1", 0x10081290},
		{"ISO_Level3_Shift", 0xfe03},
	}
	for _, tt := range tests {
		got, ok := Lookup(tt.name)
		if !ok || got != tt.want {
			t.Errorf("Lookup(%q) = %#x, %v; want %#x", tt.name, uint32(got), ok, uint32(tt.want))
		}
	}
	for _, bad := range []string{"", "ctl", "F99", "notakey", "\x01", "0x", "U+D800", "ab"} {
		if k, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) = %#x, want not found", bad, uint32(k))
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		k    Keysym
		want string
	}{
		{0xff0d, "Return"},
		{0xff55, "Prior"},
		{0xffe3, "Control_L"},
		{0x61, "a"},
		{0x2b, "plus"},
		{0x27, "apostrophe"}, // quoteright is a deprecated alias
		{0x20ac, "EuroSign"},
		{0x1008ff14, "XF86AudioPlay"},
		{0x0100_4e2d, "U4E2D"},
		{0x1234_5678, "0x12345678"},
	}
	for _, tt := range tests {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("Keysym(%#x).String() = %q, want %q", uint32(tt.k), got, tt.want)
		}
	}
}

func TestForRuneAndRune(t *testing.T) {
	tests := []struct {
		r    rune
		want Keysym
		back rune // what Rune gives back
	}{
		{'a', 0x61, 'a'},
		{' ', 0x20, ' '},
		{'é', 0xe9, 'é'},
		{'ÿ', 0xff, 'ÿ'},
		{'\n', 0xff0d, 0},
		{'\t', 0xff09, 0},
		{'€', 0x20ac, '€'},
		{'α', 0x7e1, 'α'},
		{'ā', 0x3e0, 'ā'}, // amacron, legacy Latin-4
		{'中', 0x0100_4e2d, '中'},
		{'😀', 0x0101_f600, '😀'},
		{0x01, 0, 0},
		{0x85, 0, 0},
		{0xd800, 0, 0},
		{0x110000, 0, 0},
		{-1, 0, 0},
	}
	for _, tt := range tests {
		got := ForRune(tt.r)
		if got != tt.want {
			t.Errorf("ForRune(%U) = %#x, want %#x", tt.r, uint32(got), uint32(tt.want))
		}
		if got != 0 {
			if back := got.Rune(); back != tt.back {
				t.Errorf("Keysym(%#x).Rune() = %U, want %U", uint32(got), back, tt.back)
			}
		}
	}
}

func TestParseCombo(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{in: "ctrl+s", want: []string{"Control_L", "s"}},
		{in: "alt+Tab", want: []string{"Alt_L", "Tab"}},
		{in: "Return", want: []string{"Return"}},
		{in: "super", want: []string{"Super_L"}},
		{in: "F5", want: []string{"F5"}},
		{in: "ctrl+shift+t", want: []string{"Control_L", "Shift_L", "t"}},
		{in: "ctrl+plus", want: []string{"Control_L", "plus"}},
		{in: "ctrl++", want: []string{"Control_L", "plus"}},
		{in: "+", want: []string{"plus"}},
		{in: "ctrl+++shift", want: []string{"Control_L", "plus", "Shift_L"}},
		{in: " ctrl + s ", want: []string{"Control_L", "s"}},
		{in: "ctrl+é", want: []string{"Control_L", "eacute"}},
		{in: "a+b+c+d+e+f+g+h", want: []string{"a", "b", "c", "d", "e", "f", "g", "h"}},
		{in: "", wantErr: "empty combo"},
		{in: "ctrl+", wantErr: "empty key name at position 2"},
		{in: "+ctrl", wantErr: `unknown key "+ctrl"`},
		{in: "ctrl++s", wantErr: `unknown key "+s"`},
		{in: "ctrl++++", wantErr: `key "+" named twice`},
		{in: "ctrl+ +s", wantErr: "empty key name at position 2"},
		{in: "ctl+s", wantErr: `unknown key "ctl"`},
		{in: "ctrl+control", wantErr: `key "control" named twice`},
		{in: "a+b+c+d+e+f+g+h+i", wantErr: `more than 8 keys`},
	}
	for _, tt := range tests {
		c, err := ParseCombo(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ParseCombo(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, errdefs.ErrInvalidArgument) {
				t.Errorf("ParseCombo(%q) error %v is not ErrInvalidArgument", tt.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseCombo(%q): %v", tt.in, err)
			continue
		}
		var got []string
		for _, k := range c {
			got = append(got, k.String())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseCombo(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestModifier(t *testing.T) {
	for _, name := range []string{"shift", "ctrl", "control", "alt", "super", "meta", "hyper", "altgr", "Ctrl", "SHIFT"} {
		k, ok := Modifier(name)
		if !ok || !IsModifier(k) {
			t.Errorf("Modifier(%q) = %v, %v", name, k, ok)
		}
	}
	for _, name := range []string{"ctl", "win", "Control_L", "a", "", "caps"} {
		if k, ok := Modifier(name); ok {
			t.Errorf("Modifier(%q) = %v, want not a modifier name", name, k)
		}
	}
	for _, k := range []Keysym{0x61, 0xff0d, 0xffe5 /* Caps_Lock */} {
		if IsModifier(k) {
			t.Errorf("IsModifier(%v) = true", k)
		}
	}
}

// TestTableSorted checks the invariant Lookup's binary search relies on.
func TestTableSorted(t *testing.T) {
	for i := 1; i < len(table); i++ {
		if table[i-1].name >= table[i].name {
			t.Fatalf("table not sorted at %d: %q >= %q", i, table[i-1].name, table[i].name)
		}
	}
	if len(table) < 2000 {
		t.Errorf("table has %d names, want the whole of keysymdef.h", len(table))
	}
}

// TestGeneratedUpToDate regenerates the table from the installed headers and compares.
func TestGeneratedUpToDate(t *testing.T) {
	if _, err := os.Stat("/usr/include/X11/keysymdef.h"); err != nil {
		testenv.Missing(t, "x11proto-dev headers not installed (/usr/include/X11/keysymdef.h)")
	}
	out := filepath.Join(t.TempDir(), "table.go")
	cmd := exec.Command("go", "run", "gen.go", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, b)
	}
	want, _ := os.ReadFile("table.go")
	got, _ := os.ReadFile(out)
	if string(want) != string(got) {
		t.Errorf("table.go is stale: run go generate in shared/keysym")
	}
}

func FuzzParseCombo(f *testing.F) {
	for _, s := range []string{"ctrl+s", "ctrl++", "+", "++", "a+b+c+d+e+f+g+h+i", "ctrl+é", "U+4E2D", "0xffffffff", "\xff", " + + ", "ctrl+shift+alt+super+meta+hyper+altgr+Return"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCombo(s)
		if err != nil {
			if c != nil || !errors.Is(err, errdefs.ErrInvalidArgument) {
				t.Fatalf("ParseCombo(%q) = %v, %v", s, c, err)
			}
			return
		}
		if len(c) == 0 || len(c) > MaxComboKeys {
			t.Fatalf("ParseCombo(%q) = %d keys", s, len(c))
		}
		for _, k := range c {
			if k == 0 {
				t.Fatalf("ParseCombo(%q) has NoSymbol", s)
			}
		}
		// The canonical spelling parses back to the same keys.
		again, err := ParseCombo(c.String())
		if err != nil || !slices.Equal(again, c) {
			t.Fatalf("ParseCombo(%q).String() = %q reparses to %v, %v", s, c.String(), again, err)
		}
	})
}

// TestProviderKeyNames: the key names the providers' tool shapes send (OpenAI's computer tool upper-cases DOM
// names; Anthropic's sends xdotool names) resolve to X keysyms; unknown names are still refused.
func TestProviderKeyNames(t *testing.T) {
	want := map[string]Keysym{
		"ArrowLeft": 0xff51, "ARROWLEFT": 0xff51, "ArrowUp": 0xff52, "ArrowRight": 0xff53, "ARROWDOWN": 0xff54,
		"PageUp": 0xff55, "PAGEUP": 0xff55, "PageDown": 0xff56, "Page_Down": 0xff56,
		"OPTION": AltL, "option": AltL, "CMD": SuperL, "META": MetaL, "SUPER": SuperL, "ESC": Escape, "ENTER": Return,
	}
	for name, k := range want {
		if got, ok := Lookup(name); !ok || got != k {
			t.Errorf("Lookup(%q) = %v, %v; want %v", name, got, ok, k)
		}
	}
	for _, bad := range []string{"ArrowSideways", "OPTIONS", "CMDD"} {
		if k, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) = %v, want unknown", bad, k)
		}
	}
	if c, err := ParseCombo("CMD+SHIFT+ARROWLEFT"); err != nil || len(c) != 3 || c[2] != 0xff51 {
		t.Errorf("ParseCombo(CMD+SHIFT+ARROWLEFT) = %v, %v", c, err)
	}
}
