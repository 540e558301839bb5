package atspi

import (
	"sync"
)

// Interfaces by Collection match. Chromium's cache misses most page nodes (a page of 1,400 DOM elements: 2,441
// of 2,677), and each missed node cost a GetInterfaces call. Five GetMatches calls, one per interface the walk
// cares about, tell the same for every node at once: an app walks its tree for each (a few milliseconds) instead
// of answering thousands of calls. Component, Text and Action, which most nodes implement, are asked the other
// way round (MATCH_NONE: the nodes without them) so every answer stays short.

// minIfaceMatch is the number of missed nodes from which matching pays for its five calls' round trip.
const minIfaceMatch = 64

// Collection match types.
const (
	matchAll  = int32(1)
	matchNone = int32(3)
)

// ifaceQueries are the interfaces asked for, by the name at-spi2-atk's Collection knows (case-insensitive).
var ifaceQueries = []struct {
	name  string
	bit   ifaces
	match int32
}{
	{"component", hasComponent, matchNone},
	{"text", hasText, matchNone},
	{"action", hasAction, matchNone},
	{"editabletext", hasEditable, matchAll},
	{"value", hasValue, matchAll},
}

// ifacesByMatch returns the interfaces of refs (root's descendants as one GetMatches listed them), or nil when
// the app's answers cannot be trusted: a call failed, or the answer disagrees with the cache on a node both
// know (a Collection that ignores interface names, or a bridge that counts only actions it has).
func (w *walker) ifacesByMatch(root objRef, refs []objRef) map[objRef]ifaces {
	results := make([][]objRef, len(ifaceQueries))
	errs := make([]error, len(ifaceQueries))
	var wg sync.WaitGroup
	for i, q := range ifaceQueries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rule := matchRule{StateMatch: 1, AttrMatch: 1, RoleMatch: 1, Attrs: map[string]string{}, Ifaces: []string{q.name}, IfaceMatch: q.match}
			errs[i] = w.b.call(w.p.ctx, root.Name, root.Path, "org.a11y.atspi.Collection.GetMatches",
				rule, sortCanonical, int32(w.limit), true).Store(&results[i])
		}()
	}
	wg.Wait()
	m := make(map[objRef]ifaces, len(refs))
	for _, r := range refs {
		m[r] = hasComponent | hasText | hasAction
	}
	for i, q := range ifaceQueries {
		if errs[i] != nil || len(results[i]) >= w.limit {
			return nil // a cut list would leave nodes with interfaces they lack
		}
		for _, r := range results[i] {
			s, ok := m[r]
			if !ok {
				continue // not listed a moment ago: read its interfaces itself
			}
			if q.match == matchNone {
				m[r] = s &^ q.bit
			} else {
				m[r] = s | q.bit
			}
		}
	}
	const asked = hasComponent | hasText | hasAction | hasEditable | hasValue
	checked := 0
	for _, r := range refs {
		it, ok := w.cache[r]
		if !ok {
			continue
		}
		checked++
		if m[r] != ifaceSet(it.Ifaces)&asked {
			return nil
		}
	}
	if checked == 0 {
		return nil
	}
	return m
}
