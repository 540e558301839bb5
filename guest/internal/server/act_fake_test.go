package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
	"glovebox.dev/shared/keysym"
)

// fakeInput records the calls that reach the input backend. block, when set, holds Move until closed.
type fakeInput struct {
	mu    sync.Mutex
	calls []string
	block chan struct{}
}

func (f *fakeInput) record(format string, args ...any) {
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *fakeInput) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeInput) Root() (int32, int32)                          { return 1280, 800 }
func (f *fakeInput) Pointer(context.Context) (int32, int32, error) { return 1, 2, nil }
func (f *fakeInput) LastPointer() (int32, int32)                   { return 1, 2 }
func (f *fakeInput) Held(string) []*agentv1.HeldInput              { return nil }
func (f *fakeInput) Close() error                                  { return nil }
func (f *fakeInput) Key(_ context.Context, c keysym.Combo, n int) error {
	f.record("key %v", c)
	return nil
}
func (f *fakeInput) Move(ctx context.Context, to *agentv1.Point) error {
	f.record("move %d,%d", to.GetX(), to.GetY())
	if f.block != nil {
		<-f.block
	}
	return nil
}
func (f *fakeInput) Click(_ context.Context, at *agentv1.Point, _ agentv1.MouseButton, _ int, _ keysym.Combo) error {
	f.record("click %d,%d", at.GetX(), at.GetY())
	return nil
}
func (f *fakeInput) MouseDown(context.Context, string, *agentv1.Point, agentv1.MouseButton) error {
	f.record("mouse down")
	return nil
}
func (f *fakeInput) MouseUp(context.Context, string, *agentv1.Point, agentv1.MouseButton) error {
	f.record("mouse up")
	return nil
}
func (f *fakeInput) Drag(context.Context, []*agentv1.Point, agentv1.MouseButton, time.Duration, keysym.Combo) error {
	f.record("drag")
	return nil
}
func (f *fakeInput) Scroll(context.Context, *agentv1.Point, int, int, keysym.Combo) error {
	f.record("scroll")
	return nil
}
func (f *fakeInput) KeyDown(context.Context, string, keysym.Combo) error {
	f.record("key down")
	return nil
}
func (f *fakeInput) KeyUp(context.Context, string, keysym.Combo) error {
	f.record("key up")
	return nil
}
func (f *fakeInput) HoldKey(context.Context, keysym.Combo, time.Duration) error {
	f.record("hold key")
	return nil
}
func (f *fakeInput) Type(_ context.Context, text string, _ time.Duration) (int, int, error) {
	f.record("type %s", text)
	return len([]rune(text)), 0, nil
}
func (f *fakeInput) ReleaseAll(context.Context, string) ([]*agentv1.HeldInput, error) {
	f.record("release all")
	return nil, nil
}
func (f *fakeInput) ReleaseEverything(context.Context) ([]*agentv1.HeldInput, error) {
	f.record("release everything")
	return nil, nil
}

// fakeWindows is a desktop of fixed windows; at maps every point to one window.
type fakeWindows struct {
	input   *fakeInput // activations are recorded in the input log, to see their order
	wins    map[uint32]*agentv1.Window
	focused uint32
	at      uint32
}

func (w *fakeWindows) List(context.Context, bool) ([]*agentv1.Window, error) { return nil, nil }
func (w *fakeWindows) Get(_ context.Context, id uint32) (*agentv1.Window, error) {
	if win, ok := w.wins[id]; ok {
		return win, nil
	}
	return nil, fmt.Errorf("window %d: %w", id, errdefs.ErrTargetGone)
}
func (w *fakeWindows) Focused(context.Context) (uint32, error)          { return w.focused, nil }
func (w *fakeWindows) At(context.Context, int32, int32) (uint32, error) { return w.at, nil }
func (w *fakeWindows) Activate(_ context.Context, id uint32) error {
	w.input.record("activate %d", id)
	w.focused = id
	return nil
}

func fakeServices(t *testing.T) (agentv1.ActServiceClient, *fakeInput, *fakeWindows) {
	t.Helper()
	in := &fakeInput{}
	win := &fakeWindows{input: in, focused: 10, at: 10, wins: map[uint32]*agentv1.Window{
		10: {Id: 10, Title: "ten", Mapped: true},
		20: {Id: 20, Title: "twenty", Mapped: true},
		30: {Id: 30, Title: "hidden", Mapped: false},
	}}
	s := New(Options{Generation: 3}, Backends{Input: AdaptInput(in), Windows: win})
	return agentv1.NewActServiceClient(dialServices(t, s)), in, win
}

func move(x, y int32) *agentv1.ActRequest {
	return &agentv1.ActRequest{Owner: "o", Action: &agentv1.ActRequest_MouseMove{MouseMove: &agentv1.MouseMove{To: &agentv1.Point{X: x, Y: y}}}}
}

func TestActChecks(t *testing.T) {
	win := func(r *agentv1.ActRequest, id uint32) *agentv1.ActRequest { return onWindow(r, id) }
	gen := func(r *agentv1.ActRequest, g uint64) *agentv1.ActRequest {
		r.Target = &agentv1.Target{Generation: g}
		return r
	}
	typeReq := func(s string) *agentv1.ActRequest {
		r := typeText(s)
		r.Owner = "o"
		return r
	}
	tests := []struct {
		name    string
		req     *agentv1.ActRequest
		wantErr error
		calls   []string
		target  *agentv1.FrozenTarget
	}{
		{"current generation", gen(move(1, 1), 3), nil, []string{"move 1,1"},
			&agentv1.FrozenTarget{WindowId: 10, WindowTitle: "ten", Source: agentv1.TargetSource_TARGET_SOURCE_ACTIVE, Generation: 3}},
		{"old generation", gen(move(1, 1), 2), errdefs.ErrGenerationChanged, nil, nil},
		{"gone window", win(move(1, 1), 99), errdefs.ErrTargetGone, nil, nil},
		{"unmapped window", win(typeReq("x"), 30), errdefs.ErrTargetGone, nil, nil},
		{"pointer on another window", win(move(1, 1), 20), errdefs.ErrInvalidArgument, nil, nil},
		{"keyboard focuses first", win(typeReq("hi"), 20), nil, []string{"activate 20", "type hi"},
			&agentv1.FrozenTarget{WindowId: 20, WindowTitle: "twenty", Source: agentv1.TargetSource_TARGET_SOURCE_EXPLICIT, Generation: 3}},
		{"point outside the screen", move(1280, 0), errdefs.ErrInvalidArgument, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, in, _ := fakeServices(t)
			resp, err := client.Act(context.Background(), tt.req)
			if err := errgrpc.FromError(err); !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.calls, in.log()); diff != "" {
				t.Errorf("input calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.target, resp.GetTarget(), cmpProto); diff != "" {
				t.Errorf("frozen target (-want +got):\n%s", diff)
			}
		})
	}
}

func TestActNoBackends(t *testing.T) {
	client := agentv1.NewActServiceClient(dialServices(t, New(Options{}, Backends{})))
	_, err := client.Act(context.Background(), move(1, 1))
	if !errors.Is(errgrpc.FromError(err), errdefs.ErrCapabilityUnavailable) {
		t.Errorf("no input backend: %v, want CAPABILITY_UNAVAILABLE", err)
	}
	// An observation needs the screen backend: refused before anything is done.
	c, in, _ := fakeServices(t)
	r := move(5, 5)
	r.Observe = &agentv1.ObserveAfter{}
	_, err = c.Act(context.Background(), r)
	if !errors.Is(errgrpc.FromError(err), errdefs.ErrCapabilityUnavailable) || len(in.log()) != 0 {
		t.Errorf("observe without screen: %v, calls %v; want CAPABILITY_UNAVAILABLE and nothing done", err, in.log())
	}
}

func TestActRequestID(t *testing.T) {
	client, in, _ := fakeServices(t)
	r := move(7, 7)
	r.RequestId = "once"
	first, err := client.Act(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	again, err := client.Act(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again, cmpProto); diff != "" {
		t.Errorf("retry answered differently (-first +retry):\n%s", diff)
	}
	// The same owner and id with other content is refused, not answered with the first answer.
	changed := move(70, 70)
	changed.RequestId = "once"
	if _, err := client.Act(context.Background(), changed); !errors.Is(errgrpc.FromError(err), errdefs.ErrDuplicateRequest) {
		t.Errorf("same id, other content: %v, want DUPLICATE_REQUEST", err)
	}
	// Another owner's request with the same id is its own request.
	other := move(8, 8)
	other.Owner, other.RequestId = "p", "once"
	if _, err := client.Act(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"move 7,7", "move 8,8"}, in.log()); diff != "" {
		t.Errorf("input calls (-want +got):\n%s", diff)
	}

	// In flight: a second copy is refused, not queued behind the first.
	in.block = make(chan struct{})
	slow := move(9, 9)
	slow.RequestId = "slow"
	done := make(chan error, 1)
	go func() { _, err := client.Act(context.Background(), slow); done <- err }()
	for len(in.log()) < 3 {
		time.Sleep(time.Millisecond)
	}
	_, err = client.Act(context.Background(), slow)
	if !errors.Is(errgrpc.FromError(err), errdefs.ErrDuplicateRequest) {
		t.Errorf("copy in flight: %v, want DUPLICATE_REQUEST", err)
	}
	close(in.block)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestFIFO(t *testing.T) {
	var q fifo
	ctx := context.Background()
	if err := q.lock(ctx); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := q.lock(ctx); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			q.unlock()
		}()
		// Wait until goroutine i is queued, so arrival order is known.
		for {
			q.mu.Lock()
			n := len(q.waiters)
			q.mu.Unlock()
			if n == i+1 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	// A waiter that gives up leaves the queue.
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := q.lock(cctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("lock with expired ctx = %v", err)
	}
	q.unlock()
	wg.Wait()
	if diff := cmp.Diff([]int{0, 1, 2, 3, 4}, order); diff != "" {
		t.Errorf("grant order (-want +got):\n%s", diff)
	}
}

func TestRequestLogBounded(t *testing.T) {
	l := newRequestLog[*agentv1.ActResponse](3)
	for i := range 5 {
		k := fmt.Sprint(i)
		if _, _, done := l.begin(k, [32]byte{}); done {
			t.Fatalf("%s: done before it ran", k)
		}
		l.finish(k, &agentv1.ActResponse{}, nil, true)
	}
	if len(l.entries) != 3 {
		t.Errorf("remembers %d requests, want 3", len(l.entries))
	}
	if _, _, done := l.begin("0", [32]byte{}); done {
		t.Error("the oldest request is still remembered")
	}
	if _, _, done := l.begin("4", [32]byte{}); !done {
		t.Error("the newest request is forgotten")
	}
}
