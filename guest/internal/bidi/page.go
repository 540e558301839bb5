package bidi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"glovebox.dev/guest/internal/browser"
	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
	"glovebox.dev/shared/errgrpc"
)

// sandbox is the realm our page functions run in: it sees the page's DOM but not the page's scripts' globals, so
// a page cannot replace the functions we call or read what they keep (the snapshot's elements).
const sandbox = "glovebox"

// scriptTarget is a BiDi script.Target of a browsing context (optionally in a sandbox).
type scriptTarget struct {
	Context string `json:"context"`
	Sandbox string `json:"sandbox,omitempty"`
}

// localValue is the one BiDi LocalValue we send: a string (our arguments travel as one JSON string).
type localValue struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type callFunctionParams struct {
	FunctionDeclaration string       `json:"functionDeclaration"`
	AwaitPromise        bool         `json:"awaitPromise"`
	Target              scriptTarget `json:"target"`
	Arguments           []localValue `json:"arguments,omitempty"`
	ResultOwnership     string       `json:"resultOwnership,omitempty"`
}

// evaluateResult is script.callFunction's and script.evaluate's answer.
type evaluateResult struct {
	Type   string `json:"type"`
	Result struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	} `json:"result"`
	ExceptionDetails *struct {
		Text string `json:"text"`
	} `json:"exceptionDetails"`
}

// pageAnswer is the part of a page function's answer that says it could not act.
type pageAnswer struct {
	Err    string `json:"err"`
	Detail string `json:"detail"`
	// Untrusted is what the page said (a covering element's tag, id and class): metadata, never the message.
	Untrusted map[string]string `json:"untrusted"`
	// Sel says the selector of the locator failed (none, several, invalid).
	Sel bool `json:"sel"`
}

// callIn runs fn, a function of one string argument that answers a JSON string (or nothing), in our sandbox of
// browsing context ctxID, and decodes its answer into out (nil: dropped). An answer {err, detail} fails with its
// class (browser.PageFailure).
func callIn(ctx context.Context, c *conn, ctxID, fn, arg string, out any) error {
	return callRealm(ctx, c, scriptTarget{Context: ctxID, Sandbox: sandbox}, fn, arg, "page function", out)
}

func callRealm(ctx context.Context, c *conn, target scriptTarget, fn, arg, what string, out any) error {
	var res evaluateResult
	err := c.call(ctx, "script.callFunction", callFunctionParams{
		FunctionDeclaration: fn, Target: target, Arguments: []localValue{{Type: "string", Value: arg}}, ResultOwnership: "none",
	}, &res)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return decodeAnswer(&res, what, out)
}

// evaluateIn is callRealm for an expression (script.evaluate) whose value is the JSON string answer.
func evaluateIn(ctx context.Context, c *conn, target scriptTarget, expr, what string, out any) error {
	var res evaluateResult
	err := c.call(ctx, "script.evaluate", evaluateParams{Expression: expr, Target: target, ResultOwnership: "none"}, &res)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return decodeAnswer(&res, what, out)
}

type evaluateParams struct {
	Expression      string       `json:"expression"`
	AwaitPromise    bool         `json:"awaitPromise"`
	Target          scriptTarget `json:"target"`
	ResultOwnership string       `json:"resultOwnership,omitempty"`
}

// decodeAnswer decodes a page function's answer: a JSON string, {err, detail, untrusted} when it could not act.
func decodeAnswer(res *evaluateResult, what string, out any) error {
	if res.Type == "exception" {
		text := ""
		if res.ExceptionDetails != nil {
			text = res.ExceptionDetails.Text
		}
		// The exception's text may be the page's words: metadata marked untrusted, never the message.
		return errgrpc.WithMetadata(fmt.Errorf("%s: page script failed: %w", what, errdefs.ErrInternal),
			map[string]string{errgrpc.Untrusted("detail"): errgrpc.UntrustedValue(text)})
	}
	if res.Result.Type != "string" {
		return nil
	}
	var answer string
	if err := json.Unmarshal(res.Result.Value, &answer); err != nil {
		return fmt.Errorf("%s: decode page answer: %w: %w", what, errdefs.ErrInternal, err)
	}
	var pa pageAnswer
	if json.Unmarshal([]byte(answer), &pa) == nil && pa.Err != "" {
		if pa.Err == "unheld" {
			return errUnheld
		}
		if pa.Sel {
			what += ": selector"
		}
		return browser.PageFailure(what, pa.Err, pa.Detail, pa.Untrusted)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal([]byte(answer), out); err != nil {
		return fmt.Errorf("%s: decode page answer: %w: %w", what, errdefs.ErrInternal, err)
	}
	return nil
}

// locSpec is a locator as the page wrapper takes it: a ref (the snapshot key and element index), a selector, or a
// point (the element there).
type locSpec struct {
	Ref *refSpec  `json:"ref,omitempty"`
	Sel *string   `json:"sel,omitempty"`
	Pt  []float64 `json:"pt,omitempty"`
}

type refSpec struct {
	Key string `json:"key"`
	I   int    `json:"i"`
}

// located is what a locator resolved to before the page was asked: the spec for the page, and the ref and
// snapshot a frozen target names.
type located struct {
	spec      *locSpec
	ref, snap string
	// x, y are a point locator's point.
	x, y    float64
	isPoint bool
	// frame is the frame of a ref's element (its page functions run in its browsing context); nil: the tab's
	// document.
	frame *ffFrame
}

// locate turns a locator into what the page wrapper finds: a ref of this tab's newest snapshot (still held by the
// page, checked when the page runs), a selector, or a point.
func (t *tab) locate(l *agentv1.Locator) (*located, error) {
	switch k := l.GetKind().(type) {
	case *agentv1.Locator_Ref:
		at, err := t.node(k.Ref)
		if err != nil {
			return nil, err
		}
		return &located{spec: &locSpec{Ref: &refSpec{Key: k.Ref.GetSnapshotId(), I: at.i}}, ref: k.Ref.GetRef(), snap: k.Ref.GetSnapshotId(), frame: at.f}, nil
	case *agentv1.Locator_Selector:
		s := k.Selector
		return &located{spec: &locSpec{Sel: &s}}, nil
	case *agentv1.Locator_Point:
		x, y := float64(k.Point.GetX()), float64(k.Point.GetY())
		return &located{spec: &locSpec{Pt: []float64{x, y}}, x: x, y: y, isPoint: true}, nil
	}
	return nil, fmt.Errorf("no locator: %w", errdefs.ErrInvalidArgument)
}

// jsWrap makes the page wrapper of page function fn: it finds the locator's element (none: this is the window),
// applies fn to it with the arguments, and answers fn's result as JSON; one round trip locates and acts. In our
// sandbox (inSandbox), a ref's element is read from the page realm's store (the snapshot runs there, see snap) and
// seen again through the sandbox's Xray (XPCNativeWrapper), and instanceof is answered by jsFastInstanceof.
func jsWrap(fn string, inSandbox bool) string {
	ref, fast := "("+browser.Scripts.Ref+")(a.loc.ref.key, a.loc.ref.i)", ""
	if inSandbox {
		ref = `(() => { const h = document.wrappedJSObject[Symbol.for('glovebox.refs')];
      const e = h && h.key === a.loc.ref.key && h.els[a.loc.ref.i]; return e ? XPCNativeWrapper(e) : null; })()`
		fast = jsFastInstanceof
	}
	return `function(j) {
` + fast + `
  const a = JSON.parse(j);
  let el = window;
  if (a.loc && a.loc.ref) {
    el = ` + ref + `;
    if (!el) return JSON.stringify({err: 'unheld', detail: ''});
  } else if (a.loc && a.loc.sel !== undefined) {
    const r = (` + browser.Scripts.Query + `)(a.loc.sel);
    if (typeof r === 'string') { const i = r.indexOf(':'); return JSON.stringify({err: r.slice(0, i), detail: r.slice(i + 1), sel: true}); }
    el = r;
  } else if (a.loc && a.loc.pt) {
    el = document.elementFromPoint(a.loc.pt[0], a.loc.pt[1]);
    if (!el) return JSON.stringify({err: 'none', detail: 'no element at that point'});
  }
  const r = (` + fn + `).apply(el, a.args);
  return r === undefined ? 'null' : JSON.stringify(r);
}`
}

// jsFastInstanceof shadows, for the page functions inlined after it, the element classes they test with instanceof:
// in a sandbox every instanceof of a page element goes through Firefox's Xray wrappers and costs about 10 µs,
// most of a snapshot's time (~230 of ~250 ms on the benchmark page). The stand-ins answer by local name and
// namespace, which is what those classes are, and keep the real prototype (jsSetValue takes the native setters
// from it).
const jsFastInstanceof = `  const gbClass = (name, tag) => ({prototype: window[name].prototype,
    [Symbol.hasInstance]: x => x != null && x.localName === tag && x.namespaceURI === 'http://www.w3.org/1999/xhtml'});
  const HTMLInputElement = gbClass('HTMLInputElement', 'input'), HTMLTextAreaElement = gbClass('HTMLTextAreaElement', 'textarea'),
    HTMLSelectElement = gbClass('HTMLSelectElement', 'select'), HTMLOptionElement = gbClass('HTMLOptionElement', 'option'),
    HTMLProgressElement = gbClass('HTMLProgressElement', 'progress'), HTMLMeterElement = gbClass('HTMLMeterElement', 'meter'),
    HTMLDetailsElement = gbClass('HTMLDetailsElement', 'details');`

// call runs page function fn in our sandbox on the element loc names (nil: no element, this is the window) with
// JSON arguments, and decodes its result into out.
func (t *tab) call(ctx context.Context, loc *located, fn, what string, out any, args ...any) error {
	return t.callRealm(ctx, true, loc, fn, what, out, args...)
}

// callRealm is call in our sandbox or (inSandbox false) in the page's own realm.
func (t *tab) callRealm(ctx context.Context, inSandbox bool, loc *located, fn, what string, out any, args ...any) error {
	if args == nil {
		args = []any{}
	}
	in := struct {
		Loc  *locSpec `json:"loc,omitempty"`
		Args []any    `json:"args"`
	}{Args: args}
	if loc != nil {
		in.Loc = loc.spec
	}
	arg, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", what, errdefs.ErrInternal, err)
	}
	target := scriptTarget{Context: t.id}
	if loc != nil && loc.frame != nil {
		target.Context = loc.frame.ctx
	}
	if inSandbox {
		target.Sandbox = sandbox
	}
	err = callRealm(ctx, t.f.conn, target, jsWrap(fn, inSandbox), string(arg), what, out)
	if errors.Is(err, errUnheld) && loc != nil {
		return errgrpc.WithCause(fmt.Errorf("%s: ref %s: the page no longer holds snapshot %s (a new document): take a snapshot: %w",
			what, loc.ref, loc.snap, errdefs.ErrStaleRef), errgrpc.CauseNavigated)
	}
	if loc != nil && loc.frame != nil && loc.frame.owner != nil && errors.Is(err, errdefs.ErrTargetGone) && t.alive() {
		// The ref's frame is gone (its iframe removed), not the tab.
		return errgrpc.WithCause(fmt.Errorf("%s: ref %s: its frame is gone (removed): take a snapshot: %w", what, loc.ref, errdefs.ErrStaleRef), errgrpc.CauseGone)
	}
	return t.closedErr(err, what)
}

// errUnheld is the wrapper's answer when the page holds no snapshot of the ref's key (a new document).
var errUnheld = fmt.Errorf("the page holds no such snapshot: %w", errdefs.ErrStaleRef)

// crashSettle bounds how long an error on a tab waits for Firefox to tell that the tab's content process ended: a
// call sent as the process died can fail (unsupported operation) just before the crashed-tab page commits.
const crashSettle = time.Second

// closedErr turns an error on a tab whose context is destroyed, or whose content process is gone, into
// TARGET_GONE with its cause (closed, crashed).
func (t *tab) closedErr(err error, what string) error {
	if err == nil {
		return nil
	}
	var settle <-chan time.Time
	var be *bidiError
	if errors.As(err, &be) && be.code == "unsupported operation" {
		settle = time.After(crashSettle)
	}
	for {
		select {
		case <-t.closed:
			return t.goneErr(what)
		case <-t.down():
			return t.crashedErr(what)
		default:
		}
		if settle == nil {
			return err
		}
		select {
		case <-t.closed:
		case <-t.down():
		case <-settle:
			settle = nil
		}
	}
}
