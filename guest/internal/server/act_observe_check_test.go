package server

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"glovebox.dev/guest/internal/x11/screen"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
)

// countingBrowser is a browser backend that counts the page actions that reach it.
type countingBrowser struct {
	BrowserIO
	acts atomic.Int32
}

func (b *countingBrowser) Act(context.Context, *agentv1.ActRequest, *agentv1.ActResponse) error {
	b.acts.Add(1)
	return nil
}

func (b *countingBrowser) ReleaseOwner(context.Context, string) []string { return nil }

// countingAccessibility is an accessibility backend that counts the element actions that reach it.
type countingAccessibility struct {
	AccessibilityIO
	acts atomic.Int32
}

func (x *countingAccessibility) Act(context.Context, *agentv1.ActRequest, *agentv1.ActResponse) error {
	x.acts.Add(1)
	return nil
}

// TestActObserveScreenshotCheckedBeforePageAndElementActions: a page or element action whose observe.screenshot
// names an unknown display or a region outside the screen is refused with INVALID_ARGUMENT naming the field
// before the action is done, as for the desktop actions (not done, then failed in the observation).
func TestActObserveScreenshotCheckedBeforePageAndElementActions(t *testing.T) {
	e := startActDesktop(t)
	scr, err := screen.New(e.Display, e.win, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { scr.Close() })
	br, ax := &countingBrowser{}, &countingAccessibility{}
	s := New(Options{Generation: 7}, Backends{Input: AdaptInput(e.in), Windows: e.win, Screen: AdaptScreen(scr),
		Browser: AdaptBrowser(br), Accessibility: AdaptAccessibility(ax)})
	client := agentv1.NewActServiceClient(dialServices(t, s))

	tab := &agentv1.TabRef{BrowserId: "chrome-9222", TabId: "T1"}
	page := func() *agentv1.ActRequest {
		return &agentv1.ActRequest{Owner: "o", Action: &agentv1.ActRequest_Reload{Reload: &agentv1.Reload{Tab: tab}}}
	}
	element := func() *agentv1.ActRequest {
		return &agentv1.ActRequest{Owner: "o", Action: &agentv1.ActRequest_ElementFocus{ElementFocus: &agentv1.ElementFocus{
			Element: &agentv1.ElementRef{SnapshotId: "s1", Ref: "e1"}}}}
	}
	for _, tc := range []struct {
		name  string
		opts  *agentv1.ScreenshotOptions
		field string
	}{
		{"unknown display", &agentv1.ScreenshotOptions{DisplayId: "display-99"}, "observe.screenshot.display_id"},
		{"region outside", &agentv1.ScreenshotOptions{Region: &agentv1.Rect{X: 1200, Y: 0, Width: 200, Height: 10}}, "observe.screenshot.region"},
	} {
		for _, mk := range []struct {
			kind string
			req  func() *agentv1.ActRequest
		}{{"page", page}, {"element", element}} {
			t.Run(tc.name+"/"+mk.kind, func(t *testing.T) {
				r := mk.req()
				r.Observe = &agentv1.ObserveAfter{Screenshot: tc.opts}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_, err := client.Act(ctx, r)
				if got := violatedFields(t, err); !slices.Contains(got, tc.field) {
					t.Errorf("violations %v (%v), want %s", got, err, tc.field)
				}
				if n := br.acts.Load() + ax.acts.Load(); n != 0 {
					t.Errorf("%d actions reached the backends; want none", n)
				}
			})
		}
	}
}
