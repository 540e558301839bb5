package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"glovebox.dev/host/internal/mcp"
)

const usageMCP = `  mcp -guest NAME [-model WxH] [-observe-ms N] [-jpeg] [-label TEXT]
                  serve the Model Context Protocol on stdin/stdout for one broker session on the guest (created
                  now, deleted at exit); -model is the display the model sees (default 1280x800: screenshots are
                  scaled to fit, coordinates mapped back); -observe-ms N: desktop actions answer with a
                  screenshot once the screen was quiet N ms. Logs go to stderr.
  mcp -list [-model WxH]
                  print the tools and their JSON schemas as a model sees them, and exit
`

func (r *runner) mcp(args []string) error {
	fs := r.flagSet("mcp")
	guest := fs.String("guest", "", "guest name")
	model := fs.String("model", mcp.DefaultModelSize.String(), "model display WxH")
	observe := fs.Int("observe-ms", 0, "screenshot after each desktop action once quiet this long")
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
	opts := mcp.Options{Guest: *guest, Label: *label, Model: size, ObserveMS: int32(*observe), JPEG: *jpeg,
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
	t := &sdk.IOTransport{Reader: io.NopCloser(r.env.Stdin), Writer: nopWriteCloser{r.env.Stdout}}
	err = s.Server().Run(r.ctx, t)
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

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
