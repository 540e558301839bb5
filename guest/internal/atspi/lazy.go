package atspi

// lazyRefs is how many nodes a lazy walk asks Collection for at a time: listing the whole tree costs an app
// like Chromium tens of milliseconds, a few dozen nodes next to nothing.
const lazyRefs = 64

// listMore lists at least k more nodes of a lazy walk (up to its limit) by asking Collection again for a
// longer list from the start, at least twice as long, so listing a whole tree this way costs at most about
// twice listing it once. (GetMatchesFrom would go on from the last node, but its in-order traversal misses what
// a GTK toolkit lists out of tree order, its popovers.) A tree that changed between two listings keeps the
// nodes listed before; the new list's nodes not yet seen follow them.
func (w *walker) listMore(k int) {
	count := min(w.limit-1, max(2*len(w.refs), len(w.refs)+k))
	if count <= len(w.refs) {
		w.refsDone = true
		return
	}
	root := w.nodes[0].ref
	var all []objRef
	err := w.b.call(w.p.ctx, root.Name, root.Path, "org.a11y.atspi.Collection.GetMatches",
		everything, sortCanonical, int32(count), true).Store(&all)
	if err != nil {
		w.refsDone = true
		w.failed(w.nodes[0], err)
		return
	}
	w.refsDone = len(all) < count
	listed := make(map[objRef]bool, len(w.refs))
	for _, r := range w.refs {
		listed[r] = true
	}
	for _, r := range all {
		if !listed[r] {
			w.refs = append(w.refs, r)
		}
	}
	if len(all) >= w.limit-1 {
		w.cutf("max_nodes %d reached", w.limit)
		w.refsDone = true
	}
}

// grow reads the facts of up to k more nodes of a lazy walk (their parents too, when the cache misses them, so
// linking never guesses from child counts a later node would contradict) and links them. It reports how many
// it added.
func (w *walker) grow(k int) int {
	if len(w.refs)-w.added < k && !w.refsDone {
		w.listMore(max(k, lazyRefs))
	}
	start := len(w.nodes)
	w.mu.Lock()
	end := min(w.added+k, len(w.refs))
	for ; w.added < end; w.added++ {
		before := len(w.nodes)
		w.add(w.refs[w.added], -2, 0)
		if len(w.nodes) > before {
			n := w.nodes[before]
			n.pos = w.added + 1
			if !n.cached {
				w.fetchParent(n)
			}
		}
	}
	w.mu.Unlock()
	w.p.wait()
	w.linkFrom(start)
	return len(w.nodes) - start
}
