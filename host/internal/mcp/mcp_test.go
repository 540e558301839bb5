package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// TestToolSchemas checks what clients validate: every tool's input schema is an object schema with a
// properties object, survives a JSON round trip, and names every required property.
func TestToolSchemas(t *testing.T) {
	for _, tl := range ListTools(Options{}) {
		b, err := json.Marshal(tl["inputSchema"])
		if err != nil {
			t.Fatalf("%s: %v", tl["name"], err)
		}
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(b, &s); err != nil || s.Type != "object" || s.Properties == nil {
			t.Errorf("%s: schema %s: want type object with a properties object (%v)", tl["name"], b, err)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", tl["name"], r)
			}
		}
	}
}

// TestScaling pins the model display and the mapping back: the agent's own rounding gives the model size,
// model pixels map to the screen pixel under their center, and the mapping is the identity without scaling.
func TestScaling(t *testing.T) {
	for _, c := range []struct {
		screen, limit, model Size
		edge                 int32
	}{
		{Size{1920, 1200}, Size{1280, 800}, Size{1280, 800}, 1280},
		{Size{1920, 1080}, Size{1280, 800}, Size{1280, 720}, 1280},
		{Size{1280, 800}, Size{1024, 768}, Size{1024, 640}, 1024},
		{Size{1280, 800}, Size{1280, 800}, Size{1280, 800}, 0},
		{Size{800, 600}, Size{1280, 800}, Size{800, 600}, 0},
	} {
		s, err := NewScaling(c.screen, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		if s.Model != c.model || s.MaxEdge != c.edge {
			t.Errorf("%v in %v: model %v edge %d, want %v edge %d", c.screen, c.limit, s.Model, s.MaxEdge, c.model, c.edge)
		}
		if w, h := scaledSize(c.screen.Width, c.screen.Height, int(s.MaxEdge)); (Size{w, h}) != s.Model {
			t.Errorf("%v: the agent would send %dx%d for max_edge %d, not %v", c.screen, w, h, s.MaxEdge, s.Model)
		}
	}
	s, _ := NewScaling(Size{1920, 1200}, Size{1280, 800})
	for _, c := range []struct{ x, y, wx, wy int }{{0, 0, 0, 0}, {1, 1, 2, 2}, {2, 2, 3, 3}, {1279, 799, 1919, 1199}, {640, 400, 960, 600}} {
		if p := s.ToScreen(c.x, c.y); p.GetX() != int32(c.wx) || p.GetY() != int32(c.wy) {
			t.Errorf("ToScreen(%d, %d) = %v, want %d, %d", c.x, c.y, p, c.wx, c.wy)
		}
	}
	if got := s.ToModel(&agentv1.Point{X: 960, Y: 600}); got != [2]int{640, 400} {
		t.Errorf("ToModel(960, 600) = %v, want [640 400]", got)
	}
	var v errdefs.Violations
	s.point(&v, "coordinate", []int{1280, -1})
	bad, _ := v.Err().(*errdefs.BadRequest)
	var fields []string
	for _, x := range bad.Violations {
		fields = append(fields, x.Field+": "+x.Description)
	}
	want := []string{"coordinate[0]: must be 0..1279 (the display is 1280x800), got 1280", "coordinate[1]: must be 0..799 (the display is 1280x800), got -1"}
	if d := cmp.Diff(want, fields); d != "" {
		t.Errorf("violations (-want +got):\n%s", d)
	}
}

// TestPage pins the text budget: pages end at line ends, never split a rune, and the continuation reaches the
// end exactly.
func TestPage(t *testing.T) {
	text := strings.Repeat("[e1] push button \"Grüße 你好\"\n", 50)
	var got strings.Builder
	off, pages := 0, 0
	for {
		p, next := page(text, off, 300)
		if len(p) > 300 || !strings.HasSuffix(p, "\n") {
			t.Fatalf("page %d: %d bytes, ends %q", pages, len(p), p[max(0, len(p)-5):])
		}
		got.WriteString(p)
		pages++
		if next == 0 {
			break
		}
		off = next
	}
	if got.String() != text || pages < 5 {
		t.Errorf("pages joined differ from the text (%d pages)", pages)
	}
	long := strings.Repeat("你", 200)
	if p, next := page(long, 0, 256); len(p) != 255 || next != 255 {
		t.Errorf("a line longer than the budget: %d bytes, next %d; want 255 (a rune boundary)", len(p), next)
	}
}

// TestOpenAIKeys pins the OpenAI key names the API's key validation must accept once translated.
func TestOpenAIKeys(t *testing.T) {
	s := &Session{scale: Scaling{Screen: Size{1280, 800}, Model: Size{1280, 800}}, id: "s-test"}
	for _, keys := range [][]string{{"CTRL", "A"}, {"ENTER"}, {"ArrowLeft"}, {"ctrl", "shift", "t"}, {"ESC"}, {"PAGEDOWN"}, {"CTRL", "+"}, {"BACKSPACE"}, {"SPACE"}} {
		var v errdefs.Violations
		req := s.openaiStep(&v, "action", openaiAction{Type: "keypress", Keys: keys})
		if err := v.Err(); err != nil {
			t.Fatalf("%v: %v", keys, err)
		}
		req.Owner = "s-test"
		if err := check([]step{{req: req, arg: "action"}}); err != nil {
			t.Errorf("keypress %v -> %q: %v", keys, req.GetKey().GetCombo(), err)
		}
	}
	if got := openaiCombo([]string{"CTRL", "A"}); got != "CTRL+a" {
		t.Errorf("CTRL+A is %q, want CTRL+a (the a key, not shift+a)", got)
	}
}
