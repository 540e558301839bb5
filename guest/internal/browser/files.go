package browser

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// jsFileInput refuses an element that is not an <input type=file>, or one that takes a single file when
// several are given (the page would silently get only the first).
const jsFileInput = `function(n) {
	if (!(this instanceof HTMLInputElement) || this.type !== 'file')
		return {err: 'notfield', detail: 'not an <input type=file>'};
	if (n > 1 && !this.multiple) return {err: 'notfield', detail: 'the file input takes one file, got ' + n};
	if (this.disabled) return {err: 'notfield', detail: 'the file input is disabled'};
	return null;
}`

// PlaceFiles gives saved files (absolute paths) to an element of the tab p names, never another: a real drag
// and drop at the element (DROP_EVENT: dragEnter, dragOver and drop carrying the files, as from a file manager)
// or the files set on an <input type=file> (FILE_INPUT: the page gets input and change events). Runs inside
// the agent's input queue.
func (b *Backend) PlaceFiles(ctx context.Context, p *agentv1.PageDrop, paths []string) error {
	t, err := b.resolveTab(ctx, p.GetTab())
	if err != nil {
		return err
	}
	t.nextGroup()
	switch p.GetMode() {
	case agentv1.PageDropMode_PAGE_DROP_MODE_FILE_INPUT:
		loc, err := t.element(ctx, p.GetLocator(), "page.locator")
		if err != nil {
			return err
		}
		if err := t.call(ctx, loc, jsFileInput, "page.locator", nil, len(paths)); err != nil {
			return err
		}
		_, err = cdp.Call(ctx, loc.s, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: paths, ObjectID: loc.obj})
		return err
	case agentv1.PageDropMode_PAGE_DROP_MODE_DROP_EVENT:
		loc, err := t.locate(ctx, p.GetLocator(), "page.locator")
		if err != nil {
			return err
		}
		x, y, err := t.point(ctx, loc, "page.locator", true)
		if err != nil {
			return err
		}
		data := &input.DragData{Items: []*input.DragDataItem{}, Files: paths, DragOperationsMask: 1} // copy
		for _, typ := range []input.DispatchDragEventType{input.DispatchDragEventTypeDragEnter,
			input.DispatchDragEventTypeDragOver, input.DispatchDragEventTypeDrop} {
			if _, err := cdp.Call(ctx, t.s, input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: x, Y: y, Data: data}); err != nil {
				return fmt.Errorf("drag event %s: %w", typ, err)
			}
		}
		return nil
	}
	return fmt.Errorf("page.mode %s: %w", p.GetMode(), errdefs.ErrInvalidArgument)
}

// allowDownloads makes the browser save every download into dir under the name the page or server gave
// (Chromium adds " (1)" to a name taken), so ListDownloads finds them.
func (c *chrome) allowDownloads(ctx context.Context, dir string) error {
	_, err := cdp.Call(ctx, c.root(), browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir})
	if err != nil {
		return fmt.Errorf("browser %s: download directory: %w", c.id(), err)
	}
	return nil
}
