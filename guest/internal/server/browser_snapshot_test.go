package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/chromedp/remote"
	"github.com/google/go-cmp/cmp"
)

// rolesPage has the roles and naming rules a snapshot must get right: labels (for, wrapping), aria-label,
// aria-labelledby, alt, title, placeholder, legend, caption, name from content, explicit roles, and content
// that is hidden in different ways.
const rolesPage = `<!doctype html><html><head><title>Roles</title></head><body>
<nav aria-label="Main"><a href="/a">Home</a> <a href="/b" title="About us">About</a></nav>
<main><h1>Main heading</h1><h2 id="h2">Sub <em>heading</em></h2>
<img src="x.png" alt="A picture" width="20" height="20"><a href="/c"><img src="c.png" alt="Logo" width="5" height="5"></a>
<form aria-label="Sign in">
<label for="u">User name</label><input id="u" value="bob">
<label>Password <input type="password"></label>
<input type="checkbox" id="c1" checked><label for="c1">Remember</label>
<input type="radio" name="r" id="r1"><label for="r1">One</label>
<input type="search" placeholder="Search here"><input type="email" aria-labelledby="h2">
<input type="range" min="0" max="10" value="3" aria-label="Volume"><input type="number" value="5" aria-label="Count">
<textarea aria-label="Comments">text</textarea>
<select aria-label="Pick"><option>A</option><option selected>B</option></select>
<input type="submit" value="Go"><button type="button">Toggle <b>it</b></button><input type="image" alt="Image button" src="z.png">
</form>
<div role="checkbox" aria-checked="mixed" tabindex="0">Partial</div>
<div role="tablist"><div role="tab" tabindex="0">Tab A</div><div role="tab">Tab B</div></div>
<div aria-hidden="true"><button>Hidden button</button></div><div style="display:none"><button>Display none</button></div>
<div style="visibility:hidden"><button>Invisible</button></div><button hidden>Hidden attr</button>
<table><caption>Data</caption><tr><th>Col A</th></tr><tr><td>1 <button>In cell</button></td></tr></table>
<section aria-label="Region one"><p>Regional</p></section>
<button aria-label="Close dialog">X</button><span id="l1">Label one</span><button aria-labelledby="l1">LB</button>
<fieldset><legend>Choices</legend><input type="checkbox" aria-label="Opt"></fieldset>
<div role="button" tabindex="0">Div button</div><ul role="menu"><li role="menuitem">Cut</li></ul>
<label>Wrapped <select><option>W</option></select></label>
</main></body></html>`

// TestBrowserSnapshotMatchesChromium checks the roles, names and values of a snapshot (computed in the page
// by our script) against Chromium's own accessibility tree of the same page, read over the test's own DevTools
// connection.
func TestBrowserSnapshotMatchesChromium(t *testing.T) {
	e := newChromeEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, rolesPage)
	}))
	defer srv.Close()
	tab := e.newTab(t, srv.URL+"/roles")

	// The roles compared: those a caller acts on or finds its way by. Text runs and generic containers are
	// shaped differently on purpose (no inline text boxes, no list markers).
	compared := map[string]bool{"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true,
		"radio": true, "combobox": true, "slider": true, "spinbutton": true, "tab": true, "menuitem": true,
		"heading": true, "image": true, "navigation": true, "region": true, "form": true, "table": true, "cell": true,
		"columnheader": true, "group": true, "main": true}
	type item struct{ Role, Name, Value string }
	var want []item
	for _, n := range axTree(t, e.port, tab) {
		// Chromium gives <input type=image> an unnamed image child of its own; the snapshot reports the button.
		if !n.Ignored && compared[n.Role.Value] && !(n.Role.Value == "image" && n.Name.Value == "") {
			v := ""
			if n.Value.Value != nil {
				v = fmt.Sprint(n.Value.Value)
			}
			want = append(want, item{n.Role.Value, n.Name.Value, v})
		}
	}
	var got []item
	for _, el := range e.snapshot(t, tab).GetElements() {
		if compared[el.GetRole()] {
			got = append(got, item{el.GetRole(), el.GetName(), el.GetValue()})
		}
	}
	less := func(a, b item) int {
		return strings.Compare(a.Role+"\x00"+a.Name+"\x00"+a.Value, b.Role+"\x00"+b.Name+"\x00"+b.Value)
	}
	slices.SortFunc(want, less)
	slices.SortFunc(got, less)
	if len(want) < 30 {
		t.Fatalf("chromium's tree has only %d compared nodes: %v", len(want), want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("snapshot vs chromium's accessibility tree (-chromium +snapshot):\n%s", diff)
	}
}

// axNode is the part of a Chromium accessibility node the test compares.
type axNode struct {
	Ignored bool `json:"ignored"`
	Role    struct {
		Value string `json:"value"`
	} `json:"role"`
	Name struct {
		Value string `json:"value"`
	} `json:"name"`
	Value struct {
		Value any `json:"value"`
	} `json:"value"`
}

// axTree is Chromium's accessibility tree of a tab, read over a DevTools connection of the test's own.
func axTree(t *testing.T, port int, tab string) []axNode {
	t.Helper()
	c, err := remote.DialContext(context.Background(), fmt.Sprintf("ws://127.0.0.1:%d/devtools/page/%s", port, tab))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Write(context.Background(), &cdproto.Message{ID: 1, Method: "Accessibility.getFullAXTree", Params: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	for {
		var m cdproto.Message
		if err := c.Read(context.Background(), &m); err != nil {
			t.Fatal(err)
		}
		if m.ID != 1 {
			continue
		}
		if m.Error != nil {
			t.Fatal(m.Error)
		}
		var res struct {
			Nodes []axNode `json:"nodes"`
		}
		if err := json.Unmarshal(m.Result, &res); err != nil {
			t.Fatal(err)
		}
		return res.Nodes
	}
}
