package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"glovebox.dev/host/internal/mcp"
)

const usageMCP = `  mcp -guest NAME [-model WxH] [-observe-ms N] [-watch-ms N] [-jpeg] [-label TEXT]
                  serve the Model Context Protocol on stdin/stdout for one broker session on the guest (created
                  now, deleted at exit); -model is the display the model sees (default 1280x800: screenshots are
                  scaled to fit, coordinates mapped back); -observe-ms N: desktop actions answer with a
                  screenshot once the screen was quiet N ms; -watch-ms N: how long each desktop action
                  watches the screen for its effect (0: the agent's 250 ms, -1: not at all). Logs go to stderr.
  mcp -list [-model WxH]
                  print the tools and their JSON schemas as a model sees them, and exit
`

func (r *runner) mcp(args []string) error {
	fs := r.flagSet("mcp")
	guest := fs.String("guest", "", "guest name")
	model := fs.String("model", mcp.DefaultModelSize.String(), "model display WxH")
	observe := fs.Int("observe-ms", 0, "screenshot after each desktop action once quiet this long")
	watch := fs.Int("watch-ms", 0, "damage watch of each desktop action (0: the agent's 250 ms, -1: none)")
	jpeg := fs.Bool("jpeg", false, "JPEG screenshots")
	label := fs.String("label", "mcp", "session label")
	list := fs.Bool("list", false, "print the tools and exit")
	if err := r.parseNoArgs(fs, "mcp", args); err != nil {
		return err
	}
	size, err := parseSize(*model)
	if err != nil {
		return usagef("mcp", "-model %q: %v", *model, err)
	}
	if *observe < 0 || *observe > 5000 {
		return usagef("mcp", "-observe-ms must be 0..5000, got %d", *observe)
	}
	if *watch < -1 || *watch > 5000 {
		return usagef("mcp", "-watch-ms must be -1..5000, got %d", *watch)
	}
	opts := mcp.Options{Guest: *guest, Label: *label, Model: size, ObserveMS: int32(*observe), WatchMS: int32(*watch), JPEG: *jpeg,
		Logger: slog.New(slog.NewTextHandler(r.env.Stderr, nil))}
	if *list {
		b, err := json.MarshalIndent(mcp.ListTools(opts), "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(r.env.Stdout, "%s\n", b)
		return nil
	}
	if *guest == "" {
		return usagef("mcp", "-guest NAME is required")
	}
	conn, err := r.client()
	if err != nil {
		return err
	}
	s, err := mcp.Open(r.ctx, conn, opts)
	if err != nil {
		return err
	}
	defer s.Close(r.ctx)
	err = s.ServeStdio(r.ctx, io.NopCloser(r.env.Stdin), r.env.Stdout)
	if r.ctx.Err() != nil || err == nil || strings.Contains(err.Error(), "EOF") {
		return nil
	}
	return fmt.Errorf("mcp: %w", err)
}

// parseSize reads "WxH".
func parseSize(s string) (mcp.Size, error) {
	w, h, ok := strings.Cut(s, "x")
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if !ok || err1 != nil || err2 != nil || wi < 16 || hi < 16 || wi > 16384 || hi > 16384 {
		return mcp.Size{}, fmt.Errorf("want WxH, 16..16384 each (1280x800)")
	}
	return mcp.Size{Width: wi, Height: hi}, nil
}
