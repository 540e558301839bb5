package server

import (
	"context"
	"fmt"
	"time"

	agentv1 "glovebox.dev/proto/glovebox/agent/v1"
	"glovebox.dev/shared/errdefs"
)

// dispatch sends the action to the input backend and fills the action's own results into resp.
func (a *actService) dispatch(ctx context.Context, r *agentv1.ActRequest, p *plan, resp *agentv1.ActResponse) error {
	switch p.kind {
	case kindElement:
		return p.be.Accessibility.Act(ctx, r, resp)
	case kindPage:
		return p.be.Browser.Act(ctx, r, resp)
	}
	in := p.be.Input
	owner := r.GetOwner()
	ms := func(n int32) time.Duration { return time.Duration(n) * time.Millisecond }
	switch act := r.GetAction().(type) {
	case *agentv1.ActRequest_MouseMove:
		return in.Move(ctx, act.MouseMove.GetTo())
	case *agentv1.ActRequest_Click:
		c := act.Click
		return in.Click(ctx, c.GetAt(), c.GetButton(), int(c.GetCount()), p.mods)
	case *agentv1.ActRequest_MouseDown:
		return in.MouseDown(ctx, owner, act.MouseDown.GetAt(), act.MouseDown.GetButton())
	case *agentv1.ActRequest_MouseUp:
		return in.MouseUp(ctx, owner, act.MouseUp.GetAt(), act.MouseUp.GetButton())
	case *agentv1.ActRequest_Drag:
		d := act.Drag
		return in.Drag(ctx, d.GetPath(), d.GetButton(), ms(d.GetStepDelayMs()), p.mods)
	case *agentv1.ActRequest_Scroll:
		s := act.Scroll
		return in.Scroll(ctx, s.GetAt(), int(s.GetDx()), int(s.GetDy()), p.mods)
	case *agentv1.ActRequest_Key:
		return in.Key(ctx, p.combo, int(act.Key.GetRepeat()))
	case *agentv1.ActRequest_KeyDown:
		return in.KeyDown(ctx, owner, p.combo)
	case *agentv1.ActRequest_KeyUp:
		return in.KeyUp(ctx, owner, p.combo)
	case *agentv1.ActRequest_HoldKey:
		return in.HoldKey(ctx, p.combo, ms(act.HoldKey.GetDurationMs()))
	case *agentv1.ActRequest_Type:
		typed, remapped, err := in.Type(ctx, act.Type.GetText(), ms(act.Type.GetDelayMs()))
		resp.CharactersTyped, resp.CharactersRemapped = int32(typed), int32(remapped)
		return err
	case *agentv1.ActRequest_Wait:
		t := time.NewTimer(ms(act.Wait.GetDurationMs()))
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("wait: %w: %w", errdefs.ErrInterrupted, ctx.Err())
		}
	case *agentv1.ActRequest_ReleaseAll:
		var err error
		if act.ReleaseAll.GetEverything() {
			resp.Released, err = in.ReleaseEverything(ctx)
		} else {
			resp.Released, err = in.ReleaseAll(ctx, owner)
		}
		if br := p.be.Browser; br != nil {
			// Page keys the owner holds (page_key_down) are released too: release_all ends a session's input.
			for _, k := range br.ReleaseOwner(ctx, owner) {
				resp.Released = append(resp.Released, &agentv1.HeldInput{Key: k})
			}
		}
		return err
	}
	return fmt.Errorf("action %T: %w", r.GetAction(), errdefs.ErrUnsupportedAction)
}
