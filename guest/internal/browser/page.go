package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// pageError is what a page function returns instead of a result when it cannot act: err is a code, detail our
// own text for the message, untrusted what the page said (a covering element's tag, id and class), which goes
// into ErrorInfo metadata marked untrusted and never into the message.
type pageError struct {
	Err       string            `json:"err"`
	Detail    string            `json:"detail"`
	Untrusted map[string]string `json:"untrusted"`
}

// classes maps page function error codes to error classes.
var classes = map[string]error{
	"gone":      errdefs.ErrStaleRef,
	"hidden":    errdefs.ErrNotFound,
	"covered":   errdefs.ErrTargetCovered,
	"notfield":  errdefs.ErrUnsupportedAction,
	"nooption":  errdefs.ErrNotFound,
	"nomatch":   errdefs.ErrNotFound,
	"ambiguous": errdefs.ErrTargetAmbiguous,
	"none":      errdefs.ErrNotFound,
	"many":      errdefs.ErrTargetAmbiguous,
	"selector":  errdefs.ErrInvalidArgument,
	"nofocus":   errdefs.ErrNotFound,
}

func (e *pageError) error(what string) error {
	class, ok := classes[e.Err]
	if !ok {
		class = errdefs.ErrInternal
	}
	md := map[string]string{}
	for k, v := range e.Untrusted {
		if len(md) < 8 && len(k) <= 32 {
			md[errgrpc.Untrusted(k)] = errgrpc.UntrustedValue(v)
		}
	}
	if e.Err == "gone" {
		md[errgrpc.MetaCause] = errgrpc.CauseGone
	}
	err := fmt.Errorf("%s: %s: %w", what, e.Detail, class)
	if len(md) == 0 {
		return err
	}
	return errgrpc.WithMetadata(err, md)
}

// located is an element found by a locator, or a bare point.
type located struct {
	obj runtime.RemoteObjectID
	// s is the session holding obj: the tab's, or for an element of an out-of-process iframe that frame's.
	s session
	// at is where a ref's element is kept (its frame); nil for a selector or a point, which name the top
	// document.
	at *refLoc
	// point is set for a point locator (and after pointAt for an element).
	x, y    float64
	isPoint bool
	ref     string
	snap    string
}

// locate finds the element of a locator on this tab: a ref of this tab's newest snapshot (still in the
// document), a selector matching exactly one element, or the element at a point.
func (t *tab) locate(ctx context.Context, l *agentv1.Locator, what string) (*located, error) {
	switch k := l.GetKind().(type) {
	case *agentv1.Locator_Ref:
		at, err := t.node(k.Ref)
		if err != nil {
			return nil, err
		}
		obj, err := t.resolveCached(ctx, k.Ref.GetSnapshotId(), at)
		if err != nil {
			return nil, fmt.Errorf("%s: ref %s: %w", what, k.Ref.GetRef(), err)
		}
		return &located{obj: obj, s: at.f.scope.s, at: &at, ref: k.Ref.GetRef(), snap: k.Ref.GetSnapshotId()}, nil
	case *agentv1.Locator_Selector:
		res, err := cdp.Call(ctx, t.s, runtime.Evaluate, runtime.EvaluateParams{
			Expression:  "(" + jsQuery + ")(" + jsonString(k.Selector) + ")",
			ObjectGroup: t.group,
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if res.ExceptionDetails != nil {
			return nil, fmt.Errorf("%s: selector: %s: %w", what, res.ExceptionDetails.Text, errdefs.ErrInvalidArgument)
		}
		if res.Result.Type != "object" || res.Result.ObjectID == "" {
			var pe pageError
			jsonv2.Unmarshal(res.Result.Value, &pe.Detail)
			pe.Err, pe.Detail, _ = strings.Cut(pe.Detail, ":")
			return nil, pe.error(what + ": selector")
		}
		return &located{obj: res.Result.ObjectID, s: t.s}, nil
	case *agentv1.Locator_Point:
		return &located{x: float64(k.Point.GetX()), y: float64(k.Point.GetY()), isPoint: true, s: t.s}, nil
	}
	return nil, fmt.Errorf("%s: no locator: %w", what, errdefs.ErrInvalidArgument)
}

// element is like locate, but a point stands for the element at that point (DOM.getNodeForLocation).
func (t *tab) element(ctx context.Context, l *agentv1.Locator, what string) (*located, error) {
	loc, err := t.locate(ctx, l, what)
	if err != nil || !loc.isPoint {
		return loc, err
	}
	hit, err := cdp.Call(ctx, t.s, dom.GetNodeForLocation, dom.GetNodeForLocationParams{X: int64(loc.x), Y: int64(loc.y), IgnorePointerEventsNone: ptr(true)})
	if err != nil {
		return nil, fmt.Errorf("%s: no element at (%g,%g): %w", what, loc.x, loc.y, errdefs.ErrNotFound)
	}
	obj, err := t.resolve(ctx, hit.BackendNodeID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return &located{obj: obj, s: t.s}, nil
}

// locateCall locates an element and runs fn, a page function of no arguments, on it; fn's {err, detail} fails
// the call, any other result is dropped. An element a locator names without a page object yet (a ref not
// resolved since its snapshot, a selector) is found and called in one round trip, not two.
func (t *tab) locateCall(ctx context.Context, l *agentv1.Locator, what, fn string) (*located, error) {
	var find string
	var ref *agentv1.ElementRef
	var at refLoc
	sc := frameScope{s: t.s}
	switch k := l.GetKind().(type) {
	case *agentv1.Locator_Ref:
		var err error
		if at, err = t.node(k.Ref); err != nil {
			return nil, err
		}
		sc = at.f.scope
		if o, ok := t.cached(at); ok {
			loc := &located{obj: o, s: sc.s, at: &at, ref: k.Ref.GetRef(), snap: k.Ref.GetSnapshotId()}
			return loc, t.call(ctx, loc, fn, what, nil)
		}
		ref = k.Ref
		find = "(" + jsRef + ")(" + jsonString(ref.GetSnapshotId()) + "," + strconv.Itoa(at.i) + ")"
	case *agentv1.Locator_Selector:
		find = "(" + jsQuery + ")(" + jsonString(k.Selector) + ")"
	default:
		loc, err := t.element(ctx, l, what)
		if err != nil {
			return nil, err
		}
		return loc, t.call(ctx, loc, fn, what, nil)
	}
	// The element itself is the result (a page object); a failure is a string "code:detail".
	expr := "(function(el) { if (el === null) return 'unheld:'; if (typeof el === 'string') return el; const r = (" + fn +
		").call(el); return r && r.err ? r.err + ':' + r.detail : el; })(" + find + ")"
	res, err := cdp.Call(ctx, sc.s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ObjectGroup: t.group, ContextID: sc.ctx})
	if err != nil {
		if ref != nil && frameLost(err) {
			return nil, fmt.Errorf("%s: ref %s: its frame is gone (navigated or removed): take a snapshot: %w", what, ref.GetRef(), errdefs.ErrStaleRef)
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if res.ExceptionDetails != nil {
		// jsQuery answers a bad selector itself: an exception is the page function's.
		return nil, errgrpc.WithMetadata(fmt.Errorf("%s: page script failed: %w", what, errdefs.ErrInternal),
			map[string]string{errgrpc.Untrusted("detail"): errgrpc.UntrustedValue(res.ExceptionDetails.Text)})
	}
	if res.Result != nil && res.Result.Type == "object" && res.Result.ObjectID != "" {
		if ref == nil {
			return &located{obj: res.Result.ObjectID, s: t.s}, nil
		}
		t.keep(at, res.Result.ObjectID)
		return &located{obj: res.Result.ObjectID, s: sc.s, at: &at, ref: ref.GetRef(), snap: ref.GetSnapshotId()}, nil
	}
	var pe pageError
	if res.Result != nil {
		jsonv2.Unmarshal(res.Result.Value, &pe.Detail)
	}
	pe.Err, pe.Detail, _ = strings.Cut(pe.Detail, ":")
	if pe.Err == "unheld" {
		return nil, errgrpc.WithCause(fmt.Errorf("%s: ref %s: the page no longer holds snapshot %s (a new document): take a snapshot: %w",
			what, ref.GetRef(), ref.GetSnapshotId(), errdefs.ErrStaleRef), errgrpc.CauseNavigated)
	}
	if pe.Err == "none" || pe.Err == "many" || pe.Err == "selector" {
		return nil, pe.error(what + ": selector")
	}
	return nil, pe.error(what)
}

// resolve turns a backend node id into a page object; a node the page no longer has is a stale ref.
func (t *tab) resolve(ctx context.Context, id cdp.BackendNodeID) (runtime.RemoteObjectID, error) {
	res, err := cdp.Call(ctx, t.s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id, ObjectGroup: t.group})
	if err != nil {
		var ce *cdpError
		if errors.As(err, &ce) {
			return "", fmt.Errorf("element no longer in the page: take a snapshot: %w", errdefs.ErrStaleRef)
		}
		return "", err
	}
	if res.Object == nil || res.Object.ObjectID == "" {
		return "", fmt.Errorf("element no longer in the page: %w", errdefs.ErrStaleRef)
	}
	return res.Object.ObjectID, nil
}

// resolveCached resolves the element of snapshot key kept at at (see jsSnapshot), reusing the page object an
// earlier action of the same snapshot resolved while its object group lives (the page functions check that the
// element is still connected).
func (t *tab) resolveCached(ctx context.Context, key string, at refLoc) (runtime.RemoteObjectID, error) {
	if o, ok := t.cached(at); ok {
		return o, nil
	}
	res, err := cdp.Call(ctx, at.f.scope.s, runtime.Evaluate, runtime.EvaluateParams{
		Expression: "(" + jsRef + ")(" + jsonString(key) + "," + strconv.Itoa(at.i) + ")", ObjectGroup: t.group, ContextID: at.f.scope.ctx})
	if err != nil {
		if frameLost(err) || at.f.scope.s.id != t.s.id && errors.Is(err, errTabDown) {
			return "", fmt.Errorf("its frame is gone (navigated or removed): take a snapshot: %w", errdefs.ErrStaleRef)
		}
		return "", err
	}
	if res.ExceptionDetails != nil || res.Result == nil || res.Result.ObjectID == "" {
		return "", fmt.Errorf("the page no longer holds snapshot %s (a new document): take a snapshot: %w", key, errdefs.ErrStaleRef)
	}
	t.keep(at, res.Result.ObjectID)
	return res.Result.ObjectID, nil
}

// frameLost reports whether a call failed because the frame it ran in is gone: its execution context was
// destroyed (the frame navigated or was removed) or its OOPIF session detached. (An OOPIF whose renderer crashed
// fails its calls with errTabDown.)
func frameLost(err error) bool {
	var ce *cdpError
	return errors.As(err, &ce) && (strings.Contains(ce.err.Message, "Cannot find context") ||
		strings.Contains(ce.err.Message, "Session with given id not found"))
}

// cached is the page object of an element of the newest snapshot while its object group lives.
func (t *tab) cached(at refLoc) (runtime.RemoteObjectID, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	o, ok := t.objects[at]
	if !ok || (o.group != t.group && o.group != t.prevGroup) {
		return "", false
	}
	return o.id, true
}

// keep remembers the page object of an element of the newest snapshot, held by the current object group.
func (t *tab) keep(at refLoc, id runtime.RemoteObjectID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.objects == nil {
		t.objects = map[refLoc]pageObject{}
	}
	t.objects[at] = pageObject{id, t.group}
}

// pageObject is a resolved element and the object group holding it.
type pageObject struct {
	id    runtime.RemoteObjectID
	group string
}

// call runs a page function on a located element with JSON arguments and decodes its JSON result into out; a
// result with "err" set fails with its class.
func (t *tab) call(ctx context.Context, loc *located, fn, what string, out any, args ...any) error {
	params := t.callParams(loc.obj, fn, args)
	res, err := cdp.Call(ctx, loc.s, runtime.CallFunctionOn, params)
	if err != nil {
		var ce *cdpError
		if errors.As(err, &ce) && strings.Contains(ce.err.Message, "Could not find object") || frameLost(err) {
			return fmt.Errorf("%s: element no longer in the page: %w", what, errdefs.ErrStaleRef)
		}
		if loc.s.id != t.s.id && errors.Is(err, errTabDown) && t.alive() && !t.isDown() {
			// An out-of-process frame's session ended (its iframe removed, or its renderer crashed), not the tab.
			return errgrpc.WithCause(fmt.Errorf("%s: its frame is gone (removed or crashed): take a snapshot: %w", what, errdefs.ErrStaleRef), errgrpc.CauseGone)
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	return decodeResult(res.Result, res.ExceptionDetails, what, out)
}

// callParams builds the Runtime.callFunctionOn of a page function. The arguments travel as one JSON array:
// cdproto drops a CallArgument whose value is an empty JSON string.
func (t *tab) callParams(obj runtime.RemoteObjectID, fn string, args []any) runtime.CallFunctionOnParams {
	if args == nil {
		args = []any{}
	}
	b, err := jsonv2.Marshal(args, chromedp.DefaultMarshalOptions)
	if err != nil {
		b = []byte("[]")
	}
	return runtime.CallFunctionOnParams{
		FunctionDeclaration: "function(args) { return (" + fn + ").apply(this, args); }",
		ObjectID:            obj, ReturnByValue: ptr(true), Arguments: []*runtime.CallArgument{{Value: b}},
	}
}

// eval runs a page function in the top document's main world with JSON arguments (no element).
func (t *tab) eval(ctx context.Context, fn, what string, out any, args ...any) error {
	return t.evalIn(ctx, frameScope{s: t.s}, fn, what, out, args...)
}

// evalIn is eval in a frame's main world.
func (t *tab) evalIn(ctx context.Context, sc frameScope, fn, what string, out any, args ...any) error {
	var expr strings.Builder
	expr.WriteString("(" + fn + ")(")
	for i, a := range args {
		b, err := jsonv2.Marshal(a, chromedp.DefaultMarshalOptions)
		if err != nil {
			return fmt.Errorf("%s: %w: %w", what, errdefs.ErrInternal, err)
		}
		if i > 0 {
			expr.WriteString(",")
		}
		expr.Write(b)
	}
	expr.WriteString(")")
	res, err := cdp.Call(ctx, sc.s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr.String(), ReturnByValue: ptr(true), ContextID: sc.ctx})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return decodeResult(res.Result, res.ExceptionDetails, what, out)
}

func decodeResult(r *runtime.RemoteObject, exc *runtime.ExceptionDetails, what string, out any) error {
	if exc != nil {
		return errgrpc.WithMetadata(fmt.Errorf("%s: page script failed: %w", what, errdefs.ErrInternal),
			map[string]string{errgrpc.Untrusted("detail"): errgrpc.UntrustedValue(exc.Text)})
	}
	if r == nil || len(r.Value) == 0 {
		return nil
	}
	// encoding/json matches the page's lower-case keys to the Go fields.
	var pe pageError
	if json.Unmarshal(r.Value, &pe) == nil && pe.Err != "" {
		return pe.error(what)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(r.Value, out); err != nil {
		return fmt.Errorf("%s: decode page result: %w: %w", what, errdefs.ErrInternal, err)
	}
	return nil
}

// groupActions is how many actions share an object group. The group before the current one is released when a
// new one starts, so the page holds the objects of at most 2*groupActions actions, and no action waits for a
// release or loses its objects to one.
const groupActions = 32

// nextGroup picks the object group of the next action on the tab (actions on a tab are serialized by the
// agent's mutation queue).
func (t *tab) nextGroup() {
	t.actions++
	if t.group != "" && t.actions%groupActions != 0 {
		return
	}
	old := t.prevGroup
	t.prevGroup, t.group = t.group, fmt.Sprintf("glovebox-%d", t.actions/groupActions)
	if old != "" {
		for _, s := range t.hostSessions() {
			go s.Call(context.Background(), "Runtime.releaseObjectGroup", runtime.ReleaseObjectGroupParams{ObjectGroup: old}, nil)
		}
	}
}

// point scrolls the element into view and returns its center in the top viewport; with check, a point where
// another element is on top is refused, naming that element. An element of a frame is scrolled into view in its
// frame, then each iframe on the way up into view in its parent (frameOffset).
func (t *tab) point(ctx context.Context, loc *located, what string, check bool) (float64, float64, error) {
	if loc.isPoint {
		return loc.x, loc.y, nil
	}
	var p framedPoint
	if err := t.call(ctx, loc, jsPoint, what, &p, check); err != nil {
		return 0, 0, err
	}
	if loc.at != nil {
		return t.framePoint(ctx, loc.snap, loc.at.f, p, what, check)
	}
	return p.X, p.Y, nil
}

func jsonString(s string) string {
	b, _ := jsonv2.Marshal(s)
	return string(b)
}

func ptr[T any](v T) *T { return &v }
